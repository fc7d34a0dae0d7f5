package analysis

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// wiggle is a deterministic spread of ±0.4% around 1, round by round.
func wiggle(r int) float64 { return 1 + 0.002*float64((r*7)%5-2) }

// series is a paired metric of unit over rounds: old(r) and new(r) per
// round.
func series(unit string, rounds int, old, new func(r int) float64) model.Metric {
	m := model.Metric{Unit: unit}
	for r := range rounds {
		m.Samples = append(m.Samples,
			model.Sample{Side: "old", Round: r, Iters: 1000, Value: old(r)},
			model.Sample{Side: "new", Round: r, Iters: 1000, Value: new(r)})
	}
	return m
}

// constant is a function of the round that is always v.
func constant(v float64) func(int) float64 { return func(int) float64 { return v } }

// scaledWiggle is v × wiggle(r + shift).
func scaledWiggle(v float64, shift int) func(int) float64 {
	return func(r int) float64 { return v * wiggle(r+shift) }
}

func decisionRun(benches ...model.Benchmark) *model.Run {
	return &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindAB, Paired: true,
		Sides: []model.Side{{Label: "old"}, {Label: "new"}}, Benchmarks: benches}
}

// Each benchmark has one verdict, from the metric that decides it: its
// time; an exact metric when the time did not change and it did (a
// regression before an improvement); without a time, its first metric;
// and the headline's tally counts benchmarks, not metric rows (before, a
// benchmark that regressed on sec/op and B/s counted as 2 regressions,
// and its 0 allocs/op and 0 B/op rows as 2 unchanged).
func TestDecisions(t *testing.T) {
	const n = 20
	sec := func(old, new float64) model.Metric {
		return series("sec/op", n, scaledWiggle(old, 0), scaledWiggle(new, 3))
	}
	exact := func(unit string, old, new float64) model.Metric {
		return series(unit, n, constant(old), constant(new))
	}
	// B/s from SetBytes(1000): 1000 / sec/op, sample by sample.
	bps := func(m model.Metric) model.Metric {
		d := model.Metric{Unit: "B/s", Better: model.HigherIsBetter}
		for _, s := range m.Samples {
			s.Value = 1000 / s.Value
			d.Samples = append(d.Samples, s)
		}
		return d
	}
	work := sec(100e-9, 115e-9)
	crash := model.Benchmark{Name: "Crash", Metrics: []model.Metric{series("sec/op", n, scaledWiggle(50e-9, 0), scaledWiggle(50e-9, 0))},
		Missing: map[string]model.Missing{"new": {Kind: model.MissingFailed, Reason: "panicked (exit status 2) in round 3"}}}
	crash.Metrics[0].Samples = slices.DeleteFunc(crash.Metrics[0].Samples, func(s model.Sample) bool { return s.Side == "new" })
	run := decisionRun(
		model.Benchmark{Name: "Work", Metrics: []model.Metric{work, bps(work), exact("B/op", 0, 0), exact("allocs/op", 0, 0)}},
		model.Benchmark{Name: "Sum", Metrics: []model.Metric{sec(100e-9, 100e-9), exact("B/op", 0, 0), exact("allocs/op", 0, 0)}},
		// The time did not change; allocations fell: the only change (the
		// first metric that changed, B/op, decides).
		model.Benchmark{Name: "Alloc", Metrics: []model.Metric{sec(200e-9, 200e-9), exact("B/op", 64, 32), exact("allocs/op", 2, 1)}},
		// The time improved; an allocation more does not overrule it.
		model.Benchmark{Name: "Faster", Metrics: []model.Metric{sec(200e-9, 174e-9), exact("allocs/op", 1, 2)}},
		// The time did not change; fewer bytes, one allocation more: the
		// regression decides.
		model.Benchmark{Name: "Mixed", Metrics: []model.Metric{sec(200e-9, 200e-9), exact("B/op", 64, 32), exact("allocs/op", 1, 2)}},
		// No time at all: its one metric decides.
		model.Benchmark{Name: "Items", Metrics: []model.Metric{series("items/op", n, scaledWiggle(10, 0), scaledWiggle(13, 1))}},
		// The time is open: the exact change does not decide the
		// benchmark, which stays inconclusive.
		model.Benchmark{Name: "Noisy", Metrics: []model.Metric{
			series("sec/op", n, func(r int) float64 { return 100e-9 * (1 + 0.3*float64(r%2*2-1)) }, func(r int) float64 { return 101e-9 * (1 + 0.3*float64((r+1)%2*2-1)) }),
			exact("allocs/op", 1, 2)}},
		crash,
	)
	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name    string
		verdict Verdict
		unit    string
		by      string
	}{
		{"Work", Regressed, "sec/op", ByTime},
		{"Sum", Unchanged, "sec/op", ByTime},
		{"Alloc", Improved, "B/op", ByExact}, // the first that changed
		{"Faster", Improved, "sec/op", ByTime},
		{"Mixed", Regressed, "allocs/op", ByExact},
		{"Items", Regressed, "items/op", ByMetric},
		{"Noisy", Inconclusive, "sec/op", ByTime},
		{"Crash", "", "", ""},
	}
	for i, w := range want {
		b := rep.Benchmarks[i]
		if len(b.Decisions) != 1 {
			t.Fatalf("%s: %d decisions, want 1", w.name, len(b.Decisions))
		}
		d := b.Decisions[0]
		if d.Verdict != w.verdict || d.Unit != w.unit || d.By != w.by || d.Side != "new" {
			t.Errorf("%s: decision %s by %s (%q) on %s, want %s by %s (%q)", w.name, d.Verdict, d.Unit, d.By, d.Side, w.verdict, w.unit, w.by)
		}
		if d.Change != nil && (d.Metric < 0 || b.Metrics[d.Metric].Changes[0] != d.Change || b.Metrics[d.Metric].Unit != d.Unit) {
			t.Errorf("%s: the decision's change is not its metric's", w.name)
		}
	}
	// Noisy's exact change does not decide, but is kept with the
	// decision to be said beside it (it went unsaid before).
	if d := rep.Benchmarks[6].Decisions[0]; d.Exact == nil || d.ExactUnit != "allocs/op" || d.Exact.Verdict != Regressed || d.Exact.Delta != 1 {
		t.Errorf("Noisy: exact %+v (%s), want allocs/op +1 regressed", d.Exact, d.ExactUnit)
	}
	for _, i := range []int{0, 1, 2, 3, 4} {
		if d := rep.Benchmarks[i].Decisions[0]; d.Exact != nil {
			t.Errorf("%s: exact %+v beside a time that decided", rep.Benchmarks[i].Name, d.Exact)
		}
	}
	if d := rep.Benchmarks[7].Decisions[0]; d.Missing == nil || !d.Missing.Lost || d.Missing.Kind != model.MissingFailed || d.Change != nil {
		t.Errorf("Crash: decision %+v, want the failure on new, lost", d)
	}
	// Work's B/s regressed with it, and its 0 B/op and 0 allocs/op are
	// unchanged: the tally has one regression for Work, no unchanged.
	if len(rep.Tallies) != 1 {
		t.Fatalf("%d tallies, want 1", len(rep.Tallies))
	}
	tl := rep.Tallies[0]
	names := func(idx []int) (out []string) {
		for _, i := range idx {
			out = append(out, rep.Benchmarks[i].Name)
		}
		return out
	}
	for _, c := range []struct {
		what string
		got  []int
		want []string
	}{
		{"regressed", tl.Regressed, []string{"Work", "Mixed", "Items"}},
		{"improved", tl.Improved, []string{"Alloc", "Faster"}},
		{"unchanged", tl.Unchanged, []string{"Sum"}},
		{"inconclusive", tl.Inconclusive, []string{"Noisy"}},
		{"lost", tl.Lost, []string{"Crash"}},
	} {
		if got := names(c.got); !slices.Equal(got, c.want) {
			t.Errorf("tally %s = %q, want %q", c.what, got, c.want)
		}
	}
	if tl.Benchmarks != 8 || tl.Side != "new" || len(tl.Other) != 0 {
		t.Errorf("tally of %d benchmarks on %s, %d other; want 8 on new, 0 other", tl.Benchmarks, tl.Side, len(tl.Other))
	}
	// The metric a benchmark's row shows decides it; B/s and the exact
	// metrics of Work do not.
	work0 := &rep.Benchmarks[0]
	for j, wantDecider := range []bool{true, false, false, false} {
		if got := work0.Decider(j); got != wantDecider {
			t.Errorf("Work %s: Decider %v, want %v", work0.Metrics[j].Unit, got, wantDecider)
		}
	}
	if !rep.Benchmarks[2].Decider(1) || rep.Benchmarks[2].Decider(2) || rep.Benchmarks[2].Decider(0) {
		t.Errorf("Alloc: B/op should decide it, not allocs/op or sec/op")
	}
}

