package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/combin"
	"gonum.org/v1/gonum/stat/distuv"
)

// TooFewSamplesError reports that a sample is too small for a finite
// confidence interval at the requested level: Need is the smallest sample
// size that gives one (or, above 50, "more than 50").
type TooFewSamplesError struct {
	Need       int
	Confidence float64
}

// Error uses benchstat's wording, for example
// "need >= 6 samples for confidence interval at level 0.95".
func (e *TooFewSamplesError) Error() string {
	if e.Need > medianSearchLimit {
		return fmt.Sprintf("need > %d samples for confidence interval at level %v", medianSearchLimit, e.Confidence)
	}
	return fmt.Sprintf("need >= %d samples for confidence interval at level %v", e.Need, e.Confidence)
}

// medianSearchLimit is the largest sample size for which TooFewSamplesError
// names the exact number needed, as in benchstat.
const medianSearchLimit = 50

// MedianCI returns the sample median with a distribution-free confidence
// interval bounded by two order statistics, computed exactly as benchstat
// (golang.org/x/perf/benchmath, AssumeNothing.Summary) does:
//
// The number of values below the population median is Binomial(n, 1/2). For
// n <= 30 the interval starts at the most likely gap between order statistics
// and grows one gap at a time toward the more likely side (the lower one on
// a tie) until the covered probability reaches confidence. For n > 30 the
// binomial is approximated by a normal with continuity correction, and the
// interval is shortened by one order statistic at the top when that still
// covers confidence.
//
// Interval.Confidence is the achieved level, which is at least confidence.
// When a bound falls outside the sample it is -Inf or +Inf and the error is
// a *TooFewSamplesError (benchstat's warning); the estimate is still returned.
// Confidence must be in (0, 1]; at 1 the interval is (-Inf, +Inf).
// x need not be sorted and is not modified.
func MedianCI(x []float64, confidence float64) (Interval, error) {
	if !(confidence > 0 && confidence <= 1) {
		return Interval{Estimate: Median(x), Lo: math.NaN(), Hi: math.NaN(), Confidence: confidence},
			fmt.Errorf("stats: confidence level %v not in (0, 1]", confidence)
	}
	if hasNaN(x) {
		return Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Confidence: confidence},
			fmt.Errorf("stats: median confidence interval of a sample containing NaN")
	}
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	lo, hi, achieved := medianOrders(n, confidence)
	iv := Interval{Estimate: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1), Confidence: achieved}
	if n > 0 {
		iv.Estimate = quantileSorted(s, 0.5)
	}
	if lo >= 1 {
		iv.Lo = s[lo-1]
	}
	if hi <= n {
		iv.Hi = s[hi-1]
	}
	if math.IsInf(iv.Lo, -1) || math.IsInf(iv.Hi, 1) {
		return iv, &TooFewSamplesError{Need: medianNeed(confidence), Confidence: confidence}
	}
	return iv, nil
}

// medianNeed is the smallest n <= medianSearchLimit whose median interval at
// the given confidence lies inside the sample, or medianSearchLimit+1.
func medianNeed(confidence float64) int {
	for n := 2; n <= medianSearchLimit; n++ {
		if lo, hi, _ := medianOrders(n, confidence); lo > 0 && hi <= n {
			return n
		}
	}
	return medianSearchLimit + 1
}

// medianExactLimit is the largest n for which medianOrders sums the exact
// binomial distribution (benchstat's threshold).
const medianExactLimit = 30

// medianOrders returns the 1-based order statistics [lo, hi] bounding the
// confidence interval of the median of n values, and the achieved
// confidence. lo < 1 means -Inf and hi > n means +Inf. In terms of the gaps
// between order statistics (gap k lies between the k-th and (k+1)-th value),
// the interval covers gaps lo..hi-1.
func medianOrders(n int, confidence float64) (lo, hi int, achieved float64) {
	if confidence >= 1 {
		return 0, n + 1, 1
	}
	if n <= medianExactLimit {
		pmf := func(k int) float64 { return benchstatHalfBinomialPMF(n, k) }
		// Start at the lower mode, ceil((n+1)/2)-1, and grow [l, r).
		l := (n+2)/2 - 1
		r := l + 1
		acc := pmf(l)
		lp, rp := pmf(l-1), pmf(r)
		for acc < confidence && (lp > 0 || rp > 0) {
			if lp >= rp {
				acc += lp
				l--
				lp = pmf(l - 1)
			} else {
				acc += rp
				r++
				rp = pmf(r)
			}
		}
		return max(l, 0), min(r, n+1), acc
	}

	// Normal approximation to Binomial(n, 1/2) with continuity
	// correction: gap k corresponds to [k-0.5, k+0.5].
	norm := distuv.Normal{Mu: float64(n) / 2, Sigma: math.Sqrt(float64(n)) / 2}
	left := norm.Quantile((1 - confidence) / 2)
	right := 2*norm.Mu - left
	// Round outward to half-integers and recover the gap indices.
	l := int(math.Floor(math.Floor(left-0.5)+0.5)) + 1
	r := int(math.Floor(math.Ceil(right-0.5)+0.5)) + 1
	cover := func(l, r int) float64 { return norm.CDF(float64(r)-0.5) - norm.CDF(float64(l)-0.5) }
	achieved = cover(l, r)
	if c := cover(l, r-1); c >= confidence && c < achieved {
		achieved = c
		r--
	}
	if l <= 0 && r >= n+1 {
		achieved = 1
	}
	return max(l, 0), min(r, n+1), achieved
}

// benchstatHalfBinomialPMF is P(X = k) for X ~ Binomial(n, 1/2), rounded
// the way benchstat rounds it. Exact arithmetic gives P(k) = P(n-k), so the
// interval search above meets exact ties; benchstat computes C(n, k) exactly
// only for n <= 20 and as exp(lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1))
// beyond, whose last-bit rounding breaks some of those ties toward the upper
// side. Both choices have the same coverage; rigor reproduces benchstat's so
// that its intervals are the same order statistics (see
// TestMedianCIOrdersMatchBenchstat).
func benchstatHalfBinomialPMF(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	var c float64
	switch {
	case k == 0 || k == n:
		c = 1
	case n <= 20:
		c = float64(combin.Binomial(n, k))
	default:
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(k + 1))
		d, _ := math.Lgamma(float64(n - k + 1))
		c = math.Exp(a - b - d)
	}
	return c * math.Pow(0.5, float64(k)) * math.Pow(0.5, float64(n-k))
}
