package nsize

import (
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
)

func BenchmarkSortN(b *testing.B) {
	data := rand.Perm(b.N)
	sort.Ints(data) // want `sort.Ints gets all b.N elements of data \(made by rand.Perm\(b.N\)\) in one call`
}

func BenchmarkJoinN(b *testing.B) {
	parts := make([]string, b.N)
	for i := range parts {
		parts[i] = "x"
	}
	b.ResetTimer()
	_ = strings.Join(parts, ",") // want `strings.Join gets all b.N elements of parts`
}

// b.N as the input size through a helper (issue 23).
func makeData(n int) []int {
	r := rand.New(rand.NewSource(1))
	data := make([]int, n)
	for i := range data {
		data[i] = r.Int()
	}
	return data
}

func permuted(n int) []int {
	r := rand.New(rand.NewSource(1))
	return r.Perm(n)
}

func BenchmarkSortHelper(b *testing.B) {
	data := makeData(b.N)
	b.ResetTimer()
	sort.Ints(data) // want `sort.Ints gets all b.N elements of data \(made by makeData\(b.N\)\) in one call`
}

func BenchmarkSortPermuted(b *testing.B) {
	data := permuted(b.N)
	slices.Sort(data) // want `slices.Sort gets all b.N elements of data`
}

// Not reported: the helper's result is not as long as its parameter says
// on every path, or the helper takes no size.
func firstN(n int) []int {
	if n > 100 {
		return nil
	}
	return make([]int, n)
}

func fixed(int) []int { return make([]int, 1000) }

func BenchmarkNotSized(b *testing.B) {
	a, c := firstN(b.N), fixed(b.N)
	sort.Ints(a)
	sort.Ints(c)
}

// Not reported: b.N-sized data is one input per iteration of a timed loop.
func BenchmarkInputs(b *testing.B) {
	data := rand.Perm(b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = data[i] * 2
	}
}

// Not reported: the set-up fills the data before ResetTimer.
func BenchmarkFilled(b *testing.B) {
	data := make([]int, b.N)
	copy(data, rand.Perm(b.N))
	b.ResetTimer()
	for _, v := range data {
		_ = slices.Contains(data[:1], v)
	}
}

// Not reported: a channel of b.N counts operations (one completion each),
// received one at a time, as fasthttp's server benchmarks do; draining it
// is linear by construction.
func BenchmarkServedN(b *testing.B) {
	done := make(chan struct{}, b.N)
	go func() {
		for range b.N {
			done <- struct{}{}
		}
	}()
	drain(b, done)
}

func drain(b *testing.B, ch <-chan struct{}) {
	for range b.N {
		<-ch
	}
}
