package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// filesRun is an unpaired run of one benchmark X with one metric: old and
// new are the samples of each side, in order.
func filesRun(unit string, better int, old, new []float64) *model.Run {
	m := model.Metric{Unit: unit, Better: better}
	for i, v := range old {
		m.Samples = append(m.Samples, model.Sample{Side: "old", Round: i, Iters: 1000, Value: v})
	}
	for i, v := range new {
		m.Samples = append(m.Samples, model.Sample{Side: "new", Round: i, Iters: 1000, Value: v})
	}
	return &model.Run{Kind: model.KindFiles,
		Sides:      []model.Side{{Label: "old"}, {Label: "new"}},
		Benchmarks: []model.Benchmark{{Name: "X", Metrics: []model.Metric{m}}}}
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestExactFromZero (issue 11 item 3): an exact metric that moves from 0
// has no relative change (x/0 is undefined) but an absolute one, which is
// the verdict: 0 -> 1 allocs/op is +1 allocs/op, regressed, and beyond
// any percentage for the gate. Before, it was inconclusive at p=0.000.
// Moving to 0 is -100%, which is defined, and the absolute change is
// reported beside it.
func TestExactFromZero(t *testing.T) {
	tests := []struct {
		name       string
		unit       string
		better     int
		old, new   float64
		verdict    Verdict
		estimate   float64 // NaN: undefined
		delta      float64 // new - old
		gateFailed bool    // at any limit, even 1000%
	}{
		{"allocs appear", "allocs/op", model.LowerIsBetter, 0, 1, Regressed, math.NaN(), 1, true},
		{"bytes appear", "B/op", model.LowerIsBetter, 0, 8, Regressed, math.NaN(), 8, true},
		{"allocs vanish", "allocs/op", model.LowerIsBetter, 1, 0, Improved, -1, -1, false},
		{"a rate from zero", "items/s", model.HigherIsBetter, 0, 5, Improved, math.NaN(), 5, false},
		{"a rate to zero", "items/s", model.HigherIsBetter, 5, 0, Regressed, -1, -5, false}, // -100% is within a 1000% limit
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Analyze(filesRun(tt.unit, tt.better, repeat(tt.old, 6), repeat(tt.new, 6)), DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			m := rep.Benchmarks[0].Metrics[0]
			c := m.Changes[0]
			if !m.Exact || c.Test != "exact" {
				t.Fatalf("not compared exactly: %+v", c)
			}
			if c.Verdict != tt.verdict {
				t.Errorf("verdict %s (%s), want %s", c.Verdict, c.Reason, tt.verdict)
			}
			if math.IsNaN(tt.estimate) != math.IsNaN(c.Estimate) || !math.IsNaN(tt.estimate) && c.Estimate != tt.estimate {
				t.Errorf("estimate %v, want %v", c.Estimate, tt.estimate)
			}
			if c.Delta != tt.delta {
				t.Errorf("delta %v, want %v", c.Delta, tt.delta)
			}
			fails := rep.Gate(10) // 1000%
			if got := len(fails) == 1; got != tt.gateFailed {
				t.Fatalf("Gate(1000%%) = %+v, want failed=%v", fails, tt.gateFailed)
			}
			if tt.gateFailed && !(math.IsInf(fails[0].Change, 1) && fails[0].Delta == tt.delta && fails[0].Old == tt.old && fails[0].New == tt.new) {
				t.Errorf("gate failure %+v, want change +Inf from %v to %v", fails[0], tt.old, tt.new)
			}
		})
	}
}

