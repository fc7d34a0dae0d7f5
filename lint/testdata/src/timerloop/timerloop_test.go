package timerloop

import (
	"slices"
	"testing"
)

var data = []int{3, 1, 2}

func less(a, b int) bool { return a < b }

func reset(s []int) { s[0], s[1], s[2] = 3, 1, 2 }

func BenchmarkSmallStopStart(b *testing.B) {
	s := make([]int, 3)
	for i := 0; i < b.N; i++ {
		b.StopTimer() // want `StopTimer/StartTimer inside the timed loop around a small timed part`
		reset(s)
		b.StartTimer()
		if less(s[0], s[1]) {
			b.Fatal("unsorted")
		}
	}
}

func BenchmarkSmallBLoop(b *testing.B) {
	s := make([]int, 3)
	for b.Loop() {
		b.StopTimer() // want `StopTimer/StartTimer inside the timed loop`
		reset(s)
		b.StartTimer()
		s[0], s[1] = s[1], s[0]
	}
}

func BenchmarkStartFirst(b *testing.B) {
	s := make([]int, 3)
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		reset(s)
		b.StartTimer() // want `StopTimer/StartTimer inside the timed loop`
		s[0]++
		b.StopTimer()
	}
}

// Not reported: the timed part calls code of another package, or loops;
// the pair may be small next to it.
func BenchmarkSortStopStart(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := slices.Clone(data)
		b.StartTimer()
		slices.Sort(s)
	}
}

func BenchmarkLoopInTimed(b *testing.B) {
	s := make([]int, 1000)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		reset(s)
		b.StartTimer()
		for j := range s {
			s[j]++
		}
	}
}

// Not reported: outside the loop.
func BenchmarkOutside(b *testing.B) {
	b.StopTimer()
	s := slices.Clone(data)
	b.StartTimer()
	for i := 0; i < b.N; i++ {
		s[0] = i
	}
}

func count(s []int) int {
	if len(s) == 0 {
		return 0
	}
	return 1 + count(s[1:])
}

// Not reported: recursion has no visible bound.
func BenchmarkRecursive(b *testing.B) {
	s := make([]int, 800)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		reset(s)
		b.StartTimer()
		count(s)
	}
}
