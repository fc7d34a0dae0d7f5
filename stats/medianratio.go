package stats

import (
	"cmp"
	"math"
	"slices"
	"sync"
)

// maxExactMedian is the largest sample whose resampled median's support
// MedianRatio lists in full (n(n+1)/2 points for even n), with the
// probabilities cached by size; beyond, it lists the band of that support
// that holds all but 1e-15 of the probability (bandedWeights).
const maxExactMedian = 200

// MedianRatio returns the percentile bootstrap interval of
// Median(y)/Median(x) for independent samples: the change benchstat
// reports, with a confidence interval. For samples of up to 200 values it
// computes the bootstrap distribution of each median exactly, as if every
// one of the n^n resamples had been drawn, so the interval carries no
// resampling error and costs microseconds. Beyond 200 values it computes
// the same distribution less points of negligible probability (all but
// about 1e-15 of it is kept), in time that grows with sqrt(n) points: a
// millisecond or so at n = 3,000, against tens for resampling. When x's
// median can be zero or negative, it falls back to Monte Carlo resampling
// (the same distribution as Ratio(x, y, Median), counted without sorting).
func (b Bootstrap) MedianRatio(x, y []float64) Interval {
	if len(x) == 0 || len(y) == 0 || hasNaN(x) || hasNaN(y) || hasInf(x) || hasInf(y) {
		return b.nanInterval()
	}
	vx, px := medianDistribution(x)
	vy, py := medianDistribution(y)
	if !(vx[0] > 0) {
		return b.medianRatioResampled(x, y)
	}
	// py becomes My's cumulative probabilities in place: it is
	// medianDistribution's own, used for nothing else.
	cy, acc := py, 0.0
	for i, p := range py {
		acc += p
		cy[i] = acc
	}
	d := ratioCDF{vx: vx, px: px, vy: vy, cy: cy}
	lo, hi := vy[0]/vx[len(vx)-1], vy[len(vy)-1]/vx[0]
	c := b.confidence()
	return Interval{
		Estimate:   Median(y) / Median(x),
		Lo:         d.quantile(lo, hi, (1-c)/2),
		Hi:         d.quantile(lo, hi, (1+c)/2),
		Confidence: c,
	}
}

// A ratioCDF is the distribution of My/Mx for independent medians My and
// Mx with supports vy and vx (ascending, vx positive), probabilities px
// of Mx and cumulative probabilities cy of My.
type ratioCDF struct {
	vx, px, vy, cy []float64
}

// at returns cdf(r) = P(My/Mx <= r) = sum_i P(Mx = vx[i]) P(My <= r
// vx[i]). The thresholds r vx[i] rise with i, so one sweep over vy serves
// them all. In floating point too, cdf is non-decreasing in r: r vx[i]
// rounds monotonically, and so does a sum of non-decreasing terms.
func (d *ratioCDF) at(r float64) float64 {
	total, j := 0.0, 0
	for i, v := range d.vx {
		for j < len(d.vy) && d.vy[j] <= r*v {
			j++
		}
		if j > 0 {
			total += d.px[i] * d.cy[j-1]
		}
	}
	return total
}

// around is at(r), the same value by the same operations, with the
// nearest points where a term of the sum can jump: below, the largest
// vy[j]/vx[i] with vy[j] <= r vx[i], and above, the smallest with vy[j] >
// r vx[i] (-Inf and +Inf when there are none). The floating-point jump
// of a term lies within a few ulps of its ratio, so cdf is constant
// between below and above but for a few ulps at each end.
func (d *ratioCDF) around(r float64) (total, below, above float64) {
	below, above = math.Inf(-1), math.Inf(1)
	j := 0
	for i, v := range d.vx {
		for j < len(d.vy) && d.vy[j] <= r*v {
			j++
		}
		if j > 0 {
			total += d.px[i] * d.cy[j-1]
			below = max(below, d.vy[j-1]/v)
		}
		if j < len(d.vy) {
			above = min(above, d.vy[j]/v)
		}
	}
	return total, below, above
}

// quantile returns the smallest float64 r in [lo, hi] with at(r) >= p,
// or hi when there is none above lo: the p-quantile of the distribution,
// exact to the last bit.
//
// Bisection from [lo, hi] (bisect) finds it in about 53 + log2((hi-lo)/r)
// steps of at, each a sweep of both supports: most of rigor compare's
// time at 1,000 benchmarks. quantile instead probes where a line through
// the bracket's ends meets p (regula falsi, Illinois's variant, kept off
// the ends), and moves the end it replaces on to the step of at beside
// the probe (around says where it is), which leaves a bracket of a few
// ulps after a few probes; then it bisects that. The bracket always holds
// the answer: at(a) < p, and at(z) >= p or z = hi. As at is
// non-decreasing, the answer is unique, and it is what bisect from [lo,
// hi] returns whenever that reaches adjacent floats within its 100
// steps, which it does when lo > 0 and hi/lo <= 2^32 (53 + 32 steps with
// a margin for rounding); otherwise quantile is bisect itself.
//
// Moving an end to the step beside the probe needs no evaluation: with
// every product r vx[i] a normal float (lo vx[0] >= 2^-1000, hi vx[n-1] <=
// 2^1000), below (1 + 2^-50) is above the floating-point jump of every
// term counted at the probe, and above (1 - 2^-50) below the jump of every
// term not counted, by at least an ulp of the product (unit roundoff u =
// 2^-53: the ratio, the scaling and the product each round by at most
// u, and 8u - 3u > u), so at is the same there as at the probe.
func (d *ratioCDF) quantile(lo, hi, p float64) float64 {
	if d.at(lo) >= p {
		return lo
	}
	if !(lo > 0 && hi <= lo*0x1p32 && lo*d.vx[0] >= 0x1p-1000 && hi*d.vx[len(d.vx)-1] <= 0x1p1000) {
		return d.bisect(lo, hi, p)
	}
	const eps = 0x1p-52
	a, z := lo, hi
	ga, gz := d.at(lo)-p, 1-p // at - p at the ends (1 bounds at(hi))
	kept := 0                 // the end kept by the last probe: -1 a, +1 z
	for range 64 {
		if z-a <= a*(16*eps) {
			break
		}
		f := min(max(ga/(ga-gz), 1.0/32), 31.0/32)
		mid := a + (z-a)*f
		if !(mid > a && mid < z) {
			break
		}
		t, below, above := d.around(mid)
		if t >= p {
			// at is t from just above below up to mid.
			z, gz = mid, t-p
			if c := below * (1 + 4*eps); c > a && c < z {
				z = c
			}
			if kept == -1 {
				ga /= 2
			}
			kept = -1
		} else {
			// at is t from mid to just below above.
			a, ga = mid, t-p
			if c := above * (1 - 4*eps); c > a && c < z {
				a = c
			}
			if kept == 1 {
				gz /= 2
			}
			kept = 1
		}
	}
	return d.bisect(a, z, p)
}

