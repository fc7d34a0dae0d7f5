package model

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// SchemaVersion is the version of the JSON schema written by this package.
// It changes when a field changes meaning or is removed; new optional fields
// do not change it.
const SchemaVersion = 2

// Kinds of Run, by the source that produced it.
const (
	KindFiles   = "files"   // benchmark files read by rigor compare
	KindAB      = "ab"      // interleaved A/B rounds of go test binaries
	KindRun     = "run"     // one side's go test binaries, rounds interleaved
	KindHarness = "harness" // the in-process harness (package rigor)
	KindRamp    = "ramp"    // ramped load
	KindExec    = "exec"    // whole commands (rigor exec)
)

// A Run is one measurement session, or a set of files read together.
type Run struct {
	SchemaVersion int    `json:"schema_version"`
	ID            string `json:"id,omitempty"`
	Kind          string `json:"kind"`
	// Paired is true when the sides were measured in the same rounds, so
	// that round i of one side and round i of another form a pair.
	Paired  bool      `json:"paired"`
	Start   time.Time `json:"start,omitzero"`
	End     time.Time `json:"end,omitzero"`
	Command []string  `json:"command,omitempty"`
	Env     *Env      `json:"env,omitempty"`
	// Sides lists the things compared, in order: the first is the baseline.
	Sides      []Side      `json:"sides"`
	Benchmarks []Benchmark `json:"benchmarks"`
	// Observations is what the system and the measured processes did
	// during the run (see package observe).
	Observations []Observation `json:"observations,omitempty"`
	// Notes are run-level remarks (benchmarks present on one side only,
	// failures, interruptions), each with a kind and its words.
	Notes []Note `json:"notes,omitempty"`
	// Ramp holds the steps and fits of a ramped-load run.
	Ramp *Ramp `json:"ramp,omitempty"`
	// Sessions, when set, says that the sides were measured in
	// different sessions (a saved baseline and this run), so that no
	// interleaving protects their comparison from how the machine changed
	// in between, and how much results vary between sessions.
	Sessions *Sessions `json:"sessions,omitempty"`
	// Shard, when set, says that the run measured one part of a suite
	// split across machines (rigor ab --shard).
	Shard *Shard `json:"shard,omitempty"`
	// Machines, when set, are the result directories a merged run (rigor
	// merge) took its samples from; Sample.Machine indexes it from 1.
	Machines []Machine `json:"machines,omitempty"`
}

// Sessions describes a comparison across measurement sessions: what is
// known of how much results of the same code vary from one session to
// the next on the machine. A metric without a Spread cannot be compared
// across sessions: its comparison is inconclusive.
type Sessions struct {
	// Spreads are, per benchmark and unit, the variation between
	// sessions, from earlier results of the same code.
	Spreads []SessionSpread `json:"spreads,omitempty"`
	// Source says, for people, where the spreads come from ("the history
	// store .rigor/rigor.db: repeated results of one commit on this
	// machine"), or why there are none.
	Source string `json:"source,omitempty"`
	// Remedy says, for people, how to compare in one session instead
	// ("rigor ab --old 1a2b3c ./...").
	Remedy string `json:"remedy,omitempty"`
}

// A SessionSpread is how much the median of one benchmark's metric varies
// between sessions of the same code, in logs (a ratio scale).
type SessionSpread struct {
	Benchmark string `json:"benchmark"` // Benchmark.Key()
	Unit      string `json:"unit"`
	// SD is the standard deviation of the log of a session's median
	// across sessions of the same code, pooled over codes: the variation
	// between sessions together with each median's own noise.
	SD float64 `json:"sd"`
	// Within is the mean variance of the log of those medians from their
	// own samples: the part of SD squared that the samples explain.
	Within float64 `json:"within"`
	// DF is the degrees of freedom of SD (results less codes), Results
	// the number of results it comes from.
	DF      int `json:"df"`
	Results int `json:"results"`
}

// Spread returns the spread of benchmark key's unit, or nil.
func (s *Sessions) Spread(key, unit string) *SessionSpread {
	if s == nil {
		return nil
	}
	for i := range s.Spreads {
		if s.Spreads[i].Benchmark == key && s.Spreads[i].Unit == unit {
			return &s.Spreads[i]
		}
	}
	return nil
}

