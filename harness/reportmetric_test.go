package harness

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/report"
)

// A metric reported with B.ReportMetric is a metric of the run in its own
// unit, each timed round's sample the value reported, as given (not
// divided by the iterations), and is compared with its own verdict in
// every format, its direction from its unit.
func TestReportedMetric(t *testing.T) {
	g := rigor.NewGroup("reported")
	g.Config = quick()
	g.Config.MinRounds, g.Config.MaxRounds = 10, 10
	// widgets/op: 10 (a) and 20 (b), plus a thousandth of the sample's
	// iteration count mod 7, so that it varies and the expected value of
	// every sample is known from its Iters. items/s (higher is better):
	// 5 and 4, the same way.
	jitter := func(n int) float64 { return 0.001 * float64(n%7) }
	variant := func(widgets, items float64) func(*rigor.B) {
		return func(b *rigor.B) {
			b.IterCustom(func(n int) time.Duration { return time.Duration(n) * time.Microsecond })
			b.ReportMetric(widgets+jitter(b.Iters()), "widgets/op")
			b.ReportMetric(items+jitter(b.Iters()), "items/s")
		}
	}
	g.Bench("a", variant(10, 5))
	g.Bench("b", variant(20, 4))
	run, err := Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	bm := run.Benchmarks[0]
	for _, tt := range []struct {
		unit   string
		better int
		base   map[string]float64
	}{
		{"widgets/op", model.LowerIsBetter, map[string]float64{"a": 10, "b": 20}},
		{"items/s", model.HigherIsBetter, map[string]float64{"a": 5, "b": 4}},
	} {
		m := bm.Metric(tt.unit)
		if m == nil {
			t.Fatalf("no %s metric; metrics %v", tt.unit, bm.Metrics)
		}
		if m.Better != tt.better {
			t.Errorf("%s: better %d, want %d", tt.unit, m.Better, tt.better)
		}
		if len(m.Samples) != 20 {
			t.Errorf("%s: %d samples, want 10 rounds × 2 variants", tt.unit, len(m.Samples))
		}
		for _, s := range m.Samples {
			if want := tt.base[s.Side] + jitter(int(s.Iters)); s.Value != want {
				t.Errorf("%s %s round %d (%d iterations): %v, want %v", tt.unit, s.Side, s.Round, s.Iters, s.Value, want)
			}
		}
	}

	rep, err := analyze(withDefaults(g.Config), run, 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	// b/a - 1 is 20/10 - 1 = +100% and 4/5 - 1 = -20%, within the
	// jitter: (20 ± 0.006)/(10 ± 0.006) and (4 ± 0.006)/(5 ± 0.006).
	for _, tt := range []struct {
		unit   string
		change float64
	}{
		{"widgets/op", 1},
		{"items/s", -0.2},
	} {
		var m *analysis.Metric
		for i := range rep.Benchmarks[0].Metrics {
			if rep.Benchmarks[0].Metrics[i].Unit == tt.unit {
				m = &rep.Benchmarks[0].Metrics[i]
			}
		}
		if m == nil || len(m.Changes) != 1 || m.Changes[0] == nil {
			t.Fatalf("%s: no change in the report (%+v)", tt.unit, m)
		}
		c := m.Changes[0]
		if math.Abs(c.Estimate-tt.change) > 0.002 || c.Verdict != analysis.Regressed || m.DerivedFrom != "" || m.Context != "" {
			t.Errorf("%s: change %+.4f %s (derived from %q, context %q), want %+.2f regressed, its own verdict",
				tt.unit, c.Estimate, c.Verdict, m.DerivedFrom, m.Context, tt.change)
		}
	}
	for _, format := range []string{"text", "json", "csv", "md", "html"} {
		var buf bytes.Buffer
		if err := report.Render(&buf, rep, report.Options{Format: format}); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		for _, unit := range []string{"widgets/op", "items/s"} {
			if !strings.Contains(buf.String(), unit) {
				t.Errorf("%s report does not show %s", format, unit)
			}
		}
	}
}
