package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// enumerateMedians is the reference: it draws every one of the n^n
// resamples of x (n <= 7) and tallies the median of each.
func enumerateMedians(x []float64) map[float64]float64 {
	n := len(x)
	total := int(math.Pow(float64(n), float64(n)))
	dist := map[float64]float64{}
	idx := make([]int, n)
	buf := make([]float64, n)
	for r := 0; r < total; r++ {
		v := r
		for i := range idx {
			idx[i] = v % n
			v /= n
		}
		for i, j := range idx {
			buf[i] = x[j]
		}
		dist[Median(buf)] += 1 / float64(total)
	}
	return dist
}

func TestMedianDistributionMatchesEnumeration(t *testing.T) {
	for _, x := range [][]float64{
		{5},
		{3, 1},
		{2, 7, 4},
		{1, 2, 3, 4},
		{10, 10, 11, 12}, // ties
		{9, 1, 5, 3, 7},
		{1, 2, 2, 2, 8, 9},
		{4, 8, 15, 16, 23, 42, 7},
	} {
		want := enumerateMedians(x)
		vals, probs := medianDistribution(x)
		sum := 0.0
		for i, v := range vals {
			sum += probs[i]
			if math.Abs(probs[i]-want[v]) > 1e-12 {
				t.Errorf("%v: P(median = %v) = %.15f, enumeration gives %.15f", x, v, probs[i], want[v])
			}
		}
		if len(vals) != len(want) || math.Abs(sum-1) > 1e-12 {
			t.Errorf("%v: %d support points summing to %v, enumeration has %d", x, len(vals), sum, len(want))
		}
	}
}

// TestMedianRatioMatchesMonteCarlo: the exact interval agrees with the
// Monte Carlo bootstrap of the same statistic within its resampling error.
func TestMedianRatioMatchesMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{5, 10, 12, 21} {
		x := make([]float64, n)
		y := make([]float64, n)
		for i := range x {
			x[i] = 100 * math.Exp(0.05*rng.NormFloat64())
			y[i] = 90 * math.Exp(0.05*rng.NormFloat64())
		}
		b := Bootstrap{Resamples: 200_000, Seed: 9}
		exact := b.MedianRatio(x, y)
		mc := b.Ratio(x, y, Median)
		if exact.Estimate != mc.Estimate {
			t.Errorf("n=%d: estimates %v and %v differ", n, exact.Estimate, mc.Estimate)
		}
		// The distribution is discrete with gaps of a few percent at
		// these sizes; type-7 interpolation of the Monte Carlo quantile
		// may land anywhere in a gap, so allow 1%.
		if math.Abs(exact.Lo-mc.Lo) > 0.01 || math.Abs(exact.Hi-mc.Hi) > 0.01 {
			t.Errorf("n=%d: exact [%v, %v], Monte Carlo [%v, %v]", n, exact.Lo, exact.Hi, mc.Lo, mc.Hi)
		}
		if !(exact.Lo <= exact.Estimate && exact.Estimate <= exact.Hi) {
			t.Errorf("n=%d: interval [%v, %v] misses the estimate %v", n, exact.Lo, exact.Hi, exact.Estimate)
		}
	}
}

// TestMedianRatioDegenerate: identical constant samples give a point
// interval; a sample containing zero falls back without NaN.
func TestMedianRatioDegenerate(t *testing.T) {
	b := Bootstrap{Resamples: 1000, Seed: 1}
	iv := b.MedianRatio([]float64{2, 2, 2}, []float64{3, 3, 3, 3})
	if iv.Estimate != 1.5 || iv.Lo != 1.5 || iv.Hi != 1.5 {
		t.Errorf("constant samples: %+v, want 1.5 exactly", iv)
	}
	iv = b.MedianRatio([]float64{0, 1, 2}, []float64{1, 2, 3})
	if math.IsNaN(iv.Estimate) {
		t.Errorf("zero in x: %+v", iv)
	}
	if iv := b.MedianRatio(nil, []float64{1}); !math.IsNaN(iv.Estimate) {
		t.Errorf("empty x: %+v, want NaN", iv)
	}
}

