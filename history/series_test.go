package history

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
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
		if !(c.Test.P < 1e-10) || !(c.P >= c.Test.P && c.P < 1e-6) || c.Q != c.P {
			t.Errorf("t-test p %v, p %v, q %v; want p at least the t-test's, below 1e-6, q = p (one change)", c.Test.P, c.P, c.Q)
		}
	}
}

// TestAnalyzeAlone: a series' changes and their p- and q-values are the
// same analyzed alone and with other series. They were not: a
// Benjamini-Hochberg correction across the series analyzed together
// made a marginal step a change alone, and none beside four series
// without change (rigor changes --bench changed other series' q-values
// and the changes reported).
func TestAnalyzeAlone(t *testing.T) {
	v := noise(7, 40, 100, 1)
	for i := 20; i < 40; i++ {
		v[i] += 1.6
	}
	marginal := seriesOf("marginal", model.LowerIsBetter, v)
	alone := Analyze([]*Series{marginal}, Options{})
	if len(alone.Changes) != 1 || !(alone.Changes[0].Q > 1e-5) {
		t.Fatalf("precondition: alone, one change with q above 1e-5, got %+v", alone.Changes)
	}
	all := []*Series{marginal}
	for i := range 4 {
		all = append(all, seriesOf(fmt.Sprint("flat", i), model.LowerIsBetter, noise(uint64(20+i), 40, 100, 1)))
	}
	together := Analyze(all, Options{})
	if len(together.Changes) != 1 {
		t.Fatalf("with four other series: %d changes, want the same one", len(together.Changes))
	}
	a, b := alone.Changes[0], together.Changes[0]
	if a.Index != b.Index || a.P != b.P || a.Q != b.Q || b.Series != marginal {
		t.Errorf("alone: at %d, p %v, q %v; together: at %d, p %v, q %v (%s)", a.Index, a.P, a.Q, b.Index, b.P, b.Q, b.Series.Name)
	}
}

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
// median is v = (pi/2) 1.4826^2 / 5 = 0.690554348. With k - 1 = 2
// degrees of freedom Student's t has the closed form p = 1 - sqrt(t^2 /
// (t^2 + 2)).
//
//   - 104 + {-2..2}: v' = v, SE^2 = s^2 (1 + 1/3) = 4/3 exactly,
//     t = 4 / sqrt(4/3) = 2 sqrt(3), p = 1 - sqrt(12/14) = 0.0741799002.
//   - 104 + 10 {-2..2}: MAD 14.826, v' = 100 v = 69.0554348, SE^2 = 4/3
//   - (v' - v) = 69.6982138, t = 0.479125369, p = 0.679122344: the same median, but
//     the run's own noise explains the distance. (The median alone, as
//     Otava checks it: 4 / sqrt(2/3 (1 + 1/3)) = 4.24264069, p = 1 -
//     sqrt(18/20) = 0.0513167019.)
//   - 104 + 0.1 {-2..2}: v' = v/100, a quieter run, which does not
//     narrow the test: case one.
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
		{"ten times quieter", run(104, 0.1), math.Sqrt(4.0 / 3), 2 * math.Sqrt(3), 0.0741799002, false, false},
		{"far above", run(150, 1), math.Sqrt(4.0 / 3), 43.3012702, 5.32907046e-4, true, true},
		{"far below", run(50, 1), math.Sqrt(4.0 / 3), -43.3012702, 5.32907046e-4, true, false},
	} {
		got := Check(s, Point{Samples: c.samples}, Options{})
		if got.Since != 0 || got.Points != 3 || got.DF != 2 || got.SegmentMean != 100 || got.SegmentSD != 1 ||
			!close9(got.SE, c.se) || !close9(got.T, c.tv) || !close9(got.P, c.p) || got.Breaks != c.breaks || got.Regression != c.reg {
			t.Errorf("%s: %+v\nwant SE %.9g, t %.9g, p %.9g, breaks %v, regression %v", c.name, got, c.se, c.tv, c.p, c.breaks, c.reg)
		}
	}
	if got := Check(s, Point{Samples: run(104, 1)}, Options{}); got.ExtraSD != 0 || !close9(got.ValueSE, math.Sqrt(0.690554348)) {
		t.Errorf("extra SD %.9g, value SE %.9g; want 0, sqrt(0.690554348)", got.ExtraSD, got.ValueSE)
	}
	if got := Check(s, Point{Samples: run(104, 10)}, Options{}); !close9(got.ExtraSD, math.Sqrt(99*0.690554348)) {
		t.Errorf("ten times noisier: extra SD %.9g, want sqrt(99 v)", got.ExtraSD)
	}
	// A new run of one sample tells nothing of its noise: it counts as
	// the segment's, v' = v, so 104 is case one.
	if got := Check(s, Point{Samples: []float64{104}}, Options{}); !close9(got.P, 0.0741799002) {
		t.Errorf("one sample: p %.9g, want 0.0741799002", got.P)
	}
	// Segment runs of one sample: a new run of one sample is the
	// prediction interval's t-test, s^2 (1 + 1/k): the same t as case
	// one.
	flat := seriesOf("flat", model.LowerIsBetter, []float64{99, 100, 101})
	if got := Check(flat, Point{Samples: []float64{104}}, Options{}); !close9(got.P, 0.0741799002) || got.ExtraSD != 0 {
		t.Errorf("single samples: %+v, want p 0.0741799002, no extra SD", got)
	}
}

