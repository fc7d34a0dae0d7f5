package stats

import "math"

// Interval is a point estimate with a confidence interval. Confidence is
// the level the interval achieves (for order-statistic intervals it can be
// above the level asked for).
type Interval struct{ Estimate, Lo, Hi, Confidence float64 }

// RelativeRange returns the largest relative distance of Lo or Hi from
// Estimate, max(Hi/Estimate - 1, 1 - Lo/Estimate): the number benchstat
// prints after "±" (as a percentage, rounded). It is +Inf when a bound is
// infinite, NaN when a bound has the other sign from the estimate (benchstat
// prints "?"), and 0 when all three are zero.
func (iv Interval) RelativeRange() float64 {
	if math.IsInf(iv.Lo, 0) || math.IsInf(iv.Hi, 0) {
		return math.Inf(1)
	}
	sign := func(v float64) int {
		switch {
		case v > 0:
			return 1
		case v < 0:
			return -1
		}
		return 0
	}
	if s := sign(iv.Estimate); s != sign(iv.Lo) || s != sign(iv.Hi) {
		return math.NaN()
	}
	if iv.Estimate == 0 {
		return 0
	}
	return max(iv.Hi/iv.Estimate-1, 1-iv.Lo/iv.Estimate)
}
