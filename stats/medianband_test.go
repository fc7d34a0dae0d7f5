package stats

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactMedianWeight is the probability of a point of the resampled
// median's support of a sorted sample of n values, positions a <= b
// (1-based), as an exact rational: the formulas of medianDistribution
// with every power an integer over n^n. It is the reference for
// bandedWeights' floating-point logarithms.
func exactMedianWeight(n, a, b int) float64 {
	pow := func(base, e int) *big.Int {
		return new(big.Int).Exp(big.NewInt(int64(base)), big.NewInt(int64(e)), nil)
	}
	choose := func(n, k int) *big.Int { return new(big.Int).Binomial(int64(n), int64(k)) }
	// upper(a, k) is n^n P(Binomial(n, a/n) >= k).
	upper := func(a, k int) *big.Int {
		t := new(big.Int)
		for j := k; j <= n; j++ {
			term := new(big.Int).Mul(choose(n, j), pow(a, j))
			t.Add(t, term.Mul(term, pow(n-a, n-j)))
		}
		return t
	}
	var num *big.Int
	k := (n + 1) / 2
	switch {
	case n%2 == 1:
		num = new(big.Int).Sub(upper(a, k), upper(a-1, k))
	case a < b:
		k = n / 2
		l := new(big.Int).Sub(pow(a, k), pow(a-1, k))
		r := new(big.Int).Sub(pow(n-b+1, n-k), pow(n-b, n-k))
		num = l.Mul(l, r)
		num.Mul(num, choose(n, k))
	default:
		k = n / 2
		l := new(big.Int).Sub(pow(a, k), pow(a-1, k))
		pairs := l.Mul(l, pow(n-a, n-k))
		pairs.Mul(pairs, choose(n, k))
		num = new(big.Int).Sub(upper(a, k), upper(a-1, k))
		num.Sub(num, pairs)
	}
	f, _ := new(big.Rat).SetFrac(num, pow(n, n)).Float64()
	return f
}

// TestBandedWeightsExact: every point bandedWeights gives has its exact
// probability within 1e-13 of it (or 1e-18, for the faintest), and where
// every point is checked, the exact probability of the points it leaves
// out, 1 less the exact sum of those it keeps, is below 1e-15. The sizes
// run from 3 to past where MedianRatio uses it, 200 (under -short, every
// seventh point of the larger sizes; without, up to 3,001 values).
func TestBandedWeightsExact(t *testing.T) {
	var sizes []int
	for n := 3; n <= 40; n++ {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 61, 99, 100, 199, 200, 201, 202, 333, 1000, 1001)
	if !testing.Short() {
		sizes = append(sizes, 3000, 3001)
	}
	for _, n := range sizes {
		step := 1
		switch {
		case n > 2000:
			step = 50 // each exact value takes a few ms at this size
		case n > 300 && testing.Short():
			step = 7
		}
		w := bandedWeights(n)
		worst, exact := 0.0, []float64{}
		for i := 0; i < len(w); i += step {
			p := w[i]
			if n%2 == 1 && p.a != p.b || p.a > p.b || p.a < 0 || int(p.b) >= n {
				t.Fatalf("n=%d: point (%d, %d) is not in the support", n, p.a, p.b)
			}
			want := exactMedianWeight(n, int(p.a)+1, int(p.b)+1)
			exact = append(exact, want)
			if d := math.Abs(p.p - want); d > 1e-18 && d > 1e-13*want {
				t.Errorf("n=%d: P(%d, %d) = %.17g, exactly %.17g", n, p.a, p.b, p.p, want)
			} else if want > 1e-10 {
				worst = max(worst, d/want)
			}
		}
		if step == 1 {
			if left := 1 - compensatedSum(exact); left > 1e-15 {
				t.Errorf("n=%d: the band leaves out %g of the probability", n, left)
			}
		}
		t.Logf("n=%d: %d points, worst relative error %.2g", n, len(w), worst)
	}
}

