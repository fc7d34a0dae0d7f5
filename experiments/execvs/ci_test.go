package main

import (
	"fmt"
	"math"
	"regexp"
	"testing"
)

// TestMedianCI checks the order statistics of the median's interval
// against hand derivations with the binomial distribution. The number of
// values below the median is B ~ Binomial(n, 1/2); benchstat's method
// (rigor's) starts at the middle gap between order statistics and adds
// gaps one at a time on the more likely side, the lower one on a tie,
// until 95% is covered:
//
//   - n = 6: gaps 1..5 cover 1 - 2/64 = 62/64 = 0.96875 (gaps 2..4 cover
//     50/64 and adding gap 1 only 56/64): [x(1), x(6)];
//   - n = 10: gaps 2..8 cover 1 - 2*(1+10)/1024 = 1002/1024 (gaps 2..7
//     cover 957/1024 = 0.9346): [x(2), x(9)];
//   - n = 16: gaps 5..11 cover 1 - 2*2517/65536 = 0.9232; the tie between
//     gap 4 and gap 12 goes to gap 4, and then gaps 4..11 cover
//     1 - (697 + 2517)/65536 = 0.95096 >= 0.95: [x(4), x(12)], one order
//     statistic short of symmetric;
//   - n = 5: even all of [x(1), x(5)] covers only 30/32 = 0.9375: no
//     interval (NaN bounds).
func TestMedianCI(t *testing.T) {
	seq := func(n int) []float64 {
		// 1..n in a scrambled order: the function must sort a copy.
		x := make([]float64, n)
		for i := range x {
			x[i] = float64((i*7)%n + 1)
		}
		return x
	}
	for _, tc := range []struct {
		n             int
		lo, hi, cover float64
	}{
		{6, 1, 6, 62.0 / 64},
		{10, 2, 9, 1002.0 / 1024},
		{16, 4, 12, 1 - (697.0+2517)/65536},
		{5, math.NaN(), math.NaN(), 0},
	} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			x := seq(tc.n)
			before := fmt.Sprint(x)
			iv := medianCI(x)
			if fmt.Sprint(x) != before {
				t.Error("the sample was modified")
			}
			same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
			if !same(iv.Lo, tc.lo) || !same(iv.Hi, tc.hi) {
				t.Errorf("interval [%v, %v], want [%v, %v]", iv.Lo, iv.Hi, tc.lo, tc.hi)
			}
			if tc.cover > 0 && math.Abs(iv.Confidence-tc.cover) > 1e-12 {
				t.Errorf("coverage %v, want %v", iv.Confidence, tc.cover)
			}
			if want := float64(tc.n+1) / 2; iv.Estimate != want {
				t.Errorf("median %v, want %v", iv.Estimate, want)
			}
		})
	}
}

