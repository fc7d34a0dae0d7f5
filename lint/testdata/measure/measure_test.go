// Package measure times the benchmark mistakes of issue 23 that rigor
// lint's resetloop, elided (a range over b.N elements, a call into
// another package), nobn, setbn, nsize (a helper) and loopexit (b.N
// loops) report, each beside the right benchmark of the same operation.
// See README.md for the command and the numbers. rigor lint reports every
// benchmark here but Work, MixUsed, Sort1000 and OtherPkgUsed.
package measure

import (
	"crypto/sha256"
	"math/rand"
	"sort"
	"testing"

	"measure/other"
)

var (
	buf   = make([]byte, 64)
	sink  [32]byte
	sinkU uint64
)

func work() { sink = sha256.Sum256(buf) } // 140-860 ns on the busy machine of README.md

// The operation itself, measured right.
func BenchmarkWork(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work()
	}
}

// resetloop: every iteration discards the time of those before it.
func BenchmarkResetInNLoop(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.ResetTimer()
		work()
	}
}

func BenchmarkResetInBLoop(b *testing.B) {
	for b.Loop() {
		b.ResetTimer()
		work()
	}
}

// nobn: a fixed 1000 operations, whatever b.N is.
func BenchmarkFixedLoop(b *testing.B) {
	for i := 0; i < 1000; i++ {
		work()
	}
}

// setbn: b.N written after the loop, and before it.
func BenchmarkNOverwritten(b *testing.B) {
	for i := 0; i < b.N; i++ {
		work()
	}
	b.N = 1
}

func BenchmarkNOverwrittenBefore(b *testing.B) {
	b.N = 1000
	for i := 0; i < b.N; i++ {
		work()
	}
}

// loopexit: a return after 100 iterations.
func BenchmarkEarlyReturn(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if i == 100 {
			return
		}
		work()
	}
}

func mix(x uint64) uint64 { x ^= x >> 33; x *= 0xff51afd7ed558ccd; x ^= x >> 33; return x }

func BenchmarkMixUsed(b *testing.B) {
	in := make([]uint64, b.N)
	for i := range in {
		in[i] = uint64(i)
	}
	b.ResetTimer()
	var s uint64
	for _, v := range in {
		s += mix(v)
	}
	sinkU = s
}

// elided: a range over b.N elements whose result is dropped compiles to
// an empty loop.
func BenchmarkMixRangeDiscarded(b *testing.B) {
	in := make([]uint64, b.N)
	for i := range in {
		in[i] = uint64(i)
	}
	b.ResetTimer()
	for _, v := range in {
		mix(v)
	}
}

func BenchmarkOtherPkgUsed(b *testing.B) {
	var s uint64
	for i := 0; i < b.N; i++ {
		s += other.Mix(uint64(i))
	}
	sinkU = s
}

// elided: a pure call into another package, dropped.
func BenchmarkOtherPkgDiscarded(b *testing.B) {
	for i := 0; i < b.N; i++ {
		other.Mix(uint64(i))
	}
}

func makeData(n int) []int {
	r := rand.New(rand.NewSource(1))
	return r.Perm(n)
}

// One sort of 1000 ints per iteration.
func BenchmarkSort1000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		d := makeData(1000)
		b.StartTimer()
		sort.Ints(d)
	}
}

// nsize: one sort of b.N ints, divided by b.N.
func BenchmarkSortNHelper(b *testing.B) {
	data := makeData(b.N)
	b.ResetTimer()
	sort.Ints(data)
}
