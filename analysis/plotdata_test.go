package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// Bandwidths derived by hand from R's bw.nrd0 definition,
// 0.9·min(sd, IQR/1.34)·n^(-1/5), with type-7 quartiles.
func TestBandwidth(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		want float64
	}{
		// sd = 0.70711, IQR = 0.75-0.25 = 0.5, 0.5/1.34 = 0.373134,
		// 2^-0.2 = 0.870551: 0.9 × 0.373134 × 0.870551.
		{"two points", []float64{0, 1}, 0.292349},
		// sd = 1.581139, IQR = 4-2 = 2, 2/1.34 = 1.492537,
		// 5^-0.2 = 0.724780: 0.9 × 1.492537 × 0.724780.
		{"1..5", []float64{1, 2, 3, 4, 5}, 0.973585},
		// IQR = 0 (quartiles both 1): sd = 44.72136 is used alone,
		// 5^-0.2 = 0.724780: 0.9 × 44.72136 × 0.724780.
		{"zero IQR falls back to sd", []float64{1, 1, 1, 1, 101}, 29.171819},
		// sd = IQR = 0: |x₁| = 3, 3^-0.2 = 0.802742: 0.9 × 3 × 0.802742.
		{"constant", []float64{3, 3, 3}, 2.167403},
		// Everything zero: 1 × 0.9 × 2^-0.2.
		{"all zero", []float64{0, 0}, 0.783496},
	}
	for _, tt := range tests {
		if got := Bandwidth(tt.x); !near(got, tt.want, 1e-5) {
			t.Errorf("%s: Bandwidth = %.6f, want %.6f", tt.name, got, tt.want)
		}
	}
}

func TestKernelDensity(t *testing.T) {
	x := []float64{0, 1}
	d := KernelDensity(x, 201)
	if len(d.X) != 201 || len(d.Y) != 201 {
		t.Fatalf("got %d, %d points, want 201", len(d.X), len(d.Y))
	}
	h := d.Bandwidth
	if !near(d.X[0], -3*h, 1e-12) || !near(d.X[200], 1+3*h, 1e-12) {
		t.Errorf("grid [%g, %g], want [%g, %g]", d.X[0], d.X[200], -3*h, 1+3*h)
	}
	// Midway between the two points, each kernel contributes
	// φ(0.5/h)/(2h); by hand with h = 0.292349: z = 1.710285,
	// φ(z) = 0.0924142, and 2 × 0.0924142 / (2 × 0.292349) = 0.316109.
	mid := KernelDensity(x, 3) // grid -3h, 0.5, 1+3h
	if !near(mid.X[1], 0.5, 1e-12) || !near(mid.Y[1], 0.316109, 1e-5) {
		t.Errorf("density at %g = %.6f, want 0.316109 at 0.5", mid.X[1], mid.Y[1])
	}
	// The grid reaches 3 bandwidths beyond the outermost points: each
	// kernel loses at most its one-sided tail beyond 3σ (0.00135 of its
	// mass), so the trapezoid integral lies between 0.997 and 1.
	area := 0.0
	for i := 1; i < len(d.X); i++ {
		area += (d.X[i] - d.X[i-1]) * (d.Y[i] + d.Y[i-1]) / 2
	}
	if area < 0.997 || area > 1.0001 {
		t.Errorf("density integrates to %.5f over its grid, want within [0.997, 1]", area)
	}
	for _, bad := range [][]float64{nil, {1, math.NaN()}} {
		if d := KernelDensity(bad, 10); d.X != nil || d.Bandwidth != 0 {
			t.Errorf("KernelDensity(%v) = %+v, want zero", bad, d)
		}
	}
}

