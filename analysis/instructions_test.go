package analysis

import (
	"math"
	"slices"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// counts is an instructions/op metric as the simulation pass records it:
// one sample per timed window, outside the paired rounds (round 0).
func counts(old, new []float64) model.Metric {
	m := model.Metric{Unit: InstructionsUnit, Better: model.LowerIsBetter}
	for _, v := range old {
		m.Samples = append(m.Samples, model.Sample{Side: "old", Iters: 2000, Value: v})
	}
	for _, v := range new {
		m.Samples = append(m.Samples, model.Sample{Side: "new", Iters: 2000, Value: v})
	}
	return m
}

// scaled returns v times f.
func scaled(v []float64, f float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * f
	}
	return out
}

// noisy is ±20% round to round around v, the two sides out of step: a
// time no interval of 12 rounds settles.
func noisy(v float64, shift int) func(int) float64 {
	return func(r int) float64 { return v * (1 + 0.2*float64(((r+shift)*5)%7-3)/3) }
}

// pairwiseLogs returns every log(new/old) of two samples, sorted: the
// 16 (or 64) differences a Hodges-Lehmann shift and Moses's interval are
// read from, computed here by brute force as the reference.
func pairwiseLogs(old, new []float64) []float64 {
	var d []float64
	for _, o := range old {
		for _, n := range new {
			d = append(d, math.Log(n/o))
		}
	}
	slices.Sort(d)
	return d
}

// midpoint is the median of sorted d, of even length.
func midpoint(d []float64) float64 { return (d[len(d)/2-1] + d[len(d)/2]) / 2 }

