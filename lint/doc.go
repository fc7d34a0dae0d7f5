// Package lint holds rigor's benchmark checks: go/analysis analyzers that
// find benchmarks whose numbers are wrong before they are run, the way go
// vet finds bugs. They run three ways: `rigor lint [packages]`, `go vet
// -vettool=$(which rigor-lint)` (cmd/rigor-lint), and from any driver that
// takes analyzers (Analyzers for drivers that analyze dependencies,
// RootAnalyzers for one that loads only the packages it reports on, as
// Load does: load.go lists the packages, keeps those that can hold a
// benchmark and type-checks what the checks read, strip.go decides what
// that is).
//
// Each check is one analyzer in one file; its doc says what goes wrong,
// in numbers where there are numbers, and which findings it leaves out:
//
//   - elided.go, Elided ("elided"): a pure result discarded in a b.N loop,
//     or a pure call with constant arguments in any timed loop; it also
//     states exactly what b.Loop keeps alive;
//   - loopmix.go, LoopMix ("loopmix"): b.N read before or inside a b.Loop
//     loop, b.N loops in a b.Loop benchmark;
//   - loopexit.go, LoopExit ("loopexit"): return, break or goto out of a
//     timed loop (b.Loop or b.N);
//   - stoptimer.go, StopTimer ("stoptimer"): b.StopTimer with no
//     b.StartTimer before the timed work;
//   - timerloop.go, TimerLoop ("timerloop"): StopTimer/StartTimer inside
//     the timed loop, and what a pair costs;
//   - resetloop.go, ResetLoop ("resetloop"): b.ResetTimer in every
//     iteration of the timed loop;
//   - noreset.go, NoReset ("noreset"): expensive set-up before a b.N loop
//     without b.ResetTimer;
//   - nsize.go, NSize ("nsize"): b.N used as the size of the work done in
//     one call;
//   - nobn.go, NoBN ("nobn"): a benchmark that never reads b.N nor calls
//     b.Loop;
//   - setbn.go, SetBN ("setbn"): a benchmark that writes b.N;
//   - parallel.go, Parallel ("parallel"): a RunParallel body that ignores
//     pb.Next or writes shared variables unsynchronised;
//   - parentwork.go, ParentWork ("parentwork"): a timed loop in a
//     benchmark that calls b.Run;
//   - rigorgroup.go, RigorGroup ("rigorgroup"): a rigor.Group with no
//     Bench;
//   - rigorsink.go, RigorSink ("rigorsink"): results dropped, or constant
//     arguments folded, in the functions given to rigor's Iter loops;
//   - rigorsetup.go, RigorSetup ("rigorsetup"): rigor.IterWithSetup whose
//     routine ignores the value setup returns.
//
// Shared parts: bench.go finds the functions that take a *testing.B and
// their timed loops (`for ...; i < b.N; ...`, `for range b.N`, `for
// b.Loop()`, a range over a slice made with make([]T, b.N)); purity.go
// decides which calls the compiler can delete or fold (pure, loop-free,
// inlinable) and what of a deleted call it keeps (checks that can panic),
// exporting facts for other packages;
// stdpure.go lists the standard library functions checked by
// disassembly; lint.go lists the analyzers.
//
// testdata/src holds the analysistest packages (one per check, with
// `// want` comments for what is reported and cases that are not);
// testdata/CORPUS.md the run over the standard library and modules, with
// the findings read by hand; testdata/bloop, testdata/timercost,
// testdata/sortcost and testdata/measure the experiments the numbers in
// the docs come from;
// testdata/strip the cases that show stripping bodies changes no finding.
package lint
