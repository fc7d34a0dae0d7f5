package setbn

import "testing"

var sink int

func work(i int) { sink += i * i }

func BenchmarkAfter(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work(i)
	}
	b.N = 1 // want `b.N written after the timed loop started: testing divides the time by b.N as the benchmark leaves it`
}

func BenchmarkInside(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if i == 10 {
			b.N-- // want `b.N written after the timed loop started`
		}
		work(i)
	}
}

func BenchmarkBefore(b *testing.B) {
	b.N = 1000 // want `b.N written: the benchmark then runs the count it sets, not the b.N testing chose`
	for i := 0; i < b.N; i++ {
		work(i)
	}
}

// Not reported: reading b.N.
func BenchmarkRead(b *testing.B) {
	n := b.N
	for i := 0; i < n; i++ {
		work(i)
	}
	b.ReportMetric(float64(b.N), "n")
}
