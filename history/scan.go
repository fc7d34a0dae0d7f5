package history

import (
	"math"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// minSide is the fewest results a change needs on either side: a step
// with one result after it is the newest result's business (Check), and
// one result off the others is an outlier (see bursts).
const minSide = 2

// scanP is the p-value of a split of a stretch of m results whose
// two-sample t statistic (pooled, m-2 degrees of freedom) is t, corrected
// for where the split was chosen: an upper bound on the chance that m
// independent, identically distributed normal results show, at some split
// with at least minSide results on either side, a t statistic at least
// as large in absolute value. E-divisive chose the split by its own
// statistic, so the split's own t is at most that maximum, and scanP is
// a valid (conservative) p-value for "no change in these m results".
//
// The t statistics of neighbouring splits are strongly correlated, so a
// Bonferroni correction by the m-3 splits would be far too strict. scanP
// is the Hunter-Worsley bound (Worsley 1982, "An improved Bonferroni
// inequality and applications", Biometrika 69(2)), along the chain of
// splits k = a..b:
//
//	P(max |T_k| >= t) <= P(|T_a| >= t) + sum_k P(|T_{k+1}| >= t, |T_k| < t)
//
// Its terms are exact for normal results. Under no change the residuals
// of the m results, scaled to length 1, are uniform on the unit sphere of
// the m-1 dimensions orthogonal to their mean; T_k is a function of
// their projection r_k on one direction, T_k = sqrt(m-2) r_k / sqrt(1 -
// r_k^2), the directions of neighbouring splits at the angle theta_k with
// cos theta_k = sqrt(k(m-k-1) / ((k+1)(m-k))). The projection on the
// plane of two directions has a uniform angle and a squared radius of
// distribution Beta(1, (m-3)/2), which gives each term as one integral
// (upCrossing). TestScanP checks the bound against a simulation of the
// maximum of the t statistics themselves: it is tight for small p, and
// conservative for large ones.
func scanP(m int, t float64) float64 {
	p, _ := scanPBelow(m, t, 1)
	return p
}

// scanPBelow is scanP(m, t) when that is below level, and below reports
// so. Otherwise below is false and p is at least level, but the sum of
// the bound's terms stopped there (the rest of them, one integral each,
// would not change that p is not below level).
func scanPBelow(m int, t, level float64) (p float64, below bool) {
	lo, hi := minSide, m-minSide // splits k = lo..hi
	if hi < lo || math.IsNaN(t) {
		return 1, 1 < level
	}
	t = math.Abs(t)
	if math.IsInf(t, 1) {
		return 0, 0 < level
	}
	df := float64(m - 2)
	p = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(t)
	if p >= 1 {
		return 1, 1 < level
	}
	if p == 0 {
		return 0, 0 < level
	}
	r := t / math.Sqrt(df+t*t)
	bound := p
	// theta_k is symmetric in k and m-1-k: compute each once.
	for k := lo; k < hi; k++ {
		mirror := m - 1 - k
		if mirror < k {
			break
		}
		term := 2 * upCrossing(r, neighbourAngle(m, k), m-1)
		if mirror != k {
			term *= 2
		}
		bound += term
		if bound >= 1 {
			return 1, 1 < level
		}
		if bound >= level {
			// The terms are not negative.
			return bound, false
		}
	}
	return min(1, bound), min(1, bound) < level
}

// neighbourAngle is the angle between the directions of the splits k and
// k+1 of m results: the arc cosine of the correlation of their
// standardized differences of means under no change.
func neighbourAngle(m, k int) float64 {
	fk, fm := float64(k), float64(m)
	return math.Acos(math.Sqrt(fk * (fm - fk - 1) / ((fk + 1) * (fm - fk))))
}

// upCrossing is P(V_b >= r, V_a < r) for the projections V_a, V_b of a
// point uniform on the unit sphere of d dimensions on two unit vectors at
// the angle theta. In polar coordinates of their plane the point's angle
// is uniform and independent of its squared radius B ~ Beta(1, (d-2)/2);
// at radius R >= r the event is an arc of length min(theta, 2 acos(r/R))
// of the circle. With alpha = acos(r/R), integrating by parts over B gives
//
//	(1/pi) integral from 0 to min(theta/2, acos r) of (1 - r^2/cos^2 alpha)^((d-2)/2) d alpha
//
// computed by 64-point Gauss-Legendre quadrature.
func upCrossing(r, theta float64, d int) float64 {
	top := min(theta/2, math.Acos(r))
	if !(top > 0) {
		return 0
	}
	e := float64(d-2) / 2
	f := func(a float64) float64 {
		c := math.Cos(a)
		return math.Pow(max(0, 1-r*r/(c*c)), e)
	}
	return quad.Fixed(f, 0, top, 64, quad.Legendre{}, 0) / math.Pi
}
