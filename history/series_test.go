package history

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// seriesOf makes a series with one point per value, each point a single
// sample, commit c<i> at day i.
func seriesOf(name string, better int, v []float64) *Series {
	s := &Series{Name: name, Benchmark: name, Unit: "sec/op", Better: better}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, x := range v {
		s.Points = append(s.Points, Point{Commit: fmt.Sprintf("c%d", i), Time: t0.AddDate(0, 0, i), RunID: int64(i + 1), Samples: []float64{x}})
	}
	return s
}

func noise(seed uint64, n int, mean, sd float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, seed))
	v := make([]float64, n)
	for i := range v {
		v[i] = mean + sd*rng.NormFloat64()
	}
	return v
}

// TestAnalyzeStep: a 10% step at point 30 is found there, between the
// commits on either side, with its size, direction and a CI around it.
func TestAnalyzeStep(t *testing.T) {
	v := noise(1, 60, 100, 0.5)
	for i := 30; i < 60; i++ {
		v[i] *= 1.10
	}
	for _, better := range []int{model.LowerIsBetter, model.HigherIsBetter} {
		a := Analyze([]*Series{seriesOf("step", better, v)}, Options{})
		if len(a.Changes) != 1 {
			t.Fatalf("better %d: %d changes, want 1: %+v", better, len(a.Changes), a.Changes)
		}
		c := a.Changes[0]
		if c.Index != 30 || c.Before.Commit != "c29" || c.After.Commit != "c30" {
			t.Errorf("change at %d (%s..%s), want 30 (c29..c30)", c.Index, c.Before.Commit, c.After.Commit)
		}
		if math.Abs(c.Percent()-10) > 1 || !(c.Ratio.Lo < 1.10 && 1.10 < c.Ratio.Hi) || c.Ratio.Lo <= 1 {
			t.Errorf("ratio %+v, want about 1.10 with a CI around it, above 1", c.Ratio)
		}
		if c.Regression != (better == model.LowerIsBetter) {
			t.Errorf("better %d: regression %v", better, c.Regression)
		}
		if !(c.Test.P < 1e-10) || c.Q < c.Test.P || a.Tests < 1 {
			t.Errorf("p %v, q %v, tests %d", c.Test.P, c.Q, a.Tests)
		}
	}
}

// TestAnalyzeBH: a marginal step (p about 5e-4) is a change when its
// series is analyzed alone, and not when four series without change are
// analyzed with it: Benjamini-Hochberg counts their tests too, and
// 5 × 4.6e-4 is above 0.001.
func TestAnalyzeBH(t *testing.T) {
	v := noise(7, 40, 100, 1)
	for i := 20; i < 40; i++ {
		v[i] += 1.15
	}
	marginal := seriesOf("marginal", model.LowerIsBetter, v)
	cps := Detect(v, Options{})
	if len(cps) != 1 || !(cps[0].Stats.P > 2e-4 && cps[0].Stats.P < 1e-3) {
		t.Fatalf("precondition: one change with p in (2e-4, 1e-3), got %+v", cps)
	}
	alone := Analyze([]*Series{marginal}, Options{})
	if len(alone.Changes) != 1 || alone.Tests != 1 {
		t.Errorf("alone: %d changes in %d tests, want 1 in 1", len(alone.Changes), alone.Tests)
	}
	all := []*Series{marginal}
	for i := range 4 {
		flat := noise(uint64(100+i), 40, 100, 1)
		if cps := Detect(flat, Options{}); len(cps) != 0 {
			t.Fatalf("precondition: flat series %d has change points %v", i, indexes(cps))
		}
		all = append(all, seriesOf(fmt.Sprint("flat", i), model.LowerIsBetter, flat))
	}
	together := Analyze(all, Options{})
	if len(together.Changes) != 0 || together.Tests < 5 {
		t.Errorf("with 4 flat series: %d changes in %d tests, want none in at least 5", len(together.Changes), together.Tests)
	}
}