// TestBandedWeightsMass: from just past the full support to 20,000
// values, the band holds all but 1e-15 of the probability, and no point
// has a negative or non-finite probability; its size grows as sqrt(n).
func TestBandedWeightsMass(t *testing.T) {
	sizes := []int{201, 202, 203, 256, 499, 500, 1000, 1001, 2999, 3000, 20000}
	rng := rand.New(rand.NewPCG(5, 11))
	for range 20 {
		sizes = append(sizes, 201+rng.IntN(5000))
	}
	for _, n := range sizes {
		w := bandedWeights(n)
		ps := make([]float64, len(w))
		for i, p := range w {
			if !(p.p > 0) || math.IsInf(p.p, 0) {
				t.Fatalf("n=%d: P(%d, %d) = %v", n, p.a, p.b, p.p)
			}
			ps[i] = p.p
		}
		// What is left out is at most 3 bandTail and pairTail a position.
		if sum := compensatedSum(ps); math.Abs(sum-1) > 1e-15 {
			t.Errorf("n=%d: the band's %d points sum to 1 - %g", n, len(w), 1-sum)
		}
		if limit := 2000 * math.Sqrt(float64(n)); float64(len(w)) > limit {
			t.Errorf("n=%d: %d points, more than %v", n, len(w), limit)
		}
	}
}

// TestMedianRatioBandedMatchesMonteCarlo: past 200 values the interval is
// that of the Monte Carlo bootstrap of the same statistic (Ratio(x, y,
// Median)) within its resampling error, judged where it is known: the
// exact distribution's cdf at the Monte Carlo bounds is within 4 standard
// errors, sqrt(p(1-p)/B), of the bounds' levels 0.025 and 0.975.
func TestMedianRatioBandedMatchesMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	resamples := 100_000
	if testing.Short() {
		resamples = 20_000
	}
	for _, size := range [][2]int{{201, 201}, {202, 202}, {257, 600}, {1001, 300}, {1000, 1000}} {
		x, y := make([]float64, size[0]), make([]float64, size[1])
		for i := range x {
			x[i] = 100 * math.Exp(0.05*rng.NormFloat64())
		}
		for i := range y {
			y[i] = 97 * math.Exp(0.08*rng.NormFloat64())
			if i%5 == 0 { // ties
				y[i] = y[i/5]
			}
		}
		b := Bootstrap{Resamples: resamples, Seed: 9}
		got := b.MedianRatio(x, y)
		mc := b.Ratio(x, y, Median)
		if got.Estimate != mc.Estimate || !(got.Lo < got.Estimate && got.Estimate < got.Hi) {
			t.Errorf("%v: %+v, Monte Carlo %+v", size, got, mc)
		}
		vx, px := medianDistribution(x)
		vy, py := medianDistribution(y)
		cy, acc := make([]float64, len(py)), 0.0
		for i, p := range py {
			acc += p
			cy[i] = acc
		}
		d := ratioCDF{vx: vx, px: px, vy: vy, cy: cy}
		se := math.Sqrt(0.025 * 0.975 / float64(resamples))
		for _, q := range []struct {
			level, mc, exact float64
		}{{0.025, mc.Lo, got.Lo}, {0.975, mc.Hi, got.Hi}} {
			if p := d.at(q.mc); math.Abs(p-q.level) > 4*se {
				t.Errorf("%v: Monte Carlo bound %v (exact %v) is at the %.5f quantile, want %v ± %.5f", size, q.mc, q.exact, p, q.level, 4*se)
			}
		}
	}
}

func BenchmarkMedianRatioLarge(b *testing.B) {
	for _, n := range []int{201, 1000, 3000} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = 100 * math.Exp(0.05*rng.NormFloat64())
			y[i] = 97 * math.Exp(0.05*rng.NormFloat64())
		}
		bs := Bootstrap{Seed: 1, Resamples: 10_000}
		b.Run(fmt.Sprintf("n=%d/banded", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// Nine sizes in turn, as a series' segments have many: the
				// cache of the last eight sizes' weights never serves.
				bs.MedianRatio(x[i:], y[i:])
				i = (i + 1) % 9
			}
		})
		b.Run(fmt.Sprintf("n=%d/resampled", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				bs.medianRatioResampled(x[i:], y[i:])
				i = (i + 1) % 9
			}
		})
	}
}
