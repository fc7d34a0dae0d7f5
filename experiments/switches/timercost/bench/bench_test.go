// Package bench has the benchmarks experiments/switches/timercost builds
// with rigor's timer overlay: what a StopTimer and StartTimer cost, and
// what the overlay reports for a benchmark that computes and one that
// sleeps.
package bench

import (
	"testing"
	"time"
)

var sink uint64

func work(n int) {
	x := sink
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

// BenchmarkStopStart reports what a StopTimer and a StartTimer cost
// together, read on a clock of its own around the loop (the testing
// package's timer sees only part of each).
func BenchmarkStopStart(b *testing.B) {
	t0 := time.Now()
	for range b.N {
		b.StopTimer()
		b.StartTimer()
	}
	b.ReportMetric(float64(time.Since(t0).Nanoseconds())/float64(b.N), "pair-ns/op")
}

// BenchmarkStopStartWork does a little work between the calls, as a
// benchmark that stops its timer around its set-up does.
func BenchmarkStopStartWork(b *testing.B) {
	t0 := time.Now()
	for range b.N {
		b.StopTimer()
		work(1000)
		b.StartTimer()
		work(1000)
	}
	b.ReportMetric(float64(time.Since(t0).Nanoseconds())/float64(b.N), "pair-ns/op")
}

func BenchmarkCompute(b *testing.B) {
	for range b.N {
		work(20000)
	}
}

func BenchmarkSleep(b *testing.B) {
	for range b.N {
		time.Sleep(50 * time.Microsecond)
	}
}