// The change of a count is the Hodges-Lehmann shift of the logs (the
// median of the 16 pairwise log ratios), within Moses's interval, which
// for 4 windows a side is the whole range: from the lowest new over the
// highest old to the highest new over the lowest old (the only interval
// that covers 95%: 1 - 2/70 = 97.1%). Its verdict is by that range
// against the tolerance, not by a test. Reference values by hand: old
// 15000..15003, new 15150..15153: [15150/15003 - 1, 15153/15000 - 1] =
// [+0.97980%, +1.02000%].
func TestInstructionsChange(t *testing.T) {
	old := []float64{15000, 15001, 15002, 15003}
	opts := DefaultOptions()
	for _, tc := range []struct {
		name          string
		new           []float64
		est, lo, hi   float64
		verdict       Verdict
		reason        ReasonKind
		better        int
		tolerancePerc float64
	}{
		{name: "+1% of work", new: []float64{15150, 15151, 15152, 15153},
			est: 15151.5/15001.5 - 1, lo: 15150.0/15003 - 1, hi: 15153.0/15000 - 1, verdict: Regressed, reason: ReasonClears},
		{name: "the same code", new: []float64{15001, 15002, 15000, 15003},
			est: 0, lo: 15000.0/15003 - 1, hi: 15003.0/15000 - 1, verdict: Unchanged, reason: ReasonInsideBand},
		{name: "-3% of work", new: []float64{14551, 14550, 14552, 14553},
			est: 14551.5/15001.5 - 1, lo: 14550.0/15003 - 1, hi: 14553.0/15000 - 1, verdict: Improved, reason: ReasonClears},
		// +0.5% to +0.6%: at the tolerance's edge.
		{name: "at the edge", new: []float64{15077, 15085, 15090, 15080},
			est: 15082.5/15001.5 - 1, lo: 15077.0/15003 - 1, hi: 15090.0/15000 - 1, verdict: Inconclusive, reason: ReasonSmall},
		// A count that varies by 4% from repeat to repeat.
		{name: "nondeterministic", new: []float64{14700, 15300, 15000, 15600},
			est: 15150.0/15001.5 - 1, lo: 14700.0/15003 - 1, hi: 15600.0/15000 - 1, verdict: Inconclusive, reason: ReasonOpen},
		// A higher-is-better count (none is, but the direction is the
		// metric's): more is an improvement.
		{name: "higher is better", new: []float64{15150, 15151, 15152, 15153}, better: model.HigherIsBetter,
			est: 15151.5/15001.5 - 1, lo: 15150.0/15003 - 1, hi: 15153.0/15000 - 1, verdict: Improved, reason: ReasonClears},
		// With a tolerance of 2%, +1% is inside it.
		{name: "a wider tolerance", new: []float64{15150, 15151, 15152, 15153}, tolerancePerc: 2,
			est: 15151.5/15001.5 - 1, lo: 15150.0/15003 - 1, hi: 15153.0/15000 - 1, verdict: Unchanged, reason: ReasonInsideBand},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.est = math.Expm1(midpoint(pairwiseLogs(old, tc.new)))
			o := opts
			if tc.tolerancePerc > 0 {
				o.InstructionsTolerance = tc.tolerancePerc / 100
			}
			m := counts(old, tc.new)
			if tc.better != 0 {
				m.Better = tc.better
			}
			rep, err := Analyze(decisionRun(model.Benchmark{Name: "Hash", Metrics: []model.Metric{m}}), o)
			if err != nil {
				t.Fatal(err)
			}
			am := rep.Benchmarks[0].Metrics[0]
			c := am.Changes[0]
			if am.Exact || c.Test != TestInstructions {
				t.Fatalf("compared as exact=%v by %q, want by %q", am.Exact, c.Test, TestInstructions)
			}
			for _, v := range []struct {
				name      string
				got, want float64
			}{{"estimate", c.Estimate, tc.est}, {"lo", c.Lo, tc.lo}, {"hi", c.Hi, tc.hi}} {
				if math.Abs(v.got-v.want) > 1e-12 {
					t.Errorf("%s = %.6f%%, want %.6f%%", v.name, 100*v.got, 100*v.want)
				}
			}
			if c.Verdict != tc.verdict || c.ReasonKind != tc.reason {
				t.Errorf("verdict %s (%s), want %s (%s): %s", c.Verdict, c.ReasonKind, tc.verdict, tc.reason, c.Reason)
			}
			if !math.IsNaN(c.P) || rep.Comparisons != 0 {
				t.Errorf("p = %v, %d comparisons corrected: a count has no p-value and no place in the correction", c.P, rep.Comparisons)
			}
			// With no time, the count is the benchmark's deciding metric.
			if d := rep.Benchmarks[0].Decisions[0]; d.Unit != InstructionsUnit || d.Verdict != tc.verdict {
				t.Errorf("decision %s by %s, want %s by %s", d.Verdict, d.Unit, tc.verdict, InstructionsUnit)
			}
		})
	}
}

