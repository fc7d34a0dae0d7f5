package analysis

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// readSeed003 reads the 12 + 12 BenchmarkBuild results of seed 003.
func readSeed003(t *testing.T, oldFile, newFile string) *model.Run {
	t.Helper()
	var runs []*model.Run
	for _, f := range []string{oldFile, newFile} {
		r, err := model.ReadFile(filepath.Join("..", "testdata", "seed003", f), strings.TrimSuffix(f, ".txt"))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	run, err := model.Merge(runs...)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func approx(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// TestSeed003MatchesBenchstat checks the medians, changes and verdicts on
// seed 003's data against benchstat's own output on the same files:
//
//	Build  8107.5n ± 7%   800.4n ± 13%   -90.13% (p=0.000 n=12)
//	Build  75.28Mi ± 6%   762.61Mi ± 11% +913.05% (p=0.000 n=12)   B/s
//	Build  42.195Ki ± 0%  1.867Ki ± 0%   -95.57% (p=0.000 n=12)
//	Build  127.000 ± 0%   8.000 ± 0%     -93.70% (p=0.000 n=12)
func TestSeed003MatchesBenchstat(t *testing.T) {
	rep, err := Analyze(readSeed003(t, "base.txt", "optimized.txt"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Benchmarks) != 1 {
		t.Fatalf("got %d benchmarks, want 1", len(rep.Benchmarks))
	}
	tests := []struct {
		unit              string
		old, new          float64 // benchstat's medians
		oldSpread, newSpr float64 // benchstat's "± 7%", rounded to a percent
		change            float64 // benchstat's change, rounded to 0.01%
		verdict           Verdict
	}{
		{"sec/op", 8107.5e-9, 800.4e-9, 0.07, 0.13, -0.9013, Improved},
		{"B/s", 75.28 * (1 << 20), 762.61 * (1 << 20), 0.06, 0.11, 9.1305, Improved},
		{"B/op", 42.195 * 1024, 1.867 * 1024, 0, 0, -0.9557, Improved},
		{"allocs/op", 127, 8, 0, 0, -0.9370, Improved},
	}
	b := rep.Benchmarks[0]
	for _, tt := range tests {
		var m *Metric
		for i := range b.Metrics {
			if b.Metrics[i].Unit == tt.unit {
				m = &b.Metrics[i]
			}
		}
		if m == nil {
			t.Errorf("%s: missing", tt.unit)
			continue
		}
		old, nw, c := m.Sides[0], m.Sides[1], m.Changes[0]
		if !approx(old.Center, tt.old, tt.old*5e-4) || !approx(nw.Center, tt.new, tt.new*5e-4) {
			t.Errorf("%s: medians %v -> %v, want %v -> %v", tt.unit, old.Center, nw.Center, tt.old, tt.new)
		}
		if old.N != 12 || nw.N != 12 {
			t.Errorf("%s: n = %d, %d, want 12, 12", tt.unit, old.N, nw.N)
		}
		if !approx(old.Spread(), tt.oldSpread, 0.005) || !approx(nw.Spread(), tt.newSpr, 0.005) {
			t.Errorf("%s: spreads ±%.3f, ±%.3f, want ±%.2f, ±%.2f", tt.unit, old.Spread(), nw.Spread(), tt.oldSpread, tt.newSpr)
		}
		if !approx(c.Estimate, tt.change, 0.00005) {
			t.Errorf("%s: change %.5f, want %.4f", tt.unit, c.Estimate, tt.change)
		}
		if !(c.Lo <= c.Estimate && c.Estimate <= c.Hi) {
			t.Errorf("%s: change CI [%v, %v] does not hold the estimate %v", tt.unit, c.Lo, c.Hi, c.Estimate)
		}
		// benchstat prints p=0.000: below 0.0005.
		if !(c.P < 0.0005) {
			t.Errorf("%s: p = %v, want < 0.0005 as benchstat's p=0.000", tt.unit, c.P)
		}
		if c.Verdict != tt.verdict {
			t.Errorf("%s: verdict %s (%s), want %s", tt.unit, c.Verdict, c.Reason, tt.verdict)
		}
	}
}

func TestSeed003SwappedFailsGate(t *testing.T) {
	rep, err := Analyze(readSeed003(t, "optimized.txt", "base.txt"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	fails := rep.Gate(0.05)
	units := map[string]bool{}
	for _, f := range fails {
		units[f.Unit] = true
	}
	// Time, bytes and allocations all regress. B/s falls too, but it is
	// derived from sec/op (SetBytes): one measurement, one gate failure.
	for _, u := range []string{"sec/op", "B/op", "allocs/op"} {
		if !units[u] {
			t.Errorf("gate at 5%% did not fail on %s; failures: %+v", u, fails)
		}
	}
	if units["B/s"] || len(fails) != 3 {
		t.Errorf("gate at 5%% failed on %d comparisons, B/s among them: %+v", len(fails), fails)
	}
	// A regression of 2160% in B/op exceeds a 2000% gate; 1488% in
	// allocs/op does not.
	got := rep.Gate(20)
	if len(got) != 1 || got[0].Unit != "B/op" {
		t.Errorf("Gate(20) = %+v, want only B/op (43208/1912-1 = 21.60)", got)
	}
	if len(rep.Gate(-1)) != 0 {
		t.Error("a negative gate must be off")
	}
}

// pairedRun builds a paired run in which every round of "new" is exactly
// factor times the same round of "old" (times jitter[i] when given).
func pairedRun(old []float64, factor float64, jitter ...float64) *model.Run {
	m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
	for i, v := range old {
		m.Samples = append(m.Samples,
			model.Sample{Side: "old", Round: i, Iters: 1000, Value: v},
			model.Sample{Side: "new", Round: i, Iters: 1000, Value: v * factor * jitterAt(jitter, i)})
	}
	return &model.Run{Kind: model.KindAB, Paired: true,
		Sides:      []model.Side{{Label: "old"}, {Label: "new"}},
		Benchmarks: []model.Benchmark{{Name: "X", Metrics: []model.Metric{m}}}}
}

func jitterAt(j []float64, i int) float64 {
	if i < len(j) {
		return j[i]
	}
	return 1
}

// TestPairedRatio: every round's ratio is 1.10 times a factor exp(e) with
// e symmetric around 0 (±0.001 ... ±0.005), so the Walsh averages of the
// log ratios are symmetric around log 1.10 and their median, the change,
// is +10% exactly. All ten log ratios are positive and distinct, so
// Wilcoxon's exact two-sided p is 2/2^10 = 0.001953125; the interval is
// the 9th smallest and largest Walsh averages (table critical value 8 for
// n=10), which lie within ±0.5% of log 1.10.
func TestPairedExactRatio(t *testing.T) {
	old := []float64{100e-9, 103e-9, 98e-9, 120e-9, 101e-9, 99e-9, 102e-9, 97e-9, 110e-9, 100.5e-9}
	var jitter []float64
	for _, e := range []float64{0.001, -0.001, 0.002, -0.002, 0.003, -0.003, 0.004, -0.004, 0.005, -0.005} {
		jitter = append(jitter, math.Exp(e))
	}
	rep, err := Analyze(pairedRun(old, 1.10, jitter...), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Benchmarks[0].Metrics[0].Changes[0]
	if !c.Paired || c.Test != "wilcoxon" || c.N != 10 {
		t.Fatalf("change = %+v, want paired wilcoxon over 10 pairs", c)
	}
	if !approx(c.Estimate, 0.10, 1e-12) {
		t.Errorf("estimate = %v, want exactly +10%%", c.Estimate)
	}
	if !(c.Lo < 0.10 && c.Hi > 0.10 && c.Lo > 1.1*math.Exp(-0.005)-1 && c.Hi < 1.1*math.Exp(0.005)-1) {
		t.Errorf("CI [%v, %v] not around +10%% within the jitter", c.Lo, c.Hi)
	}
	if !approx(c.P, 0.001953125, 1e-9) {
		t.Errorf("p = %v, want 2/1024", c.P)
	}
	if c.Verdict != Regressed {
		t.Errorf("verdict %s (%s), want regressed", c.Verdict, c.Reason)
	}
	if g := rep.Gate(0.05); len(g) != 1 || !approx(g[0].Change, 0.10, 1e-12) {
		t.Errorf("Gate(5%%) = %+v, want one failure of +10%%", g)
	}
	if g := rep.Gate(0.15); len(g) != 0 {
		t.Errorf("Gate(15%%) = %+v, want none", g)
	}
}

// TestDecide checks the verdict rules of DESIGN.md on hand-made changes.
func TestDecide(t *testing.T) {
	opts := DefaultOptions() // noise 1%, alpha 0.05
	tests := []struct {
		name           string
		better         int
		est, lo, hi    float64
		p              float64
		test           string
		want           Verdict
		reasonContains string
		kind           ReasonKind
	}{
		{"clear regression", model.LowerIsBetter, 0.10, 0.08, 0.12, 0.001, "utest", Regressed, "clears", ReasonClears},
		{"clear improvement", model.LowerIsBetter, -0.10, -0.12, -0.08, 0.001, "utest", Improved, "clears", ReasonClears},
		{"higher is better falls", model.HigherIsBetter, -0.10, -0.12, -0.08, 0.001, "utest", Regressed, "clears", ReasonClears},
		{"inside band", model.LowerIsBetter, 0.002, -0.005, 0.008, 0.6, "utest", Unchanged, "inside", ReasonInsideBand},
		{"clears band, p too big", model.LowerIsBetter, 0.10, 0.02, 0.2, 0.2, "utest", Inconclusive, "not below", ReasonNotSignificant},
		{"real but tiny", model.LowerIsBetter, 0.008, 0.004, 0.012, 0.001, "utest", Inconclusive, "too small to matter", ReasonSmall},
		{"straddles zero", model.LowerIsBetter, 0.01, -0.03, 0.05, 0.5, "utest", Inconclusive, "includes no change", ReasonOpen},
		{"no interval", model.LowerIsBetter, 0.01, math.NaN(), math.NaN(), math.NaN(), "utest", Inconclusive, "too few samples", ReasonTooFew},
		{"exact equal", model.LowerIsBetter, 0, 0, 0, math.NaN(), "exact", Unchanged, "identical", ReasonExactIdentical},
		{"exact worse", model.LowerIsBetter, 0.001, 0.001, 0.001, math.NaN(), "exact", Regressed, "exact", ReasonExactDiffer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Change{Estimate: tt.est, Lo: tt.lo, Hi: tt.hi, P: tt.p, PAdjusted: tt.p, Test: tt.test}
			m := &Metric{Unit: "sec/op", Better: tt.better, Sides: []Summary{{Center: 1e-6, Iters: 1e6}}}
			decide(c, m, opts)
			if c.Verdict != tt.want || !strings.Contains(c.Reason, tt.reasonContains) || c.ReasonKind != tt.kind {
				t.Errorf("verdict %s (%q, %s), want %s containing %q, %s", c.Verdict, c.Reason, c.ReasonKind, tt.want, tt.reasonContains, tt.kind)
			}
		})
	}
}

// TestTimerFloor: a 10% change of a 1 ns operation sampled 10 times per
// batch is 1 ns per batch, below a 100 ns timer: never significant.
func TestTimerFloor(t *testing.T) {
	opts := DefaultOptions()
	opts.TimerResolution = 100e-9
	c := &Change{Estimate: 0.10, Lo: 0.08, Hi: 0.12, P: 0.001, PAdjusted: 0.001, Test: "wilcoxon"}
	m := &Metric{Unit: "sec/op", Better: model.LowerIsBetter, Sides: []Summary{{Center: 1e-9, Iters: 10}}}
	decide(c, m, opts)
	if c.Verdict != Inconclusive || !strings.Contains(c.Reason, "resolution") {
		t.Errorf("verdict %s (%s), want inconclusive below the timer resolution", c.Verdict, c.Reason)
	}
}

// TestOneSidedAndChanceNotes: a benchmark present on one side only is
// named in a note, and the chance note counts the comparisons.
func TestOneSidedAndChanceNotes(t *testing.T) {
	run := pairedRun([]float64{1, 2, 3, 4, 5, 6, 7, 8}, 1.5)
	run.Paired = false
	extra := run.Benchmarks[0]
	extra.Name = "Y"
	run.Benchmarks = append(run.Benchmarks, extra)
	only := model.Benchmark{Name: "OnlyOld", Metrics: []model.Metric{{Unit: "sec/op", Samples: []model.Sample{{Side: "old", Iters: 1, Value: 1}}}}}
	run.Benchmarks = append(run.Benchmarks, only)
	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(model.Texts(rep.Notes), "\n")
	if !strings.Contains(notes, "OnlyOld (missing on new)") {
		t.Errorf("notes do not name the one-sided benchmark:\n%s", notes)
	}
	if rep.Comparisons != 2 || !strings.Contains(notes, "2 comparisons") || !strings.Contains(notes, "Holm") {
		t.Errorf("comparisons = %d, notes:\n%s", rep.Comparisons, notes)
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, mut := range []func(*Options){
		func(o *Options) { o.Confidence = 1 },
		func(o *Options) { o.Alpha = 0 },
		func(o *Options) { o.Noise = -0.1 },
		func(o *Options) { o.Test = "ttest" },
		func(o *Options) { o.Correction = "bonferroni" },
		func(o *Options) { o.Resamples = 10 },
	} {
		o := DefaultOptions()
		mut(&o)
		if _, err := Analyze(pairedRun([]float64{1, 2}, 1), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// TestElisionNote: a flat sub-nanosecond time is flagged as likely
// optimized away, unless the source already judged it from the
// disassembly (its note must not be contradicted).
func TestElisionNote(t *testing.T) {
	run := pairedRun([]float64{0.30e-9, 0.301e-9, 0.299e-9, 0.30e-9, 0.302e-9, 0.30e-9}, 1)
	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(model.Texts(rep.Benchmarks[0].Metrics[0].Notes), "\n"); !strings.Contains(notes, "likely optimized away") {
		t.Errorf("no elision note for 0.3 ns/op:\n%s", notes)
	}
	// The harness's note on samples clamped at the loop overhead uses the
	// same words but judges nothing: it must not switch the check off
	// (when notes were English, it did).
	run.Benchmarks[0].Notes = []model.Note{{Kind: model.NoteStatistics, Topic: "clamped", Source: "harness",
		Text: "new: 3 of 6 samples measured at or below the loop overhead and count as 0: the work may have been optimized away, or costs less than a call"}}
	rep, err = Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(model.Texts(rep.Benchmarks[0].Metrics[0].Notes), "\n"); !strings.Contains(notes, "likely optimized away") {
		t.Errorf("a clamped-sample note switched the elision check off:\n%s", notes)
	}
	run.Benchmarks[0].Notes = []model.Note{{Kind: model.NoteDisassembly, Source: "observe",
		Text: "the disassembly of X shows work in its loops: the code was not optimized away, it is just fast"}}
	rep, err = Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(model.Texts(rep.Benchmarks[0].Metrics[0].Notes), "\n"); strings.Contains(notes, "likely optimized away") {
		t.Errorf("analysis contradicts the disassembly's verdict:\n%s", notes)
	}
}

// TestPairedAAWithPreemptedRound: an A/A run whose rounds differ by
// ±0.2% except one round preempted on one side (+50%) is unchanged: one
// bad round must not manufacture a change.
func TestPairedAAWithPreemptedRound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var old, jitter []float64
	for i := 0; i < 30; i++ {
		old = append(old, 1e-6*(1+0.05*rng.Float64()))
		jitter = append(jitter, math.Exp(0.002*rng.NormFloat64()))
	}
	jitter[17] = 1.5
	rep, err := Analyze(pairedRun(old, 1, jitter...), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Benchmarks[0].Metrics[0].Changes[0]
	if c.Verdict != Unchanged {
		t.Errorf("verdict %s (%s), want unchanged", c.Verdict, c.Reason)
	}
}

// TestMoreRounds: an unsettled paired change says how many rounds would
// settle it, from its own interval (hand-computed: z.975 = 1.959964,
// z.80 = 0.841621, so w' = gap / 1.429410 and n' = n (w/w')^2), never from
// the sides' coefficient of variation, which pairing cancels: a machine
// that slowed both sides by 35% asked for about 20,000 samples per side
// where about 500 rounds suffice.
func TestMoreRounds(t *testing.T) {
	opts := DefaultOptions() // noise 1%, confidence 95%
	tests := []struct {
		name        string
		est, lo, hi float64
		n           int
		want        string
		// The same as data: SettleRounds, or SettleBeyond (100 n).
		rounds, beyond int
	}{
		// w = 0.0145, gap = 0.013, w' = 0.0090946: n' = 20 * 2.54195 = 50.84.
		{"real change overlapping the band", 0.023, 0.004, 0.033, 20, "about 51 rounds", 51, 0},
		// w = 0.025, gap = 0.005, w' = 0.0034979: n' = 10 * 51.08 = 510.8.
		{"no change, wide interval", 0.005, -0.02, 0.03, 10, "about 511 rounds", 511, 0},
		// gap = 0.0001: w' = 0.00007, and 10 w' < w = 0.008.
		{"on the band's edge", 0.0101, 0.002, 0.018, 20, "settling it would take more than 100 times this run's 20 rounds (about 261,530 for a four-in-five chance", 0, 2000},
		// Issue 39: +0.31% [-5.44%, +5.31%] of 22 rounds read "even 100
		// times this run's 22 rounds would likely not settle it", where
		// 2,200 settle it two times in three: w = 0.05375, gap = 0.0069,
		// w' = 0.0048272, n' = 22 * 123.99 = 2727.7.
		{"near the edge, wide", 0.0031, -0.0544, 0.0531, 22, "more than 100 times this run's 22 rounds (about 2,728 for a four-in-five chance", 0, 2200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Change{Paired: true, Test: "wilcoxon", N: tt.n, Estimate: tt.est, Lo: tt.lo, Hi: tt.hi, P: 0.01, PAdjusted: 0.01}
			// Each side drifted: a CV of 35.9%, as a busy machine gave.
			m := &Metric{Unit: "sec/op", Better: model.LowerIsBetter, Sides: []Summary{{Center: 1e-4, CV: 0.359, Iters: 300}, {Center: 1e-4, CV: 0.359, Iters: 300}}}
			decide(c, m, opts)
			if c.Verdict != Inconclusive || !strings.Contains(c.Reason, tt.want) || strings.Contains(c.Reason, "per side") {
				t.Errorf("verdict %s, reason %q: want inconclusive saying %q", c.Verdict, c.Reason, tt.want)
			}
			if c.SettleRounds != tt.rounds || c.SettleBeyond != tt.beyond || c.SettleSamples != 0 {
				t.Errorf("SettleRounds %d, SettleBeyond %d, SettleSamples %d; want %d, %d, 0", c.SettleRounds, c.SettleBeyond, c.SettleSamples, tt.rounds, tt.beyond)
			}
		})
	}
}

// TestCutShort: a run with a start and no end (the run.json a kill -9
// left) is partial and says so; one that ended, one already noted as
// interrupted (no second note) and one without a start (Go benchmark
// output) are not cut short (issue 23 item 4: a killed rigor exec's run
// printed "regressed" with no word of it).
func TestCutShort(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	old := []float64{100e-9, 103e-9, 98e-9, 120e-9, 101e-9, 99e-9}
	for _, tc := range []struct {
		name       string
		start, end time.Time
		notes      []model.Note
		cut        bool
		partial    bool
	}{
		{"killed", start, time.Time{}, nil, true, true},
		{"ended", start, start.Add(time.Minute), nil, false, false},
		{"interrupted", start, time.Time{}, []model.Note{{Kind: model.NoteInterrupted, Text: "The run was interrupted."}}, false, true},
		{"benchfmt", time.Time{}, time.Time{}, nil, false, false},
	} {
		run := pairedRun(old, 1.2)
		run.Start, run.End, run.Notes = tc.start, tc.end, tc.notes
		rep, err := Analyze(run, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		cut := 0
		for _, n := range rep.Notes {
			if n.Topic == "cut-short" {
				cut++
				if !strings.Contains(n.Text, "cut short") || !strings.Contains(n.Text, "partial") {
					t.Errorf("%s: note %q", tc.name, n.Text)
				}
			}
		}
		if (cut == 1) != tc.cut || cut > 1 || rep.Partial() != tc.partial {
			t.Errorf("%s: %d cut-short notes, Partial %v; want cut short %v, partial %v", tc.name, cut, rep.Partial(), tc.cut, tc.partial)
		}
	}
}

// Issue 39: an interval off zero that overlaps the band was "a real
// change" even where the corrected p-value said it was not significant
// ("a real change, but the 95% CI [-14.04%, -0.10%] overlaps the ±1% noise
// band" with a Holm p of 0.26). Not significant is not real.
func TestSmallNotSignificant(t *testing.T) {
	opts := DefaultOptions()
	m := &Metric{Unit: "sec/op", Better: model.LowerIsBetter, Sides: []Summary{{Center: 1e-4, Iters: 300}, {Side: "new", Center: 0.93e-4, Iters: 300}}}
	for _, tc := range []struct {
		p      float64
		kind   ReasonKind
		want   string
		banned string
	}{
		{0.26, ReasonUnsure, "and p=0.260 after Holm is not below 0.05: neither a change beyond the band nor a significant one", "a real change"},
		{0.01, ReasonSmall, "a real change, but the 95% CI [-14.04%, -0.10%] overlaps", "not below"},
	} {
		c := &Change{Side: "new", Paired: true, Test: "wilcoxon", N: 20, Estimate: -0.07, Lo: -0.1404, Hi: -0.001, P: tc.p / 4, PAdjusted: tc.p}
		decide(c, m, opts)
		if c.Verdict != Inconclusive || c.ReasonKind != tc.kind || !strings.Contains(c.Reason, tc.want) || strings.Contains(c.Reason, tc.banned) {
			t.Errorf("p %v: %s (%s) %q; want inconclusive (%s) saying %q, not %q", tc.p, c.Verdict, c.ReasonKind, c.Reason, tc.kind, tc.want, tc.banned)
		}
	}
}
