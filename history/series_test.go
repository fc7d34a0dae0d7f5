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
	if got := Check(s, 110, Options{}); got.Since != 20 || got.Breaks {
		t.Errorf("a value inside the segment: %+v, want since 20, no break", got)
	}
	// 100 is inside the segment before the change, far outside the one
	// after it: the check compares with the latter.
	if got := Check(s, 100, Options{}); !got.Breaks || got.Regression {
		t.Errorf("back to the old level: %+v, want a break for the better", got)
	}
	if got := Check(s, 130, Options{}); !got.Breaks || !got.Regression {
		t.Errorf("far above: %+v, want a regression", got)
	}
	one := seriesOf("one", model.LowerIsBetter, []float64{100})
	if got := Check(one, 1000, Options{}); got.Breaks {
		t.Errorf("one point: %+v, want no verdict", got)
	}
}

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
