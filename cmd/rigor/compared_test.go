package main

import (
	"testing"

	"github.com/rigorbench/rigor/model"
)

// TestCompared: a run of two sides compared something only when some
// benchmark has samples on both. TestABGateFailsWhenNewCrashes failed 1 in
// 4 on a loaded machine: the new side's panic came in round 1, after the
// baseline's first sample, and with --allow-missing the run exited 0 with
// nothing compared (measured looked for a sample on any side).
func TestCompared(t *testing.T) {
	two := []model.Side{{Label: "old"}, {Label: "new"}}
	sample := func(side string) model.Sample { return model.Sample{Side: side, Round: 1, Iters: 10, Value: 1e-6} }
	bench := func(samples ...model.Sample) model.Benchmark {
		return model.Benchmark{Name: "Work", Pkg: "p", Metrics: []model.Metric{{Unit: "sec/op", Samples: samples}}}
	}
	for _, tc := range []struct {
		name string
		run  *model.Run
		want bool
	}{
		{"both sides", &model.Run{Sides: two, Benchmarks: []model.Benchmark{bench(sample("old"), sample("new"))}}, true},
		{"old only", &model.Run{Sides: two, Benchmarks: []model.Benchmark{bench(sample("old"))}}, false},
		{"old on one, new on another", &model.Run{Sides: two, Benchmarks: []model.Benchmark{bench(sample("old")), bench(sample("new"))}}, false},
		{"one of two benchmarks on both", &model.Run{Sides: two, Benchmarks: []model.Benchmark{bench(sample("old")), bench(sample("old"), sample("new"))}}, true},
		{"nothing", &model.Run{Sides: two, Benchmarks: []model.Benchmark{bench()}}, false},
		{"one side, sampled", &model.Run{Sides: two[:1], Benchmarks: []model.Benchmark{bench(sample("old"))}}, true},
		{"one side, nothing", &model.Run{Sides: two[:1], Benchmarks: []model.Benchmark{bench()}}, false},
	} {
		if got := compared(tc.run); got != tc.want {
			t.Errorf("%s: compared = %v, want %v", tc.name, got, tc.want)
		}
	}
}
