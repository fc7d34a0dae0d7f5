package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// twoSides is a run of one benchmark with one metric of unit, holding
// old and new as the samples of sides "old" and "new", as rigor JSON or a
// measured run may hold them.
func twoSides(unit string, old, new []float64) *model.Run {
	m := model.Metric{Unit: unit, Better: model.DefaultBetter(unit)}
	for i, v := range old {
		m.Samples = append(m.Samples, model.Sample{Side: "old", Round: i, Iters: 1, Value: v})
	}
	for i, v := range new {
		m.Samples = append(m.Samples, model.Sample{Side: "new", Round: i, Iters: 1, Value: v})
	}
	return &model.Run{Kind: model.KindFiles, Sides: []model.Side{{Label: "old"}, {Label: "new"}},
		Benchmarks: []model.Benchmark{{Name: "X", Metrics: []model.Metric{m}}}}
}

func rep6(v ...float64) []float64 {
	var out []float64
	for range 6 / len(v) {
		out = append(out, v...)
	}
	return out
}

// TestDistrustImpossibleValues: values that cannot be a measurement never
// yield improved, regressed or unchanged, and so never fire the gate.
// Before, 1 -> 1.7e308 B/op was "regressed" with a CI of [+Inf%, +Inf%]
// (or "(exact)" +Inf%), and --max-regression failed on it.
func TestDistrustImpossibleValues(t *testing.T) {
	tests := []struct {
		name     string
		unit     string
		old, new []float64
		reason   string
	}{
		{"exact overflow", "B/op", rep6(1), rep6(1.7e308), "new cannot be a measurement: 1.7e+308 B/op is larger in magnitude"},
		{"noisy overflow", "B/op", rep6(0.5, 0.6, 0.7), rep6(1.7e308, 1.6e308, 1.5e308), "1.7e+308 B/op is larger"},
		{"negative time", "sec/op", rep6(-5e-9, -6e-9, -5.5e-9), rep6(-1e-9, -1.2e-9, -1.1e-9), "old cannot be a measurement: -5e-09 sec/op is negative"},
		{"subnormal", "sec/op", rep6(5e-324), rep6(1e-320), "smaller in magnitude than 1e-150"},
		{"subnormal equal", "sec/op", rep6(5e-324), rep6(5e-324), "smaller in magnitude than 1e-150"},
	}
	opts := DefaultOptions()
	opts.Resamples = 1000
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Analyze(twoSides(tt.unit, tt.old, tt.new), opts)
			if err != nil {
				t.Fatal(err)
			}
			c := rep.Benchmarks[0].Metrics[0].Changes[0]
			if c.Verdict != Inconclusive || !strings.Contains(c.Reason, tt.reason) {
				t.Errorf("verdict %s (%s), want inconclusive because %q", c.Verdict, c.Reason, tt.reason)
			}
			if f := rep.Gate(0.05); len(f) != 0 {
				t.Errorf("gate failed on %+v", f)
			}
		})
	}
}

// TestDistrustKeepsPlausibleExtremes: values at the ends of the range rigor
// accepts still compare: 1e-150 against 1e150 is a real (if absurd)
// regression whose ratio, 1e300, is finite.
func TestDistrustKeepsPlausibleExtremes(t *testing.T) {
	rep, err := Analyze(twoSides("B/op", rep6(1e-150), rep6(1e150)), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Benchmarks[0].Metrics[0].Changes[0]
	if c.Verdict != Regressed || math.Abs(c.Estimate/1e300-1) > 1e-12 {
		t.Errorf("verdict %s, estimate %v (%s); want regressed by a factor of 1e300", c.Verdict, c.Estimate, c.Reason)
	}
}

// TestDistrustOverflow: an infinite estimate or interval from a baseline
// without zeros is overflow, never a verdict; a zero baseline is left to
// the rules for it.
func TestDistrustOverflow(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name    string
		base    []float64
		c       Change
		verdict Verdict
	}{
		{"infinite interval", []float64{1, 2}, Change{Side: "new", Estimate: 3, Lo: 2, Hi: inf, Verdict: Regressed}, Inconclusive},
		{"infinite estimate", []float64{1, 2}, Change{Side: "new", Test: "exact", Estimate: inf, Lo: inf, Hi: inf, Verdict: Regressed}, Inconclusive},
		{"minus infinity", []float64{1, 2}, Change{Side: "new", Estimate: -0.5, Lo: math.Inf(-1), Hi: -0.2, Verdict: Improved}, Inconclusive},
		{"finite", []float64{1, 2}, Change{Side: "new", Estimate: 3, Lo: 2, Hi: 4, Verdict: Regressed}, Regressed},
		{"zero baseline", []float64{0, 0}, Change{Side: "new", Test: "exact", Estimate: inf, Lo: inf, Hi: inf, Verdict: Regressed}, Regressed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := twoSides("B/op", tt.base, []float64{5, 6})
			c := tt.c
			rep := &Report{Sides: []string{"old", "new"}, Run: run,
				Benchmarks: []Benchmark{{Name: "X", Metrics: []Metric{{Unit: "B/op", Better: -1, Changes: []*Change{&c}}}}}}
			rep.distrust()
			if c.Verdict != tt.verdict {
				t.Errorf("verdict %s (%s), want %s", c.Verdict, c.Reason, tt.verdict)
			}
		})
	}
}
