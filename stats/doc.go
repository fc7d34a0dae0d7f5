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
package stats