// TestCheck: a new value far from the segment since the last change
// breaks from it; one inside it does not; a segment of one point cannot
// tell.
func TestCheck(t *testing.T) {
	v := noise(3, 40, 100, 1)
	for i := 20; i < 40; i++ {
		v[i] += 10 // a change at 20: the segment is v[20:]
	}
	s := seriesOf("s", model.LowerIsBetter, v)
	one := func(x float64) Point { return Point{Samples: []float64{x}} }
	if got := Check(s, one(110), Options{}); got.Since != 20 || got.Points != 20 || got.Breaks {
		t.Errorf("a value inside the segment: %+v, want since 20, no break", got)
	}
	// 100 is inside the segment before the change, far outside the one
	// after it: the check compares with the latter.
	if got := Check(s, one(100), Options{}); !got.Breaks || got.Regression {
		t.Errorf("back to the old level: %+v, want a break for the better", got)
	}
	if got := Check(s, one(130), Options{}); !got.Breaks || !got.Regression {
		t.Errorf("far above: %+v, want a regression", got)
	}
	if got := Check(seriesOf("up", model.HigherIsBetter, v), one(100), Options{}); !got.Breaks || !got.Regression {
		t.Errorf("higher is better, far below: %+v, want a regression", got)
	}
	single := seriesOf("one", model.LowerIsBetter, []float64{100})
	if got := Check(single, one(1000), Options{}); got.Breaks || got.P != 1 {
		t.Errorf("one point: %+v, want no verdict", got)
	}
}

// TestCheckSamples checks Check against a hand derivation. The segment
// is three runs of five samples each, m + {-2, -1, 0, 1, 2} for medians m
// = 99, 100, 101: their mean is 100 and their sample variance s^2 = 1.
// Each run's distances from its median are {2, 1, 0, 1, 2}, of median 1,
// so MAD = 1.4826 (scaled) and the variance of each
// median is v = (pi/2) 1.4826^2 / 5 = 0.690554348. The run-to-run part is
// tau^2 = 1 - v = 0.309445652, and s^2/k = 1/3. With k - 1 = 2 degrees of
// freedom Student's t has the closed form p = 1 - sqrt(t^2 / (t^2 + 2)).
//
//   - 104 + {-2..2}: v' = v, SE^2 = tau^2 + v + 1/3 = 4/3 exactly,
//     t = 4 / sqrt(4/3) = 2 sqrt(3), p = 1 - sqrt(12/14) = 0.0741799002.
//   - 104 + 10 {-2..2}: MAD 14.826, v' = 100 v = 69.0554348, SE^2 =
//     69.6982138, t = 0.479125369, p = 0.679122344: the same median, but
//     the run's own noise explains the distance. (The median alone, as
//     Otava checks it: 4 / sqrt(2/3 (1 + 1/3)) = 4.24264069, p = 1 -
//     sqrt(18/20) = 0.0513167019.)
//   - 104 + 0.1 {-2..2}: v' = v/100, SE^2 = 0.649684529, t = 4.96259380,
//     p = 0.0382883890.
//   - 150 + {-2..2}: t = 50 / sqrt(4/3) = 43.3012702, p = 1 -
//     sqrt(1875/1877) = 5.32907046e-4, below 0.001: a break, for the
//     worse (lower is better); 50 + {-2..2}: the same p, for the better.
func TestCheckSamples(t *testing.T) {
	run := func(m, scale float64) []float64 {
		return []float64{m - 2*scale, m - scale, m, m + scale, m + 2*scale}
	}
	s := &Series{Name: "s", Unit: "sec/op", Better: model.LowerIsBetter}
	for i, m := range []float64{99, 100, 101} {
		s.Points = append(s.Points, Point{Commit: fmt.Sprint("c", i), Samples: run(m, 1)})
	}
	for _, c := range []struct {
		name        string
		samples     []float64
		se, tv, p   float64
		breaks, reg bool
	}{
		{"as noisy as the segment", run(104, 1), math.Sqrt(4.0 / 3), 2 * math.Sqrt(3), 0.0741799002, false, false},
		{"ten times noisier", run(104, 10), math.Sqrt(69.6982138), 0.479125369, 0.679122344, false, false},
		{"ten times quieter", run(104, 0.1), math.Sqrt(0.649684529), 4.96259380, 0.0382883890, false, false},
		{"far above", run(150, 1), math.Sqrt(4.0 / 3), 43.3012702, 5.32907046e-4, true, true},
		{"far below", run(50, 1), math.Sqrt(4.0 / 3), -43.3012702, 5.32907046e-4, true, false},
	} {
		got := Check(s, Point{Samples: c.samples}, Options{})
		if got.Since != 0 || got.Points != 3 || got.DF != 2 || got.SegmentMean != 100 || got.SegmentSD != 1 ||
			!close9(got.SE, c.se) || !close9(got.T, c.tv) || !close9(got.P, c.p) || got.Breaks != c.breaks || got.Regression != c.reg {
			t.Errorf("%s: %+v\nwant SE %.9g, t %.9g, p %.9g, breaks %v, regression %v", c.name, got, c.se, c.tv, c.p, c.breaks, c.reg)
		}
	}
	if got := Check(s, Point{Samples: run(104, 1)}, Options{}); !close9(got.BetweenSD, math.Sqrt(0.309445652)) || !close9(got.ValueSE, math.Sqrt(0.690554348)) {
		t.Errorf("between-run SD %.9g, value SE %.9g; want sqrt(0.309445652), sqrt(0.690554348)", got.BetweenSD, got.ValueSE)
	}
	// A new run of one sample tells nothing of its noise: it counts as
	// the segment's, v' = v, so 104 is case one.
	if got := Check(s, Point{Samples: []float64{104}}, Options{}); !close9(got.P, 0.0741799002) {
		t.Errorf("one sample: p %.9g, want 0.0741799002", got.P)
	}
	// Segment runs of one sample: v = 0, all their spread is between
	// runs; a new run of one sample is then the prediction interval's
	// t-test, s^2 (1 + 1/k): the same t as case one.
	flat := seriesOf("flat", model.LowerIsBetter, []float64{99, 100, 101})
	if got := Check(flat, Point{Samples: []float64{104}}, Options{}); !close9(got.P, 0.0741799002) || got.BetweenSD != 1 {
		t.Errorf("single samples: %+v, want p 0.0741799002, between-run SD 1", got)
	}
}