// A Side is one of the things being compared: a file, a git revision with
// its build settings, or a variant of an in-process group.
type Side struct {
	Label string `json:"label"`
	// Source is where the side's results came from: a file path, or a
	// revision as the user gave it.
	Source    string   `json:"source,omitempty"`
	Rev       string   `json:"rev,omitempty"` // full commit hash
	Dirty     bool     `json:"dirty,omitempty"`
	Tags      string   `json:"tags,omitempty"`
	BuildEnv  []string `json:"build_env,omitempty"`
	GCFlags   string   `json:"gcflags,omitempty"`
	Toolchain string   `json:"toolchain,omitempty"`
	// CPUClock says how the side's CPU time (cpu-sec/op) was read:
	// CPUClockWindow or CPUClockProcess; empty when it has none.
	CPUClock string `json:"cpu_clock,omitempty"`
	// Instructions says how the side's instructions per operation
	// (InstructionsUnit) were read: InstructionsCounters or
	// InstructionsSimulated; empty when it has none. InstructionsTool
	// names what counted them ("valgrind-3.19.0 callgrind, GOMAXPROCS
	// 1"), when simulated.
	Instructions     string `json:"instructions,omitempty"`
	InstructionsTool string `json:"instructions_tool,omitempty"`
	// Layouts are the seeds of the random function layouts the side's
	// test binaries were linked with (the linker's -randlayout), one
	// binary per seed, which the rounds cycle through; Sample.Layout
	// indexes it from 1. Empty when the side was linked once with the
	// linker's own layout.
	Layouts []int64 `json:"layouts,omitempty"`
	// Args are the arguments passed to the side's test binaries after
	// rigor's flags (rigor ab -- ARGS, --old-args, --new-args).
	Args []string `json:"args,omitempty"`
	// Subgroup groups variants of an in-process group for display.
	Subgroup string `json:"subgroup,omitempty"`
}

// How a side's CPU time was read (Side.CPUClock).
const (
	// CPUClockWindow: inside the benchmark timer's own window, by rigor's
	// build overlay of package testing (with the CPU waits, wait-sec/op).
	CPUClockWindow = "timed window"
	// CPUClockProcess: the whole process's CPU time, less an estimate of
	// its start-up measured by one-iteration runs.
	CPUClockProcess = "whole process"
)

// A Benchmark is one benchmark (a row in a comparison): its name, the
// configuration that identifies it, and one Metric per unit it reported.
type Benchmark struct {
	// Name is the benchmark's name without the "Benchmark" prefix and
	// without the GOMAXPROCS suffix, sub-benchmarks included:
	// "Build/size=1024".
	Name string `json:"name"`
	// Procs is the GOMAXPROCS suffix of the name ("-8"), 0 when absent.
	Procs int `json:"procs,omitempty"`
	// Pkg is the package, from the "pkg:" configuration line.
	Pkg string `json:"pkg,omitempty"`
	// Group and Variant name the in-process group and variant, if any.
	Group   string `json:"group,omitempty"`
	Variant string `json:"variant,omitempty"`
	// Config is the rest of the file configuration (goos, goarch, cpu,
	// and any other key: value lines).
	Config  map[string]string `json:"config,omitempty"`
	Metrics []Metric          `json:"metrics"`
	// Notes are benchmark-level remarks in plain words (a failure's tail,
	// disassembly evidence).
	Notes []Note `json:"notes,omitempty"`
	// Missing says, by side label, why a side has no results of the
	// benchmark, or stopped having them: it did not build there, failed
	// there, or does not exist there. A side that ran the benchmark to the
	// end has no entry. Use MarkMissing to add one.
	Missing map[string]Missing `json:"missing,omitempty"`
}

// Kinds of Missing: why a side lacks a benchmark's results.
const (
	// MissingBuild: the benchmark's package did not build on the side.
	MissingBuild = "build"
	// MissingFailed: the benchmark ran and failed on the side: it exited
	// non-zero, panicked, timed out, or printed no result. Samples taken
	// before the failure, if any, are kept.
	MissingFailed = "failed"
	// MissingAbsent: the side does not have the benchmark (removed,
	// renamed, or not in that side's input).
	MissingAbsent = "absent"
)

// A Missing says why one side lacks a benchmark's results.
type Missing struct {
	// Kind is MissingBuild, MissingFailed or MissingAbsent.
	Kind string `json:"kind"`
	// Reason is one line in plain words, for people ("panicked (exit
	// status 2) in round 3"); programs use Kind.
	Reason string `json:"reason,omitempty"`
}

// MarkMissing records that side lacks the results of b, or stopped having
// them, and why (kind is one of MissingBuild, MissingFailed and
// MissingAbsent; reason is cut to its first line). The first record for a
// side is kept: a later one would describe a consequence of the first.
func (b *Benchmark) MarkMissing(side, kind, reason string) {
	if _, ok := b.Missing[side]; ok {
		return
	}
	if b.Missing == nil {
		b.Missing = map[string]Missing{}
	}
	reason, _, _ = strings.Cut(reason, "\n")
	b.Missing[side] = Missing{Kind: kind, Reason: strings.TrimSpace(reason)}
}

