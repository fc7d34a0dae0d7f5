package bloopexp

import "testing"

func square(x uint64) uint64 { return x * x }

// mix is pure, inlinable, and costs ~1ns: three dependent multiplies.
func mix(x uint64) uint64 {
	x *= 0x9E3779B97F4A7C15
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	return x ^ x>>32
}

// spin is pure with a loop: does dead-code elimination remove a loop?
func spin(x uint64) uint64 {
	for i := 0; i < 64; i++ {
		x = x*x + 1
	}
	return x
}

var Sink uint64

func BenchmarkN_Blank(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = mix(uint64(i))
	}
}
func BenchmarkN_Stmt(b *testing.B) {
	for i := 0; i < b.N; i++ {
		mix(uint64(i))
	}
}
func BenchmarkN_Sink(b *testing.B) {
	var s uint64
	for i := 0; i < b.N; i++ {
		s += mix(uint64(i))
	}
	Sink = s
}
func BenchmarkN_SpinBlank(b *testing.B) {
	for i := 0; i < b.N; i++ {
		_ = spin(uint64(i))
	}
}
func BenchmarkN_SpinSink(b *testing.B) {
	var s uint64
	for i := 0; i < b.N; i++ {
		s += spin(uint64(i))
	}
	Sink = s
}
func BenchmarkLoop_Blank(b *testing.B) {
	i := uint64(0)
	for b.Loop() {
		_ = mix(i)
		i++
	}
}
func BenchmarkLoop_Stmt(b *testing.B) {
	i := uint64(0)
	for b.Loop() {
		mix(i)
		i++
	}
}
func BenchmarkLoop_Const(b *testing.B) {
	for b.Loop() {
		mix(17)
	}
}
func BenchmarkLoop_Invariant(b *testing.B) {
	x := uint64(17)
	for b.Loop() {
		mix(x)
	}
}
func BenchmarkLoop_Nested(b *testing.B) {
	i := uint64(0)
	for b.Loop() {
		if i >= 0 {
			mix(i)
		}
		i++
	}
}
func BenchmarkLoop_Closure(b *testing.B) {
	i := uint64(0)
	for b.Loop() {
		func() { mix(i) }()
		i++
	}
}
func BenchmarkLoop_Expr(b *testing.B) {
	i := uint64(0)
	for b.Loop() {
		_ = i * 0x9E3779B97F4A7C15 * i * i
		i++
	}
}
func BenchmarkLoop_SpinConst(b *testing.B) {
	for b.Loop() {
		spin(17)
	}
}
func BenchmarkLoop_Cond(b *testing.B) {
	i := uint64(0)
	for b.Loop() {
		if mix(i) == 3 {
		}
		i++
	}
}
func BenchmarkLoop_Empty(b *testing.B) {
	for b.Loop() {
	}
}
func BenchmarkN_Empty(b *testing.B) {
	for i := 0; i < b.N; i++ {
	}
}
func BenchmarkLoop_InvariantVar(b *testing.B) {
	x := Sink
	for b.Loop() {
		mix(x)
	}
}
