package aa

import (
	"context"
	"testing"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/analysis"
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
	rigor.Run(b, group())
}

// TestAA runs the group with its default configuration and budget. It
// must never call the difference significant; on a quiet machine it ends
// unchanged (a busy one may leave it inconclusive, which the log says).
func TestAA(t *testing.T) {
	g := group()
	run, err := g.Measure(context.Background())
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
			if m.Unit == "sec/op" && (c.Verdict == analysis.Improved || c.Verdict == analysis.Regressed) {
				t.Errorf("A/A %s: %s", m.Unit, c.Verdict)
			}
		}
	}
	t.Logf("%d rounds, stopped: %s", len(run.Benchmarks[0].Metric("sec/op").Values("A")), run.Benchmarks[0].Config["stopped"])
}