// When the clock chose CPU time, CPU time decides, and the decision says
// so (By ByCPUTime: before, By was "time" whichever clock decided, and a
// JSON reader of decisions[].by could not tell); the wall time, marked
// context, does not.
func TestDecisionOnCPUTime(t *testing.T) {
	wall := Metric{Unit: WallUnit, Context: "the verdict is taken from cpu-sec/op", Changes: []*Change{{Side: "new", Verdict: Inconclusive}}}
	cpu := Metric{Unit: CPUUnit, Changes: []*Change{{Side: "new", Verdict: Regressed}}}
	b := Benchmark{FullName: "Busy", Clock: &Clock{Unit: CPUUnit}, Metrics: []Metric{wall, cpu}}
	b.decide([]string{"old", "new"}, nil, 0.01)
	if d := b.Decisions[0]; d.Unit != CPUUnit || d.Verdict != Regressed || d.By != ByCPUTime || d.Metric != 1 {
		t.Errorf("decision %+v, want regressed by cpu-sec/op", d)
	}
	if b.Decider(0) || !b.Decider(1) {
		t.Errorf("Decider(wall) %v, Decider(cpu) %v; want false, true", b.Decider(0), b.Decider(1))
	}
}

// A report of one side has no decisions, but its time decides by default:
// the notes of its time are said, not those of the metrics around it.
func TestDecisionOneSide(t *testing.T) {
	run := &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindRun, Sides: []model.Side{{Label: "new"}},
		Benchmarks: []model.Benchmark{{Name: "W", Metrics: []model.Metric{
			{Unit: "B/op", Samples: []model.Sample{{Side: "new", Iters: 1, Value: 8}, {Side: "new", Round: 1, Iters: 1, Value: 8}}},
			{Unit: "sec/op", Samples: []model.Sample{{Side: "new", Iters: 1, Value: 1e-6}, {Side: "new", Round: 1, Iters: 1, Value: 1.1e-6}}},
		}}}}
	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	b := &rep.Benchmarks[0]
	if len(b.Decisions) != 0 || len(rep.Tallies) != 0 || !b.Decider(1) || b.Decider(0) {
		t.Errorf("one side: %d decisions, %d tallies, Decider(sec/op) %v, Decider(B/op) %v; want 0, 0, true, false",
			len(b.Decisions), len(rep.Tallies), b.Decider(1), b.Decider(0))
	}
}

