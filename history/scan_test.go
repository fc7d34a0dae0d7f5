package history

import (
	"math"
	"math/rand/v2"
	"testing"
)

// maxT is the largest |t| over the splits of x with minSide results or
// more on either side: the pooled two-sample t statistic, from prefix
// sums, written out here independently of pooledT.
func maxT(x []float64) float64 {
	m := len(x)
	var s, q float64
	for _, v := range x {
		s, q = s+v, q+v*v
	}
	best, ls, lq := 0.0, 0.0, 0.0
	for k := 1; k < m; k++ {
		ls, lq = ls+x[k-1], lq+x[k-1]*x[k-1]
		if k < minSide || m-k < minSide {
			continue
		}
		n1, n2 := float64(k), float64(m-k)
		m1, m2 := ls/n1, (s-ls)/n2
		ss := lq - ls*ls/n1 + (q - lq) - (s-ls)*(s-ls)/n2
		t := math.Abs(m1-m2) / math.Sqrt(ss/(n1+n2-2)*(1/n1+1/n2))
		best = max(best, t)
	}
	return best
}

// TestScanP checks scanP against its reference, a simulation of what it
// bounds: the largest |t| over every split of m normal results. At the
// thresholds where scanP is 0.01 and 0.002, the share of simulated
// series reaching them must not be above scanP (it is a bound), beyond
// 4 standard errors of the simulation, and scanP must not be far above
// it: within 30% for up to 50 results, where the bound is tight, and a
// factor 2.5 for 200 (measured: 0.0211 for 0.01 at 300 results, 0.0025
// for 0.002).
func TestScanP(t *testing.T) {
	type tc struct {
		m     int
		n     int     // simulated series
		loose float64 // how far above the simulation scanP may be
	}
	cases := []tc{{5, 100_000, 1.3}, {12, 100_000, 1.3}, {50, 40_000, 1.3}, {200, 10_000, 2.5}}
	if testing.Short() {
		cases = []tc{{5, 40_000, 1.3}, {12, 40_000, 1.3}, {50, 10_000, 1.3}}
	}
	for _, c := range cases {
		rng := rand.New(rand.NewPCG(uint64(c.m), 22))
		x := make([]float64, c.m)
		maxes := make([]float64, c.n)
		for i := range maxes {
			for j := range x {
				x[j] = rng.NormFloat64()
			}
			maxes[i] = maxT(x)
		}
		for _, want := range []float64{0.01, 0.002} {
			// The threshold where scanP is want, by bisection: scanP
			// decreases in t.
			lo, hi := 0.0, 1000.0
			for range 100 {
				mid := (lo + hi) / 2
				if scanP(c.m, mid) > want {
					lo = mid
				} else {
					hi = mid
				}
			}
			hits := 0
			for _, v := range maxes {
				if v >= hi {
					hits++
				}
			}
			sim := float64(hits) / float64(c.n)
			se := math.Sqrt(want * (1 - want) / float64(c.n))
			if sim > want+4*se || want > c.loose*sim+4*se {
				t.Errorf("%d results, |t| >= %.4f: scanP %.4f, simulation %.4f (%d of %d)", c.m, hi, want, sim, hits, c.n)
			}
		}
	}
	// Edges: no split to choose, a constant stretch, a perfect step.
	if p := scanP(3, 10); p != 1 {
		t.Errorf("3 results: p %v, want 1 (no split with 2 on either side)", p)
	}
	if p := scanP(10, 0); p != 1 {
		t.Errorf("t 0: p %v, want 1", p)
	}
	if p := scanP(10, math.Inf(1)); p != 0 {
		t.Errorf("t infinite: p %v, want 0", p)
	}
	// With 4 results there is one split: scanP is the t-test's own p.
	if p, want := scanP(4, 3), 2*(1-(0.5+3/(2*math.Sqrt(11)))); math.Abs(p-want) > 1e-12 {
		t.Errorf("4 results, t 3: p %v, want the 2-df t-test's %v", p, want)
	}
}

// TestScanPBelow: scanPBelow is scanP, bit for bit, where scanP is below
// the level, and says that it is not otherwise (its sum stopped early).
func TestScanPBelow(t *testing.T) {
	stopped := 0
	for _, m := range []int{3, 4, 5, 10, 50, 400} {
		for _, tt := range []float64{0, 1, 2.5, 3, 3.5, 4, 5, 8, math.Inf(1), math.NaN()} {
			want := scanP(m, tt)
			for _, level := range []float64{1e-6, 0.001, 0.01, 0.05, 1} {
				p, below := scanPBelow(m, tt, level)
				switch {
				case below != (want < level):
					t.Errorf("scanPBelow(%d, %g, %g) below %v; scanP %g", m, tt, level, below, want)
				case below && math.Float64bits(p) != math.Float64bits(want):
					t.Errorf("scanPBelow(%d, %g, %g) = %g, scanP %g", m, tt, level, p, want)
				case !below && !(p >= level):
					t.Errorf("scanPBelow(%d, %g, %g) = %g, not below and not at least the level", m, tt, level, p)
				case !below && p < want:
					stopped++
				}
			}
		}
	}
	if stopped == 0 {
		t.Error("no sum stopped early")
	}
}

// TestScanPMonotone: scanP does not grow with |t| for a given m, on a
// fine grid (calibrated's admission takes the largest |t| of a stretch
// for its smallest p-value).
func TestScanPMonotone(t *testing.T) {
	for _, m := range []int{4, 5, 7, 20, 100, 400} {
		last := 1.0
		for tt := 0.0; tt <= 12; tt += 0.05 {
			p := scanP(m, tt)
			if p > last {
				t.Errorf("m %d: scanP(%.2f) = %g > scanP(%.2f) = %g", m, tt, p, tt-0.05, last)
			}
			last = p
		}
	}
}
