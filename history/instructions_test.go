package history

import (
	"testing"

	"github.com/rigorbench/rigor/model"
)

// countsOf is seriesOf in instructions/op: a count that repeats to a few
// parts in 100,000 from commit to commit.
func countsOf(v []float64) *Series {
	s := seriesOf("count", model.LowerIsBetter, v)
	s.Unit = model.InstructionsUnit
	return s
}

// An instructions/op series changes where its count moved beyond the
// tolerance of a count (±0.5%), not at a shift of 0.1% that its steadiness
// makes "significant" to any test; the online check likewise. As sec/op,
// the same 0.1% shift is a change (the control: the floor is the unit's).
func TestInstructionsTolerance(t *testing.T) {
	v := noise(7, 60, 15000, 0.3) // ±0.002%
	small := append([]float64(nil), v...)
	big := append([]float64(nil), v...)
	for i := 30; i < 60; i++ {
		small[i] *= 1.001
		big[i] *= 1.03
	}
	if a := Analyze([]*Series{countsOf(small)}, Options{}); len(a.Changes) != 0 {
		t.Errorf("a +0.1%% shift of a count: %d changes %+v, want none", len(a.Changes), a.Changes)
	}
	if a := Analyze([]*Series{seriesOf("time", model.LowerIsBetter, small)}, Options{}); len(a.Changes) != 1 {
		t.Errorf("the same shift in sec/op: %d changes, want 1 (the control)", len(a.Changes))
	}
	a := Analyze([]*Series{countsOf(big)}, Options{})
	if len(a.Changes) != 1 || a.Changes[0].Index != 30 || !a.Changes[0].Regression {
		t.Errorf("a +3%% step of a count: %+v, want one regression at 30", a.Changes)
	}
	seg := countsOf(v[:30])
	one := func(x float64) Point { return Point{Samples: []float64{x}} }
	if got := Check(seg, one(15000*1.002), Options{}); got.Breaks {
		t.Errorf("a count +0.2%% off its segment: %+v, want no break", got)
	}
	if got := Check(seg, one(15000*1.01), Options{}); !got.Breaks || !got.Regression {
		t.Errorf("a count +1%% off its segment: %+v, want a regression", got)
	}
}
