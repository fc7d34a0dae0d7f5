package analysis

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// derivedRun is a paired run of three benchmarks A6, A7 and A8 with 6, 7
// and 8 rounds. In round r (from 1) old takes t = (1 + 0.01 r) µs/op and
// new t × (1.10 + 0.001 r): every log ratio new/old is positive and they
// are all different. Each benchmark also reports B/s = bytes / t and
// sec/item = t / 64 (a ReportMetric); newBytes is the SetBytes of the new
// side (1024 like old's, or not).
func derivedRun(newBytes float64) *model.Run {
	run := &model.Run{Kind: model.KindAB, Paired: true, Sides: []model.Side{{Label: "old"}, {Label: "new"}}}
	for _, n := range []int{6, 7, 8} {
		sec := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
		bps := model.Metric{Unit: "B/s", Better: model.HigherIsBetter}
		item := model.Metric{Unit: "sec/item", Better: model.LowerIsBetter}
		for r := 1; r <= n; r++ {
			old := 1e-6 * (1 + 0.01*float64(r))
			new := old * (1.10 + 0.001*float64(r))
			for _, s := range []struct {
				side  string
				t     float64
				bytes float64
			}{{"old", old, 1024}, {"new", new, newBytes}} {
				sec.Samples = append(sec.Samples, model.Sample{Side: s.side, Round: r, Iters: 1000, Value: s.t})
				bps.Samples = append(bps.Samples, model.Sample{Side: s.side, Round: r, Iters: 1000, Value: s.bytes / s.t})
				item.Samples = append(item.Samples, model.Sample{Side: s.side, Round: r, Iters: 1000, Value: s.t / 64})
			}
		}
		run.Benchmarks = append(run.Benchmarks, model.Benchmark{Name: fmt.Sprintf("A%d", n), Metrics: []model.Metric{sec, bps, item}})
	}
	return run
}

