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

// BenchmarkLookOneBenchmark measures one look of the stopping rule at a
// paired run of one benchmark after 20 rounds whose iteration counts vary
// fourfold (as replanned samples do), with the analysis's default 10000
// bootstrap resamples and with the rule's own (lookResamples).
func BenchmarkLookOneBenchmark(b *testing.B) {
	run := &model.Run{Kind: model.KindAB, Paired: true, Sides: []model.Side{{Label: "old"}, {Label: "new"}}}
	rng := NewRand(1)
	bm := model.Benchmark{Name: "B", Pkg: "p"}
	for _, unit := range []string{"sec/op", "cpu-sec/op", "B/op", "allocs/op"} {
		m := model.Metric{Unit: unit, Better: model.DefaultBetter(unit)}
		for r := 1; r <= 20; r++ {
			iters := int64(500 + 100*r)
			for _, side := range []string{"old", "new"} {
				v := 60e-6 * (1 + 0.02*rng.NormFloat64())
				if unit == "B/op" || unit == "allocs/op" {
					v = 0
				}
				m.Samples = append(m.Samples, model.Sample{Side: side, Round: r, Iters: iters, Value: v})
			}
		}
		bm.Metrics = append(bm.Metrics, m)
	}
	run.Benchmarks = []model.Benchmark{bm}
	for _, n := range []int{10000, lookResamples} {
		b.Run(fmt.Sprintf("resamples=%d", n), func(b *testing.B) {
			opts := analysis.DefaultOptions()
			opts.Resamples = n
			for b.Loop() {
				if _, err := analysis.Analyze(run, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
