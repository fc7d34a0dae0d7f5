package analysis

import (
	"errors"
	"math"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

func exactChange(x, y []float64) *Change {
	c := &Change{Test: "exact", N: min(len(x), len(y)), P: math.NaN(), Effect: math.NaN()}
	c.Estimate = ratio(stats.Median(y), stats.Median(x)) - 1
	c.Lo, c.Hi = c.Estimate, c.Estimate
	c.Delta = stats.Median(y) - stats.Median(x)
	// The p-value is benchstat's, for compatibility; the verdict does
	// not use it because exact values need no test.
	if _, p, err := stats.MannWhitneyU(x, y); err == nil {
		c.P = p
	}
	return c
}

// fromZeroChange compares a varying metric whose baseline median is zero
// (most samples allocate nothing, say): a relative change from zero is
// undefined, so the change is the difference of the medians, and the
// verdict rests on the Mann-Whitney U test alone (also for paired runs:
// zeros have no logarithm, as in pairedChange).
func fromZeroChange(x, y []float64) *Change {
	c := &Change{Test: TestUTest, N: min(len(x), len(y)), P: math.NaN(), Effect: math.NaN(),
		Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	c.Delta = stats.Median(y) - stats.Median(x)
	if _, p, err := stats.MannWhitneyU(x, y); err == nil {
		c.P = p
	}
	return c
}

func unpairedChange(x, y []float64, opts Options, seed uint64) *Change {
	c := &Change{Test: opts.Test, N: min(len(x), len(y)), P: math.NaN(), Delta: math.NaN()}
	b := stats.Bootstrap{Resamples: opts.Resamples, Confidence: opts.Confidence, Seed: seed}
	in := b.MedianRatio(x, y)
	c.Estimate, c.Lo, c.Hi = in.Estimate-1, in.Lo-1, in.Hi-1
	switch opts.Test {
	case TestWelch:
		if _, _, p, err := stats.WelchT(x, y); err == nil {
			c.P = p
		}
	case TestMixedBootstrap:
		_, c.P = stats.MixedBootstrapT(x, y, opts.Resamples, seed^0x6d697865)
	default:
		if _, p, err := stats.MannWhitneyU(x, y); err == nil {
			c.P = p
		}
	}
	c.Effect = stats.CohenD(x, y)
	return c
}

// pairedChange pairs samples by round: round i of the baseline and round i
// of the other side ran under the same conditions. The change is the
// Hodges-Lehmann estimate of the per-round log ratio log(new/old), a
// geometric-mean ratio that one preempted round cannot drag, with the
// distribution-free interval that inverts the Wilcoxon signed-rank test
// whose p-value is reported beside it, so interval and test agree.
func pairedChange(xs, ys []model.Sample, opts Options) *Change {
	byRound := make(map[int]float64, len(xs))
	for _, s := range xs {
		byRound[s.Round] = s.Value
	}
	var x, y []float64
	for _, s := range ys {
		if v, ok := byRound[s.Round]; ok {
			x = append(x, v)
			y = append(y, s.Value)
		}
	}
	c := &Change{Paired: true, Test: "wilcoxon", N: len(x), P: math.NaN(), Effect: math.NaN(),
		Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Delta: math.NaN()}
	if len(x) < 2 {
		return c
	}
	if !positive(x) || !positive(y) {
		// A zero or negative value has no logarithm: compare the medians
		// as if unpaired, and say so in the test name.
		in := stats.Bootstrap{Confidence: opts.Confidence}.MedianRatio(x, y)
		c.Estimate, c.Lo, c.Hi = in.Estimate-1, in.Lo-1, in.Hi-1
		c.Test = "utest"
		if _, p, err := stats.MannWhitneyU(x, y); err == nil {
			c.P = p
		}
		return c
	}
	lx, ly, d := make([]float64, len(x)), make([]float64, len(y)), make([]float64, len(x))
	for i := range x {
		lx[i], ly[i] = math.Log(x[i]), math.Log(y[i])
		d[i] = ly[i] - lx[i]
	}
	in, _ := stats.PairedShift(d, opts.Confidence)
	c.Estimate, c.Lo, c.Hi = math.Expm1(in.Estimate), math.Expm1(in.Lo), math.Expm1(in.Hi)
	if _, p, err := stats.WilcoxonSignedRank(lx, ly); err == nil {
		c.P = p
	} else if errors.Is(err, stats.ErrTooFew) && len(d) > 0 {
		// Every round identical on both sides: no evidence of change.
		c.P = 1
	}
	c.Effect = stats.CohenDz(lx, ly)
	return c
}

func positive(v []float64) bool {
	for _, x := range v {
		if !(x > 0) {
			return false
		}
	}
	return true
}

func ratio(num, den float64) float64 {
	if den == 0 {
		if num == 0 {
			return 1
		}
		return math.NaN()
	}
	return num / den
}
