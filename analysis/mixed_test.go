package analysis

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// TestMixedBootstrapOption checks that Test mixed-bootstrap, Criterion.rs's
// test, decides unpaired changes: on normal samples its bootstrap p-value
// must agree with Welch's analytic one (stats.WelchT, checked against R)
// to within the Monte Carlo error of 10000 resamples (a standard error
// under 0.005; 0.03 allowed), and an unknown test is refused.
func TestMixedBootstrapOption(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
	var x, y []float64
	for i := range 20 {
		a, b := 1+0.05*r.NormFloat64(), 1.03+0.05*r.NormFloat64()
		x, y = append(x, a), append(y, b)
		m.Samples = append(m.Samples, model.Sample{Side: "old", Round: i + 1, Iters: 100, Value: a}, model.Sample{Side: "new", Round: i + 1, Iters: 100, Value: b})
	}
	run := &model.Run{Sides: []model.Side{{Label: "old"}, {Label: "new"}}, Benchmarks: []model.Benchmark{{Name: "X", Metrics: []model.Metric{m}}}}
	o := DefaultOptions()
	o.Test = TestMixedBootstrap
	rep, err := Analyze(run, o)
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Benchmarks[0].Metrics[0].Changes[0]
	_, _, want, err := stats.WelchT(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if c.Test != TestMixedBootstrap || math.Abs(c.P-want) > 0.03 {
		t.Errorf("test %q p = %v, want mixed-bootstrap with p near Welch's %v", c.Test, c.P, want)
	}
	o.Test = "bootstrap"
	if _, err := Analyze(run, o); err == nil {
		t.Error("an unknown test was accepted")
	}
}

// TestTally counts one verdict per benchmark and side, from the time
// metric: the fixture's B/op change (regressed) is not counted beside
// its sec/op one (improved).
func TestTally(t *testing.T) {
	ch := func(v Verdict) []*Change { return []*Change{{Verdict: v}} }
	rep := &Report{Benchmarks: []Benchmark{
		{Metrics: []Metric{{Unit: "B/op", Changes: ch(Regressed)}, {Unit: "sec/op", Changes: ch(Improved)}}},
		{Metrics: []Metric{{Unit: "sec/op", Changes: ch(Unchanged)}}},
		{Metrics: []Metric{{Unit: "sec/op", Context: "the verdict is taken from cpu-sec/op", Changes: ch(Regressed)}, {Unit: "cpu-sec/op", Changes: ch(Inconclusive)}}},
		{Metrics: []Metric{{Unit: "allocs/op", Changes: ch(Regressed)}}},
		{Metrics: []Metric{{Unit: "sec/op"}}},
	}}
	if got, want := decided(rep).Tally(), (Tally{Regressed: 1, Improved: 1, Unchanged: 1, Inconclusive: 1}); got != want {
		t.Errorf("Tally = %+v, want %+v", got, want)
	}
}
