package rigorsink

import (
	"slices"
	"testing"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/harness"
)

func square(x int) int { return x * x }

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func BenchmarkDropped(b *testing.B) {
	x := 3
	g := rigor.NewGroup("sq")
	g.Bench("dropped", func(b *rigor.B) {
		b.Iter(func() {
			square(x) // want `result of square discarded: the compiler deletes this pure call`
		})
	})
	g.Bench("blank", func(b *rigor.B) {
		rigor.Iter(b, func() int {
			_ = square(x) // want `assigned to _`
			return 0
		})
	})
	g.Bench("constant", func(b *rigor.B) {
		rigor.Iter(b, func() int { return square(17) }) // want `square\(17\) has constant arguments`
	})
	harness.Run(b, g)
}

// Not reported.
func BenchmarkGood(b *testing.B) {
	x := 3
	data := []int{3, 1, 2}
	g := rigor.NewGroup("good")
	g.Bench("returned", func(b *rigor.B) { rigor.Iter(b, func() int { return square(x) }) })
	g.Bench("sunk", func(b *rigor.B) { b.Iter(func() { rigor.Sink(square(x)) }) })
	g.Bench("opaque", func(b *rigor.B) { rigor.Iter(b, func() int { return square(rigor.Opaque(17)) }) })
	g.Bench("recursive", func(b *rigor.B) { rigor.Iter(b, func() int { return fib(20) }) })
	g.Bench("setup", func(b *rigor.B) {
		rigor.IterWithSetup(b, func() []int { return slices.Clone(data) },
			func(v []int) []int { slices.Sort(v); return v })
	})
	harness.Run(b, g)
}
