package elided

import (
	"math"
	"math/bits"
	"strconv"
	"testing"

	"purelib"
)

func square(x uint64) uint64 { return x * x }

func mix(x uint64) uint64 { x *= 0x9E3779B97F4A7C15; return x ^ x>>29 }

func spin(x uint64) uint64 { // a loop: the compiler keeps it
	for i := 0; i < 64; i++ {
		x = x*x + 1
	}
	return x
}

var global uint64

func store(x uint64) uint64 { global = x; return x } // a write: not pure

//go:noinline
func opaque(x uint64) uint64 { return x * x }

func load(p *uint64) uint64 { return *p + 1 } // pure, but reads memory: does not fold

var Sink uint64

// Seed 003's elided benchmark.
func BenchmarkElided(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = square(uint64(i)) // want `result of square assigned to _: the compiler deletes this pure call`
	}
}

// Seed 003's kept benchmark: b.Loop keeps the assigned x alive, and x
// depends on the previous iteration.
func BenchmarkKept(b *testing.B) {
	x := uint64(17)
	for b.Loop() {
		x = square(x + 1)
	}
}

func BenchmarkStatement(b *testing.B) {
	for range b.N {
		mix(uint64(b.N)) // want `result of mix discarded`
	}
}

func BenchmarkExpression(b *testing.B) {
	x := uint64(3)
	for i := 0; i < b.N; i++ {
		_ = x*uint64(i) + 1 // want `pure expression`
	}
}

func BenchmarkNeverRead(b *testing.B) {
	var r uint64
	for i := 0; i < b.N; i++ {
		r = mix(uint64(i)) // want `assigned to a variable never read`
	}
	_ = r
}

func BenchmarkStdlib(b *testing.B) {
	f := 2.0
	for i := 0; i < b.N; i++ {
		_ = math.Sqrt(f)                 // want `assigned to _`
		bits.OnesCount64(uint64(i))      // want `result of bits.OnesCount64 discarded`
		_ = strconv.Itoa(i)              // calls the runtime: kept
		_ = purelib.Double(i)            // want `assigned to _`
		_ = purelib.Sum([]int{i, i + 1}) // a loop: kept
	}
}

// Constant arguments fold, whatever the loop.
func BenchmarkConstantNLoop(b *testing.B) {
	var x float64
	for i := 0; i < b.N; i++ {
		x = math.Abs(-0.5) // want `math.Abs\(-0.5\) has constant arguments`
	}
	Sink = uint64(x)
}

func BenchmarkConstantBLoop(b *testing.B) {
	for b.Loop() {
		mix(17) // want `mix\(17\) has constant arguments`
	}
}

func BenchmarkConstantLocal(b *testing.B) {
	x := uint64(17)
	for b.Loop() {
		mix(x) // want `mix\(x\) has constant arguments`
	}
}

// Not reported.

func BenchmarkUsed(b *testing.B) {
	var s uint64
	for i := 0; i < b.N; i++ {
		s += mix(uint64(i))
	}
	Sink = s
}

func BenchmarkBLoopKeeps(b *testing.B) {
	i := uint64(0)
	for b.Loop() {
		mix(i)
		_ = square(i)
		i++
	}
}

func BenchmarkNotPure(b *testing.B) {
	for i := 0; i < b.N; i++ {
		store(uint64(i))
		opaque(uint64(i))
		spin(uint64(i))
		_ = load(&Sink)
	}
}

func BenchmarkVariableInput(b *testing.B) {
	x := Sink
	for b.Loop() {
		mix(x)
	}
}

func BenchmarkChangedLocal(b *testing.B) {
	x := uint64(17)
	x++
	for b.Loop() {
		mix(x)
	}
}

func BenchmarkLoadFromConstantPointer(b *testing.B) {
	for b.Loop() {
		load(nil)
	}
}

// The counter is unused: the fix turns the loop into b.Loop.
func BenchmarkFixable(b *testing.B) {
	x := Sink
	for i := 0; i < b.N; i++ {
		mix(x) // want `result of mix discarded`
	}
}

// No fix: b.N sizes the input, and would be 1 before a b.Loop loop.
func BenchmarkNotFixable(b *testing.B) {
	in := make([]uint64, b.N)
	x := in[0]
	for i := 0; i < b.N; i++ {
		mix(x) // want `result of mix discarded`
	}
}