// TestDerivedMetricsCountOnce (issue 10 item 5): B/s from SetBytes and a
// ReportMetric proportional to sec/op are one measurement with sec/op:
// one test, one verdict, and the Holm correction spans 3 comparisons for
// 3 benchmarks, not 9.
//
// Hand derivation. In each benchmark all n log ratios are positive and
// distinct, so Wilcoxon's signed-rank statistic takes its largest value,
// whose exact two-sided p is 2/2^n: 1/32, 1/64 and 1/128 for n = 6, 7,
// 8. Holm over m = 3, sorted ascending: 3 × 1/128 = 3/128; max(3/128,
// 2 × 1/64) = 4/128; max(4/128, 1 × 1/32) = 4/128. So p_adjusted is
// 0.0234375 for A8 and 0.03125 for A7 and A6: all below 0.05, all
// regressed. Counting B/s and sec/item as comparisons of their own (m =
// 9, each p three times) would give 9/128 = 0.0703 for A8 and, for A7,
// max(9/128, 6 × 1/64) = 12/128 = 0.094: none significant.
func TestDerivedMetricsCountOnce(t *testing.T) {
	rep, err := Analyze(derivedRun(1024), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Comparisons != 3 {
		t.Errorf("comparisons = %d, want 3", rep.Comparisons)
	}
	notes := strings.Join(model.Texts(rep.Notes), "\n")
	if !strings.Contains(notes, "3 comparisons") || !strings.Contains(notes, "Holm") ||
		!strings.Contains(notes, "B/s and sec/item, derived from sec/op, share its test and are not counted.") {
		t.Errorf("chance note does not count 3 comparisons:\n%s", notes)
	}
	want := map[string]struct{ p, adj float64 }{
		"A6": {1.0 / 32, 4.0 / 128},
		"A7": {1.0 / 64, 4.0 / 128},
		"A8": {1.0 / 128, 3.0 / 128},
	}
	for _, b := range rep.Benchmarks {
		w := want[b.Name]
		pc := b.Metrics[0].Changes[0]
		if b.Metrics[0].DerivedFrom != "" || !approx(pc.P, w.p, 1e-12) || !approx(pc.PAdjusted, w.adj, 1e-12) || pc.Verdict != Regressed {
			t.Errorf("%s sec/op: p %v, adjusted %v, %s (%s); want p %v, adjusted %v, regressed", b.Name, pc.P, pc.PAdjusted, pc.Verdict, pc.Reason, w.p, w.adj)
		}
		for _, m := range b.Metrics[1:] {
			c := m.Changes[0]
			if m.DerivedFrom != "sec/op" {
				t.Errorf("%s %s: derived from %q, want sec/op", b.Name, m.Unit, m.DerivedFrom)
				continue
			}
			if c.P != pc.P || c.PAdjusted != pc.PAdjusted || c.Test != pc.Test || c.Verdict != Regressed {
				t.Errorf("%s %s: p %v/%v %s %s, want sec/op's %v/%v %s and regressed", b.Name, m.Unit, c.P, c.PAdjusted, c.Test, c.Verdict, pc.P, pc.PAdjusted, pc.Test)
			}
			// B/s = 1024/t: new/old of B/s is the inverse of sec/op's,
			// so its interval is [1/(1+hi) - 1, 1/(1+lo) - 1].
			lo, hi := 1/(1+pc.Hi)-1, 1/(1+pc.Lo)-1
			if m.Unit == "sec/item" {
				lo, hi = pc.Lo, pc.Hi
			}
			if !approx(c.Lo, lo, 1e-12) || !approx(c.Hi, hi, 1e-12) || !(c.Lo <= c.Estimate && c.Estimate <= c.Hi) {
				t.Errorf("%s %s: change %v [%v, %v], want the interval [%v, %v] around it", b.Name, m.Unit, c.Estimate, c.Lo, c.Hi, lo, hi)
			}
		}
	}
	// The gate counts a benchmark once: sec/op's failure, not B/s's too.
	if g := rep.Gate(0.05); len(g) != 3 {
		t.Errorf("Gate(5%%) = %+v, want one failure per benchmark", g)
	}
}

// TestIndependentMetricsCountTwice: when the new side processes 2048
// bytes instead of 1024, B/s × sec/op is not the same constant on both
// sides: B/s is a measurement of its own (it rises 81% while time rises
// 10%), with its own test, and is counted: 3 sec/op + 3 B/s = 6
// comparisons (sec/item stays derived). B/s's log ratios are all
// positive and distinct too, so its p is sec/op's (2/2^n), and Holm over
// the 6, sorted 1/128 twice, 1/64 twice, 1/32 twice, gives 6/128,
// max(6/128, 5/128), 4 × 1/64 = 8/128, max(8/128, 3/64), max(8/128, 2/32),
// max(8/128, 1/32): 6/128 = 0.046875 for A8 and 8/128 = 0.0625 for A7
// and A6, which are then inconclusive.
func TestIndependentMetricsCountTwice(t *testing.T) {
	rep, err := Analyze(derivedRun(2048), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Comparisons != 6 {
		t.Errorf("comparisons = %d, want 6", rep.Comparisons)
	}
	want := map[string]float64{"A6": 8.0 / 128, "A7": 8.0 / 128, "A8": 6.0 / 128}
	for _, b := range rep.Benchmarks {
		for _, m := range b.Metrics[:2] {
			if c := m.Changes[0]; m.DerivedFrom != "" || !approx(c.PAdjusted, want[b.Name], 1e-12) {
				t.Errorf("%s %s: derived from %q, p_adjusted %v; want independent, %v", b.Name, m.Unit, m.DerivedFrom, c.PAdjusted, want[b.Name])
			}
		}
		if m := b.Metrics[2]; m.DerivedFrom != "sec/op" {
			t.Errorf("%s sec/item: derived from %q, want sec/op", b.Name, m.DerivedFrom)
		}
	}
}

// TestDerivationFromPrintedValues: go test prints ns/op and MB/s rounded
// (seed 003: 7856 ns/op × 81.47 MB/s = 640.03 B, 9175 × 69.75 = 639.96 B,
// a relative difference of 1.1e-4, far beyond float precision), so a
// relation must be recognised within the rounding of the printed digits.
// Seed 003's B/s is derived from its sec/op (SetBytes(640)): one
// comparison (B/op and allocs/op are exact, and not counted), where there
// were two.
func TestDerivationFromPrintedValues(t *testing.T) {
	rep, err := Analyze(readSeed003(t, "base.txt", "optimized.txt"), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	b := rep.Benchmarks[0]
	for _, m := range b.Metrics {
		want := ""
		if m.Unit == "B/s" {
			want = "sec/op"
		}
		if m.DerivedFrom != want {
			t.Errorf("%s derived from %q, want %q", m.Unit, m.DerivedFrom, want)
		}
	}
	if rep.Comparisons != 1 {
		t.Errorf("comparisons = %d, want 1", rep.Comparisons)
	}
}

// TestRounding checks the rounding inferred from printed digits.
func TestRounding(t *testing.T) {
	tests := []struct {
		x, want float64
	}{
		{7856e-9, 0.5e-9 / 7856e-9},  // "7856 ns/op": half a nanosecond
		{81.47e6, 0.005e6 / 81.47e6}, // "81.47 MB/s": half of 0.01 MB/s
		{1e-7, derivedMaxRounding},   // "100 ns/op": trailing zeros, capped
		{1.2345678912345e-6, 0.5e-15 / 1.2345678912345e-6},
	}
	for _, tt := range tests {
		if got := rounding(tt.x); math.Abs(got-tt.want) > 1e-3*tt.want {
			t.Errorf("rounding(%v) = %v, want %v", tt.x, got, tt.want)
		}
	}
}

// TestDerivedFollowsTheClock: B/s is computed from wall time, so when the
// verdict is taken from CPU time (a busy machine, a CPU-bound benchmark)
// B/s is context like sec/op, and cpu-sec/op, the other clock, is never
// taken for a transform of wall time. One comparison either way.
func TestDerivedFollowsTheClock(t *testing.T) {
	for _, tc := range []struct {
		name    string
		busy    func(int) bool
		decides bool // whether B/s decides the verdict
	}{
		{"quiet: wall decides", never, true},
		{"busy: CPU decides", evenRounds, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := clockRun(1.03, 1.03, 1, tc.busy, 1, -1)
			b := &run.Benchmarks[0]
			bps := model.Metric{Unit: "B/s", Better: model.HigherIsBetter}
			for _, s := range b.Metrics[0].Samples {
				s.Value = 4096 / s.Value
				bps.Samples = append(bps.Samples, s)
			}
			b.Metrics = append(b.Metrics, bps)
			rep, err := Analyze(run, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range rep.Benchmarks[0].Metrics {
				switch m.Unit {
				case "B/s":
					if m.DerivedFrom != WallUnit || m.Decides() != tc.decides {
						t.Errorf("B/s: derived from %q, decides %v; want sec/op, %v", m.DerivedFrom, m.Decides(), tc.decides)
					}
				case CPUUnit:
					if m.DerivedFrom != "" {
						t.Errorf("cpu-sec/op derived from %q", m.DerivedFrom)
					}
				}
			}
			if rep.Comparisons != 1 {
				t.Errorf("%d comparisons, want 1", rep.Comparisons)
			}
		})
	}
}