// Counts that repeat exactly on each side are still counts: a difference
// of one instruction in 10,000 is no change (before the unit was known,
// every constant metric was compared exactly, and this read "regressed,
// values are exact and differ").
func TestInstructionsNotExact(t *testing.T) {
	m := counts([]float64{10000, 10000, 10000, 10000}, []float64{10001, 10001, 10001, 10001})
	rep, err := Analyze(decisionRun(model.Benchmark{Name: "Sum", Metrics: []model.Metric{m}}), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Benchmarks[0].Metrics[0].Changes[0]; c.Verdict != Unchanged || c.Test != TestInstructions {
		t.Errorf("verdict %s by %s (%s), want unchanged by %s", c.Verdict, c.Test, c.Reason, TestInstructions)
	}
}

// workBench is a benchmark measured in 12 paired rounds on both clocks
// (CPU time 98% of wall time: it works, never waits, or cpuShare of it),
// with instruction counts beside.
func workBench(name string, oldWall, newWall func(int) float64, cpuShare float64, ins model.Metric) model.Benchmark {
	const rounds = 12
	wall := series(WallUnit, rounds, oldWall, newWall)
	cpu := model.Metric{Unit: CPUUnit}
	for _, s := range wall.Samples {
		s.Value *= cpuShare
		cpu.Samples = append(cpu.Samples, s)
	}
	return model.Benchmark{Name: name, Procs: 1, Metrics: []model.Metric{wall, cpu, ins}}
}

// The time is the verdict; instructions settle what it leaves
// inconclusive, and say what they know where they disagree with it.
func TestDecideByWork(t *testing.T) {
	base := []float64{15000, 15001, 15002, 15003}
	same, more, less := counts(base, scaled(base, 1.0001)), counts(base, scaled(base, 1.05)), counts(base, scaled(base, 0.88))
	run := decisionRun(
		// Time inconclusive, instructions -12%: improved, by instructions.
		workBench("Fewer", noisy(100e-9, 0), noisy(100e-9, 2), 0.98, less),
		// Time inconclusive, including no change; instructions unchanged;
		// CPU-bound: unchanged in work.
		workBench("Same", noisy(100e-9, 0), noisy(100e-9, 2), 0.98, same),
		// The same, but the benchmark works only half its time: it waits,
		// and no count sees what it waits for.
		workBench("Sleeps", noisy(100e-9, 0), noisy(100e-9, 2), 0.5, same),
		// Time +15% regressed, instructions unchanged: the time's verdict,
		// with a note that names memory, layout or the machine.
		workBench("Layout", scaledWiggle(100e-9, 0), scaledWiggle(115e-9, 3), 0.98, same),
		// Time +15% regressed, instructions +5%: agree, no note.
		workBench("Slower", scaledWiggle(100e-9, 0), scaledWiggle(115e-9, 3), 0.98, more),
		// Time -13% improved, instructions +5%: the time's verdict, noted.
		workBench("Vector", scaledWiggle(100e-9, 0), scaledWiggle(87e-9, 3), 0.98, more),
		// Time unchanged (inside ±1%), instructions +1%: the band's edge,
		// a note (the busy experiment's +1% trial 20 had neither).
		workBench("Edge", scaledWiggle(100e-9, 0), scaledWiggle(100e-9, 3), 0.98, counts(base, scaled(base, 1.01))),
		// Time unchanged, instructions +5%, wholly beyond the band: the
		// count decides.
		workBench("Beyond", scaledWiggle(100e-9, 0), scaledWiggle(100e-9, 3), 0.98, more),
	)
	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		verdict Verdict
		by      string
		time    Verdict
		topic   string // of the benchmark's instructions note, "" for none
	}{
		{"Fewer", Improved, ByInstructions, Inconclusive, ""},
		{"Same", Unchanged, ByInstructions, Inconclusive, ""},
		{"Sleeps", Inconclusive, ByTime, "", "waits"},
		{"Layout", Regressed, ByTime, "", "time-only"},
		{"Slower", Regressed, ByTime, "", ""},
		{"Vector", Improved, ByTime, "", "contradicts"},
		{"Edge", Unchanged, ByTime, "", "work-only"},
		{"Beyond", Regressed, ByInstructions, Unchanged, "work-beyond-band"},
	} {
		i := slices.IndexFunc(rep.Benchmarks, func(b Benchmark) bool { return b.Name == tc.name })
		b := &rep.Benchmarks[i]
		d := b.Decisions[0]
		if d.Verdict != tc.verdict || d.By != tc.by || d.Time != tc.time {
			t.Errorf("%s: %s by %s (time %q), want %s by %s (time %q)", tc.name, d.Verdict, d.By, d.Time, tc.verdict, tc.by, tc.time)
		}
		if tc.by == ByInstructions && (d.Unit != InstructionsUnit || !b.Decider(d.Metric) || b.Metrics[d.Metric].Unit != InstructionsUnit) {
			t.Errorf("%s: decided by %s, metric %d, want by instructions/op", tc.name, d.Unit, d.Metric)
		}
		var topics []string
		for _, n := range b.Notes {
			if n.Kind == model.NoteInstructions {
				topics = append(topics, n.Topic)
			}
		}
		if want := []string{tc.topic}; tc.topic == "" && len(topics) > 0 || tc.topic != "" && !slices.Equal(topics, want) {
			t.Errorf("%s: instruction notes %q, want %q", tc.name, topics, tc.topic)
		}
	}
	// Instructions are context: they take no part in the correction.
	if rep.Comparisons != 8 {
		t.Errorf("%d comparisons corrected, want the 8 times", rep.Comparisons)
	}
	tally := rep.Tallies[0]
	if len(tally.Improved) != 2 || len(tally.Regressed) != 3 || len(tally.Unchanged) != 2 || len(tally.Inconclusive) != 1 {
		t.Errorf("tally %+v, want 2 improved, 3 regressed, 2 unchanged, 1 inconclusive", tally)
	}
}

