package loopmix

import "testing"

var sink int

func work(i int) int { sink += i; return sink }

func BenchmarkNBefore(b *testing.B) {
	for i := 0; i < b.N; i++ { // want `b.N is 1 before b.Loop starts, so this loop runs once`
		work(i)
	}
	for b.Loop() {
		work(1)
	}
}

func BenchmarkNAfter(b *testing.B) {
	for b.Loop() {
		work(1)
	}
	for range b.N { // want `b.N loop after b.Loop`
		work(2)
	}
}

func BenchmarkNInside(b *testing.B) {
	for b.Loop() {
		work(b.N) // want `b.N is 0 inside a b.Loop loop`
	}
}

func BenchmarkNSize(b *testing.B) {
	s := make([]int, b.N) // want `b.N is 1 before b.Loop starts`
	for b.Loop() {
		work(len(s))
	}
}

// Not reported: b.N after the loop is the iteration count.
func BenchmarkNMetric(b *testing.B) {
	n := 0
	for b.Loop() {
		n += work(1)
	}
	b.ReportMetric(float64(n)/float64(b.N), "x/op")
}

// Not reported: b.N style alone.
func BenchmarkNOnly(b *testing.B) {
	s := make([]int, b.N)
	for i := 0; i < b.N; i++ {
		s[i] = work(i)
	}
}
