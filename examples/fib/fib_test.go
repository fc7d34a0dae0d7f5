package fib

import (
	"context"
	"testing"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/harness"
)

// BenchmarkFib is the full version, with the default budget:
//
//	go test -run '^$' -bench Fib ./examples/fib
//
// fib(21) makes φ ≈ 1.618 times the calls of fib(20): expect "regressed",
// about +62%, with a confidence interval that excludes zero.
func BenchmarkFib(b *testing.B) {
	harness.Run(b, Group())
}

// TestFib is the brief version CI runs. It checks the run's structure and,
// without -short (it times the live machine), the direction of the change
// with generous bounds, never a speed.
func TestFib(t *testing.T) {
	g := Group()
	g.Config.WarmUp = 100 * time.Millisecond
	g.Config.Budget = 300 * time.Millisecond
	run, err := harness.Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Sides) != 2 || run.Sides[0].Label != "fib20" {
		t.Fatalf("sides %v, want fib20 (baseline) and fib21", run.Sides)
	}
	rep, err := analysis.Analyze(run, analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var c *analysis.Change
	for _, m := range rep.Benchmarks[0].Metrics {
		if m.Unit == "sec/op" {
			c = m.Changes[0]
		}
	}
	if c == nil {
		t.Fatal("no sec/op comparison")
	}
	t.Logf("fib21 vs fib20: %+.1f%% [%+.1f%%, %+.1f%%] %s", 100*c.Estimate, 100*c.Lo, 100*c.Hi, c.Verdict)
	if testing.Short() {
		return // the bounds below time the live machine
	}
	// φ - 1 = 61.8%; the bounds only check the direction and rough size.
	if c.Estimate < 0.2 || c.Estimate > 1.2 {
		t.Errorf("fib21 vs fib20: %+.1f%%, want about +62%%", 100*c.Estimate)
	}
	if !(c.Lo > 0) {
		t.Errorf("the CI [%+.1f%%, %+.1f%%] does not exclude zero", 100*c.Lo, 100*c.Hi)
	}
}
