package cases

import (
	"sort"
	"testing"

	"example.com/cases/bx"
)

// The parameter's type is the package's alias of testing.B.
func helperAlias(b *bench) {
	for i := 0; i < b.N; i++ {
		square(i) // finding: elided
	}
}

// The parameter's type is another package's alias, found in its types.
func helperCross(b *bx.B) {
	for i := 0; i < b.N; i++ {
		square(i) // finding: elided
	}
}

// A function literal that takes a *testing.B, in a function that does not.
func benches() []func(*testing.B) {
	var fs []func(*testing.B)
	for range 2 {
		fs = append(fs, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				square(i) // finding: elided
			}
		})
	}
	return fs
}

// A local alias of testing.B.
func localAlias() {
	type bb = testing.B
	f := func(b *bb) {
		for i := 0; i < b.N; i++ {
			square(i) // finding: elided
		}
	}
	for range 1 {
		_ = f
	}
}

// RunParallel, on a *testing.B this function does not take.
func runParallel(h holder) {
	for range 1 {
		h.b.RunParallel(func(pb *testing.PB) {}) // finding: parallel
	}
}

// Iter on a *rigor.B, in a file that does not import rigor.
func runIter(h holder, x int) {
	for range 1 {
		h.rb.Iter(func() {
			square(x) // finding: rigorsink
		})
	}
}

// The timed part calls flip, which calls swap: both are read.
func BenchmarkFlip(b *testing.B) {
	s := []int{1, 2}
	for i := 0; i < b.N; i++ {
		b.StopTimer() // finding: timerloop
		s[0] = 1
		b.StartTimer()
		flip(s)
	}
}

// A helper whose only small call is in a function that takes no
// *testing.B: that caller is read.
func sortHelper(b *testing.B, size int) {
	data := make([]int, size)
	for i := 0; i < b.N; i++ {
		b.StopTimer() // finding: timerloop
		for j := range data {
			data[j] = j ^ 0x2cc
		}
		b.StartTimer()
		sort.Ints(data)
	}
}

func callHelper(h holder) {
	for range 1 {
		sortHelper(h.b, 100)
	}
}

// Dropped: a loop, no entry point.
func TestDropped(t *testing.T) {
	for i := range 3 {
		if count([]string{"a"}) != 1 || length([]int{i}) != 1 {
			t.Fatal("count")
		}
	}
}
