package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// enumerateMedians is the reference: it draws every one of the n^n
// resamples of x (n <= 7) and tallies the median of each.
func enumerateMedians(x []float64) map[float64]float64 {
	n := len(x)
	total := int(math.Pow(float64(n), float64(n)))
	dist := map[float64]float64{}
	idx := make([]int, n)
	buf := make([]float64, n)
	for r := 0; r < total; r++ {
		v := r
		for i := range idx {
			idx[i] = v % n
			v /= n
		}
		for i, j := range idx {
			buf[i] = x[j]
		}
		dist[Median(buf)] += 1 / float64(total)
	}
	return dist
}

func TestMedianDistributionMatchesEnumeration(t *testing.T) {
	for _, x := range [][]float64{
		{5},
		{3, 1},
		{2, 7, 4},
		{1, 2, 3, 4},
		{10, 10, 11, 12}, // ties
		{9, 1, 5, 3, 7},
		{1, 2, 2, 2, 8, 9},
		{4, 8, 15, 16, 23, 42, 7},
	} {
		want := enumerateMedians(x)
		vals, probs := medianDistribution(x)
		sum := 0.0
		for i, v := range vals {
			sum += probs[i]
			if math.Abs(probs[i]-want[v]) > 1e-12 {
				t.Errorf("%v: P(median = %v) = %.15f, enumeration gives %.15f", x, v, probs[i], want[v])
			}
		}
		if len(vals) != len(want) || math.Abs(sum-1) > 1e-12 {
			t.Errorf("%v: %d support points summing to %v, enumeration has %d", x, len(vals), sum, len(want))
		}
	}
}

// TestMedianRatioMatchesMonteCarlo: the exact interval agrees with the
// Monte Carlo bootstrap of the same statistic within its resampling error.
func TestMedianRatioMatchesMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{5, 10, 12, 21} {
		x := make([]float64, n)
		y := make([]float64, n)
		for i := range x {
			x[i] = 100 * math.Exp(0.05*rng.NormFloat64())
			y[i] = 90 * math.Exp(0.05*rng.NormFloat64())
		}
		b := Bootstrap{Resamples: 200_000, Seed: 9}
		exact := b.MedianRatio(x, y)
		mc := b.Ratio(x, y, Median)
		if exact.Estimate != mc.Estimate {
			t.Errorf("n=%d: estimates %v and %v differ", n, exact.Estimate, mc.Estimate)
		}
		// The distribution is discrete with gaps of a few percent at
		// these sizes; type-7 interpolation of the Monte Carlo quantile
		// may land anywhere in a gap, so allow 1%.
		if math.Abs(exact.Lo-mc.Lo) > 0.01 || math.Abs(exact.Hi-mc.Hi) > 0.01 {
			t.Errorf("n=%d: exact [%v, %v], Monte Carlo [%v, %v]", n, exact.Lo, exact.Hi, mc.Lo, mc.Hi)
		}
		if !(exact.Lo <= exact.Estimate && exact.Estimate <= exact.Hi) {
			t.Errorf("n=%d: interval [%v, %v] misses the estimate %v", n, exact.Lo, exact.Hi, exact.Estimate)
		}
	}
}

// TestMedianRatioDegenerate: identical constant samples give a point
// interval; a sample containing zero falls back without NaN.
func TestMedianRatioDegenerate(t *testing.T) {
	b := Bootstrap{Resamples: 1000, Seed: 1}
	iv := b.MedianRatio([]float64{2, 2, 2}, []float64{3, 3, 3, 3})
	if iv.Estimate != 1.5 || iv.Lo != 1.5 || iv.Hi != 1.5 {
		t.Errorf("constant samples: %+v, want 1.5 exactly", iv)
	}
	iv = b.MedianRatio([]float64{0, 1, 2}, []float64{1, 2, 3})
	if math.IsNaN(iv.Estimate) {
		t.Errorf("zero in x: %+v", iv)
	}
	if iv := b.MedianRatio(nil, []float64{1}); !math.IsNaN(iv.Estimate) {
		t.Errorf("empty x: %+v, want NaN", iv)
	}
}

func BenchmarkMedianRatio10(b *testing.B) {
	x := []float64{100, 103, 98, 120, 101, 99, 102, 97, 110, 100.5}
	y := []float64{90, 93, 88, 108, 91, 89, 92, 87, 99, 90.5}
	bs := Bootstrap{Seed: 1}
	for b.Loop() {
		bs.MedianRatio(x, y)
	}
}
