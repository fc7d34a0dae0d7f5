// Package stats holds the statistics rigor reports: descriptive summaries,
// confidence intervals (order statistics and a seeded percentile bootstrap),
// outlier classification, two-sample tests, effect sizes, multiple-comparison
// corrections and sample-size planning.
//
// It is pure computation: no I/O, no global state, no logging. Functions take
// plain float64 slices and never modify them. Where a routine mirrors another
// tool (benchstat's median CI and U-test, Criterion.rs's bootstrap and
// mixed-bootstrap t-test, R's wilcox.test) the doc comment says so and the
// tests check it against that tool's numbers.
//
// Package map:
//
//   - describe.go: mean, median, quantiles, spread, extremes, geometric
//     mean, slope; tukey.go: outliers by Tukey's fences;
//   - interval.go: Interval; medianci.go: the median's order-statistic
//     interval; bootstrap.go: the seeded percentile bootstrap, with rng.go
//     its generator; medianratio.go: the ratio of medians;
//   - mannwhitney.go: the U test; wilcoxon.go: the signed-rank test;
//     pairedshift.go: the signed-rank interval of a paired shift, with
//     walsh.go selecting its Walsh averages without listing them; welch.go:
//     Welch's t-test and the mixed-bootstrap t-test;
//   - effect.go: Hodges-Lehmann, Cohen's d and d_z, Spearman's rho;
//     correct.go: Holm and Benjamini-Hochberg; samplesize.go: samples
//     needed to detect a change at a given power.
package stats
