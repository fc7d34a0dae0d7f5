package stats

import (
	"math"
	"testing"
)

// fibIters and fibTimes are Criterion.rs's raw linear samples of fib(20)
// (sample.json in seeds/000, section 2.2): iters d, 2d, ..., 10d with
// d = 324, and the total nanoseconds each sample took.
var (
	fibIters = []float64{324, 648, 972, 1296, 1620, 1944, 2268, 2592, 2916, 3240}
	fibTimes = []float64{3676333, 7248291, 10498750, 14043791, 17684417, 21164917, 24564541, 28226291, 31453875, 35292625}
)

// fibPerIter is Criterion.rs's avg_times: each sample's time per iteration.
// The seed lists them rounded: 11347, 11186, 10801, 10836, 10916, 10887,
// 10831, 10890, 10787, 10893.
func fibPerIter() []float64 {
	x := make([]float64, len(fibIters))
	for i := range x {
		x[i] = fibTimes[i] / fibIters[i]
	}
	return x
}

// TestFibSlope checks the slope Criterion.rs reports for these samples:
// 10862.83 ns (estimates.json slope.point_estimate, and the middle of the
// CLI line "time: [10.824 µs 10.863 µs 10.897 µs]").
func TestFibSlope(t *testing.T) {
	if got := Slope(fibIters, fibTimes); math.Abs(got-10862.83) > 0.01 {
		t.Errorf("Slope = %.4f, Criterion.rs 10862.83", got)
	}
}

// TestFibPointEstimates checks the per-iteration summaries of the fib(20)
// samples against values derived by hand (exact rational arithmetic on
// times[i]/iters[i], then rounded):
//
//	sorted: 10786.651, 10801.183, 10830.926, 10836.258, 10887.303,
//	        10889.773, 10892.785, 10916.307, 11185.634, 11346.707
//	mean   = 109373.528/10                       = 10937.3528
//	median = (10887.303 + 10889.773)/2           = 10888.5379
//	MAD    = 1.4826 * median|x - 10888.538|      = 1.4826 * 54.9455 = 81.4621
//	sd     = sqrt(sum (x-mean)^2 / 9)            = 182.3343
//	CV     = 182.3343/10937.3528                 = 0.0166708
//	min, max = 10786.6512, 11346.7068
//
// Note: the seed's estimates.json lists mean 10870.03, median 10855.82,
// MAD 45.71 and std dev 139.21. Those cannot come from this sample.json:
// the mean of the ten avg_times the seed itself lists is 10937.4, and its
// mean interval [10823.12, 10918.47] does not contain it. Its tukey.json
// fences (high mild 10877.64) would also flag six outliers, not the
// "2 outliers ... 2 high severe" of the CLI output. They come from a
// different run; only the slope (and its interval) is from this one.
func TestFibPointEstimates(t *testing.T) {
	x := fibPerIter()
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"mean", Mean(x), 10937.3528, 5e-5},
		{"median", Median(x), 10888.5379, 5e-5},
		{"MAD", MAD(x), 81.4621, 5e-5},
		{"std dev", StdDev(x), 182.3343, 5e-5},
		{"CV", CV(x), 0.0166708, 5e-8},
		{"min", Min(x), 10786.6512, 5e-5},
		{"max", Max(x), 11346.7068, 5e-5},
	} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s = %.7f, want %v", c.name, c.got, c.want)
		}
	}
}

// TestFibTukey checks Tukey's fences on the fib(20) per-iteration times,
// derived by hand with type-7 quartiles (h = 9p):
//
//	Q1 = x(3) + 0.25*(x(4)-x(3)) = 10830.9264 + 0.25*5.3321 = 10832.2594
//	Q3 = x(7) + 0.75*(x(8)-x(7)) = 10892.7855 + 0.75*23.5213 = 10910.4265
//	IQR = 78.1671; fences Q1-3IQR = 10597.7582, Q1-1.5IQR = 10715.0088,
//	Q3+1.5IQR = 11027.6771, Q3+3IQR = 11144.9277
//
// and against Criterion.rs's report for this run, "Found 2 outliers among 10
// measurements (20.00%): 2 (20.00%) high severe" (11346.7 and 11185.6).
func TestFibTukey(t *testing.T) {
	o := Tukey(fibPerIter())
	fences := []float64{o.LowSevereFence, o.LowMildFence, o.HighMildFence, o.HighSevereFence}
	want := []float64{10597.7582, 10715.0088, 11027.6771, 11144.9277}
	for i := range want {
		if math.Abs(fences[i]-want[i]) > 5e-5 {
			t.Errorf("fence %d = %.4f, want %.4f", i, fences[i], want[i])
		}
	}
	if o.HighSevere != 2 || o.Total() != 2 {
		t.Errorf("outliers %+v, want 2 high severe and no others", o)
	}
}

// TestFibBootstrapSlope compares the slope interval with Criterion.rs's
// for the same data: [10823.71, 10896.63] at 95% (estimates.json, and the
// CLI line "time: [10.824 µs 10.863 µs 10.897 µs]").
//
// They cannot agree exactly: Criterion.rs drew its own random resamples,
// and only 1000 of them (nresamples(1000) in the seed's config). A bound is
// the 2.5% or 97.5% quantile of the bootstrap distribution, and the Monte
// Carlo standard error of a p-quantile from B draws is sqrt(p(1-p)/B)/f(q),
// f the density there. Taking the distribution as roughly normal with
// Criterion's standard error 18.59, f(q) = φ(1.96)/18.59 = 0.0584/18.59, so
// with B = 1000 a bound's standard error is 0.00494*18.59/0.0584 = 1.57 ns
// (ours, with B = 100,000, is ten times smaller). The tolerance is five of
// those: 8 ns. TestBootstrapMatchesExactDistribution checks our intervals
// far more tightly against the exact bootstrap distribution.
func TestFibBootstrapSlope(t *testing.T) {
	got := Bootstrap{Seed: 1}.Slope(fibIters, fibTimes)
	if math.Abs(got.Lo-10823.71) > 8 || math.Abs(got.Hi-10896.63) > 8 {
		t.Errorf("slope interval [%.2f, %.2f], Criterion.rs [10823.71, 10896.63] (tolerance 8 ns)", got.Lo, got.Hi)
	}
	if math.Abs(got.Estimate-10862.83) > 0.01 || got.Confidence != 0.95 {
		t.Errorf("estimate %.4f confidence %v, want 10862.83 and 0.95", got.Estimate, got.Confidence)
	}
}
