package main

import (
	"math"

	"github.com/rigorbench/rigor/stats"
)

// confidence is the level of every interval: rigor is run with
// --confidence at this level, and hyperfine's medians get theirs here.
const confidence = 0.95

// medianCI is the distribution-free confidence interval of the median of
// x, from two order statistics, by the function rigor's own analysis uses
// (stats.MedianCI, benchstat's method). Lo and Hi are NaN when x is too
// small for an interval at this level (fewer than 6 values at 95%).
func medianCI(x []float64) stats.Interval {
	iv, err := stats.MedianCI(x, confidence)
	if err != nil {
		iv.Lo, iv.Hi = math.NaN(), math.NaN()
	}
	return iv
}

// within reports whether x lies in [lo, hi]; false when the interval is
// missing (NaN bounds) or x is NaN.
func within(x, lo, hi float64) bool { return lo <= x && x <= hi }

// hfRatio is new's mean over old's with the standard deviation hyperfine
// gives such a ratio (src/benchmark/relative_speed.rs: propagation of
// uncertainty with the two commands taken as independent):
// ratio * sqrt((sd_new/mean_new)^2 + (sd_old/mean_old)^2). hyperfine prints
// the ratio of the slower to the faster; this is new/old either way, with
// the same relative σ. σ is NaN when a standard deviation is (one run).
func hfRatio(old, new hfResult) (ratio, sigma float64) {
	ratio = new.Mean / old.Mean
	sigma = ratio * math.Hypot(new.Stddev/new.Mean, old.Stddev/old.Mean)
	return ratio, sigma
}

// hfFastest is the index of the command hyperfine calls the fastest (its
// summary's "X ran ... times faster than"): the lowest mean, the first of
// equal means (Rust's Iterator::min_by, as relative_speed.rs uses). -1
// when there are no results.
func hfFastest(rs []hfResult) int {
	best := -1
	for i, r := range rs {
		if best < 0 || r.Mean < rs[best].Mean {
			best = i
		}
	}
	return best
}

// hfClearOfSigma reports whether hyperfine's summary of two commands
// reads as a difference beyond its own ±: the slower mean over the faster,
// minus the σ hyperfine prints with it, exceeds 1 ("1.05 ± 0.02 times
// faster"). False when σ is unknown.
func hfClearOfSigma(a, b hfResult) bool {
	fast, slow := a, b
	if b.Mean < a.Mean {
		fast, slow = b, a
	}
	r, s := hfRatio(fast, slow)
	return r-s > 1
}

// matchRuns is hyperfine's --runs for a run that should take about as long
// as rigor's did: rigor's wall time over one round of the commands (the sum
// of their medians), less hyperfine's warm-up runs; at least floor (rigor's
// own number of runs, so hyperfine never has fewer) and 2, at most ceiling.
func matchRuns(rigorWall, roundSec float64, warmup, floor, ceiling int) int {
	r := float64(max(floor, 2))
	if x := rigorWall/roundSec - float64(warmup); roundSec > 0 && x > r {
		r = math.Round(x)
	}
	return int(min(r, float64(ceiling)))
}
