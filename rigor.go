// Package rigor is what a benchmark author writes rigor's in-process
// benchmarks with, in the manner of Criterion.rs and zenbench: a Group of
// variants of the same work, each a function that runs one timing loop.
// Package harness measures the group, compares every variant with the
// baseline variant and says, with a confidence interval and a verdict,
// which is faster and by how much:
//
//	func BenchmarkFib(b *testing.B) {
//		g := rigor.NewGroup("fib")
//		g.Bench("fib20", func(b *rigor.B) { rigor.Iter(b, func() int { return fib(20) }) })
//		g.Bench("fib21", func(b *rigor.B) { rigor.Iter(b, func() int { return fib(21) }) })
//		harness.Run(b, g)
//	}
//
// harness.Run reports through go test, harness.Main from a program's
// main, harness.Measure returns the raw results; see package harness for
// how the rounds are planned and stopped, the -rigor.* flags, and the
// results.
//
// What this package holds:
//
//   - Group: the variants (Bench, BenchParallel, BenchScaling), their
//     parameters ("std/size=1024"), throughput (Bytes, Elements,
//     Throughput), the baseline and subgroups;
//   - B and the timing loops a variant calls, exactly one per sample: Iter
//     and B.Iter, IterWithSetup with its BatchSize, B.IterCustom; Sink and
//     Opaque keep the compiler from removing or specialising the work;
//   - Config: the budget, the rounds, precision, noise band, confidence,
//     sampling mode, passes and processes;
//   - Sampler, its Sample and the Clock it reads: the low-level part that
//     times one sample for package harness; a benchmark author does not
//     need them.
//
// In brief: every round runs each variant once, in a shuffled order, with
// one shared iteration count, so round i of one variant and round i of
// another ran under the same conditions and form a pair; the harness's
// own loop overhead is measured and subtracted (see B); allocations are
// counted exactly in separate rounds.
//
// This package depends on the standard library, model and stats only, so
// that a package defining groups links nothing else. Files: group.go
// (Group), b.go (B and the timing loops), batch.go (BatchSize), config.go
// (Config), and the sampling core: sampler.go (Sampler, one sample of a
// variant), parallel.go (the barrier of a parallel sample), loopoverhead.go
// (each loop shape's overhead), clock.go (the timer), counters.go and
// cputime_*.go (runtime/metrics and CPU time readings).
package rigor
