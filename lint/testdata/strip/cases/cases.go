package cases

import (
	"strings"
	"testing"
)

func square(x int) int { return x * x }

// A package-level alias: a parameter of this type is a *testing.B.
type bench = testing.B

// flip and swap are called from a timed part (BenchmarkFlip): no
// results, no loop.
func flip(s []int) { swap(s) }

func swap(s []int) { s[0], s[1] = s[1], s[0] }

// count holds no check: its body is dropped, and strings is then unused.
func count(s []string) int {
	n := 0
	for _, x := range s {
		n += strings.Count(x, "a")
	}
	return n
}

// go/types wants the bodies of init and of generic functions.
func init() {
	for range 2 {
	}
}

func length[T any](s []T) int {
	n := 0
	for range s {
		n++
	}
	return n
}
