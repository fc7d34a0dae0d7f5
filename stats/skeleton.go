package stats

import (
	"errors"
	"math"
)

// errUnimplemented marks routines whose implementation is still being written.
var errUnimplemented = errors.New("stats: not implemented yet")

// Interval is a point estimate with a confidence interval.
type Interval struct{ Estimate, Lo, Hi, Confidence float64 }



type Bootstrap struct {
	Resamples  int
	Confidence float64
	Seed       uint64
	Workers    int
}

func (b Bootstrap) Statistic(x []float64, stat func([]float64) float64) Interval { return Interval{} }
func (b Bootstrap) Mean(x []float64) Interval                                    { return Interval{} }
func (b Bootstrap) Median(x []float64) Interval                                  { return Interval{} }
func (b Bootstrap) StdDev(x []float64) Interval                                  { return Interval{} }
func (b Bootstrap) MAD(x []float64) Interval                                     { return Interval{} }
func (b Bootstrap) Slope(iters, totals []float64) Interval                       { return Interval{} }
func (b Bootstrap) Ratio(x, y []float64, stat func([]float64) float64) Interval  { return Interval{} }
func (b Bootstrap) PairedGeoMeanRatio(x, y []float64) Interval                   { return Interval{} }

type Outliers struct {
	LowSevere, LowMild, HighMild, HighSevere                     int
	LowSevereFence, LowMildFence, HighMildFence, HighSevereFence float64
}

func Tukey(x []float64) Outliers { return Outliers{} }
func (o Outliers) Total() int    { return o.LowSevere + o.LowMild + o.HighMild + o.HighSevere }

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
