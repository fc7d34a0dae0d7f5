package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// HodgesLehmann returns the Hodges-Lehmann estimate of the shift from x to
// y, the median of the nx*ny differences y[j] - x[i], with Moses's
// distribution-free confidence interval: the k-th smallest and k-th largest
// of those differences, where k-1 is the largest U with P(U <= k-1) < α/2
// for the Mann-Whitney statistic U under the null hypothesis (k at least 1),
// α = 1 - confidence. This is the interval of R's wilcox.test(y, x,
// conf.int = TRUE) in its exact case.
//
// k comes from the exact distribution of U (without ties) when both samples
// have at most 50 values, and from the normal approximation
// k = floor(nx*ny/2 - z(1-α/2) sqrt(nx*ny*(nx+ny+1)/12)) otherwise (Hollander
// and Wolfe). Ties make the interval approximate. Interval.Confidence is the
// achieved level, 1 - 2 P(U <= k-1). When even the widest interval (all
// differences) covers less than confidence, it is returned with a
// *TooFewSamplesError.
func HodgesLehmann(x, y []float64, confidence float64) (Interval, error) {
	nan := Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Confidence: confidence}
	if len(x) == 0 || len(y) == 0 {
		return nan, ErrTooFew
	}
	if hasNaN(x) || hasNaN(y) {
		return nan, ErrNaN
	}
	if !(confidence > 0 && confidence < 1) {
		return nan, errConfidence(confidence)
	}
	d := make([]float64, 0, len(x)*len(y))
	for _, a := range x {
		for _, b := range y {
			d = append(d, b-a)
		}
	}
	if hasNaN(d) { // Inf - Inf
		return nan, ErrNaN
	}
	slices.Sort(d)
	k, achieved := mosesRank(len(x), len(y), confidence)
	iv := Interval{
		Estimate:   quantileSorted(d, 0.5),
		Lo:         d[k-1],
		Hi:         d[len(d)-k],
		Confidence: achieved,
	}
	if achieved < confidence {
		// Name the smallest equal per-side size that would do, as
		// benchstat does for the median.
		need := 2
		for ; need <= medianSearchLimit; need++ {
			if _, a := mosesRank(need, need, confidence); a >= confidence {
				break
			}
		}
		return iv, &TooFewSamplesError{Need: need, Confidence: confidence}
	}
	return iv, nil
}

// mosesRank returns the 1-based rank k of the lower bound of the
// Hodges-Lehmann interval for samples of n1 and n2 values, and the achieved
// confidence 1 - 2 P(U <= k-1).
func mosesRank(n1, n2 int, confidence float64) (k int, achieved float64) {
	alpha := 1 - confidence
	nm := n1 * n2
	if n1 <= uExactLimit && n2 <= uExactLimit {
		ones := make([]int, n1+n2)
		for i := range ones {
			ones[i] = 1
		}
		base := n1 * (n1 + 1) // 2R1 = 2U + n1(n1+1)
		// P(U = u) for u up to the center suffices: α/2 < 1/2.
		counts := rankSumCounts(n1, ones, nm+base)
		total := binomialFloat(n1+n2, n1)
		cum := 0.0 // P(U <= k-1)
		for k = 0; k <= nm/2; k++ {
			pk := counts[2*k+base] / total
			if cum+pk >= alpha/2 {
				break
			}
			cum += pk
		}
		// k is now R's qwilcox(α/2): the smallest q with P(U <= q) >= α/2.
		if k == 0 {
			k = 1
		}
		// P(U <= k-1) summed afresh for k forced to 1.
		cum = 0
		for u := 0; u <= k-1; u++ {
			cum += counts[2*u+base] / total
		}
		return k, 1 - 2*cum
	}
	mu := float64(nm) / 2
	sigma := math.Sqrt(float64(nm) * float64(n1+n2+1) / 12)
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	k = max(1, int(math.Floor(mu-z*sigma)))
	return k, 1 - 2*distuv.UnitNormal.CDF((float64(k)-0.5-mu)/sigma)
}

// CohenD returns Cohen's d for two independent samples: (mean(y) - mean(x))
// divided by the pooled standard deviation
// sqrt(((nx-1)sx² + (ny-1)sy²)/(nx+ny-2)). It is NaN if either sample has
// fewer than two values.
func CohenD(x, y []float64) float64 {
	nx, ny := float64(len(x)), float64(len(y))
	if len(x) < 2 || len(y) < 2 {
		return math.NaN()
	}
	sp := math.Sqrt(((nx-1)*variance(x) + (ny-1)*variance(y)) / (nx + ny - 2))
	return (Mean(y) - Mean(x)) / sp
}

// CohenDz returns Cohen's d_z for paired samples: mean(d)/sd(d) with
// d[i] = y[i] - x[i]. It is NaN if the lengths differ or there are fewer
// than two pairs.
func CohenDz(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return math.NaN()
	}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = y[i] - x[i]
	}
	return Mean(d) / StdDev(d)
}

// Spearman returns Spearman's rank correlation of x and y: Pearson's
// correlation of their ranks, tied values sharing their average rank. It is
// NaN if the lengths differ, there are fewer than two pairs, a value is NaN,
// or either side is constant.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 || hasNaN(x) || hasNaN(y) {
		return math.NaN()
	}
	rx, ry := ranks(x), ranks(y)
	mx, my := Mean(rx), Mean(ry)
	var sxy, sxx, syy float64
	for i := range rx {
		a, b := rx[i]-mx, ry[i]-my
		sxy += a * b
		sxx += a * a
		syy += b * b
	}
	return sxy / math.Sqrt(sxx*syy)
}

// ranks returns the 1-based ranks of x, ties sharing their average rank.
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && x[idx[j]] == x[idx[i]] {
			j++
		}
		avg := float64(i+1+j) / 2
		for _, k := range idx[i:j] {
			r[k] = avg
		}
		i = j
	}
	return r
}
