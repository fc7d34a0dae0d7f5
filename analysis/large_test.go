package analysis

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// largeRun is 1,000 benchmarks x 10 samples per side x 3 units, the size
// of the compare speed target.
func largeRun() *model.Run {
	rng := rand.New(rand.NewPCG(7, 7))
	run := &model.Run{Kind: model.KindFiles, Sides: []model.Side{{Label: "old"}, {Label: "new"}}}
	for b := 0; b < 1000; b++ {
		bench := model.Benchmark{Name: fmt.Sprintf("F%d", b), Procs: 2}
		units := []string{"sec/op", "B/op", "allocs/op"}
		for u, unit := range units {
			m := model.Metric{Unit: unit, Better: model.LowerIsBetter}
			for r := 0; r < 10; r++ {
				for s, side := range []string{"old", "new"} {
					v := float64(100 + b)
					if u == 0 {
						v *= (1 - 0.03*float64(s)) * (1 + 0.03*rng.NormFloat64())
					}
					m.Samples = append(m.Samples, model.Sample{Side: side, Round: r, Iters: 1000000, Value: v})
				}
			}
			bench.Metrics = append(bench.Metrics, m)
		}
		run.Benchmarks = append(run.Benchmarks, bench)
	}
	return run
}

// BenchmarkAnalyzeLarge measures the analysis behind the compare speed
// target (at most twice benchstat's time on the same files).
func BenchmarkAnalyzeLarge(b *testing.B) {
	run := largeRun()
	opts := DefaultOptions()
	for b.Loop() {
		if _, err := Analyze(run, opts); err != nil {
			b.Fatal(err)
		}
	}
}
