package stats_test

import (
	"fmt"

	"github.com/rigorbench/rigor/stats"
)

// Criterion.rs-style linear sampling: sample i ran i*324 iterations of
// fib(20); the slope of total time against iterations is the time per
// iteration, free of any fixed per-sample overhead.
func ExampleSlope() {
	iters := []float64{324, 648, 972, 1296, 1620, 1944, 2268, 2592, 2916, 3240}
	totals := []float64{3676333, 7248291, 10498750, 14043791, 17684417, 21164917, 24564541, 28226291, 31453875, 35292625}
	fmt.Printf("%.2f ns/iter\n", stats.Slope(iters, totals))
	// Output: 10862.83 ns/iter
}

// benchstat's summary of a benchmark: the median with a 95% interval from
// order statistics, and the ± it prints.
func ExampleMedianCI() {
	nsPerOp := []float64{7856, 9175, 8065, 7246, 7704, 8505, 7800, 8150, 8646, 7598, 9156, 8419}
	iv, err := stats.MedianCI(nsPerOp, 0.95)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.1f ns [%.0f, %.0f] ±%.0f%% at %.3f\n", iv.Estimate, iv.Lo, iv.Hi, 100*iv.RelativeRange(), iv.Confidence)

	_, err = stats.MedianCI(nsPerOp[:5], 0.95)
	fmt.Println(err)
	// Output:
	// 8107.5 ns [7704, 8646] ±7% at 0.961
	// need >= 6 samples for confidence interval at level 0.95
}

// A seeded bootstrap interval for the mean; the same seed gives the same
// interval on any number of cores.
func ExampleBootstrap_Mean() {
	nsPerOp := []float64{11347, 11186, 10801, 10836, 10916, 10887, 10831, 10890, 10787, 10893}
	b := stats.Bootstrap{Resamples: 100_000, Confidence: 0.95, Seed: 1}
	iv := b.Mean(nsPerOp)
	fmt.Printf("mean %.1f, 95%% CI [%.0f, %.0f]\n", iv.Estimate, iv.Lo, iv.Hi)
	// Output: mean 10937.4, 95% CI [10845, 11055]
}

// Comparing two sets of benchmark results as benchstat does.
func ExampleMannWhitneyU() {
	old := []float64{7856, 9175, 8065, 7246, 7704, 8505, 7800, 8150, 8646, 7598, 9156, 8419}
	new := []float64{799.2, 798.8, 760.9, 836.0, 801.5, 757.1, 822.0, 743.4, 904.0, 781.7, 982.6, 939.9}
	u, p, err := stats.MannWhitneyU(old, new)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("U=%v p=%.3f (%.2g)\n", u, p, p)
	// Output: U=144 p=0.000 (7.4e-07)
}

// Paired rounds of an A/B run: the Wilcoxon signed-rank test on the
// per-round differences (here the example from R's ?wilcox.test).
func ExampleWilcoxonSignedRank() {
	before := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	after := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	w, p, _ := stats.WilcoxonSignedRank(after, before) // differences before - after
	fmt.Printf("V=%v p=%.5f\n", w, p)
	// Output: V=40 p=0.03906
}

// Outliers are counted by Tukey's fences, never dropped.
func ExampleTukey() {
	o := stats.Tukey([]float64{11347, 11186, 10801, 10836, 10916, 10887, 10831, 10890, 10787, 10893})
	fmt.Printf("%d outliers: %d high severe\n", o.Total(), o.HighSevere)
	// Output: 2 outliers: 2 high severe
}

// Adjusting the p-values of several benchmarks compared at once.
func ExampleHolm() {
	fmt.Println(stats.Holm([]float64{0.01, 0.04, 0.03, 0.005}))
	// Output: [0.03 0.06 0.06 0.02]
}

// How many samples per side to resolve a 1% change when the CV is 2%?
func ExampleSampleSize() {
	fmt.Println(stats.SampleSize(0.01, 0.02, 0.05, 0.8))
	// Output: 63
}

// A change measured across four pairs of links (each side's binary linked
// with four random layouts, the rounds cycling through them): per-round
// log ratios grouped by link. Each link's center carries its layout's
// effect once, so the t interval across the four covers it. By hand: the
// links' centers are 0.030, 0.0135, 0.022 and 0.0395, their mean 0.02625,
// standard error 0.005555, and t(0.975; 3) = 3.1824: [0.0086, 0.0439].
func ExampleShiftByCluster() {
	logRatios := []float64{0.031, 0.012, 0.024, 0.041, 0.029, 0.015, 0.020, 0.038}
	link := []int{1, 2, 3, 4, 1, 2, 3, 4}
	cs, err := stats.ShiftByCluster(logRatios, link, 0.95)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f [%.4f, %.4f] over %d links, p=%.3f\n", cs.Estimate, cs.Lo, cs.Hi, cs.Clusters, cs.P)
	// Output: 0.0263 [0.0086, 0.0439] over 4 links, p=0.018
}