// A decision that found nothing says how large a change its interval
// rules out: max(|Lo|, |Hi|) when the interval includes no change and the
// time (or, without one, a metric) decided; nothing for a change found,
// an interval off zero, or another metric deciding. The side's tally
// keeps the inconclusive ones and the largest bound.
func TestWithin(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name    string
		verdict Verdict
		by      string
		lo, hi  float64
		want    float64
	}{
		{"straddles, wider below", Inconclusive, ByTime, -0.0212, 0.0099, 0.0212},
		{"straddles, wider above", Inconclusive, ByCPUTime, -0.0045, 0.0108, 0.0108},
		{"inside the band", Unchanged, ByTime, -0.003, 0.002, 0.003},
		{"no time: a metric", Inconclusive, ByMetric, -0.05, 0.07, 0.07},
		{"touches zero", Inconclusive, ByTime, 0, 0.02, 0.02},
		{"off zero: unsure", Inconclusive, ByTime, 0.001, 0.02, nan},
		{"a change found", Regressed, ByTime, 0.12, 0.15, nan},
		{"exact", Improved, ByExact, -0.5, -0.5, nan},
		{"instructions", Inconclusive, ByInstructions, -0.01, 0.01, nan},
		{"no interval", Inconclusive, ByTime, nan, nan, nan},
	} {
		d := Decision{Verdict: tc.verdict, By: tc.by, Change: &Change{Lo: tc.lo, Hi: tc.hi}}
		if got := within(&d); !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("%s: within %v, want %v", tc.name, got, tc.want)
		}
	}

	r := &Report{Sides: []string{"old", "new"}}
	for _, d := range []Decision{
		{Verdict: Inconclusive, Within: 0.0212},
		{Verdict: Inconclusive, Within: nan}, // off zero
		{Verdict: Unchanged, Within: 0.004},  // counted as unchanged, not bounded
		{Verdict: Inconclusive, Within: 0.0108},
		{Verdict: Regressed, Within: nan},
	} {
		r.Benchmarks = append(r.Benchmarks, Benchmark{Decisions: []Decision{d}})
	}
	tl := r.tally(0)
	if !slices.Equal(tl.Bounded, []int{0, 3}) || tl.Within != 0.0212 || len(tl.Inconclusive) != 3 {
		t.Errorf("tally: bounded %v within %v inconclusive %v; want [0 3], 0.0212, 3", tl.Bounded, tl.Within, tl.Inconclusive)
	}
	n := boundedNote(&Report{Sides: r.Sides, Options: DefaultOptions()}, tl)
	if n == nil || !strings.Contains(n.Text, "2 benchmarks found no change, but their 95% CIs reach beyond the ±1% noise band, to ±2.2% at most") ||
		!strings.Contains(n.Text, "a band of ±2.2% (--noise 2.2,") {
		t.Errorf("note: %+v", n)
	}
}