func BenchmarkMedianRatio10(b *testing.B) {
	x := []float64{100, 103, 98, 120, 101, 99, 102, 97, 110, 100.5}
	y := []float64{90, 93, 88, 108, 91, 89, 92, 87, 99, 90.5}
	bs := Bootstrap{Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		bs.MedianRatio(x, y)
	}
}

// medianDistributionDirect is medianDistribution as it was before its
// probabilities were cached by sample size (medianWeights): the reference
// that the cached version must equal bit for bit.
func medianDistributionDirect(x []float64) (values, probs []float64) {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	lf := newLogFactorials(n)
	type point struct{ v, p float64 }
	pts := make([]point, 0, n*(n+1)/2)
	if n%2 == 1 {
		k := (n + 1) / 2
		prev := 0.0
		for a := 1; a <= n; a++ {
			cum := binomialUpperTail(lf, n, float64(a)/float64(n), k)
			pts = append(pts, point{s[a-1], cum - prev})
			prev = cum
		}
	} else {
		k := n / 2
		nf := float64(n)
		logC := lf.choose(n, k)
		for a := 1; a <= n; a++ {
			left := math.Pow(float64(a)/nf, float64(k)) - math.Pow(float64(a-1)/nf, float64(k))
			for b := a + 1; b <= n; b++ {
				right := math.Pow(float64(n-b+1)/nf, float64(n-k)) - math.Pow(float64(n-b)/nf, float64(n-k))
				if p := math.Exp(logC) * left * right; p > 0 {
					pts = append(pts, point{(s[a-1] + s[b-1]) / 2, p})
				}
			}
			p := 0.0
			below := float64(a-1) / nf
			at := 1 / float64(n-a+1)
			for l := 0; l < k; l++ {
				p += binomialPMF(lf, n, below, l) * binomialUpperTail(lf, n-l, at, k+1-l)
			}
			if p > 0 {
				pts = append(pts, point{s[a-1], p})
			}
		}
	}
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.v, b.v) })
	for _, pt := range pts {
		if len(values) > 0 && values[len(values)-1] == pt.v {
			probs[len(probs)-1] += pt.p
			continue
		}
		values = append(values, pt.v)
		probs = append(probs, pt.p)
	}
	return values, probs
}

// medianRatioBisect is MedianRatio's exact path as it was before
// ratioCDF.quantile: the quantiles by plain bisection from [lo, hi], with
// the step count it took. It is the reference that quantile must equal
// bit for bit.
func medianRatioBisect(x, y []float64, conf float64) (lo, hi float64, steps int) {
	// steps is the most either quantile took.
	vx, px := medianDistributionDirect(x)
	vy, py := medianDistributionDirect(y)
	cy := make([]float64, len(py))
	acc := 0.0
	for i, p := range py {
		acc += p
		cy[i] = acc
	}
	cdf := func(r float64) float64 {
		total, j := 0.0, 0
		for i, v := range vx {
			for j < len(vy) && vy[j] <= r*v {
				j++
			}
			if j > 0 {
				total += px[i] * cy[j-1]
			}
		}
		return total
	}
	l, h := vy[0]/vx[len(vx)-1], vy[len(vy)-1]/vx[0]
	quantile := func(p float64) float64 {
		a, z := l, h
		if cdf(a) >= p {
			return a
		}
		n := 0
		defer func() { steps = max(steps, n) }()
		for range 100 {
			mid := a + (z-a)/2
			if mid <= a || mid >= z {
				break
			}
			n++
			if cdf(mid) >= p {
				z = mid
			} else {
				a = mid
			}
		}
		return z
	}
	return quantile((1 - conf) / 2), quantile((1 + conf) / 2), steps
}