func TestPairs(t *testing.T) {
	m := &model.Metric{Unit: "sec/op", Samples: []model.Sample{
		{Side: "old", Round: 1, Iters: 10, Value: 10},
		{Side: "new", Round: 1, Iters: 10, Value: 8},
		{Side: "new", Round: 2, Iters: 10, Value: 9}, // no partner
		{Side: "old", Round: 3, Iters: 10, Value: 0},
		{Side: "new", Round: 3, Iters: 10, Value: 1},
		{Side: "new", Round: 4, Iters: 10, Value: 15},
		{Side: "old", Round: 4, Iters: 10, Value: 12},
	}}
	got := Pairs(m, "old", "new")
	want := []Pair{{1, 10, 8, 0.8}, {3, 0, 1, math.NaN()}, {4, 12, 15, 1.25}}
	if len(got) != len(want) {
		t.Fatalf("Pairs = %v, want %v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Round != w.Round || g.Base != w.Base || g.Other != w.Other ||
			!(g.Ratio == w.Ratio || math.IsNaN(g.Ratio) && math.IsNaN(w.Ratio)) {
			t.Errorf("pair %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestTotals(t *testing.T) {
	iters, totals := Totals([]model.Sample{{Iters: 3, Value: 2.5}, {Iters: 6, Value: 2}})
	if len(iters) != 2 || iters[0] != 3 || iters[1] != 6 || totals[0] != 7.5 || totals[1] != 12 {
		t.Errorf("Totals = %v, %v, want [3 6], [7.5 12]", iters, totals)
	}
}

func TestSummarizeObservations(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	obs := []model.Observation{
		{Start: t0, Duration: time.Second, Process: &model.ProcessStats{}, OtherCPU: 0.1,
			System: &model.SystemStats{User: 0.2, System: 0.1, Idle: 0.7, Load1: 1, CtxSwitches: 1000, FreqMHz: 2000, FreqMinMHz: 1800, FreqMaxMHz: 2200, CPUPressure: 3}},
		{Start: t0.Add(time.Second), Duration: 3 * time.Second, Process: &model.ProcessStats{}, OtherCPU: 0.3,
			System: &model.SystemStats{User: 0.6, System: 0.1, IOWait: 0.1, Idle: 0.2, Load1: 3, CtxSwitches: 5000, FreqMHz: 3000, FreqMinMHz: 2500, FreqMaxMHz: 3100, CPUPressure: 1}},
		{Start: t0.Add(4 * time.Second), Duration: 2 * time.Second, Runtime: &model.RuntimeStats{GCCPUFraction: 0.05}},
	}
	s := SummarizeObservations(obs)
	// Weighted by duration (1 s and 3 s): user (0.2 + 3×0.6)/4 = 0.5,
	// other CPU (0.1 + 0.9)/4 = 0.25, load (1 + 9)/4 = 2.5,
	// ctx (1000 + 15000)/4 = 4000, freq (2000 + 9000)/4 = 2750.
	checks := []struct {
		name      string
		got, want float64
	}{
		{"user", s.User, 0.5}, {"system", s.System, 0.1}, {"iowait", s.IOWait, 0.075},
		{"other", s.OtherCPU, 0.25}, {"other max", s.OtherCPUMax, 0.3},
		{"load", s.Load1, 2.5}, {"load max", s.Load1Max, 3}, {"ctx", s.CtxSwitches, 4000},
		{"freq", s.FreqMHz, 2750}, {"freq min", s.FreqMinMHz, 1800}, {"freq max", s.FreqMaxMHz, 3100},
		{"cpu pressure max", s.CPUPressureMax, 3}, {"gc", s.GCCPU, 0.05},
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
	if s.Intervals != 3 || s.Span != 6*time.Second {
		t.Errorf("intervals %d span %v, want 3 and 6s", s.Intervals, s.Span)
	}
	if e := SummarizeObservations(nil); e.Intervals != 0 || !math.IsNaN(e.User) {
		t.Errorf("empty summary = %+v, want no intervals and NaN fields", e)
	}

	tl := CPUTimeline(obs)
	if len(tl) != 2 {
		t.Fatalf("timeline has %d points, want 2 (the runtime-only interval has no system stats)", len(tl))
	}
	// Midpoints 0.5 s and 2.5 s; busy = 1 - idle - iowait.
	if !near(tl[0].At, 0.5, 1e-12) || !near(tl[0].Busy, 0.3, 1e-12) || !near(tl[1].At, 2.5, 1e-12) || !near(tl[1].Busy, 0.7, 1e-12) || tl[1].OtherCPU != 0.3 {
		t.Errorf("timeline = %+v", tl)
	}
}
