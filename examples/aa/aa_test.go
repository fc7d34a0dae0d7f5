package aa

import (
	"context"
	"math"
	"testing"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/harness"
	"github.com/rigorbench/rigor/stats"
)

func group() *rigor.Group {
	g := rigor.NewGroup("aa")
	g.Bench("A", func(b *rigor.B) { rigor.Iter(b, func() int { return Work(rigor.Opaque(100)) }) })
	g.Bench("A'", func(b *rigor.B) { rigor.Iter(b, func() int { return Work(rigor.Opaque(100)) }) })
	return g
}

// BenchmarkAA is the full version:
//
//	go test -run '^$' -bench AA ./examples/aa
//
// Expect "unchanged", the CI inside ±1%.
func BenchmarkAA(b *testing.B) {
	harness.Run(b, group())
}

// TestAA runs the group with its default configuration and budget. Two
// identical variants must never be called different: the verdict on time
// is unchanged or, on a machine too busy to resolve ±1% within the budget,
// inconclusive, never regressed or improved (the analysis's interval is
// the signed-rank interval around the Hodges-Lehmann center of the
// per-round log ratios, which one preempted round cannot drag past the
// noise band). Which of the two it is depends on the machine's load, so it
// is logged, not asserted. The median per-round ratio must also be within
// 2% of 1. It does not run under -short.
func TestAA(t *testing.T) {
	if testing.Short() {
		t.Skip("times the live machine for the default budget: a busy machine can move the per-round ratios; run without -short")
	}
	g := group()
	run, err := harness.Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.Analyze(run, analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rep.Benchmarks[0].Metrics {
		for _, c := range m.Changes {
			if c == nil {
				continue
			}
			t.Logf("%s: %+.2f%% [%+.2f%%, %+.2f%%] %s (%s)", m.Unit, 100*c.Estimate, 100*c.Lo, 100*c.Hi, c.Verdict, c.Reason)
			if c.Verdict == analysis.Regressed || c.Verdict == analysis.Improved {
				t.Errorf("A/A: %s %s (%s): the same function measured twice was called different", m.Unit, c.Verdict, c.Reason)
			}
		}
	}
	sec := run.Benchmarks[0].Metric("sec/op")
	a, b := sec.BySide("A"), sec.BySide("A'")
	var logs []float64
	for k := range min(len(a), len(b)) {
		if a[k].Value > 0 && b[k].Value > 0 {
			logs = append(logs, math.Log(b[k].Value/a[k].Value))
		}
	}
	if r := math.Expm1(stats.Median(logs)); math.Abs(r) > 0.02 {
		t.Errorf("A/A: the median per-round ratio is %+.2f%% from 1 over %d rounds", 100*r, len(logs))
	}
	t.Logf("%d rounds, stopped: %s", len(logs), run.Benchmarks[0].Config["stopped"])
}
