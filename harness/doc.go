// Package harness measures the benchmark groups of package rigor: it plans
// and runs their interleaved rounds, stops them when the comparisons are
// resolved, analyses and reports the results, and handles the -rigor.*
// flags, results streaming, baselines and the regression gate.
//
//	func BenchmarkFib(b *testing.B) {
//		g := rigor.NewGroup("fib")
//		g.Bench("fib20", func(b *rigor.B) { rigor.Iter(b, func() int { return fib(20) }) })
//		g.Bench("fib21", func(b *rigor.B) { rigor.Iter(b, func() int { return fib(21) }) })
//		harness.Run(b, g)
//	}
//
// Run reports through testing (one sub-benchmark per variant, with ns/op,
// B/op, allocs/op and throughput) and prints rigor's report; Main does the
// same from a program's main; Measure measures without flags or output,
// for programs of their own. Run and Main read the -rigor.* flags, or the
// RIGOR_* environment variables (a flag given on the command line wins):
//
//	-rigor.save-baseline NAME  save results as a baseline (.rigor/baselines)
//	-rigor.baseline NAME       compare with a saved baseline
//	-rigor.max-regression P    fail when something regressed by more than P%
//	-rigor.update-on-pass      with -rigor.baseline, save the run as it when the gate passes
//	-rigor.format F            report format (text, json, csv, md)
//	-rigor.out DIR             write raw results as they are measured (below)
//	-rigor.budget D            measuring time per benchmark
//	-rigor.processes N, -rigor.passes N, -rigor.policy best|mean|median
//
// The flags change how a group is measured, never the group: its Config is
// left as the caller set it. go test's -bench pattern selects variants as
// it selects sub-benchmarks ("Fib/fib20$" measures fib20 alone, and the
// comparison is among the variants selected). A text report ends with a
// summary line counting the comparisons by verdict and a PASS or FAIL
// line for the gate, as zenbench's; go test -v adds every estimate (mean,
// median, standard deviation, MAD and, in linear sampling, the slope, each
// with its interval and standard error, as Criterion.rs's estimates.json;
// an interval whose coverage fell short of 94% in simulation at that
// sample size is marked approximate, see stats/testdata/coverage.txt) and
// the routine notes.
//
// # How a group is measured
//
// Each set of parameters of a group is one benchmark, measured on its own.
// A warm-up estimates each variant's cost; calibration then sizes samples
// to fill the budget, never shorter than analysis.ResolutionRatio (1000)
// times the timer resolution measured at the start of each pass. Each
// round runs every variant once, in a shuffled order, with one shared,
// jittered iteration count, so round i of one variant and round i of
// another form a pair; the comparison with the baseline variant is the
// Hodges-Lehmann center of the per-round log ratios, with the signed-rank
// interval (see package analysis).
//
// Rounds stop early only when, for every comparison, that interval lies
// inside the noise band or clears it on one side, and every variant
// reached the target precision; the looks happen each time the round
// count grows by 10%, with 99.9% intervals (Haybittle-Peto), so that
// repeated looks hardly inflate false verdicts. Otherwise they stop when
// the budget is spent.
//
// Results are model.Run values, like every other rigor source: the same
// JSON, reports, baselines and gate. Each benchmark has, per variant:
//
//   - sec/op for every round, less the harness's own loop overhead (see
//     rigor.B), and cpu-sec/op, the process's CPU time, where the system
//     reports it;
//   - throughput (B/s, elems/s or a custom unit/s) when declared, per call;
//     a parallel variant's counts every goroutine;
//   - B/op and allocs/op from runtime/metrics, measured in separate
//     allocation rounds before the timed ones: each window is bracketed by
//     a garbage collection, which flushes the per-P caches that otherwise
//     delay the counts by up to a span's worth of objects, and keeps the
//     smaller of two windows, since other goroutines can only add to the
//     process-wide counts. Values are whole numbers per op, truncated, as
//     testing.B reports them;
//   - GCs/op, garbage-collection cycles per op, when some variant allocates.
//   - every metric the variant reported with B.ReportMetric, in its unit,
//     for every timed round, as reported (a per-operation value is the
//     variant's division), compared like the others: its direction follows
//     its unit (".../s" higher is better, anything else lower).
//
// Each benchmark's Config says how it was measured (sampling, iterations,
// rounds, timer-resolution, stopped) and, as lists of variant=value pairs,
// each parallel variant's goroutines, the loop overhead subtracted per
// iteration and the scale of variants too fast for the shared iteration
// count. Every key can be written in Go benchmark format. The harness adds
// footnotes of its own to each benchmark's notes: results within a few
// times the subtracted loop overhead, samples at or below it, short timed
// batches, GC-heavy variants, bimodal times, real but tiny effects, a
// budget spent before the comparisons were resolved.
//
// With -rigor.out, nothing already measured is lost to a crash or an
// interrupt: each variant's samples are appended to DIR/<variant>.txt, in
// Go benchmark format (benchstat reads it), as each round ends, and
// DIR/run.json, rigor JSON of the group so far, is rewritten after every
// round; DIR/<group>.json holds each group's final results. Main stops at
// an interrupt (Ctrl-C), prints the report of the rounds completed and
// exits 2; a second interrupt ends the program at once.
//
// Under go test, -count N runs N passes and reports each on its own line;
// -cpu is not applied (use BenchScaling).
//
// # Package map
//
// One sample goes from rigor.Sampler (package rigor times it) through
// these files:
//
//   - run.go, main.go: Run (go test) and Main (a program), the entry points;
//   - flags.go: the -rigor.* flags and RIGOR_* variables;
//   - measure.go: Measure and the passes; processes.go: the fresh
//     processes of a multi-process run; combine.go: combining passes and
//     processes by policy;
//   - pass.go: one pass of a group, its sets and the runner; sample.go:
//     one sample through rigor.Sampler, less the loop overhead;
//   - plan.go: warm-up and calibration; set.go: one set's allocation
//     rounds and timed rounds; rounds.go: the round loop's sampler and
//     stopping rule for package experiment;
//   - benchmark.go: a measured set as a model.Benchmark, with configkeys.go's
//     per-variant keys; notes.go: the harness's footnotes;
//   - stream.go: the -rigor.out directory, written as results arrive;
//   - finish.go: analysis, report, the gate; baseline.go: saved baselines.
package harness
