// Package model defines rigor's result schema: a Run holds the environment,
// the sides being compared, every benchmark's raw samples and what the system
// was doing while they were measured. Every source (go test binaries, the
// in-process harness, benchmark files, ramped load) produces a Run; the
// analysis package turns it into verdicts and the report package renders it.
//
// Runs are stored as JSON (see docs/schema.md) and can be read from and
// written to the Go benchmark format through golang.org/x/perf/benchfmt.
//
// Package map:
//
//   - model.go: Run, Side, Benchmark, Metric, Sample, and what a side
//     lacks (Missing); note.go: Note and its kinds; observe.go: what the
//     system did (Observation); env.go: the machine (Env); ramp.go: a
//     ramp's steps, fits and headline;
//   - domain.go: which values can be measurements (Implausible), and the
//     time under which a loop is likely optimized away;
//   - read.go: Read and ReadFile, which tell the formats apart, and
//     Relabel; merge.go: Merge, several runs into one;
//   - json.go: rigor's JSON, read, validated and written;
//   - benchfmt_read.go: reading Go benchmark format; benchfmt_write.go:
//     writing it; benchfmt_fields.go: what a result's name, configuration
//     and unit metadata mean (package gotest reads with these too);
//     gotestjson.go: go test -json output; hyperfine.go: hyperfine's JSON
//     export.
package model
