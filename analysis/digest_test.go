package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

func TestDigest(t *testing.T) {
	exact := model.Note{Kind: model.NoteExact, Text: "values never vary within a side: compared exactly"}
	gc := model.Note{Kind: model.NoteBottleneck, Topic: "gc", Text: "bottleneck: garbage collection"}
	lock := model.Note{Kind: model.NoteBottleneck, Topic: "lock", Text: "bottleneck: lock contention"}
	prof := model.Note{Kind: model.NoteProfile, Text: "profiled in an untimed run after the rounds: files in p/"}
	rep := &Report{
		Benchmarks: []Benchmark{
			{FullName: "A", Notes: []model.Note{gc, prof}, Metrics: []Metric{{Unit: "allocs/op", Notes: []model.Note{exact}}}},
			{FullName: "B", Notes: []model.Note{gc, prof}, Metrics: []Metric{{Unit: "allocs/op", Notes: []model.Note{exact}},
				{Unit: "sec/op", Changes: []*Change{{Verdict: Inconclusive, Reason: "too few samples"}}}}},
			{FullName: "C", Notes: []model.Note{lock, prof}, Metrics: []Metric{{Unit: "allocs/op", Notes: []model.Note{exact}}}},
		},
		Notes: []model.Note{{Kind: model.NoteRounds, Text: "Stopped after 12 rounds."}},
	}
	decided(rep)
	lines, hidden := rep.Digest(false)
	var got []string
	for _, l := range lines {
		got = append(got, l.String())
	}
	// Particular notes first, by benchmark; shared ones once; the run's
	// last. Three profile notes, three exact notes and the rounds' are
	// routine.
	want := []string{
		"B sec/op: inconclusive: too few samples",
		"C: bottleneck: lock contention",
		"2 benchmarks (A and B): bottleneck: garbage collection",
	}
	if !slices.Equal(got, want) || hidden != 7 {
		t.Errorf("Digest(false) = %q, hidden %d; want %q, hidden 7", got, hidden, want)
	}
	lines, hidden = rep.Digest(true)
	got = got[:0]
	for _, l := range lines {
		got = append(got, l.String())
	}
	if !slices.Contains(got, "every benchmark allocs/op: values never vary within a side: compared exactly") || hidden != 0 {
		t.Errorf("Digest(true) = %q, hidden %d; want the exact note once for every benchmark", got, hidden)
	}
	if !slices.Contains(got, "A: profiled in an untimed run after the rounds: files in p/") && !slices.Contains(got, "every benchmark: profiled in an untimed run after the rounds: files in p/") {
		t.Errorf("Digest(true) lost the profile notes: %q", got)
	}
}

