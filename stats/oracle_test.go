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

var _ = rand.New
