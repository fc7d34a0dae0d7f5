// Package windowcheck's benchmarks exercise every way a benchmark drives
// its timer, for the timer overlay's tests (package window).
package windowcheck

import (
	"fmt"
	"testing"
	"time"
)

var sink uint64

// work is n dependent steps of a linear congruential generator: CPU-bound,
// no allocation, no system call.
func work(n int) {
	x := sink
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

func BenchmarkN(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work(20000)
	}
}

// BenchmarkStopStart does 20 times more work with its timer stopped than
// with it running.
func BenchmarkStopStart(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		work(400000)
		b.StartTimer()
		work(20000)
	}
}

// BenchmarkReset sets up for far longer than it measures.
func BenchmarkReset(b *testing.B) {
	work(100_000_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		work(20000)
	}
}

func BenchmarkParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			work(20000)
		}
	})
}

func BenchmarkSub(b *testing.B) {
	for _, n := range []int{10000, 20000} {
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				work(n)
			}
		})
	}
}

// BenchmarkMetric reports a metric of its own beside the overlay's.
func BenchmarkMetric(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work(20000)
	}
	b.ReportMetric(7, "things/op")
}

// BenchmarkSleep blocks its thread in every operation: the overlay counts
// its voluntary context switches.
func BenchmarkSleep(b *testing.B) {
	for i := 0; i < b.N; i++ {
		time.Sleep(100 * time.Microsecond)
	}
}

// BenchmarkPingPong hands a value to another goroutine and back: at
// GOMAXPROCS 2 each side's thread sleeps while the other runs.
func BenchmarkPingPong(b *testing.B) {
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v
		}
	}()
	for i := 0; i < b.N; i++ {
		ping <- i
		<-pong
	}
	close(ping)
}
