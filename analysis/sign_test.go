package analysis

import (
	"testing"

	"github.com/rigorbench/rigor/model"
)

// The example of issue 13, by hand: in 12 paired rounds new is 2-3%
// slower than old in nine and 14-15% faster in the three slowest rounds
// of old. The medians fall (602.1 -> 596.8: old's are the means of its
// 6th and 7th values, 600.5 and 603.7; new's of 592.9 and 600.7), while
// the Hodges-Lehmann center of the log ratios is positive: of the 78
// Walsh averages, the 6 of two negative ratios and the 27 of a negative
// and a positive one (each below -5%) are the 33 lowest, so the median,
// the 39th-40th, is an average of two positive ratios.
func TestDisagreesWithMedians(t *testing.T) {
	old := []float64{560, 571, 579, 588, 596, 600.5, 603.7, 611, 619, 628, 637, 645}
	new := []float64{577.0, 588.0, 592.9, 600.7, 614.0, 618.6, 621.8, 629.3, 637.6, 540.1, 547.8, 554.7}
	run := &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindAB, Paired: true,
		Sides: []model.Side{{Label: "old"}, {Label: "new"}}}
	m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
	for r := range old {
		m.Samples = append(m.Samples,
			model.Sample{Side: "old", Round: r + 1, Iters: 1000, Value: old[r] * 1e-9},
			model.Sample{Side: "new", Round: r + 1, Iters: 1000, Value: new[r] * 1e-9})
	}
	run.Benchmarks = []model.Benchmark{{Name: "Sum64/4KB", Metrics: []model.Metric{m}}}
	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	am := &rep.Benchmarks[0].Metrics[0]
	if got := am.Sides[0].Center; got < 602.09e-9 || got > 602.11e-9 {
		t.Fatalf("old median %v, want 602.1ns", got)
	}
	if got := am.Sides[1].Center; got < 596.79e-9 || got > 596.81e-9 {
		t.Fatalf("new median %v, want 596.8ns", got)
	}
	if c := am.Changes[0]; !(c.Estimate > 0.02 && c.Estimate < 0.031) {
		t.Fatalf("paired change %+.4f, want between +2%% and +3.1%% (an average of two positive ratios)", c.Estimate)
	}
	if !am.DisagreesWithMedians(0) {
		t.Error("a positive change beside falling medians does not disagree")
	}
	// The same change beside medians that rise agrees; so does one
	// with no estimate, and an index out of range.
	am.Sides[1].Center = 610e-9
	if am.DisagreesWithMedians(0) || am.DisagreesWithMedians(1) || am.DisagreesWithMedians(-1) {
		t.Error("agreeing medians or a bad index reported as disagreeing")
	}
	am.Sides[1].Center = 596.8e-9
	am.Changes[0] = nil
	if am.DisagreesWithMedians(0) {
		t.Error("a missing change reported as disagreeing")
	}
}
