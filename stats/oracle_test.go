package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/perf/benchmath"
)

// benchstatSummary is benchstat's median and CI for x (the oracle).
func benchstatSummary(x []float64, confidence float64) benchmath.Summary {
	s := benchmath.NewSample(slices.Clone(x), &benchmath.DefaultThresholds)
	return benchmath.AssumeNothing.Summary(s, confidence)
}

// TestMedianCIOrdersMatchBenchstat checks, for every n up to 400 and several
// levels, that MedianCI picks the same order statistics as benchstat. The
// data are 1..n so the bounds name the orders.
func TestMedianCIOrdersMatchBenchstat(t *testing.T) {
	for _, conf := range []float64{0.5, 0.8, 0.9, 0.95, 0.99, 0.999} {
		for n := 0; n <= 400; n++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = float64(n - i) // reversed: MedianCI must sort a copy
			}
			want := benchstatSummary(x, conf)
			got, err := MedianCI(x, conf)
			if got.Lo != want.Lo || got.Hi != want.Hi {
				t.Errorf("n=%d conf=%v: [%v, %v], benchstat [%v, %v]", n, conf, got.Lo, got.Hi, want.Lo, want.Hi)
			}
			if n > 0 && math.Abs(got.Estimate-want.Center) > 1e-9*math.Abs(want.Center) {
				t.Errorf("n=%d: median %v, benchstat %v", n, got.Estimate, want.Center)
			}
			if math.Abs(got.Confidence-want.Confidence) > 1e-9 {
				t.Errorf("n=%d conf=%v: achieved %v, benchstat %v", n, conf, got.Confidence, want.Confidence)
			}
			if (err != nil) != (len(want.Warnings) > 0) {
				t.Errorf("n=%d conf=%v: err %v, benchstat warnings %v", n, conf, err, want.Warnings)
			} else if err != nil && err.Error() != want.Warnings[0].Error() {
				t.Errorf("n=%d conf=%v: err %q, benchstat %q", n, conf, err, want.Warnings[0])
			}
		}
	}
}

// benchstatP is benchstat's U-test p-value for x and y (the oracle).
func benchstatP(x, y []float64) float64 {
	sx := benchmath.NewSample(slices.Clone(x), &benchmath.DefaultThresholds)
	sy := benchmath.NewSample(slices.Clone(y), &benchmath.DefaultThresholds)
	return benchmath.AssumeNothing.Compare(sx, sy).P
}

// randomSample draws n values; with ties it rounds them to a few levels so
// many values coincide.
func randomSample(r *rand.Rand, n int, shift float64, ties bool) []float64 {
	x := make([]float64, n)
	for i := range x {
		v := r.NormFloat64() + shift
		if ties {
			v = math.Round(v * 2)
		}
		x[i] = v
	}
	return x
}

func closeP(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12+1e-9*want
}

// TestMannWhitneyUMatchesBenchstat compares p with benchstat on seeded
// random samples: small n (3..20) with and without ties, 12 vs 12, unequal
// sizes, and sizes past the exact limits (normal approximation).
func TestMannWhitneyUMatchesBenchstat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type pair struct{ n1, n2 int }
	var sizes []pair
	for n := 3; n <= 20; n++ {
		sizes = append(sizes, pair{n, n}, pair{n, 3 + r.IntN(18)})
	}
	sizes = append(sizes, pair{12, 12}, pair{1, 1}, pair{1, 5}, pair{2, 9}, pair{25, 25}, pair{26, 24},
		pair{50, 50}, pair{51, 40}, pair{80, 120})
	if !testing.Short() {
		sizes = append(sizes, pair{40, 50})
	}
	for _, sz := range sizes {
		for _, ties := range []bool{false, true} {
			for _, shift := range []float64{0, 0.7, 3} {
				for rep := 0; rep < 4; rep++ {
					x := randomSample(r, sz.n1, 0, ties)
					y := randomSample(r, sz.n2, shift, ties)
					want := benchstatP(x, y)
					_, got, _ := MannWhitneyU(x, y)
					if !closeP(got, want) {
						t.Errorf("n=%d+%d ties=%v shift=%v: p=%v, benchstat %v\nx=%v\ny=%v", sz.n1, sz.n2, ties, shift, got, want, x, y)
					}
				}
			}
		}
	}
}

// TestMedianCIMatchesBenchstatRandom compares MedianCI with benchstat on
// seeded random samples, with and without ties, n = 1..40 and a few larger.
func TestMedianCIMatchesBenchstatRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sizes := []int{1, 2, 100, 257}
	for n := 3; n <= 40; n++ {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		for _, ties := range []bool{false, true} {
			for rep := 0; rep < 5; rep++ {
				x := randomSample(r, n, 10, ties)
				for _, conf := range []float64{0.9, 0.95, 0.99} {
					want := benchstatSummary(x, conf)
					got, err := MedianCI(x, conf)
					if got.Lo != want.Lo || got.Hi != want.Hi || !near(got.Estimate, want.Center, 1e-12*math.Abs(want.Center)) {
						t.Errorf("n=%d conf=%v: %+v, benchstat %+v\nx=%v", n, conf, got, want, x)
					}
					if (err != nil) != (len(want.Warnings) > 0) {
						t.Errorf("n=%d conf=%v: err %v, benchstat warnings %v", n, conf, err, want.Warnings)
					}
				}
			}
		}
	}
}