// TestZeroTimeIsNotAMeasurement: a median time of zero means the clock did
// not see the operation (or the loop was optimized away); no relative
// change can be drawn from it, in either direction, and the reason says
// so rather than blame the sample size. It is no comparison for the
// multiple-comparison correction either.
func TestZeroTimeIsNotAMeasurement(t *testing.T) {
	for _, tt := range []struct {
		name     string
		old, new []float64
	}{
		{"old zero", []float64{0, 0, 0, 1e-9, 2e-9, 0}, []float64{5e-9, 6e-9, 5.5e-9, 5.2e-9, 5.1e-9, 5.3e-9}},
		{"new zero", []float64{5e-9, 6e-9, 5.5e-9, 5.2e-9, 5.1e-9, 5.3e-9}, []float64{0, 0, 0, 1e-9, 2e-9, 0}},
		{"both always zero", repeat(0, 6), repeat(0, 6)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Analyze(filesRun("sec/op", model.LowerIsBetter, tt.old, tt.new), DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			c := rep.Benchmarks[0].Metrics[0].Changes[0]
			if c.Verdict != Inconclusive || !strings.Contains(c.Reason, "not a measurement") {
				t.Errorf("verdict %s (%s), want inconclusive: not a measurement", c.Verdict, c.Reason)
			}
			if rep.Comparisons != 0 || len(rep.Gate(0)) != 0 {
				t.Errorf("comparisons %d, gate %+v: a non-measurement counted", rep.Comparisons, rep.Gate(0))
			}
		})
	}
}

// TestVaryingFromZero: a metric that varies, with a zero median on the
// baseline (most samples allocate nothing), has no relative change; the
// verdict rests on the test alone and the change is absolute. Hand
// derivation: old [0 0 0 3 5] (median 0), new [16 17 18 19 20] (median
// 18): every new value exceeds every old one, U = 0, and the one
// arrangement of 5 + 5 values this extreme out of C(10,5) = 252 on each
// tail gives the exact two-sided p = 2/252 = 0.0079 < 0.05: regressed by
// +18 B/op. Turning new into [0 0 0 3 5] too gives no evidence of change:
// inconclusive.
func TestVaryingFromZero(t *testing.T) {
	old := []float64{0, 0, 0, 3, 5}
	rep, err := Analyze(filesRun("B/op", model.LowerIsBetter, old, []float64{16, 17, 18, 19, 20}), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Benchmarks[0].Metrics[0].Changes[0]
	if c.Verdict != Regressed || c.Delta != 18 || !math.IsNaN(c.Estimate) || !approx(c.P, 2.0/252, 1e-12) {
		t.Errorf("change %+v, want regressed by +18 at p=2/252", c)
	}
	if !strings.Contains(c.Reason, "+18 B/op") {
		t.Errorf("reason %q does not give the absolute change", c.Reason)
	}
	if g := rep.Gate(10); len(g) != 1 || !math.IsInf(g[0].Change, 1) {
		t.Errorf("Gate(1000%%) = %+v, want one failure beyond any percentage", g)
	}
	rep, err = Analyze(filesRun("B/op", model.LowerIsBetter, old, []float64{0, 0, 0, 3, 5}), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Benchmarks[0].Metrics[0].Changes[0]; c.Verdict != Inconclusive || !strings.Contains(c.Reason, "median on old is 0 B/op") {
		t.Errorf("verdict %s (%s), want inconclusive with a zero median", c.Verdict, c.Reason)
	}
}

// TestZeroMediansUnchanged: B/op that is 0 in all but one of 12 samples
// per side (a growth amortised over many iterations) has a median of 0
// whose 95% interval is [0, 0] on both sides: the order-statistics
// interval of 12 samples is (x(3), x(10)), which covers the median with
// probability 1 - 2 P(Binomial(12, 1/2) <= 2) = 1 - 2 × 79/4096 = 0.961,
// and x(10) is 0 when at most two samples are not. The median did not
// change: unchanged, which also lets the stopping rule settle it (it was
// inconclusive, "too few samples", and held the run to its budget).
func TestZeroMediansUnchanged(t *testing.T) {
	old, new := repeat(0, 12), repeat(0, 12)
	old[4], new[7] = 8, 16
	rep, err := Analyze(filesRun("B/op", model.LowerIsBetter, old, new), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Benchmarks[0].Metrics[0].Sides
	if s[0].Lo != 0 || s[0].Hi != 0 || s[1].Lo != 0 || s[1].Hi != 0 {
		t.Fatalf("median intervals [%v, %v] and [%v, %v], want [0, 0]", s[0].Lo, s[0].Hi, s[1].Lo, s[1].Hi)
	}
	if c := rep.Benchmarks[0].Metrics[0].Changes[0]; c.Verdict != Unchanged || c.Delta != 0 {
		t.Errorf("verdict %s (%s), delta %v; want unchanged, 0", c.Verdict, c.Reason, c.Delta)
	}
}