// close9 reports whether a is b to 8 significant digits.
func close9(a, b float64) bool { return math.Abs(a-b) <= 1e-8*math.Abs(b) }

// TestAnalyzeTransient: two outlier results in a row are two change
// points to Otava (one on either side); Analyze reports them as a
// transient, not as steps, unless told to keep Otava's points as they
// are. A step next to outliers is one step, its location spanning them.
func TestAnalyzeTransient(t *testing.T) {
	v := noise(5, 80, 100, 0.5)
	v[40], v[41] = 130, 130
	s := seriesOf("outliers", model.LowerIsBetter, v)
	if got := indexes(Detect(v, Options{})); !slices.Equal(got, []int{40, 42}) {
		t.Fatalf("precondition: Otava's change points %v, want [40 42]", got)
	}
	a := Analyze([]*Series{s}, Options{})
	if len(a.Changes) != 0 || len(a.Transients) != 1 || a.Transients[0].From != 40 || a.Transients[0].To != 42 {
		t.Errorf("outliers: changes %+v, transients %+v; want none, and [40, 42)", a.Changes, a.Transients)
	}
	raw := Analyze([]*Series{s}, Options{Transient: -1})
	if len(raw.Changes) != 2 || len(raw.Transients) != 0 {
		t.Errorf("Transient -1: %d changes, %d transients; want Otava's 2 and none", len(raw.Changes), len(raw.Transients))
	}

	w := noise(6, 80, 100, 0.5)
	for i := 42; i < 80; i++ {
		w[i] *= 1.05
	}
	w[40], w[41] = 130, 130
	got := indexes(Detect(w, Options{}))
	a = Analyze([]*Series{seriesOf("outliers+step", model.LowerIsBetter, w)}, Options{})
	if len(a.Changes) != 1 {
		t.Fatalf("outliers then a step (Otava: %v): %d changes, want 1: %+v", got, len(a.Changes), a.Changes)
	}
	c := a.Changes[0]
	if c.Before.Commit != "c39" || c.After.Commit != "c42" || c.Outliers != 2 || math.Abs(c.Percent()-5) > 0.5 {
		t.Errorf("outliers then a step (Otava: %v): %s..%s, %d outliers, %+.2f%%; want c39..c42, 2, +5%%", got, c.Before.Commit, c.After.Commit, c.Outliers, c.Percent())
	}
}
