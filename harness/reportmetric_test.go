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

// A unit reported with B.ReportMetric by one variant that is another
// variant's throughput unit (SetThroughput's "items/s") is one metric, as
// it is in go test's output and for benchstat: each variant's samples come
// from its throughput or its report. (One variant cannot do both: its
// throughput is the harness's to measure, see TestReportMetric.) Before,
// the benchmark held two metrics of one unit, and every reader of the unit
// saw only the first.
func TestReportedThroughputUnit(t *testing.T) {
	g := rigor.NewGroup("tpunit")
	g.Config = quick()
	g.Config.MinRounds, g.Config.MaxRounds = 10, 10
	micro := func(n int) time.Duration { return time.Duration(n) * time.Microsecond }
	// a: 3 items a call at 1 µs a call, 3e6 items/s from its time.
	g.Bench("a", func(b *rigor.B) { b.SetThroughput(3, "items"); b.IterCustom(micro) })
	// b and c report 2e6 and 1e6 items/s of their own.
	g.Bench("b", func(b *rigor.B) { b.IterCustom(micro); b.ReportMetric(2e6, "items/s") })
	g.Bench("c", func(b *rigor.B) { b.IterCustom(micro); b.ReportMetric(1e6, "items/s") })
	run, err := Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	bm := run.Benchmarks[0]
	var ms []model.Metric
	for _, m := range bm.Metrics {
		if m.Unit == "items/s" {
			ms = append(ms, m)
		}
	}
	if len(ms) != 1 {
		t.Fatalf("%d items/s metrics, want 1", len(ms))
	}
	m := ms[0]
	if m.Better != model.HigherIsBetter || len(m.Samples) != 30 {
		t.Errorf("items/s: better %d, %d samples; want higher is better, 10 rounds × 3 variants", m.Better, len(m.Samples))
	}
	want := map[string]float64{"a": 3e6, "b": 2e6, "c": 1e6}
	for _, s := range m.Samples {
		if math.Abs(s.Value/want[s.Side]-1) > 1e-9 {
			t.Errorf("items/s %s round %d: %v, want %v", s.Side, s.Round, s.Value, want[s.Side])
		}
	}
	rep, err := analyze(withDefaults(g.Config), run, 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, am := range rep.Benchmarks[0].Metrics {
		if am.Unit != "items/s" {
			continue
		}
		n++
		// b/a = 2/3 and c/a = 1/3: fewer items a second, regressed, a
		// comparison of its own (not derived from sec/op, which is the
		// same for all three).
		for i, wantChange := range []float64{-1.0 / 3, -2.0 / 3} {
			if i >= len(am.Changes) || am.Changes[i] == nil {
				t.Fatalf("items/s: changes %v, want b and c against a", am.Changes)
			}
			c := am.Changes[i]
			if math.Abs(c.Estimate-wantChange) > 1e-6 || c.Verdict != analysis.Regressed || am.DerivedFrom != "" {
				t.Errorf("items/s change %d: %+.4f %s (%s; derived from %q), want %+.4f regressed", i, c.Estimate, c.Verdict, c.Reason, am.DerivedFrom, wantChange)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d items/s metrics in the report, want 1", n)
	}
}