// sameFloat reports whether a and b are the same float64, bit for bit.
func sameFloat(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// medianRatioCases are samples for the exact path's equivalence tests:
// sizes 1 to 40, lognormal noise, ties, values an ulp apart, zeros and
// negatives in y, spreads too wide for the fast search, and values whose
// products with a ratio are subnormal or overflow.
func medianRatioCases(rng *rand.Rand) (x, y []float64) {
	nx, ny := 1+rng.IntN(40), 1+rng.IntN(40)
	if rng.IntN(3) == 0 {
		ny = nx
	}
	x, y = make([]float64, nx), make([]float64, ny)
	base := math.Exp(rng.NormFloat64() * 10)
	if rng.IntN(30) == 0 { // products near the ends of the normal floats
		base = []float64{1e-150, 1e-155, 1e-160, 1e150, 1e155, 1e160}[rng.IntN(6)]
	}
	shift := math.Exp(rng.NormFloat64() * 0.1)
	sd := []float64{0, 1e-15, 0.001, 0.03, 0.5, 3}[rng.IntN(6)]
	gen := func(v []float64, f float64) {
		for i := range v {
			v[i] = base * f * math.Exp(sd*rng.NormFloat64())
			switch rng.IntN(8) {
			case 0: // a tie
				if i > 0 {
					v[i] = v[rng.IntN(i)]
				}
			case 1: // an ulp from another value
				if i > 0 {
					v[i] = math.Nextafter(v[rng.IntN(i)], math.Inf(1))
				}
			}
		}
	}
	gen(x, 1)
	gen(y, shift)
	if rng.IntN(10) == 0 {
		y[rng.IntN(ny)] = 0
	}
	if rng.IntN(20) == 0 {
		y[rng.IntN(ny)] = -base
	}
	if rng.IntN(20) == 0 {
		x[rng.IntN(nx)] = base * 1e-12 // a spread beyond 2^32
	}
	return x, y
}

// TestMedianRatioSameAsBisection: the cached weights and the stepping
// search give the interval plain bisection gave, bit for bit, on 20,000
// random pairs of samples (500 under -short); and plain bisection reached
// adjacent floats within its 100 steps wherever the fast search was used
// (the condition under which the two must agree).
func TestMedianRatioSameAsBisection(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	n := 20000
	if testing.Short() {
		n = 500
	}
	fast, slow := 0, 0
	b := Bootstrap{Confidence: 0.95}
	for range n {
		x, y := medianRatioCases(rng)
		for _, conf := range []float64{0.95, 0.99, 0.5} {
			b.Confidence = conf
			got := b.MedianRatio(x, y)
			if vx, _ := medianDistributionDirect(x); !(vx[0] > 0) {
				continue // the Monte Carlo path, unchanged
			}
			lo, hi, steps := medianRatioBisect(x, y, conf)
			if !sameFloat(got.Lo, lo) || !sameFloat(got.Hi, hi) {
				t.Fatalf("x=%v y=%v conf %v: [%v, %v], bisection [%v, %v]", x, y, conf, got.Lo, got.Hi, lo, hi)
			}
			vx, _ := medianDistributionDirect(x)
			vy, _ := medianDistributionDirect(y)
			l, h := vy[0]/vx[len(vx)-1], vy[len(vy)-1]/vx[0]
			if l > 0 && h <= l*0x1p32 {
				fast++
				if steps >= 100 {
					t.Errorf("x=%v y=%v: bisection took all its steps with hi/lo %v <= 2^32", x, y, h/l)
				}
			} else {
				slow++
			}
		}
	}
	if fast < n || slow < n/20 {
		t.Errorf("%d cases on the fast search, %d on bisection: the cases do not cover both", fast, slow)
	}
}

// TestMedianDistributionSameAsDirect: the weights cached by size give the
// distribution computed directly, bit for bit, for every size up to 60 and
// some up to maxExactMedian.
func TestMedianDistributionSameAsDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 2))
	sizes := []int{61, 99, 100, 150, maxExactMedian}
	for n := 1; n <= 60; n++ {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		for trial := range 3 {
			x := make([]float64, n)
			for i := range x {
				x[i] = math.Round(rng.NormFloat64()*float64(1+trial*5)) + 100
			}
			gv, gp := medianDistribution(x)
			wv, wp := medianDistributionDirect(x)
			if len(gv) != len(wv) {
				t.Fatalf("n=%d: %d points, direct %d", n, len(gv), len(wv))
			}
			for i := range gv {
				if !sameFloat(gv[i], wv[i]) || !sameFloat(gp[i], wp[i]) {
					t.Fatalf("n=%d point %d: (%v, %v), direct (%v, %v)", n, i, gv[i], gp[i], wv[i], wp[i])
				}
			}
		}
	}
}