// MarkMissing records on r that side lacks the results of the benchmark
// with package pkg, name (without "Benchmark" and without the GOMAXPROCS
// suffix) and procs (0 for no suffix), as Benchmark.MarkMissing does. When
// r has no such benchmark yet, it appends one with no metrics, so that a
// benchmark that failed before its first sample is still known. It returns
// the benchmark.
func (r *Run) MarkMissing(pkg, name string, procs int, side, kind, reason string) *Benchmark {
	want := Benchmark{Name: name, Procs: procs, Pkg: pkg}
	key := want.Key()
	for i := range r.Benchmarks {
		if r.Benchmarks[i].Key() == key {
			r.Benchmarks[i].MarkMissing(side, kind, reason)
			return &r.Benchmarks[i]
		}
	}
	want.Metrics = []Metric{}
	want.MarkMissing(side, kind, reason)
	r.Benchmarks = append(r.Benchmarks, want)
	return &r.Benchmarks[len(r.Benchmarks)-1]
}

// Better values for Metric.Better.
const (
	LowerIsBetter  = -1
	HigherIsBetter = 1
)

// Assumptions for Metric.Assume, as in benchfmt's unit metadata.
const (
	AssumeNothing = "nothing" // make no distributional assumption
	AssumeExact   = "exact"   // values are deterministic: compare exactly
)

// A Metric is every sample of one unit of one benchmark, across sides.
type Metric struct {
	// Unit is tidied as benchstat does: "sec/op" not "ns/op", "B/s" not
	// "MB/s".
	Unit string `json:"unit"`
	// Better is LowerIsBetter or HigherIsBetter.
	Better int `json:"better"`
	// Assume is AssumeNothing (the default when empty) or AssumeExact.
	Assume  string   `json:"assume,omitempty"`
	Samples []Sample `json:"samples"`
}

// A Sample is one timed batch: Iters operations, whose per-operation value
// in the metric's unit was Value. The batch total is Value × Iters.
type Sample struct {
	Side  string  `json:"side"`
	Round int     `json:"round"`
	Iters int64   `json:"iters"`
	Value float64 `json:"value"`
	// Layout is the 1-based index in the side's Layouts of the link the
	// sample's binary had; 0 when the side was linked once (or the
	// source does not say).
	Layout int `json:"layout,omitempty"`
	// Machine is the 1-based index in Run.Machines of the result
	// directory the sample came from, in a merged run; 0 otherwise.
	// Rounds of different machines never pair.
	Machine int `json:"machine,omitempty"`
}

// Values returns the per-operation values of side's samples, in order
// (nil when there are none).
func (m *Metric) Values(side string) []float64 {
	n := m.count(side)
	if n == 0 {
		return nil
	}
	v := make([]float64, 0, n)
	for _, s := range m.Samples {
		if s.Side == side {
			v = append(v, s.Value)
		}
	}
	return v
}

// BySide returns side's samples in order, a copy (nil when there are
// none).
func (m *Metric) BySide(side string) []Sample {
	n := m.count(side)
	if n == 0 {
		return nil
	}
	v := make([]Sample, 0, n)
	for _, s := range m.Samples {
		if s.Side == side {
			v = append(v, s)
		}
	}
	return v
}

// SideView returns side's samples in order without copying them when
// they lie together in m.Samples (as Merge and every reader leave them),
// a copy otherwise: the caller must not modify them. Its capacity is its
// length, so that an append copies.
func (m *Metric) SideView(side string) []Sample {
	first := slices.IndexFunc(m.Samples, func(s Sample) bool { return s.Side == side })
	if first < 0 {
		return nil
	}
	end := first + 1
	for end < len(m.Samples) && m.Samples[end].Side == side {
		end++
	}
	for _, s := range m.Samples[end:] {
		if s.Side == side {
			return m.BySide(side) // not together
		}
	}
	return m.Samples[first:end:end]
}

// count is the number of side's samples.
func (m *Metric) count(side string) int {
	n := 0
	for i := range m.Samples {
		if m.Samples[i].Side == side {
			n++
		}
	}
	return n
}

// Metric returns b's metric for unit, or nil.
func (b *Benchmark) Metric(unit string) *Metric {
	for i := range b.Metrics {
		if b.Metrics[i].Unit == unit {
			return &b.Metrics[i]
		}
	}
	return nil
}

// FullName is the name as go test prints it after "Benchmark", with the
// GOMAXPROCS suffix when there is one: "Build/size=1024-8".
func (b *Benchmark) FullName() string {
	if b.Procs > 0 {
		return b.Name + "-" + strconv.Itoa(b.Procs)
	}
	return b.Name
}

// Key identifies a benchmark across files and sides: package and full name.
func (b *Benchmark) Key() string {
	if b.Pkg == "" {
		return b.FullName()
	}
	return b.Pkg + "." + b.FullName()
}
