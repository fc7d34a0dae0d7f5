// Package gotest builds and drives go test binaries: it checks revisions out
// into temporary git worktrees, builds each package's test binary per side,
// lists and calibrates the benchmarks, and runs them in interleaved,
// counterbalanced rounds with one shared, jittered iteration count per
// round, so that round i of one side and round i of the other form a pair.
// An optional profiling pass follows, untimed: each benchmark once more per
// side with a CPU and a mutex profile, the evidence of what limited it.
//
// Every raw sample is written as it arrives: one Go benchmark format file
// per side, which benchstat reads unchanged, and rigor's JSON, rewritten
// after every round.
package gotest
