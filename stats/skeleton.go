package stats

import (
	"errors"
	"math"
)

// errUnimplemented marks routines whose implementation is still being written.
var errUnimplemented = errors.New("stats: not implemented yet")

// Interval is a point estimate with a confidence interval.
type Interval struct{ Estimate, Lo, Hi, Confidence float64 }







func WilcoxonSignedRank(x, y []float64) (w, p float64, err error) {
	return 0, 1, errUnimplemented
}
func WelchT(x, y []float64) (t, df, p float64, err error) { return 0, 0, 1, errUnimplemented }
func MixedBootstrapT(x, y []float64, resamples int, seed uint64) (t, p float64) {
	return math.NaN(), math.NaN()
}
func HodgesLehmann(x, y []float64, confidence float64) (Interval, error) {
	return Interval{}, errUnimplemented
}
func CohenD(x, y []float64) float64                { return math.NaN() }
func CohenDz(x, y []float64) float64               { return math.NaN() }
func Spearman(x, y []float64) float64              { return math.NaN() }
func Holm(p []float64) []float64                   { return nil }
func BenjaminiHochberg(p []float64) []float64      { return nil }
func SampleSize(rel, cv, alpha, power float64) int { return 0 }
