package timerloop

import (
	"slices"
	"testing"
)

var data = []int{3, 1, 2}

func BenchmarkSortStopStart(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer() // want `StopTimer/StartTimer inside the timed loop: each pair adds about 65 ns`
		s := slices.Clone(data)
		b.StartTimer()
		slices.Sort(s)
	}
}

func BenchmarkBLoop(b *testing.B) {
	for b.Loop() {
		b.StopTimer() // want `StopTimer/StartTimer inside the timed loop`
		s := slices.Clone(data)
		b.StartTimer()
		slices.Sort(s)
	}
}

// Not reported: outside the loop.
func BenchmarkOutside(b *testing.B) {
	b.StopTimer()
	s := slices.Clone(data)
	b.StartTimer()
	for i := 0; i < b.N; i++ {
		slices.Sort(s)
	}
}