// --gate instructions fails on a count that regressed beyond the limit,
// whatever the time said, and passes a time regression whose count did
// not move; without it the gate is the time's.
func TestGateOnInstructions(t *testing.T) {
	base := []float64{15000, 15001, 15002, 15003}
	run := decisionRun(
		workBench("MoreWork", noisy(100e-9, 0), noisy(100e-9, 2), 0.98, counts(base, scaled(base, 1.08))),
		workBench("Layout", scaledWiggle(100e-9, 0), scaledWiggle(115e-9, 3), 0.98, counts(base, base)),
		model.Benchmark{Name: "NoCount", Procs: 1, Metrics: []model.Metric{series(WallUnit, 12, scaledWiggle(100e-9, 0), scaledWiggle(100e-9, 1))}},
	)
	for _, tc := range []struct {
		gate    string
		fails   []string
		ungated []string
	}{
		{GateTime, []string{"Layout-1"}, nil},
		{GateInstructions, []string{"MoreWork-1"}, []string{"NoCount-1"}},
	} {
		opts := DefaultOptions()
		opts.Gate = tc.gate
		rep, err := Analyze(run, opts)
		if err != nil {
			t.Fatal(err)
		}
		var fails []string
		for _, f := range rep.ApplyGate(0.05, false) {
			fails = append(fails, f.Benchmark)
		}
		if !slices.Equal(fails, tc.fails) || !slices.Equal(rep.Gated.Ungated, tc.ungated) || rep.Gated.On != tc.gate {
			t.Errorf("gate on %s: failed %q, ungated %q (on %q), want %q, %q", tc.gate, fails, rep.Gated.Ungated, rep.Gated.On, tc.fails, tc.ungated)
		}
	}
}

// With 8 windows a side (4 per process, 2 processes), Moses's interval
// is narrower than the range: for n = m = 8 at 95% the Mann-Whitney
// table's critical U is 13, so the interval runs from the 14th smallest
// to the 14th largest of the 64 ratios. Windows that vary by ±0.6%
// (garbage collection landing unevenly), a change of +1%: the range (+0.24% to +1.35%)
// would reach below the tolerance, the interval (+0.70% to +1.35%) does not.
func TestInstructionsChangeEightWindows(t *testing.T) {
	old := []float64{3712, 3736, 3741, 3735, 3738, 3732, 3720, 3724}
	new := scaled([]float64{3721, 3726, 3737, 3738, 3713, 3730, 3737, 3741}, 1.01)
	rep, err := Analyze(decisionRun(model.Benchmark{Name: "JSON", Metrics: []model.Metric{counts(old, new)}}), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Benchmarks[0].Metrics[0].Changes[0]
	d := pairwiseLogs(old, new)
	for _, v := range []struct {
		name      string
		got, want float64
	}{{"estimate", c.Estimate, math.Expm1(midpoint(d))}, {"lo", c.Lo, math.Expm1(d[13])}, {"hi", c.Hi, math.Expm1(d[50])}} {
		if math.Abs(v.got-v.want) > 1e-12 {
			t.Errorf("%s = %.6f%%, want %.6f%%", v.name, 100*v.got, 100*v.want)
		}
	}
	if rangeLo := slices.Min(new)/slices.Max(old) - 1; !(rangeLo < 0.005) {
		t.Fatalf("the fixture's range starts at %.3f%%: it should reach below the tolerance", 100*rangeLo)
	}
	if c.Verdict != Regressed {
		t.Errorf("verdict %s (%s), want regressed", c.Verdict, c.Reason)
	}
}
