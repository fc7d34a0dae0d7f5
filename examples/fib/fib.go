// Package fib is the recursive Fibonacci function of Criterion.rs's user
// guide ("Getting Started" and "Comparing Functions"), measured at 20
// and 21 in one rigor group: fib(21) makes about φ ≈ 1.618 times the calls
// of fib(20), so the harness should call it regressed by about +62%, with
// a confidence interval that excludes zero.
package fib

import "github.com/rigorbench/rigor"

// Fib returns the n-th Fibonacci number the slow way, as Criterion.rs's
// guide's fibonacci does (fib(0) = fib(1) = 1).
func Fib(n uint64) uint64 {
	if n < 2 {
		return 1
	}
	return Fib(n-1) + Fib(n-2)
}

// Group is fib(20) against fib(21). The argument goes through
// rigor.Opaque so that the compiler cannot specialise Fib for a constant.
func Group() *rigor.Group {
	g := rigor.NewGroup("fib")
	g.Bench("fib20", func(b *rigor.B) { rigor.Iter(b, func() uint64 { return Fib(rigor.Opaque[uint64](20)) }) })
	g.Bench("fib21", func(b *rigor.B) { rigor.Iter(b, func() uint64 { return Fib(rigor.Opaque[uint64](21)) }) })
	return g
}