// close9 reports whether a is b to 8 significant digits.
func close9(a, b float64) bool { return math.Abs(a-b) <= 1e-8*math.Abs(b) }

// TestAnalyzeTransient: two unusual results in a row are two change
// points to Otava (one on either side); Analyze reports them as a
// transient regression, with its commits, not as steps. A step next to
// them is one step, its location spanning them.
func TestAnalyzeTransient(t *testing.T) {
	v := noise(5, 80, 100, 0.5)
	v[40], v[41] = 130, 130
	s := seriesOf("outliers", model.LowerIsBetter, v)
	if got := indexes(Detect(v, Options{})); !slices.Equal(got, []int{40, 42}) {
		t.Fatalf("precondition: Otava's change points %v, want [40 42]", got)
	}
	a := Analyze([]*Series{s}, Options{})
	if len(a.Changes) != 0 || len(a.Transients) != 1 || a.Transients[0].From != 40 || a.Transients[0].To != 42 ||
		!a.Transients[0].Regression || math.Abs(a.Transients[0].Ratio-1.3) > 0.01 || !(a.Transients[0].P < 1e-6) {
		t.Errorf("outliers: changes %+v, transients %+v; want none, and a regression of [40, 42) by 30%%", a.Changes, a.Transients)
	}
	raw := Analyze([]*Series{s}, Options{OtavaMerge: true})
	if len(raw.Changes) != 2 || len(raw.Transients) != 0 {
		t.Errorf("OtavaMerge: %d changes, %d transients; want Otava's 2 and none", len(raw.Changes), len(raw.Transients))
	}
	// Without the search for bursts the two results are no step: the
	// split of the whole series at either is weak.
	if none := Analyze([]*Series{s}, Options{Transient: -1}); len(none.Changes) != 0 || len(none.Transients) != 0 {
		t.Errorf("Transient -1: %d changes, %d transients; want none", len(none.Changes), len(none.Transients))
	}

	w := noise(6, 80, 100, 0.5)
	for i := 42; i < 80; i++ {
		w[i] *= 1.05
	}
	w[40], w[41] = 130, 130
	got := indexes(Detect(w, Options{}))
	a = Analyze([]*Series{seriesOf("outliers+step", model.LowerIsBetter, w)}, Options{})
	if len(a.Changes) != 1 || len(a.Transients) != 1 {
		t.Fatalf("outliers then a step (Otava: %v): %d changes and %d transients, want 1 and 1: %+v", got, len(a.Changes), len(a.Transients), a.Changes)
	}
	c := a.Changes[0]
	if c.Before.Commit != "c39" || c.After.Commit != "c42" || c.Outliers != 2 || math.Abs(c.Percent()-5) > 0.5 {
		t.Errorf("outliers then a step (Otava: %v): %s..%s, %d outliers, %+.2f%%; want c39..c42, 2, +5%%", got, c.Before.Commit, c.After.Commit, c.Outliers, c.Percent())
	}
}

// samplesSeries makes a series of n results of k samples each, lognormal
// noise sd around level(i) at result i.
func samplesSeries(seed uint64, n, k int, sd float64, level func(i int) float64) *Series {
	rng := rand.New(rand.NewPCG(seed, 22))
	s := &Series{Name: "s", Benchmark: "s", Unit: "sec/op", Better: model.LowerIsBetter}
	for i := range n {
		v := make([]float64, k)
		for j := range v {
			v[j] = level(i) * math.Exp(sd*rng.NormFloat64())
		}
		s.Points = append(s.Points, Point{Commit: fmt.Sprint("c", i), RunID: int64(i + 1), Samples: v})
	}
	return s
}

