package rigor_test

import (
	"testing"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/harness"
)

var x uint64 = 0x9e3779b97f4a7c15

// mix is about a nanosecond of work that the compiler cannot remove: a
// call it may not inline, whose result depends on its input.
//
//go:noinline
func mix(v uint64) uint64 { return v*0xff51afd7ed558ccd ^ v>>29 }

var sink uint64

// BenchmarkOneNanosecond measures mix three ways in one run: with
// testing.B's b.Loop, with rigor.Iter, and with testing.B's classic b.N
// loop run through IterCustom (the harness times nothing itself there, so
// no overhead is subtracted). rigor.Iter should agree with testing.B within
// 0.2 ns.
//
//	go test -run '^$' -bench OneNanosecond .
func BenchmarkOneNanosecond(b *testing.B) {
	b.Run("testing.B.Loop", func(b *testing.B) {
		for b.Loop() {
			mix(x)
		}
	})
	b.Run("testing.B.N", func(b *testing.B) {
		for range b.N {
			sink = mix(x)
		}
	})
	g := rigor.NewGroup("mix")
	g.Bench("Iter", func(b *rigor.B) { rigor.Iter(b, func() uint64 { return mix(x) }) })
	g.Bench("bN-loop", func(b *rigor.B) {
		b.IterCustom(func(n int) time.Duration {
			t0 := time.Now()
			for range n {
				sink = mix(x)
			}
			return time.Since(t0)
		})
	})
	g.Bench("empty", func(b *rigor.B) { rigor.Iter(b, func() uint64 { return 0 }) })
	harness.Run(b, g)
}

// BenchmarkIterOverhead reports the raw cost of one iteration of Iter's
// loop around a function that returns a constant: the overhead the harness
// subtracts.
func BenchmarkIterOverhead(b *testing.B) {
	g := rigor.NewGroup("overhead")
	g.Config.KeepLoopOverhead = true
	g.Bench("Iter-int", func(b *rigor.B) { rigor.Iter(b, func() int { return 0 }) })
	g.Bench("B.Iter", func(b *rigor.B) { b.Iter(func() {}) })
	g.Bench("Iter-[64]byte", func(b *rigor.B) { rigor.Iter(b, func() [64]byte { return [64]byte{} }) })
	harness.Run(b, g)
}
