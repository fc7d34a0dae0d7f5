package stats

import (
	"cmp"
	"math"
	"slices"
)

// maxExactMedian is the largest sample for which MedianRatio computes the
// bootstrap distribution of the median exactly; the support of an even
// sample's resampled median has n(n+1)/2 points.
const maxExactMedian = 200

// MedianRatio returns the percentile bootstrap interval of
// Median(y)/Median(x) for independent samples: the change benchstat
// reports, with a confidence interval. For samples of up to 200 values it
// computes the bootstrap distribution of each median exactly, as if every
// one of the n^n resamples had been drawn, so the interval carries no
// resampling error and costs microseconds; beyond that, or when x's median
// can be zero or negative, it falls back to Monte Carlo resampling (the
// same distribution as Ratio(x, y, Median), counted without sorting).
func (b Bootstrap) MedianRatio(x, y []float64) Interval {
	if len(x) == 0 || len(y) == 0 || hasNaN(x) || hasNaN(y) || hasInf(x) || hasInf(y) {
		return b.nanInterval()
	}
	if len(x) > maxExactMedian || len(y) > maxExactMedian {
		return b.medianRatioResampled(x, y)
	}
	vx, px := medianDistribution(x)
	vy, py := medianDistribution(y)
	if !(vx[0] > 0) {
		return b.medianRatioResampled(x, y)
	}
	cy := make([]float64, len(py))
	acc := 0.0
	for i, p := range py {
		acc += p
		cy[i] = acc
	}
	// cdf(r) = P(My/Mx <= r) = sum_i P(Mx = vx[i]) P(My <= r vx[i]). The
	// thresholds r vx[i] rise with i, so one sweep over vy serves them all.
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
	lo, hi := vy[0]/vx[len(vx)-1], vy[len(vy)-1]/vx[0]
	quantile := func(p float64) float64 {
		// The smallest r with cdf(r) >= p: bisect to the jump.
		a, z := lo, hi
		if cdf(a) >= p {
			return a
		}
		for range 100 {
			mid := a + (z-a)/2
			if mid <= a || mid >= z {
				break
			}
			if cdf(mid) >= p {
				z = mid
			} else {
				a = mid
			}
		}
		return z
	}
	c := b.confidence()
	return Interval{
		Estimate:   Median(y) / Median(x),
		Lo:         quantile((1 - c) / 2),
		Hi:         quantile((1 + c) / 2),
		Confidence: c,
	}
}

func hasInf(x []float64) bool {
	for _, v := range x {
		if math.IsInf(v, 0) {
			return true
		}
	}
	return false
}

// medianDistribution returns the exact bootstrap distribution of the
// type-7 median of a resample of x (n draws with replacement): its support
// in ascending order and the probability of each point.
//
// Let s be x sorted and count positions 1..n, each drawn with probability
// 1/n. For odd n the median is the k-th order statistic, k = (n+1)/2, and
// P(X(k) <= s_a) = P(Binomial(n, a/n) >= k). For even n it is the mean of
// the k-th and (k+1)-th, k = n/2; for positions a < b,
//
//	P(X(k) = s_a, X(k+1) = s_b) = C(n,k) [(a/n)^k - ((a-1)/n)^k]
//	                                     [((n-b+1)/n)^(n-k) - ((n-b)/n)^(n-k)]
//
// (exactly k draws at or below a, at least one of them at a; none strictly
// between; at least one of the other n-k at b), and
//
//	P(X(k) = X(k+1) = s_a) = sum over l < k of P(L = l) P(E >= k+1-l | L = l)
//
// with L ~ Binomial(n, (a-1)/n) the draws below a and, given L = l,
// E ~ Binomial(n-l, 1/(n-a+1)) the draws at a.
func medianDistribution(x []float64) (values, probs []float64) {
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
			// Both middle order statistics at position a.
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
	values = make([]float64, 0, len(pts))
	probs = make([]float64, 0, len(pts))
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

// logFactorials holds log(i!) for i = 0..n.
type logFactorials []float64

func newLogFactorials(n int) logFactorials {
	lf := make(logFactorials, n+1)
	for i := 2; i <= n; i++ {
		lf[i] = lf[i-1] + math.Log(float64(i))
	}
	return lf
}

func (lf logFactorials) choose(n, k int) float64 { return lf[n] - lf[k] - lf[n-k] }

// binomialPMF is P(Binomial(n, p) = k).
func binomialPMF(lf logFactorials, n int, p float64, k int) float64 {
	switch {
	case k < 0 || k > n:
		return 0
	case p <= 0:
		if k == 0 {
			return 1
		}
		return 0
	case p >= 1:
		if k == n {
			return 1
		}
		return 0
	}
	return math.Exp(lf.choose(n, k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// binomialUpperTail is P(Binomial(n, p) >= k), summing the terms by the
// recurrence pmf(j+1) = pmf(j) (n-j)/(j+1) p/(1-p).
func binomialUpperTail(lf logFactorials, n int, p float64, k int) float64 {
	switch {
	case k <= 0:
		return 1
	case k > n || p <= 0:
		return 0
	case p >= 1:
		return 1
	}
	odds := p / (1 - p)
	term := binomialPMF(lf, n, p, k)
	t := 0.0
	for j := k; j <= n; j++ {
		t += term
		term *= float64(n-j) / float64(j+1) * odds
	}
	return math.Min(t, 1)
}