// bisect returns the smallest float64 r in (a, z] with at(r) >= p (z
// when there is none), for at(a) < p, as long as 100 halvings of [a, z]
// reach adjacent floats.
func (d *ratioCDF) bisect(a, z, p float64) float64 {
	for range 100 {
		mid := a + (z-a)/2
		if mid <= a || mid >= z {
			break
		}
		if d.at(mid) >= p {
			z = mid
		} else {
			a = mid
		}
	}
	return z
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
	w := medianWeightsOf(len(s))
	ptsp := medianPoints.Get().(*[]medianPoint)
	pts := slices.Grow((*ptsp)[:0], len(w))[:len(w)]
	for i, t := range w {
		v := s[t.a]
		if t.b != t.a {
			v = (s[t.a] + s[t.b]) / 2
		}
		pts[i] = medianPoint{v, t.p}
	}
	slices.SortFunc(pts, func(a, b medianPoint) int { return cmp.Compare(a.v, b.v) })
	both := make([]float64, 2*len(pts)) // values, then probs: one allocation
	values, probs = both[:0:len(pts)], both[len(pts):len(pts)]
	for _, pt := range pts {
		if len(values) > 0 && values[len(values)-1] == pt.v {
			probs[len(probs)-1] += pt.p
			continue
		}
		values = append(values, pt.v)
		probs = append(probs, pt.p)
	}
	*ptsp = pts
	medianPoints.Put(ptsp)
	return values, probs
}

// A medianPoint is a point of a resampled median's support, before
// medianDistribution sorts and merges them.
type medianPoint struct{ v, p float64 }

// medianPoints keeps medianDistribution's points between calls: two per
// comparison of sec/op, each n(n+1)/2 points (1.7 MB of rigor compare's
// garbage at 1,000 benchmarks of 10 samples).
var medianPoints = sync.Pool{New: func() any { return new([]medianPoint) }}

// A medianWeight is one point of the support of a resampled median, by
// the positions in the sorted sample whose values make it (a == b: the
// value at a; otherwise the mean of the values at a and b), and its
// probability, which depends on the sample's size alone.
type medianWeight struct {
	a, b int32
	p    float64
}

// medianWeightCache holds medianWeights by sample size: MedianRatio is
// called once per metric, thousands of times a comparison, mostly with one
// or two sizes (go test -count).
var medianWeightCache sync.Map // int -> []medianWeight

// medianWeightsOf returns medianWeights(n), computed once per n, up to
// maxExactMedian, and bandedWeights(n) beyond.
func medianWeightsOf(n int) []medianWeight {
	if n > maxExactMedian {
		return bandedWeightsOf(n)
	}
	if w, ok := medianWeightCache.Load(n); ok {
		return w.([]medianWeight)
	}
	w, _ := medianWeightCache.LoadOrStore(n, medianWeights(n))
	return w.([]medianWeight)
}

// medianWeights returns the support of the resampled median of a sorted
// sample of n values as positions (0-based), with each point's probability
// (see medianDistribution), in the order medianDistribution sorts them
// from. Points of zero probability are left out.
func medianWeights(n int) []medianWeight {
	lf := newLogFactorials(n)
	w := make([]medianWeight, 0, n*(n+1)/2)
	if n%2 == 1 {
		k := (n + 1) / 2
		prev := 0.0
		for a := 1; a <= n; a++ {
			cum := binomialUpperTail(lf, n, float64(a)/float64(n), k)
			w = append(w, medianWeight{int32(a - 1), int32(a - 1), cum - prev})
			prev = cum
		}
		return w
	}
	k := n / 2
	nf := float64(n)
	logC := lf.choose(n, k)
	for a := 1; a <= n; a++ {
		left := math.Pow(float64(a)/nf, float64(k)) - math.Pow(float64(a-1)/nf, float64(k))
		for b := a + 1; b <= n; b++ {
			right := math.Pow(float64(n-b+1)/nf, float64(n-k)) - math.Pow(float64(n-b)/nf, float64(n-k))
			if p := math.Exp(logC) * left * right; p > 0 {
				w = append(w, medianWeight{int32(a - 1), int32(b - 1), p})
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
			w = append(w, medianWeight{int32(a - 1), int32(a - 1), p})
		}
	}
	return w
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