// TestHyperfineFixtureCI: hyperfine's 16 runs of each command in
// testdata/hyperfine-sleep.json, sorted with python; by the n = 16
// derivation above the interval is [4th smallest, 12th smallest].
func TestHyperfineFixtureCI(t *testing.T) {
	hf, err := parseHyperfine(readFixture(t, "hyperfine-sleep.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][2]float64{{0.011723725, 0.011978061}, {0.013849182000000002, 0.013982321}} {
		iv := medianCI(hf[i].Times)
		if iv.Lo != want[0] || iv.Hi != want[1] {
			t.Errorf("%s: [%v, %v], want %v", hf[i].Command, iv.Lo, iv.Hi, want)
		}
	}
}

func TestWithin(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		x, lo, hi float64
		want      bool
	}{
		{1, 0, 2, true},
		{0, 0, 2, true}, // bounds are inside: they are sample values
		{2, 0, 2, true},
		{2.0000001, 0, 2, false},
		{-1, 0, 2, false},
		{1, nan, nan, false}, // no interval: not inside
		{nan, 0, 2, false},
	} {
		if got := within(tc.x, tc.lo, tc.hi); got != tc.want {
			t.Errorf("within(%v, %v, %v) = %v, want %v", tc.x, tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestHfRatio(t *testing.T) {
	// By hand: 12/10 = 1.2; 1.2 * sqrt(0.1^2 + 0.1^2) = 0.16970562748...
	r, s := hfRatio(hfResult{Mean: 10, Stddev: 1}, hfResult{Mean: 12, Stddev: 1.2})
	if math.Abs(r-1.2) > 1e-15 || math.Abs(s-0.1697056274847714) > 1e-15 {
		t.Errorf("ratio %v ± %v, want 1.2 ± 0.1697056274847714", r, s)
	}
	// One run: hyperfine writes no stddev, and prints no ±.
	if _, s := hfRatio(hfResult{Mean: 10, Stddev: math.NaN()}, hfResult{Mean: 12, Stddev: 1}); !math.IsNaN(s) {
		t.Errorf("σ %v without a stddev, want NaN", s)
	}
}

// summaryRE is the last lines of hyperfine's terminal summary:
// "  'A' ran\n    1.17 ± 0.02 times faster than 'B'".
var summaryRE = regexp.MustCompile(`'([^']*)' ran\s+([0-9.]+) ± ([0-9.]+) times faster than '([^']*)'`)

// TestHfAgreesWithHyperfine: the fastest command and the ratio ± σ, to
// the two decimals hyperfine printed in the same run (its own output, the
// independent reference).
func TestHfAgreesWithHyperfine(t *testing.T) {
	for _, name := range []string{"hyperfine-sleep", "hyperfine-aa-sleep"} {
		t.Run(name, func(t *testing.T) {
			m := summaryRE.FindStringSubmatch(string(readFixture(t, name+".txt")))
			if m == nil {
				t.Fatal("no summary in the fixture")
			}
			hf, err := parseHyperfine(readFixture(t, name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			fast := hfFastest(hf)
			if fast != 0 || hf[fast].Command != m[1] || hf[1].Command != m[4] {
				t.Fatalf("fastest %d (%q); hyperfine said %q ran faster than %q", fast, hf[fast].Command, m[1], m[4])
			}
			r, s := hfRatio(hf[0], hf[1])
			if got := fmt.Sprintf("%.2f ± %.2f", r, s); got != m[2]+" ± "+m[3] {
				t.Errorf("%s, hyperfine printed %s ± %s", got, m[2], m[3])
			}
			// Both are well inside their ±σ (1.17 ± 0.02 is not: it is a
			// real difference).
			if clear := hfClearOfSigma(hf[0], hf[1]); clear != (name == "hyperfine-sleep") {
				t.Errorf("clear of σ: %v", clear)
			}
		})
	}
}

func TestHfFastest(t *testing.T) {
	for _, tc := range []struct {
		means []float64
		want  int
	}{
		{nil, -1},
		{[]float64{3}, 0},
		{[]float64{3, 2, 5}, 1},
		{[]float64{2, 2}, 0}, // equal means: the first, as Rust's min_by
		{[]float64{3, 2, 2}, 1},
	} {
		rs := make([]hfResult, len(tc.means))
		for i, m := range tc.means {
			rs[i].Mean = m
		}
		if got := hfFastest(rs); got != tc.want {
			t.Errorf("means %v: fastest %d, want %d", tc.means, got, tc.want)
		}
	}
}

func TestHfClearOfSigma(t *testing.T) {
	for _, tc := range []struct {
		a, b hfResult
		want bool
	}{
		// 1.2 - 0.1697 > 1, whichever order.
		{hfResult{Mean: 10, Stddev: 1}, hfResult{Mean: 12, Stddev: 1.2}, true},
		{hfResult{Mean: 12, Stddev: 1.2}, hfResult{Mean: 10, Stddev: 1}, true},
		// 1.05 - 1.05*sqrt(0.1^2+0.1^2) = 0.9015 < 1.
		{hfResult{Mean: 10, Stddev: 1}, hfResult{Mean: 10.5, Stddev: 1.05}, false},
		{hfResult{Mean: 10, Stddev: math.NaN()}, hfResult{Mean: 20, Stddev: 1}, false},
	} {
		if got := hfClearOfSigma(tc.a, tc.b); got != tc.want {
			t.Errorf("%+v vs %+v: %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestMatchRuns(t *testing.T) {
	for _, tc := range []struct {
		wall, round         float64
		warmup, floor, ceil int
		want                int
	}{
		{10, 0.1, 3, 20, 1000, 97}, // 100 rounds' time, less 3 warm-ups
		{1, 0.1, 3, 20, 1000, 20},  // never fewer runs than rigor had
		{1, 0.1, 0, 0, 1000, 10},
		{0.1, 1, 3, 0, 1000, 2},      // at least 2
		{100, 0.001, 3, 5, 500, 500}, // at most the ceiling
		{1, 0, 3, 7, 500, 7},         // no round time: rigor's count
		{math.NaN(), 1, 3, 7, 500, 7},
		{1.2551, 0.01, 0, 2, 1000, 126}, // 125.51 rounds up
	} {
		if got := matchRuns(tc.wall, tc.round, tc.warmup, tc.floor, tc.ceil); got != tc.want {
			t.Errorf("matchRuns(%v, %v, %d, %d, %d) = %d, want %d", tc.wall, tc.round, tc.warmup, tc.floor, tc.ceil, got, tc.want)
		}
	}
}
