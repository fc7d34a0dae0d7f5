package experiment

import (
	"fmt"
	"testing"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// BenchmarkStoppingRule measures the analysis run after every round for a
// run of 20 benchmarks with 4 metrics each, after 30 paired rounds.
func BenchmarkStoppingRule(b *testing.B) {
	run := &model.Run{Kind: model.KindAB, Paired: true, Sides: []model.Side{{Label: "old"}, {Label: "new"}}}
	rng := NewRand(1)
	for i := range 20 {
		bm := model.Benchmark{Name: fmt.Sprint("B", i), Pkg: "p"}
		for _, unit := range []string{"sec/op", "B/s", "B/op", "allocs/op"} {
			m := model.Metric{Unit: unit, Better: model.DefaultBetter(unit)}
			for r := 1; r <= 30; r++ {
				for _, side := range []string{"old", "new"} {
					v := 100.0
					if unit == "sec/op" || unit == "B/s" {
						v *= 1 + 0.05*rng.NormFloat64()
					}
					m.Samples = append(m.Samples, model.Sample{Side: side, Round: r, Iters: 1000, Value: v})
				}
			}
			bm.Metrics = append(bm.Metrics, m)
		}
		run.Benchmarks = append(run.Benchmarks, bm)
	}
	opts := analysis.DefaultOptions()
	for b.Loop() {
		if _, err := Unresolved(run, opts); err != nil {
			b.Fatal(err)
		}
	}
}
