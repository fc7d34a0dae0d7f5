package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// SampleSize returns the number of samples per side needed for a two-sided
// test at level alpha to detect a relative change rel (0.01 for 1%) with the
// given power, when each side's coefficient of variation is cv. It uses the
// normal approximation for comparing two means with equal variances:
//
//	n = ceil(2 (z(1-alpha/2) + z(power))² (cv/rel)²)
//
// with z the standard normal quantile (the relative change and the CV share
// the baseline mean, which cancels). For alpha = 0.05 and power = 0.8 this is
// Lehr's rule n ≈ 16 (cv/rel)². The result is at least 2. It is 0 when an
// argument is out of range: rel must be nonzero, cv non-negative, alpha and
// power in (0, 1).
func SampleSize(rel, cv, alpha, power float64) int {
	if rel == 0 || math.IsNaN(rel) || math.IsInf(rel, 0) || !(cv >= 0) || math.IsInf(cv, 0) ||
		!(alpha > 0 && alpha < 1) || !(power > 0 && power < 1) {
		return 0
	}
	z := distuv.UnitNormal.Quantile(1-alpha/2) + distuv.UnitNormal.Quantile(power)
	r := cv / rel
	n := math.Ceil(2 * z * z * r * r)
	if n > math.MaxInt32 {
		return math.MaxInt32
	}
	return max(2, int(n))
}

func errConfidence(c float64) error {
	return fmt.Errorf("stats: confidence level %v not in (0, 1)", c)
}
