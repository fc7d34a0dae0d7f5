package stats

import (
	"math"
	"slices"
)

// Mean returns the arithmetic mean of x, or NaN if x is empty.
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Median returns the sample median of x (the type-7 quantile at 0.5: the
// middle value, or the mean of the two middle values). It returns NaN if x is
// empty or contains NaN. It does not modify x.
func Median(x []float64) float64 { return Quantile(x, 0.5) }

// Quantile returns the p-quantile of x using linear interpolation between
// order statistics (Hyndman and Fan's type 7, the default of R's quantile and
// of Criterion.rs's percentiles): with x sorted and h = (n-1)p, the result is
// x[floor(h)] + (h-floor(h))*(x[floor(h)+1]-x[floor(h)]).
//
// x need not be sorted and is not modified. Quantile returns NaN if x is
// empty, contains NaN, or p is outside [0, 1].
func Quantile(x []float64, p float64) float64 {
	if len(x) == 0 || !(p >= 0 && p <= 1) || hasNaN(x) {
		return math.NaN()
	}
	// Small samples are sorted in a stack buffer, so that Quantile (and
	// Median) allocate nothing when called once per bootstrap resample.
	var buf [64]float64
	s := buf[:0]
	if len(x) > len(buf) {
		s = make([]float64, 0, len(x))
	}
	s = append(s, x...)
	slices.Sort(s)
	return quantileSorted(s, p)
}

// quantileSorted is Quantile on sorted data without NaN.
func quantileSorted(s []float64, p float64) float64 {
	h := float64(len(s)-1) * p
	lo := int(h)
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	frac := h - float64(lo)
	if frac == 0 || s[lo] == s[lo+1] { // the second case keeps ±Inf from becoming NaN
		return s[lo]
	}
	if d := s[lo+1] - s[lo]; !math.IsInf(d, 0) {
		return s[lo] + frac*d
	}
	// Two finite values whose difference overflows (±1e308): weigh them
	// separately instead.
	return (1-frac)*s[lo] + frac*s[lo+1]
}

// StdDev returns the sample standard deviation of x (divisor n-1), or NaN if
// x has fewer than two values.
func StdDev(x []float64) float64 { return math.Sqrt(variance(x)) }

// variance is the sample variance with divisor n-1, computed in two passes.
func variance(x []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	m := Mean(x)
	ss := 0.0
	for _, v := range x {
		d := v - m
		ss += d * d
	}
	return ss / float64(len(x)-1)
}

// madScale makes the MAD a consistent estimator of the standard deviation
// for normal data: 1/Φ⁻¹(3/4) ≈ 1.4826, the constant Criterion.rs and R use.
const madScale = 1.4826

// MAD returns the scaled median absolute deviation,
// 1.4826 * median(|x - median(x)|), or NaN if x is empty or contains NaN.
func MAD(x []float64) float64 {
	med := Median(x)
	if math.IsNaN(med) {
		return math.NaN()
	}
	d := make([]float64, len(x))
	for i, v := range x {
		d[i] = math.Abs(v - med)
	}
	slices.Sort(d)
	return madScale * quantileSorted(d, 0.5)
}

// CV returns the coefficient of variation StdDev(x)/|Mean(x)|. It is NaN for
// fewer than two values and +Inf when the mean is zero and the values vary.
func CV(x []float64) float64 { return StdDev(x) / math.Abs(Mean(x)) }

// Min returns the smallest value of x, or NaN if x is empty or contains NaN.
func Min(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	m := x[0]
	for _, v := range x {
		if math.IsNaN(v) {
			return v
		}
		if v < m {
			m = v
		}
	}
	return m
}

// Max returns the largest value of x, or NaN if x is empty or contains NaN.
func Max(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	m := x[0]
	for _, v := range x {
		if math.IsNaN(v) {
			return v
		}
		if v > m {
			m = v
		}
	}
	return m
}

// GeoMean returns the geometric mean of x, exp(mean(log x)). It returns NaN
// if x is empty or any value is zero, negative or NaN.
func GeoMean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range x {
		if !(v > 0) {
			return math.NaN()
		}
		s += math.Log(v)
	}
	return math.Exp(s / float64(len(x)))
}

// Slope returns the least-squares slope of the line through the origin
// fitted to the points (iters[i], totals[i]): sum(x*y)/sum(x*x). This is
// Criterion.rs's per-iteration time estimate for linear sampling (iters d,
// 2d, ..., Nd; totals the time each sample took). It returns NaN if the
// slices differ in length, are empty, or all iters are zero.
func Slope(iters, totals []float64) float64 {
	if len(iters) != len(totals) || len(iters) == 0 {
		return math.NaN()
	}
	var xy, xx float64
	for i, x := range iters {
		xy += x * totals[i]
		xx += x * x
	}
	if xx == 0 {
		return math.NaN()
	}
	return xy / xx
}

func hasNaN(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

// MedianVariance is the large-sample variance of the median of x,
// (π/2) σ²/n, with σ estimated by the scaled MAD: the variance of the
// median of n normal values is π/2 times that of their mean. It is a
// large-sample formula, rough for a handful of values. ok is false for
// fewer than 2 values, or when x contains NaN.
func MedianVariance(x []float64) (v float64, ok bool) {
	if len(x) < 2 {
		return 0, false
	}
	mad := MAD(x)
	if math.IsNaN(mad) {
		return 0, false
	}
	return math.Pi / 2 * mad * mad / float64(len(x)), true
}