// TestBursts: +20% on a few commits, then reverted, at sigma 2% with 10
// samples a result: a run of 2 or more is a transient regression with
// its commits and no change; a run of one is an outlier. Before, runs of
// 1 to 6 commits were reported as nothing at all ("0 changes, 0
// transients"), or counted in the summary only.
func TestBursts(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 6} {
		s := samplesSeries(uint64(n), 100, 10, 0.02, func(i int) float64 {
			if i >= 50 && i < 50+n {
				return 1.2
			}
			return 1
		})
		a := Analyze([]*Series{s}, Options{})
		if len(a.Changes) != 0 {
			t.Errorf("burst of %d: changes %+v, want none", n, a.Changes)
		}
		want, other := a.Transients, a.Outliers
		if n == 1 {
			want, other = a.Outliers, a.Transients
		}
		if len(want) != 1 || len(other) != 0 || want[0].From != 50 || want[0].To != 50+n || !want[0].Regression || math.Abs(want[0].Ratio-1.2) > 0.02 {
			t.Errorf("burst of %d: transients %+v, outliers %+v; want [50, %d) as a %s, a regression of 20%%", n, a.Transients, a.Outliers, 50+n, map[bool]string{true: "outlier", false: "transient"}[n == 1])
		}
	}
}

// TestNewestOnce: three flat results then twice as slow is one event,
// reported once: the newest result, against the three before it (a
// change needs 2 results on either side). It was listed as a change
// point and as the newest result, and counted as 2 regressions.
func TestNewestOnce(t *testing.T) {
	s := seriesOf("x2", model.LowerIsBetter, []float64{100, 101, 99, 200})
	a := Analyze([]*Series{s}, Options{})
	if len(a.Changes) != 0 || len(a.Newest) != 1 || !a.Newest[0].Regression || a.Newest[0].Points != 3 {
		t.Errorf("changes %+v, newest %+v; want none and the newest result, a regression against 3", a.Changes, a.Newest)
	}
	// With more results after the step it is a change, and the newest
	// result, on the step's level, is not reported.
	w := []float64{100, 101, 99, 100, 101, 99, 100, 101}
	for range 4 {
		w = append(w, 200, 201, 199)
	}
	a = Analyze([]*Series{seriesOf("step", model.LowerIsBetter, w)}, Options{})
	if len(a.Changes) != 1 || len(a.Newest) != 0 {
		t.Errorf("a step: changes %+v, newest %+v; want one change and no newest", a.Changes, a.Newest)
	}
	// The newest result the one a change needs: one event, the change.
	w = append(slices.Clone(w[:8]), 200, 201, 199)
	a = Analyze([]*Series{seriesOf("just", model.LowerIsBetter, w)}, Options{})
	if len(a.Changes)+len(a.Newest) != 1 {
		t.Errorf("a step of 3 results: changes %+v, newest %+v; want one event", a.Changes, a.Newest)
	}
}

// TestShort: series of 1 to 3 results cannot show a change, and say so.
func TestShort(t *testing.T) {
	var ss []*Series
	for n := 1; n <= 5; n++ {
		ss = append(ss, seriesOf(fmt.Sprint(n), model.LowerIsBetter, noise(uint64(n), n, 100, 1)))
	}
	a := Analyze(ss, Options{})
	if len(a.Short) != 3 || a.Short[0] != ss[0] || a.Short[2] != ss[2] {
		t.Errorf("short: %d series, want the 3 of fewer than %d results", len(a.Short), MinPoints)
	}
}

// TestRenames: a benchmark renamed at the commit of its +5% step gives
// two series, neither with a change; Renames points out that one ended
// where the other began. A benchmark measured throughout, and one added
// later beside it, are no rename.
func TestRenames(t *testing.T) {
	v := noise(9, 100, 100, 0.5)
	for i := 50; i < 100; i++ {
		v[i] *= 1.05
	}
	old := seriesOf("Old", model.LowerIsBetter, v[:50])
	renamed := seriesOf("New", model.LowerIsBetter, v[50:])
	for i := range renamed.Points {
		renamed.Points[i] = seriesOf("New", model.LowerIsBetter, v).Points[50+i]
	}
	always := seriesOf("Always", model.LowerIsBetter, noise(10, 100, 50, 0.5))
	added := seriesOf("Added", model.LowerIsBetter, noise(11, 100, 50, 0.5))
	added.Points = added.Points[70:]
	ss := []*Series{old, renamed, always, added}
	a := Analyze(ss, Options{})
	if len(a.Changes) != 0 {
		t.Errorf("changes %+v, want none: each series is flat", a.Changes)
	}
	r := Renames(ss)
	if len(r) != 1 || len(r[0].Ended) != 1 || r[0].Ended[0] != old || len(r[0].Began) != 1 || r[0].Began[0] != renamed ||
		r[0].Last.Commit != "c49" || r[0].First.Commit != "c50" {
		t.Fatalf("renames %+v, want Old ended at c49 and New began at c50", r)
	}
}

