// Package gotest builds and drives go test binaries: it checks revisions out
// into temporary git worktrees, builds each package's test binary per side,
// lists and calibrates the benchmarks, and runs them in interleaved,
// counterbalanced rounds with one shared, jittered iteration count per
// round, so that round i of one side and round i of the other form a pair.
// Each side's test binary is linked several times, with random function
// layouts, and the rounds cycle through the links (see Config.Layouts).
// Optional passes follow, untimed: a simulation pass counts each
// benchmark's instructions per operation under Valgrind (where the machine
// has hardware counters, the rounds read them instead), and a profiling
// pass runs each benchmark once more per side with a CPU and a mutex
// profile, the evidence of what limited it.
//
// Every raw sample is written as it arrives: one Go benchmark format file
// per side, which benchstat reads unchanged, and rigor's JSON, rewritten
// after every round.
//
// Package map, in the order a run goes through the files:
//
//   - config.go: Config, Side, the defaults, the Observer and Progress a
//     caller plugs in;
//   - session.go: Run and the session it drives, the package's notes;
//   - outdir.go: the results directory's lock and the printed output kept
//     in output/; stale.go: temporary directories and what killed runs
//     left; alive_*.go: whether an owner process still lives;
//   - prepare.go: checking the sides out and building their test binaries;
//     git.go: worktrees of revisions; build.go: go list and go test -c;
//     scan.go: which packages declare a selected benchmark; aa.go: whether
//     both sides build the same thing (an A/A run); layout.go: the random
//     function layouts each side is linked with, and which one a round
//     runs (see Config.Layouts);
//   - calibrate.go: listing, calibrating and scheduling the benchmarks,
//     the start-up cost of a process; pattern.go: -bench expressions and
//     the pattern that runs one benchmark;
//   - rounds.go: the rounds (experiment.Loop's sampler), one sample, why
//     the rounds stopped; cputime.go: CPU time per operation;
//   - exec.go: running a test binary, with a time-out; signal_*.go:
//     stopping it; framing.go: telling results from what benchmarks print;
//     parse.go: reading results (names, configuration and unit metadata as
//     package model reads them);
//   - resultsdir.go: the side files and run.json, written as results
//     arrive;
//   - simulate.go: instructions per operation: the modes, the hardware
//     counters' notes, the simulation pass; simwindow.go: its bridge to
//     package window;
//   - profile.go: the untimed profiling pass.
package gotest
