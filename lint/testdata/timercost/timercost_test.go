package timercost

import (
	"testing"
	"time"
)

var sink uint64

func work(x uint64) uint64 { x *= 0x9E3779B97F4A7C15; return x ^ x>>29 }

// BenchmarkPairWall: the wall time of one StopTimer/StartTimer pair,
// reported as a custom metric (the timer itself is mostly stopped).
func BenchmarkPairWall(b *testing.B) {
	t0 := time.Now()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		b.StartTimer()
	}
	b.ReportMetric(float64(time.Since(t0).Nanoseconds())/float64(b.N), "wall-ns/pair")
}

// BenchmarkSmallPlain and BenchmarkSmallStopStart time the same 1-ns body,
// with and without a StopTimer/StartTimer pair around nothing per iteration:
// the difference in ns/op is what the pair adds to a measurement.
func BenchmarkSmallPlain(b *testing.B) {
	x := uint64(1)
	for i := 0; i < b.N; i++ {
		x = work(x)
	}
	sink = x
}

func BenchmarkSmallStopStart(b *testing.B) {
	x := uint64(1)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		b.StartTimer()
		x = work(x)
	}
	sink = x
}
