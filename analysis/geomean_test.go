package analysis

import (
	"math"
	"testing"
)

// The geomean row of a paired run is the geometric mean of the paired
// changes, what its rows say, beside benchstat's ratio of the geometric
// means of the medians (which mixes each side's drift in and, in an A/A
// run of issue 39, read +2.18% where the paired changes averaged
// +0.04%). Values by hand: centers 100 -> 110 and 200 -> 180, paired
// changes +1% and -2%.
func TestGeomeanPaired(t *testing.T) {
	metric := func(old, new float64, change *Change) Metric {
		m := Metric{Unit: "sec/op", Sides: []Summary{{Side: "old", N: 5, Center: old}, {Side: "new", N: 5, Center: new}}}
		m.Changes = []*Change{change}
		return m
	}
	paired := func(est float64) *Change { return &Change{Side: "new", Estimate: est, Paired: true} }
	r := &Report{Sides: []string{"old", "new"}, Benchmarks: []Benchmark{
		{Metrics: []Metric{metric(100, 110, paired(0.01))}},
		{Metrics: []Metric{metric(200, 180, paired(-0.02))}},
	}}
	g := geomeans(r)
	if len(g) != 1 || g[0].N != 2 {
		t.Fatalf("geomeans: %+v", g)
	}
	// sqrt(110*180)/sqrt(100*200) - 1 = sqrt(0.99) - 1.
	if want := math.Sqrt(0.99) - 1; math.Abs(g[0].Changes[0]-want) > 1e-12 {
		t.Errorf("medians' change %v, want %v", g[0].Changes[0], want)
	}
	// sqrt(1.01 * 0.98) - 1 = sqrt(0.9898) - 1 = -0.0051134...
	if want := math.Sqrt(0.9898) - 1; math.Abs(g[0].Paired[0]-want) > 1e-12 || g[0].Change(0) != g[0].Paired[0] {
		t.Errorf("paired %v (Change %v), want %v", g[0].Paired, g[0].Change(0), want)
	}

	// One benchmark without a paired change (an unpaired run, or a
	// side that lacks it): no paired geomean, and Change falls back to
	// the medians'.
	r.Benchmarks[1].Metrics[0].Changes[0].Paired = false
	g = geomeans(r)
	if !math.IsNaN(g[0].Paired[0]) || g[0].Change(0) != g[0].Changes[0] {
		t.Errorf("unpaired: paired %v, Change %v, want NaN and %v", g[0].Paired, g[0].Change(0), g[0].Changes[0])
	}
}
