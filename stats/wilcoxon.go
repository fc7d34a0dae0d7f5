package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// signedRankExactLimit is the number of nonzero differences below which the
// exact distribution is used, as in R's wilcox.test.
const signedRankExactLimit = 50

// WilcoxonSignedRank performs the two-sided Wilcoxon signed-rank test of the
// paired differences d[i] = y[i] - x[i], against the null hypothesis that
// they are symmetric about zero. It follows R's wilcox.test(y, x, paired =
// TRUE) with its defaults:
//
//   - Zero differences are dropped (the Wilcoxon convention, as R does), and
//     the ranks are those of |d| among the nonzero differences, ties sharing
//     their average rank.
//   - w is the sum of the ranks of the positive differences (R's V).
//   - With fewer than 50 nonzero differences, no tied |d| and no zero
//     differences, p comes from the exact distribution of w. Otherwise it
//     comes from the normal approximation with the tie correction
//     sum(t^3-t)/48 in the variance and a continuity correction of 0.5.
//
// It returns ErrTooFew (and p = 1) when x and y differ in length or every
// difference is zero, and ErrNaN for NaN input.
func WilcoxonSignedRank(x, y []float64) (w, p float64, err error) {
	if len(x) != len(y) || len(x) == 0 {
		return math.NaN(), 1, ErrTooFew
	}
	d := make([]float64, 0, len(x))
	zeros := false
	for i := range x {
		v := y[i] - x[i]
		switch {
		case math.IsNaN(v):
			return math.NaN(), 1, ErrNaN
		case v == 0:
			zeros = true
		default:
			d = append(d, v)
		}
	}
	n := len(d)
	if n == 0 {
		return 0, 1, ErrTooFew
	}
	slices.SortFunc(d, func(a, b float64) int {
		a, b = math.Abs(a), math.Abs(b)
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	})
	// w2 is twice the positive rank sum; tc is sum(t^3 - t) over tie groups.
	w2, tc, ties := 0, 0.0, false
	for i := 0; i < n; {
		j := i
		for j < n && math.Abs(d[j]) == math.Abs(d[i]) {
			j++
		}
		rank2 := i + 1 + j // twice the average of ranks i+1..j
		for _, v := range d[i:j] {
			if v > 0 {
				w2 += rank2
			}
		}
		if t := j - i; t > 1 {
			ties = true
			tc += float64(t*t*t - t)
		}
		i = j
	}
	w = float64(w2) / 2
	mean := float64(n*(n+1)) / 4

	if n < signedRankExactLimit && !ties && !zeros {
		// w is an integer; P(W <= w) or P(W >= w), whichever tail w is in.
		dist := signedRankDist(n)
		wi := w2 / 2
		var tail float64
		if w > mean {
			for _, c := range dist[wi:] {
				tail += c
			}
		} else {
			for _, c := range dist[:wi+1] {
				tail += c
			}
		}
		return w, min(1, 2*tail), nil
	}

	z := w - mean
	sigma := math.Sqrt(float64(n*(n+1)*(2*n+1))/24 - tc/48)
	switch {
	case z > 0:
		z -= 0.5
	case z < 0:
		z += 0.5
	}
	z /= sigma
	return w, min(1, 2*distuv.UnitNormal.CDF(-math.Abs(z))), nil
}

// signedRankDist returns P(W = v) for v = 0..n(n+1)/2, W the sum of a random
// subset of the ranks 1..n (each included with probability 1/2): the count
// of subsets of {1..n} summing to v, divided by 2^n.
func signedRankDist(n int) []float64 {
	top := n * (n + 1) / 2
	c := make([]float64, top+1)
	c[0] = 1
	for k := 1; k <= n; k++ {
		for v := k * (k + 1) / 2; v >= k; v-- {
			c[v] += c[v-k]
		}
	}
	scale := math.Ldexp(1, -n)
	for i := range c {
		c[i] *= scale
	}
	return c
}
