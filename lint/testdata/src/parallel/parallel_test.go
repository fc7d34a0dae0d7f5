package parallel

import (
	"sync"
	"sync/atomic"
	"testing"
)

var sink int

func work(i int) int { return i * i }

func BenchmarkNoNext(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) { // want `RunParallel body never calls pb.Next`
		work(1)
	})
}

func BenchmarkSharedSink(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			sink = work(2) // want `sink is declared outside the RunParallel body`
		}
	})
}

func BenchmarkSharedLocal(b *testing.B) {
	n := 0
	m := map[int]int{}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n++      // want `n is declared outside the RunParallel body`
			m[n] = n // want `m is declared outside the RunParallel body`
		}
	})
}

// Not reported.
func BenchmarkLocal(b *testing.B) {
	var total atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		s := 0
		for pb.Next() {
			s += work(3)
		}
		total.Add(int64(s))
	})
}

func BenchmarkLocked(b *testing.B) {
	var mu sync.Mutex
	n := 0
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			n++
			mu.Unlock()
		}
	})
}

func loop(pb *testing.PB) {
	for pb.Next() {
	}
}

func BenchmarkHelper(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) { loop(pb) })
}
