// Package analysis turns a model.Run's raw samples into summaries,
// comparisons, verdicts and footnotes, and decides the CI gate.
//
// Paired runs (interleaved rounds) compare per-round ratios new/old: the
// change is their Hodges-Lehmann geometric center (the median of the Walsh
// averages of the log ratios) with the distribution-free confidence
// interval that inverts Wilcoxon's signed-rank test, whose p-value is
// reported beside it; the effect size is Cohen's d_z of the log values.
// Unpaired runs (files, baselines) compare the ratio of medians with a
// bootstrap confidence interval and the Mann-Whitney U test, whose p-values
// are benchstat's, or Welch's t-test.
//
// A change's verdict is improved or regressed only when its confidence
// interval clears the noise band, its corrected p-value is below alpha and
// the difference is above the timer-resolution floor; unchanged when the
// interval lies inside the noise band; inconclusive otherwise, with the
// reason in plain words.
//
// Package analysis owns every statistical judgement and threshold; its
// notes' thresholds are in notes.go, and ResolutionRatio, the timer floor,
// is shared with package harness.
//
// Package map, in the order Analyze goes through the files:
//
//   - analysis.go: the Report and its parts (Benchmark, Metric, Summary,
//     Change, Verdict) and Options;
//   - analyze.go: Analyze, each metric's summary and its comparisons;
//     missing.go: what a side lacks;
//   - change.go: the change between two sides (exact, from zero,
//     unpaired, paired); clock.go: which clock a time's verdict is taken
//     from; derived.go: metrics derived from another share its test;
//   - verdict.go: the multiple-comparison correction and each change's
//     verdict; validate.go: distrusting numbers that cannot be
//     measurements; geomean.go: the geometric means; gate.go: the CI gate;
//   - notes.go: the footnotes and their thresholds; digest.go: the notes
//     grouped for reading; format.go: numbers, p-values and percentages in
//     words;
//   - plotdata.go: what the charts draw (densities, pairs, totals,
//     observations).
package analysis
