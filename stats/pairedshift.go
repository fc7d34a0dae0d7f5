package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// exactSignedRankLimit is the largest n for which PairedShift takes its
// critical value from the exact signed-rank distribution.
const exactSignedRankLimit = 50

// PairedShift returns the Hodges-Lehmann estimate of the center of the
// paired differences d (the median of the n(n+1)/2 Walsh averages
// (d_i+d_j)/2, i <= j) with the distribution-free confidence interval that
// inverts the Wilcoxon signed-rank test (Tukey; Hollander and Wolfe, ch. 3):
// the k-th smallest and k-th largest Walsh averages, k the largest integer
// with P(T+ <= k-1) <= (1-confidence)/2 under the null. It is R's
// wilcox.test(d, conf.int = TRUE), except that where no interval reaches
// the confidence asked for (fewer than 6 differences at 0.95) it returns
// NaN bounds and ErrTooFew instead of a narrower interval.
//
// The estimate resists the odd outlying round (a preempted sample) that
// drags a mean; the interval is exact for up to 50 differences without
// ties and uses the normal approximation beyond. NaN in d gives ErrNaN.
func PairedShift(d []float64, confidence float64) (Interval, error) {
	nan := Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Confidence: confidence}
	n := len(d)
	if n == 0 {
		return nan, ErrTooFew
	}
	if hasNaN(d) {
		return nan, ErrNaN
	}
	m := n * (n + 1) / 2
	at := walshOrder(d)
	iv := Interval{Estimate: quantileAt(m, 0.5, at), Confidence: confidence}
	alpha := 1 - confidence
	k := 0
	if n <= exactSignedRankLimit {
		cum := 0.0
		for _, p := range signedRankDist(n) {
			if cum+p > alpha/2*(1+1e-12) {
				break
			}
			cum += p
			k++
		}
		if k > 0 {
			iv.Confidence = 1 - 2*cum
		}
	} else {
		mean := float64(n*(n+1)) / 4
		sd := math.Sqrt(float64(n*(n+1)*(2*n+1)) / 24)
		k = int(math.Floor(mean - distuv.UnitNormal.Quantile(1-alpha/2)*sd + 0.5))
	}
	if k <= 0 {
		iv.Lo, iv.Hi = math.NaN(), math.NaN()
		return iv, ErrTooFew
	}
	iv.Lo, iv.Hi = at(k-1), at(m-k)
	return iv, nil
}

// walshOrder returns the function that gives the Walsh average of d of a
// 0-based rank, as the sorted list of them all would: selected without
// the list (see walshSelector) when d is finite; from the sorted list
// otherwise (an infinite difference makes a NaN average of +Inf and -Inf,
// which has no place in the matrix's order).
func walshOrder(d []float64) func(k int) float64 {
	x := slices.Clone(d)
	slices.Sort(x)
	if len(x) > 0 && !math.IsInf(x[0], 0) && !math.IsInf(x[len(x)-1], 0) {
		return newWalshSelector(x).kth
	}
	n := len(d)
	walsh := make([]float64, 0, n*(n+1)/2)
	for i := range d {
		for j := i; j < n; j++ {
			walsh = append(walsh, (d[i]+d[j])/2)
		}
	}
	slices.Sort(walsh)
	return func(k int) float64 { return walsh[k] }
}

// quantileAt is quantileSorted(s, p) of a sorted s of length m known by
// at(k) = s[k]: it reads only the two order statistics it needs.
func quantileAt(m int, p float64, at func(int) float64) float64 {
	h := float64(m-1) * p
	lo := int(h)
	if lo >= m-1 {
		return at(m - 1)
	}
	return quantileSorted([]float64{at(lo), at(lo + 1)}, h-float64(lo))
}
