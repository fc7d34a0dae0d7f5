package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteSignedRankCritical is the reference for PairedShift's critical
// value: it enumerates all 2^n sign assignments of the ranks 1..n and
// returns the largest k with P(T+ <= k-1) <= alpha/2.
func bruteSignedRankCritical(n int, alpha float64) int {
	counts := map[int]int{}
	for mask := 0; mask < 1<<n; mask++ {
		t := 0
		for r := 1; r <= n; r++ {
			if mask&(1<<(r-1)) != 0 {
				t += r
			}
		}
		counts[t]++
	}
	k, cum := 0, 0
	for {
		if float64(cum+counts[k])/float64(int(1)<<n) > alpha/2 {
			return k
		}
		cum += counts[k]
		k++
	}
}

// bruteWalsh lists every Walsh average by the definition.
func bruteWalsh(d []float64) []float64 {
	var w []float64
	for i := range d {
		for j := range d {
			if i <= j {
				w = append(w, (d[i]+d[j])/2)
			}
		}
	}
	slices.Sort(w)
	return w
}

func TestPairedShiftAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for n := 1; n <= 16; n++ {
		d := make([]float64, n)
		for i := range d {
			d[i] = rng.NormFloat64() + 0.3
		}
		iv, err := PairedShift(d, 0.95)
		w := bruteWalsh(d)
		if want := Median(w); iv.Estimate != want {
			t.Errorf("n=%d: estimate %v, median of Walsh averages %v", n, iv.Estimate, want)
		}
		k := bruteSignedRankCritical(n, 0.05)
		if k == 0 {
			if err == nil || !math.IsNaN(iv.Lo) {
				t.Errorf("n=%d: no 95%% interval exists, got %+v, %v", n, iv, err)
			}
			continue
		}
		if err != nil || iv.Lo != w[k-1] || iv.Hi != w[len(w)-k] {
			t.Errorf("n=%d: [%v, %v] (%v), want Walsh averages %d and %d: [%v, %v]", n, iv.Lo, iv.Hi, err, k, len(w)-k+1, w[k-1], w[len(w)-k])
		}
	}
}

// TestPairedShiftKnownCritical checks critical values from the published
// table of the Wilcoxon signed-rank statistic (two-sided 0.05: n=6 -> 0,
// n=10 -> 8, n=20 -> 52, as lower-tail critical values T with
// P(T+ <= T) <= 0.025), which are k-1 in PairedShift's terms.
func TestPairedShiftKnownCritical(t *testing.T) {
	for _, tt := range []struct{ n, table int }{{6, 0}, {7, 2}, {8, 3}, {10, 8}, {15, 25}, {20, 52}, {25, 89}} {
		d := make([]float64, tt.n)
		for i := range d {
			d[i] = float64(i + 1) // Walsh averages are then easy to rank
		}
		iv, err := PairedShift(d, 0.95)
		if err != nil {
			t.Fatalf("n=%d: %v", tt.n, err)
		}
		w := bruteWalsh(d)
		k := tt.table + 1
		if iv.Lo != w[k-1] || iv.Hi != w[len(w)-k] {
			t.Errorf("n=%d: [%v, %v], want the %d-th smallest and largest Walsh averages [%v, %v]", tt.n, iv.Lo, iv.Hi, k, w[k-1], w[len(w)-k])
		}
	}
}

// TestPairedShiftResistsOutlier: one wild round moves the estimate little.
func TestPairedShiftResistsOutlier(t *testing.T) {
	d := []float64{0.01, -0.01, 0.005, 0, 0.002, -0.004, 0.003, -0.002, 0.001, 0.6}
	iv, err := PairedShift(d, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(iv.Estimate) > 0.005 {
		t.Errorf("estimate %v moved by the outlier (mean is %v)", iv.Estimate, Mean(d))
	}
	if !(iv.Lo < 0 && iv.Hi > 0) {
		t.Errorf("interval [%v, %v] should include 0", iv.Lo, iv.Hi)
	}
}

func TestPairedShiftLarge(t *testing.T) {
	d := make([]float64, 200)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range d {
		d[i] = rng.NormFloat64()*0.01 + 0.05
	}
	iv, err := PairedShift(d, 0.95)
	if err != nil || !(iv.Lo < 0.05 && 0.05 < iv.Hi) || iv.Hi-iv.Lo > 0.01 {
		t.Errorf("n=200 N(0.05, 0.01): %+v %v", iv, err)
	}
}

// dpSignedRankCritical is the exact critical value for larger n than
// bruteSignedRankCritical can enumerate: the null distribution of T+ by
// the recurrence P_r(t) = (P_{r-1}(t) + P_{r-1}(t-r))/2 (rank r counted
// or not), and the largest k with P(T+ <= k-1) <= alpha/2.
func dpSignedRankCritical(n int, alpha float64) int {
	p := []float64{1}
	for r := 1; r <= n; r++ {
		next := make([]float64, len(p)+r)
		for t, v := range p {
			next[t] += v / 2
			next[t+r] += v / 2
		}
		p = next
	}
	k, cum := 0, 0.0
	for cum+p[k] <= alpha/2 {
		cum += p[k]
		k++
	}
	return k
}

// TestPairedShiftNormalApproximation checks the branch above
// exactSignedRankLimit, which no other test reaches with a reference. By
// hand, k = floor(n(n+1)/4 - z·sd + 0.5), sd = sqrt(n(n+1)(2n+1)/24),
// z = 1.959964:
//
//   - n = 60: 915 - 1.959964 × 135.839979 + 0.5 = 649.26, k = 649, the
//     exact critical value too;
//   - n = 200: 10050 - 1.959964 × 819.557808 + 0.5 = 8444.20, k = 8444,
//     one below the exact 8445: the interval is one Walsh average wider
//     on each side, so it still covers at least 95%.
//
// With d = 1..n the k-th smallest Walsh average is found by brute force.
func TestPairedShiftNormalApproximation(t *testing.T) {
	for _, tt := range []struct{ n, k, exact int }{{60, 649, 649}, {200, 8444, 8445}} {
		if got := dpSignedRankCritical(tt.n, 0.05); got != tt.exact {
			t.Fatalf("n=%d: exact critical value %d by the recurrence, want %d", tt.n, got, tt.exact)
		}
		d := make([]float64, tt.n)
		for i := range d {
			d[i] = float64(i + 1)
		}
		iv, err := PairedShift(d, 0.95)
		if err != nil {
			t.Fatalf("n=%d: %v", tt.n, err)
		}
		w := bruteWalsh(d)
		if iv.Lo != w[tt.k-1] || iv.Hi != w[len(w)-tt.k] {
			t.Errorf("n=%d: [%v, %v], want the %d-th smallest and largest Walsh averages [%v, %v]", tt.n, iv.Lo, iv.Hi, tt.k, w[tt.k-1], w[len(w)-tt.k])
		}
		if want := float64(tt.n+1) / 2; iv.Estimate != want {
			t.Errorf("n=%d: estimate %v, want %v (Walsh averages of 1..n are symmetric about (n+1)/2)", tt.n, iv.Estimate, want)
		}
	}
}
