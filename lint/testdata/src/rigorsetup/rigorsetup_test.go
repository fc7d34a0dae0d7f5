package rigorsetup

import (
	"slices"
	"testing"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/harness"
)

func BenchmarkSetupIgnored(b *testing.B) {
	data := []int{3, 1, 2}
	g := rigor.NewGroup("sort")
	g.Bench("sort", func(b *rigor.B) {
		rigor.IterWithSetup(b, func() []int { return slices.Clone(data) },
			func(_ []int) []int { slices.Sort(data); return data }) // want `routine never reads the value setup returns`
	})
	harness.Run(b, g)
}

// Not reported.
func BenchmarkGoodSetup(b *testing.B) {
	data := []int{3, 1, 2}
	g := rigor.NewGroup("sort")
	g.Bench("setup", func(b *rigor.B) {
		rigor.IterWithSetup(b, func() []int { return slices.Clone(data) },
			func(v []int) []int { slices.Sort(v); return v })
	})
	harness.Run(b, g)
}

// Not reported: a stub routine that reads nothing from outside.
func BenchmarkStubRoutine(b *testing.B) {
	g := rigor.NewGroup("stub")
	g.Bench("stub", func(b *rigor.B) {
		rigor.IterWithSetup(b, func() int { return 1 }, func(int) int { return 1 })
	})
	harness.Run(b, g)
}
