package stats

import (
	"fmt"
	"math"
	"testing"
)

// The 12 + 12 BenchmarkBuild results at the end of seeds/003 (interleaved
// runs of the base and optimized builds), per unit.
var (
	seed003BaseSec = []float64{7856e-9, 9175e-9, 8065e-9, 7246e-9, 7704e-9, 8505e-9,
		7800e-9, 8150e-9, 8646e-9, 7598e-9, 9156e-9, 8419e-9}
	seed003OptSec = []float64{799.2e-9, 798.8e-9, 760.9e-9, 836.0e-9, 801.5e-9, 757.1e-9,
		822.0e-9, 743.4e-9, 904.0e-9, 781.7e-9, 982.6e-9, 939.9e-9}
)

func repeat(v float64, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = v
	}
	return x
}

// TestSeed003Benchstat reproduces benchstat's table in seeds/003:
//
//	sec/op     8107.5n ±7%   800.4n ±13%   -90.13% (p=0.000 n=12)
//	B/op       42.195Ki ±0%  1.867Ki ±0%   -95.57% (p=0.000 n=12)
//	allocs/op  127.0 ±0%     8.000 ±0%     -93.70% (p=0.000 n=12)
//
// The ± is the largest relative distance of the 95% median interval's bounds
// from the median (Interval.RelativeRange). Sorted, the base times are
// 7246 7598 7704 7800 7856 8065 | 8150 8419 8505 8646 9156 9175; the
// interval for n = 12 is the 3rd to the 10th value, [7704, 8646], so
// ± = max(8646/8107.5 - 1, 1 - 7704/8107.5) = max(6.64%, 4.98%) -> 7%.
// Optimized: 743.4 757.1 760.9 781.7 798.8 799.2 | 801.5 822.0 836.0 904.0
// 939.9 982.6; [760.9, 904.0] around 800.35: max(12.95%, 4.93%) -> 13%.
// Every optimized time is below every base time, so U = 0 and the exact
// p = 2/C(24,12) = 7.4e-7, printed p=0.000. The same holds for B/op and
// allocs/op, whose values are constant on each side (two tie groups).
func TestSeed003Benchstat(t *testing.T) {
	for _, c := range []struct {
		unit           string
		old, new       []float64
		oldMed, newMed float64
		oldPct, newPct string
		delta          string
	}{
		{"sec/op", seed003BaseSec, seed003OptSec, 8107.5e-9, 800.35e-9, "7%", "13%", "-90.13%"},
		{"B/op", repeat(43208, 12), repeat(1912, 12), 43208, 1912, "0%", "0%", "-95.57%"},
		{"allocs/op", repeat(127, 12), repeat(8, 12), 127, 8, "0%", "0%", "-93.70%"},
	} {
		o, err := MedianCI(c.old, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		n, err := MedianCI(c.new, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if !near(o.Estimate, c.oldMed, 1e-9*c.oldMed) || !near(n.Estimate, c.newMed, 1e-9*c.newMed) {
			t.Errorf("%s: medians %v, %v; benchstat %v, %v", c.unit, o.Estimate, n.Estimate, c.oldMed, c.newMed)
		}
		if got := fmt.Sprintf("%.0f%%", 100*o.RelativeRange()); got != c.oldPct {
			t.Errorf("%s: old ±%s, benchstat ±%s", c.unit, got, c.oldPct)
		}
		if got := fmt.Sprintf("%.0f%%", 100*n.RelativeRange()); got != c.newPct {
			t.Errorf("%s: new ±%s, benchstat ±%s", c.unit, got, c.newPct)
		}
		if got := fmt.Sprintf("%+.2f%%", (n.Estimate/o.Estimate-1)*100); got != c.delta {
			t.Errorf("%s: change %s, benchstat %s", c.unit, got, c.delta)
		}
		_, p, err := MannWhitneyU(c.old, c.new)
		if err != nil || !near(p, 2/binomialFloat(24, 12), 1e-18) || fmt.Sprintf("p=%.3f", p) != "p=0.000" {
			t.Errorf("%s: p = %v (%v), want 2/C(24,12) = 7.4e-7", c.unit, p, err)
		}
		// And the oracle agrees on every number.
		if bp := benchstatP(c.old, c.new); !closeP(p, bp) {
			t.Errorf("%s: p = %v, benchstat %v", c.unit, p, bp)
		}
		for _, side := range []struct {
			x  []float64
			iv Interval
		}{{c.old, o}, {c.new, n}} {
			s := benchstatSummary(side.x, 0.95)
			if side.iv.Lo != s.Lo || side.iv.Hi != s.Hi {
				t.Errorf("%s: interval [%v, %v], benchstat [%v, %v]", c.unit, side.iv.Lo, side.iv.Hi, s.Lo, s.Hi)
			}
			if got, want := fmt.Sprintf("%.0f%%", 100*side.iv.RelativeRange()), s.PctRangeString(); got != want {
				t.Errorf("%s: ±%s, benchstat ±%s", c.unit, got, want)
			}
		}
	}
}

// TestRelativeRange covers the cases benchstat prints as ∞, ? and 0%.
func TestRelativeRange(t *testing.T) {
	for _, c := range []struct {
		iv   Interval
		want float64
	}{
		{Interval{Estimate: 100, Lo: 90, Hi: 105}, 0.1},
		{Interval{Estimate: 100, Lo: math.Inf(-1), Hi: 105}, math.Inf(1)},
		{Interval{Estimate: 1, Lo: -1, Hi: 2}, math.NaN()},
		{Interval{}, 0},
	} {
		if got := c.iv.RelativeRange(); !near(got, c.want, 1e-12) && !(math.IsInf(got, 1) && math.IsInf(c.want, 1)) {
			t.Errorf("%+v.RelativeRange() = %v, want %v", c.iv, got, c.want)
		}
	}
}