// TestAnalyzeSteps: AnalyzeSteps finds what Analyze finds (changes with
// their ratios, p- and q-values, transients, outliers, short series),
// only no newest result checked, on series with steps, a transient, an
// outlier, a newest result that breaks, and too few points.
func TestAnalyzeSteps(t *testing.T) {
	step := noise(3, 300, 100, 1)
	for i := 120; i < 300; i++ {
		step[i] *= 1.05 // segments over 200 points: the ratio's bootstrap resamples
	}
	burst := noise(5, 80, 100, 0.5)
	burst[40], burst[41], burst[60] = 130, 130, 130
	newest := noise(5, 50, 100, 1)
	newest[49] += 20
	twoSteps := noise(6, 90, 100, 0.5)
	for i := 30; i < 90; i++ {
		twoSteps[i] += 3
		if i >= 60 {
			twoSteps[i] -= 6
		}
	}
	series := []*Series{seriesOf("step", model.LowerIsBetter, step), seriesOf("burst", model.HigherIsBetter, burst),
		seriesOf("newest", model.LowerIsBetter, newest), seriesOf("twoSteps", model.LowerIsBetter, twoSteps),
		seriesOf("short", model.LowerIsBetter, []float64{1, 2, 3})}
	for i, opts := range []Options{{}, {OtavaMerge: true}, {Transient: -1, WindowLen: 30}} {
		full, steps := Analyze(series, opts), AnalyzeSteps(series, opts)
		if (i == 0 && (len(full.Newest) == 0 || len(full.Transients) == 0 || len(full.Outliers) == 0)) || len(full.Changes) < 3 || len(full.Short) != 1 {
			t.Fatalf("%+v: precondition: 3 changes or more, a short series, and by default a newest result that breaks, a transient, an outlier; got %d, %d, %d, %d, %d",
				opts, len(full.Changes), len(full.Short), len(full.Newest), len(full.Transients), len(full.Outliers))
		}
		if steps.Newest != nil {
			t.Errorf("%+v: AnalyzeSteps checked the newest results: %+v", opts, steps.Newest)
		}
		full.Newest = nil
		if !reflect.DeepEqual(full, steps) {
			t.Errorf("%+v: AnalyzeSteps\n%+v\nAnalyze\n%+v", opts, steps, full)
		}
	}
}

// TestAnalyzer: an Analyzer that analyzed a series before gives
// AnalyzeSteps' analysis of it with one result more, each time, and of
// other series and options, the windows it kept reused.
func TestAnalyzer(t *testing.T) {
	v := noise(8, 260, 100, 1)
	for i := 150; i < len(v); i++ {
		v[i] *= 1.04
	}
	other := noise(9, 120, 50, 2)
	var a Analyzer
	for n := 200; n <= len(v); n += 10 {
		for _, opts := range []Options{{}, {WindowLen: 30, MaxPValue: 0.01}} {
			series := []*Series{seriesOf("step", model.LowerIsBetter, v[:n]), seriesOf("other", model.HigherIsBetter, other)}
			got, want := a.AnalyzeSteps(series, opts), AnalyzeSteps(series, opts)
			if len(want.Changes) == 0 {
				t.Fatalf("%d results: precondition: a change", n)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%d results, %+v: the Analyzer's\n%+v\nAnalyzeSteps'\n%+v", n, opts, got, want)
			}
		}
	}
	if len(a.windows.found) < 20 {
		t.Errorf("%d windows kept, want those of both series at both levels", len(a.windows.found))
	}
}

// TestPointValue: a point's value is the median of its samples
// (stats.Median), bit for bit, one sample or several, NaN for none or a
// NaN sample.
func TestPointValue(t *testing.T) {
	for _, samples := range [][]float64{{1.5}, {math.Copysign(0, -1)}, {math.Inf(1)}, {math.SmallestNonzeroFloat64}, {3, 1, 2}, {1, 2}, {math.NaN()}, {1, math.NaN()}, nil} {
		got, want := Point{Samples: samples}.Value(), stats.Median(samples)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("%v: value %v (%x), median %v (%x)", samples, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}