// High variation on several benchmarks is one line with its range, not a
// line per benchmark and side: a busy machine made every benchmark of the
// issue 13 xxhash run noisy on both sides, 20 of its 68 note lines. On one
// benchmark it stays that benchmark's own; -v lists each.
func TestDigestVariation(t *testing.T) {
	cv := func(side string, v float64, text string) model.Note {
		return model.Note{Kind: model.NoteStatistics, Topic: "variation", Side: side, Unit: "sec/op", Evidence: map[string]float64{"cv": v}, Text: side + ": high variation (CV " + text + "): the machine or the benchmark is noisy"}
	}
	metric := func(notes ...model.Note) []Metric { return []Metric{{Unit: "sec/op", Notes: notes}} }
	rep := &Report{Benchmarks: []Benchmark{
		{FullName: "A", Metrics: metric(cv("old", 0.25, "25%"), cv("new", 0.228, "22.8%"))},
		{FullName: "B", Metrics: metric(cv("old", 0.87, "87%"), cv("new", 0.176, "17.6%"))},
		{FullName: "C", Metrics: metric(cv("new", 0.06, "6%"))},
	}}
	for _, tc := range []struct {
		name  string
		rep   *Report
		want  []string
		lines int // with -v
	}{
		{"every benchmark", rep, []string{"every benchmark sec/op: high variation (CV 6% to 87%; old in 2, new in 3): the machine or the benchmark is noisy"}, 5},
		{"both sides of each", &Report{Benchmarks: rep.Benchmarks[:2]}, []string{"every benchmark sec/op: high variation (CV 17.6% to 87%, on both sides): the machine or the benchmark is noisy"}, 4},
		{"one benchmark", &Report{Benchmarks: append(slices.Clone(rep.Benchmarks[2:]), Benchmark{FullName: "D"})}, []string{"C sec/op: new: high variation (CV 6%): the machine or the benchmark is noisy"}, 1},
		{"one of a single side", &Report{Benchmarks: []Benchmark{
			{FullName: "A", Metrics: metric(model.Note{Kind: model.NoteStatistics, Topic: "variation", Unit: "sec/op", Evidence: map[string]float64{"cv": 0.1}, Text: "high variation (CV 10%): the machine or the benchmark is noisy"})},
			{FullName: "B", Metrics: metric(model.Note{Kind: model.NoteStatistics, Topic: "variation", Unit: "sec/op", Evidence: map[string]float64{"cv": 0.2}, Text: "high variation (CV 20%): the machine or the benchmark is noisy"})},
			{FullName: "C"},
		}}, []string{"2 benchmarks (A and B) sec/op: high variation (CV 10% to 20%): the machine or the benchmark is noisy"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, _ := decided(tc.rep).Digest(false)
			var got []string
			for _, l := range lines {
				got = append(got, l.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Digest(false) = %q\nwant %q", got, tc.want)
			}
			if all, _ := tc.rep.Digest(true); len(all) != tc.lines {
				t.Errorf("Digest(true) has %d lines, want %d (each note)", len(all), tc.lines)
			}
		})
	}
}

// BenchmarkDigest says one benchmark's notes as Digest groups them, for
// the benchmark's own section: its two sides' high variation once, not a
// line per side; the inconclusive reason of the metric that decides, not
// of the other clock beside it; subjects without the benchmark's name;
// none of the run's notes nor the other benchmarks'. Before, HTML listed
// each note as it was: 9 footnotes on one benchmark of issue 24's
// two-benchmark run, 4 of them about metrics that decided nothing.
func TestBenchmarkDigest(t *testing.T) {
	cv := func(side string, v float64, text string) model.Note {
		return model.Note{Kind: model.NoteStatistics, Topic: "variation", Side: side, Unit: "sec/op", Evidence: map[string]float64{"cv": v}, Text: side + ": high variation (CV " + text + "): the machine or the benchmark is noisy"}
	}
	undecided := func() []*Change { return []*Change{{Verdict: Inconclusive, Reason: "too few samples"}} }
	prof := model.Note{Kind: model.NoteProfile, Text: "profiled in an untimed run after the rounds: files in p/"}
	rep := decided(&Report{
		Benchmarks: []Benchmark{
			{FullName: "A", Metrics: []Metric{{Unit: "sec/op", Notes: []model.Note{cv("old", 0.2, "20%"), cv("new", 0.3, "30%")}, Changes: undecided()},
				{Unit: "cpu-sec/op", Changes: undecided()}}},
			{FullName: "B", Notes: []model.Note{prof}, Metrics: []Metric{{Unit: "sec/op", Notes: []model.Note{cv("new", 0.4, "40%")}}}},
		},
		Notes: []model.Note{{Kind: model.NoteMachine, Text: "the run took long"}},
	})
	for _, tc := range []struct {
		i       int
		verbose bool
		want    []string
		hidden  int
	}{
		{0, false, []string{"sec/op: inconclusive: too few samples", "sec/op: high variation (CV 20% to 30%, on both sides): the machine or the benchmark is noisy"}, 1},
		{0, true, []string{"sec/op: old: high variation (CV 20%): the machine or the benchmark is noisy", "sec/op: new: high variation (CV 30%): the machine or the benchmark is noisy",
			"sec/op: inconclusive: too few samples", "cpu-sec/op: inconclusive: too few samples"}, 0},
		{1, false, []string{"sec/op: new: high variation (CV 40%): the machine or the benchmark is noisy"}, 1},
	} {
		lines, hidden := rep.BenchmarkDigest(tc.i, tc.verbose)
		var got []string
		for _, l := range lines {
			got = append(got, l.String())
		}
		if !slices.Equal(got, tc.want) || hidden != tc.hidden {
			t.Errorf("BenchmarkDigest(%d, %v) = %q, hidden %d; want %q, hidden %d", tc.i, tc.verbose, got, hidden, tc.want, tc.hidden)
		}
	}
}

// decided gives the benchmarks of a report built by hand their decisions,
// as Analyze does, against a second side "new".
func decided(r *Report) *Report {
	if len(r.Sides) == 0 {
		r.Sides = []string{"old", "new"}
	}
	for i := range r.Benchmarks {
		r.Benchmarks[i].decide(r.Sides, r.Missing, 0.01)
	}
	return r
}

// digestLines returns r.Digest(verbose) as the lines text reports print.
func digestLines(r *Report, verbose bool) []string {
	lines, _ := r.Digest(verbose)
	var got []string
	for _, l := range lines {
		got = append(got, l.String())
	}
	return got
}

// Inconclusive comparisons whose reasons differ only in their numbers
// are said once per reason, with the rounds (or samples) that would
// settle them as a range naming its ends: the busy issue 13 xxhash run
// repeated the same words for 19 of its comparisons. The table shows
// each interval and p-value, so the grouped line does not. A reason of
// one comparison stays its own line, as it was; -v lists each.
func TestDigestVerdicts(t *testing.T) {
	paired := func(kind ReasonKind, n, rounds, beyond int, reason string) *Change {
		return &Change{Paired: true, N: n, Verdict: Inconclusive, ReasonKind: kind, SettleRounds: rounds, SettleBeyond: beyond, Reason: reason}
	}
	open := func(n, rounds, beyond int, reason string) *Change {
		return paired(ReasonOpen, n, rounds, beyond, reason)
	}
	notSig := func(p, adj float64, reason string) *Change {
		return &Change{Paired: true, N: 6, P: p, PAdjusted: adj, Verdict: Inconclusive, ReasonKind: ReasonNotSignificant, Reason: reason}
	}
	samples := func(n int, reason string) *Change {
		return &Change{N: 10, Verdict: Inconclusive, ReasonKind: ReasonOpen, SettleSamples: n, Reason: reason}
	}
	sec := func(cs ...*Change) Metric { return Metric{Unit: "sec/op", Changes: cs} }
	cpu := func(cs ...*Change) Metric { return Metric{Unit: "cpu-sec/op", Changes: cs} }
	bench := func(name string, ms ...Metric) Benchmark { return Benchmark{FullName: name, Metrics: ms} }
	onCPU := func(b Benchmark) Benchmark { b.Clock = &Clock{Unit: CPUUnit}; return b }
	for _, tc := range []struct {
		name    string
		benches []Benchmark
		want    []string
	}{
		{"rounds as a range, one reason alone", []Benchmark{
			bench("A", sec(open(6, 29, 0, "the 95% CI [-41.27%, +17.76%] includes ... about 29 rounds"))),
			bench("B", sec(open(6, 594, 0, "the 95% CI [-46.08%, +62.47%] includes ... about 594 rounds"))),
			bench("C", sec(open(6, 89, 0, "the 95% CI [-42.15%, +42.85%] includes ... about 89 rounds"))),
			bench("D", sec(notSig(0.1, 0.344, "the 95% CI [-38.41%, -21.75%] clears the ±1% noise band, but p=0.344 after Holm is not below 0.05"))),
		}, []string{
			"D sec/op: inconclusive: the 95% CI [-38.41%, -21.75%] clears the ±1% noise band, but p=0.344 after Holm is not below 0.05",
			"3 benchmarks (A, B and C) sec/op: inconclusive: each 95% CI includes no change and reaches beyond the ±1% noise band; at this run's variation about 29 (A) to 594 (B) rounds would likely settle them (they had 6)",
		}},
		// Only the metric that decides a benchmark says why it is
		// inconclusive; the other clock and a derived unit are left to -v.
		{"beyond reach, every benchmark; the other clock and a derived unit left to -v", []Benchmark{
			bench("A", sec(open(6, 0, 600, "a")), cpu(open(6, 0, 600, "b"))),
			bench("B", cpu(notSig(0.01, 0.062, "d")), sec(open(5, 0, 500, "c")), Metric{Unit: "B/s", DerivedFrom: "sec/op", Changes: []*Change{open(5, 0, 500, "e")}}),
		}, []string{
			"every benchmark sec/op: inconclusive: each 95% CI includes no change and reaches beyond the ±1% noise band; their estimates sit near the band's edge: settling them would take more than 100 times their 5 to 6 rounds",
		}},
		{"the same rounds; units named at the ends", []Benchmark{
			bench("A", sec(open(6, 40, 0, "a"))),
			bench("B", sec(open(6, 40, 0, "b"))),
			onCPU(bench("C", cpu(open(6, 52, 0, "c")), sec(open(6, 40, 0, "d")))),
		}, []string{
			"2 benchmarks (A and B) sec/op and C cpu-sec/op: inconclusive: each 95% CI includes no change and reaches beyond the ±1% noise band; at this run's variation about 40 (A sec/op) to 52 (C cpu-sec/op) rounds would likely settle them (they had 6)",
		}},
		{"unpaired: samples per side", []Benchmark{
			bench("A", sec(samples(12, "a"))), bench("B", sec(samples(80, "b"))), bench("C"),
		}, []string{
			"2 benchmarks (A and B) sec/op: inconclusive: each 95% CI includes no change and reaches beyond the ±1% noise band; about 12 (A) to 80 (B) samples per side would resolve a 1% change at this variation",
		}},
		{"not significant; real but small", []Benchmark{
			bench("A", sec(notSig(0.01, 0.2, "a")), cpu(paired(ReasonSmall, 12, 51, 0, "b"))),
			bench("B", sec(notSig(0.3, 0.3, "c")), cpu(paired(ReasonSmall, 12, 115, 0, "d"))),
		}, []string{
			"every benchmark sec/op: inconclusive: each 95% CI clears the ±1% noise band, but p after Holm is not below 0.05",
		}},
		{"real but small, on CPU time", []Benchmark{
			onCPU(bench("A", sec(notSig(0.01, 0.2, "a")), cpu(paired(ReasonSmall, 12, 51, 0, "b")))),
			onCPU(bench("B", sec(notSig(0.3, 0.3, "c")), cpu(paired(ReasonSmall, 12, 115, 0, "d")))),
		}, []string{
			"every benchmark cpu-sec/op: inconclusive: real changes, but each 95% CI overlaps the ±1% noise band: they may be too small to matter; at this run's variation about 51 (A) to 115 (B) rounds would likely settle them (they had 12)",
		}},
		{"lists alike in their first four names only", []Benchmark{
			bench("A", sec(open(6, 0, 600, "a"))),
			bench("B", sec(open(6, 0, 600, "b"))),
			bench("C", sec(open(6, 0, 600, "c"))),
			bench("D", sec(open(6, 0, 600, "d"))),
			bench("E", sec(open(6, 0, 600, "e"))),
			onCPU(bench("A2", cpu(open(6, 0, 600, "a")))),
			onCPU(bench("B2", cpu(open(6, 0, 600, "b")))),
			onCPU(bench("C2", cpu(open(6, 0, 600, "c")))),
			onCPU(bench("D2", cpu(open(6, 0, 600, "d")))),
			bench("F", cpu(open(6, 0, 600, "f"))), // no sec/op: its one metric decides
			bench("G"),
		}, []string{
			"5 benchmarks (A, B, C, D and 1 more) sec/op and 5 benchmarks (A2, B2, C2, D2 and 1 more) cpu-sec/op: inconclusive: each 95% CI includes no change and reaches beyond the ±1% noise band; their estimates sit near the band's edge: settling them would take more than 100 times their 6 rounds",
		}},
		{"settled by rounds or beyond reach: two findings", []Benchmark{
			bench("A", sec(open(6, 29, 0, "a"))), bench("B", sec(open(6, 0, 600, "b"))),
		}, []string{"A sec/op: inconclusive: a", "B sec/op: inconclusive: b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := decided(&Report{Options: DefaultOptions(), Benchmarks: tc.benches})
			if got := digestLines(rep, false); !slices.Equal(got, tc.want) {
				t.Errorf("Digest(false) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			// -v: each comparison's own reason, as before.
			var want []string
			for _, b := range tc.benches {
				for _, m := range b.Metrics {
					for _, c := range m.Changes {
						want = append(want, b.FullName+" "+m.Unit+": inconclusive: "+c.Reason)
					}
				}
			}
			if got := digestLines(rep, true); !slices.Equal(got, want) {
				t.Errorf("Digest(true) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// The clock chosen for the same reason is said once, with its numbers as
// ranges read from each benchmark's Clock; the words of each note are
// not read. Two benchmarks whose words would differ (GOMAXPROCS) stay
// apart.
func TestDigestClocks(t *testing.T) {
	clock := func(name string, c Clock) Benchmark {
		return Benchmark{FullName: name, Clock: &c, Notes: []model.Note{{Kind: model.NoteClock, Topic: c.Why, Unit: c.Unit, Text: name + "'s reason"}}}
	}
	nan := math.NaN()
	rep := &Report{Options: DefaultOptions(), Benchmarks: []Benchmark{
		clock("A", Clock{Unit: CPUUnit, Why: ClockCPUBound, Contended: 1, CPUPerWall: 2.22, Basis: BasisFairShare, Waiting: 0}),
		clock("B", Clock{Unit: CPUUnit, Why: ClockCPUBound, Contended: 1, CPUPerWall: 1.79, Basis: BasisFairShare, Waiting: 0.02}),
		clock("C", Clock{Unit: WallUnit, Why: ClockCPUUnsteady, Contended: 1, CPUPerWall: 2.3, Basis: BasisFairShare, Waiting: 0, CPUSpread: 0.066, WallSpread: 0.040}),
		clock("D", Clock{Unit: WallUnit, Why: ClockCPUUnsteady, Contended: 0.5, CPUPerWall: 1.9, Basis: BasisFairShare, Waiting: 0, CPUSpread: 0.266, WallSpread: 0.248}),
		clock("E", Clock{Unit: WallUnit, Why: ClockNotCPUBound, Contended: 1, CPUPerWall: 0.4, Basis: BasisQuiet, Waiting: nan}),
		clock("F", Clock{Unit: WallUnit, Why: ClockNoProfile, Contended: 1, CPUPerWall: 1.2, Basis: BasisQuiet, Waiting: nan, Procs: 2}),
		clock("G", Clock{Unit: WallUnit, Why: ClockNoProfile, Contended: 1, CPUPerWall: 1.9, Basis: BasisQuiet, Waiting: nan, Procs: 4}),
		clock("H", Clock{Unit: WallUnit, Why: ClockNoProfile, Contended: 0.25, CPUPerWall: 1.5, Basis: BasisQuiet, Waiting: nan, Procs: 4}),
		// On a quiet machine CPU time decides when it is the steadier
		// clock: said once for both, and not as a busy machine (the
		// family's words fell through to the busy machine's).
		clock("I", Clock{Unit: CPUUnit, Why: ClockSteadier, CPUPerWall: 0.99, Basis: BasisNotWaiting, Waiting: nan, Procs: 1, CPUSpread: 0.01, WallSpread: 0.03}),
		clock("J", Clock{Unit: CPUUnit, Why: ClockSteadier, CPUPerWall: 1.0, Basis: BasisNotWaiting, Waiting: nan, Procs: 1, CPUSpread: 0.02, WallSpread: 0.05}),
	}}
	// Where the verdict stays on wall time, the clock note is for -v: the
	// table names the clock when it is CPU time, and the reason is said
	// once for the benchmarks that share it.
	want := []string{
		"2 benchmarks (A and B): the machine was busy (other processes competed for the CPU in 100% of their samples): wall time measured the machine; they are CPU-bound (it got about twice the CPU a fair scheduler could give one thread, every round being contended: more than one thread's work, 0% to 2% of their CPU profiles on locks or file I/O), so CPU time is used for their verdicts",
		"2 benchmarks (I and J): CPU time decides: they are CPU-bound (CPU time 99% to 100% of the time it was not waiting for a CPU, their one thread busy, GOMAXPROCS 1), so their CPU time is their wall time less the moments they waited for a CPU, and it varied less from round to round (1.0% to 2.0% against 3.0% to 5.0%)",
	}
	if got := digestLines(rep, false); !slices.Equal(got, want) {
		t.Errorf("Digest(false) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	want = nil
	for _, b := range rep.Benchmarks {
		want = append(want, b.FullName+": "+b.FullName+"'s reason")
	}
	if got := digestLines(rep, true); !slices.Equal(got, want) {
		t.Errorf("Digest(true) = %q\nwant %q", got, want)
	}
}

// The same bottleneck is said once, in the words of its finding, with the
// range of each figure every member's note has as Evidence. Two findings
// of one topic stay apart; a note with no finding (a file written before
// notes carried one) stays benchmark by benchmark. A benchmark busy with
// its own code, one starved by other processes (the busy machine's note
// says it) and an inconclusive diagnosis are for -v.
func TestDigestBottlenecks(t *testing.T) {
	note := func(topic, finding string, ev map[string]float64, text string) []model.Note {
		return []model.Note{{Kind: model.NoteBottleneck, Topic: topic, Finding: finding, Evidence: ev, Text: text}}
	}
	const gcHeavy, io = "the garbage collector", "waiting on I/O"
	rep := &Report{Options: DefaultOptions(), Benchmarks: []Benchmark{
		{FullName: "A", Notes: note("gc", gcHeavy, map[string]float64{"gc_share": 0.319}, "bottleneck: the garbage collector (a)")},
		{FullName: "B", Notes: note("gc", gcHeavy, map[string]float64{"gc_share": 0.432}, "bottleneck: the garbage collector (b)")},
		{FullName: "C", Notes: note("io", io, nil, "bottleneck: waiting on I/O (c)")},
		{FullName: "D", Notes: note("io", io, nil, "bottleneck: waiting on I/O (d)")},
		{FullName: "E", Notes: note("gc", gcHeavy, map[string]float64{"gc_share": 0.36}, "bottleneck: the garbage collector (e)")},
		{FullName: "F", Notes: note("inconclusive", "inconclusive", nil, "bottleneck: inconclusive (f)")},
		{FullName: "G", Notes: note("cpu-user", "CPU in user code", map[string]float64{"user_share": 0.9}, "bottleneck: CPU in user code (g)")},
		{FullName: "H", Notes: note("io", io, map[string]float64{"iowait": 0.2}, "bottleneck: waiting on I/O (h)")},
		{FullName: "I", Notes: note("io", io, map[string]float64{"iowait": 0.31}, "bottleneck: waiting on I/O (i)")},
		{FullName: "J", Notes: note("gc", "the garbage collector, assists included", map[string]float64{"gc_share": 0.01}, "bottleneck: the garbage collector, assists included (j)")},
		{FullName: "K", Notes: note("gc", "", nil, "bottleneck: the garbage collector (k)")},
		{FullName: "L", Notes: note("gc", "", nil, "bottleneck: the garbage collector (l)")},
		{FullName: "M", Notes: note("cpu-starved", "not enough CPU: other processes took it", nil, "bottleneck: not enough CPU (m)")},
	}}
	want := []string{
		"J: bottleneck: the garbage collector, assists included (j)",
		"K: bottleneck: the garbage collector (k)",
		"L: bottleneck: the garbage collector (l)",
		"3 benchmarks (A, B and E): bottleneck: the garbage collector (the garbage collector used 31.9% to 43.2% of the CPU)",
		"4 benchmarks (C, D, H and I): bottleneck: waiting on I/O",
	}
	if got := digestLines(rep, false); !slices.Equal(got, want) {
		t.Errorf("Digest(false) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := digestLines(rep, true); len(got) != len(rep.Benchmarks) {
		t.Errorf("Digest(true) has %d lines, want %d (each note)", len(got), len(rep.Benchmarks))
	}
	// Figures every member has: H and I alone.
	rep.Benchmarks = rep.Benchmarks[7:9]
	want = []string{"every benchmark: bottleneck: waiting on I/O (CPUs waited on I/O 20% to 31% of the time)"}
	if got := digestLines(rep, false); !slices.Equal(got, want) {
		t.Errorf("Digest(false) = %q\nwant %q", got, want)
	}
}

// Routine leaves for -v what does not change how a result reads, and
// keeps what a reader acts on: the sides' tests that passed before timing
// were a default note of every rigor ab run (issue 24: one of the three
// notes of the two-benchmark run), tests not run (--no-check) are not.
func TestRoutine(t *testing.T) {
	for _, tc := range []struct {
		name string
		note model.Note
		want bool
	}{
		{"tests passed", model.Note{Kind: model.NoteBuild, Topic: "check", Evidence: map[string]float64{"passed": 2}, Text: "Before timing, each side's tests passed with -test.short (2 test binaries)."}, true},
		{"tests not run", model.Note{Kind: model.NoteBuild, Topic: "check", Text: "The sides' tests were not run before timing (--no-check): nothing says the sides compute the same, correct results."}, false},
		{"packages skipped", model.Note{Kind: model.NoteBuild, Topic: model.TopicSkipped}, true},
		{"budget", model.Note{Kind: model.NoteBudget}, true},
		{"busy machine", model.Note{Kind: model.NoteMachine, Topic: topicBusy}, false},
		{"elision", model.Note{Kind: model.NoteElision}, false},
		{"own CPU", model.Note{Kind: model.NoteBottleneck, Topic: "cpu-user"}, true},
		{"lock", model.Note{Kind: model.NoteBottleneck, Topic: "lock"}, false},
	} {
		if got := Routine(tc.note, false); got != tc.want {
			t.Errorf("%s: Routine = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Values drifting across rounds on several benchmarks are one line with
// the range of |ρ|, as high variation is; on a machine the run's note
// calls busy they are for -v, the busy note says it. Before, the issue 24
// xxhash run (10 benchmarks, busy machine) had 11 drift lines of its 15.
func TestDigestDrift(t *testing.T) {
	drift := func(side string, rho float64) model.Note {
		return model.Note{Kind: model.NoteStatistics, Topic: "drift", Side: side, Unit: "sec/op", Evidence: map[string]float64{"spearman_rho": rho},
			Text: fmt.Sprintf("%s: values drift across rounds (Spearman ρ=%.2f between round and value): the machine changed during the run", side, rho)}
	}
	metric := func(notes ...model.Note) []Metric { return []Metric{{Unit: "sec/op", Notes: notes}} }
	benches := []Benchmark{
		{FullName: "A", Metrics: metric(drift("old", 0.76), drift("new", -0.88))},
		{FullName: "B", Metrics: metric(drift("old", 0.64))},
		{FullName: "C"},
	}
	got := digestLines(&Report{Benchmarks: benches}, false)
	want := []string{"2 benchmarks (A and B) sec/op: values drift across rounds (Spearman |ρ| 0.64 to 0.88 between round and value; old in 2, new in 1): the machine changed during the run"}
	if !slices.Equal(got, want) {
		t.Errorf("Digest(false) = %q, want %q", got, want)
	}
	if got := digestLines(&Report{Benchmarks: benches}, true); len(got) != 3 {
		t.Errorf("Digest(true) = %q, want each of the 3 notes", got)
	}
	busy := &Report{Benchmarks: benches, Notes: []model.Note{{Kind: model.NoteMachine, Topic: topicBusy, Text: "the machine was busy"}}}
	if got := digestLines(busy, false); !slices.Equal(got, []string{"the machine was busy"}) {
		t.Errorf("busy: Digest(false) = %q, want only the busy note", got)
	}
	one := digestLines(&Report{Benchmarks: benches[1:]}, false)
	if !slices.Equal(one, []string{"B sec/op: old: values drift across rounds (Spearman ρ=0.64 between round and value): the machine changed during the run"}) {
		t.Errorf("one benchmark: Digest(false) = %q, want its note as it is", one)
	}
}
