// Package fib is seed 000's recursive Fibonacci function, measured at 20
// and 21 in one rigor group: fib(21) makes about φ ≈ 1.618 times the calls
// of fib(20), so the harness should call it regressed by about +62%, with
// a confidence interval that excludes zero.
package fib

// Fib returns the n-th Fibonacci number the slow way, as seed 000's
// fibonacci does (fib(0) = fib(1) = 1).
func Fib(n uint64) uint64 {
	if n < 2 {
		return 1
	}
	return Fib(n-1) + Fib(n-2)
}
