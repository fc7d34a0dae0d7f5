package gotest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// A Side is one of the things a run measures: a revision and how to build
// and run it.
type Side struct {
	// Label names the side in reports; its benchmark file is Label+".txt".
	Label string
	// Rev is WorkingTree or anything git rev-parse accepts.
	Rev string
	Settings
}

// Defaults for Config's zero fields.
const (
	DefaultBenchtime = 100 * time.Millisecond
	DefaultMinRounds = 10
	DefaultTime      = 60 * time.Second
	DefaultTimeout   = 5 * time.Minute
)

// Config describes a run: what to build, how to measure it, when to stop
// and where to write the samples.
type Config struct {
	// Dir is where package patterns are resolved and revisions looked
	// up; "" is the current directory.
	Dir string
	// Packages are go list patterns; none means ".".
	Packages []string
	// Sides are the sides measured: one (rigor run), two (rigor ab,
	// the first being the baseline) or three (a step of rigor bisect:
	// a midpoint and the two ends). Every round runs each side once, in
	// the order experiment.SideOrder gives.
	Sides []Side
	// Bench selects benchmarks as go test's -bench does, level by level
	// ("Build/size=1"); "" means all.
	Bench string
	// CPU lists GOMAXPROCS values as go test's -cpu; each is its own
	// benchmark row. None leaves GOMAXPROCS as the environment sets it.
	CPU []int
	// Benchtime is the target duration of one sample; calibration picks
	// the iteration count that lasts about that long. Zero means
	// DefaultBenchtime, shortened when the time budget would otherwise
	// fit too few rounds (see experiment.SampleTime). Iters, when
	// positive, fixes the iteration count instead.
	Benchtime time.Duration
	Iters     int64
	// MinRounds rounds always run (time budget permitting); then the run
	// stops once every benchmark is resolved, after MaxRounds rounds
	// (0: no limit), or when Time is spent. At least two rounds run.
	// MinRounds 0 is DefaultMinRounds, or MaxRounds when that is lower
	// (a note says so).
	MinRounds, MaxRounds int
	Time                 time.Duration
	// Layouts is how many times each side's test binary of a package is
	// linked, each link with its own random function layout (the
	// linker's -randlayout, seeds drawn from Seed and recorded in
	// model.Side.Layouts), the rounds cycling through them: see
	// MinAutoLayouts for why. 1 links once, with the linker's own
	// layout, as go test does (a note says that the layout is then an
	// offset no interval covers). 0, the default, chooses from the budget
	// once the benchmarks are calibrated: the rounds per benchmark it is
	// expected to fit over 3, from MinAutoLayouts to MaxAutoLayouts (at
	// most MaxRounds). MinRounds is raised to the number of layouts, so
	// that every link is measured.
	Layouts int
	// BuildCache, when set, is a directory where test binaries built at
	// a commit (a tree without uncommitted changes) are kept, by commit,
	// settings and package, and taken from by later runs instead of
	// building again (rigor bisect's steps).
	BuildCache string
	// Timeout kills a test binary that runs longer (a hang).
	Timeout time.Duration
	// ProcessClock, when set, reads each sample's CPU time for the whole
	// process, less an estimate of its start-up, as rigor did before it
	// read the timed window (package window): for comparing the two
	// clocks, and what a side falls back to when its toolchain or
	// platform cannot have the window's overlay.
	ProcessClock bool
	// Order is experiment.OrderThueMorse (default) or OrderABBA.
	Order string
	// Seed makes the schedule (benchmark order, jitter) reproducible.
	Seed uint64
	// Out is the results directory: Label.txt per side and run.json.
	Out string
	// ID, Command and Env are recorded in the Run.
	ID      string
	Command []string
	Env     *model.Env
	// Analysis are the options of the stopping rule's analysis.
	Analysis analysis.Options
	// Unresolved, when set, replaces the stopping rule: it returns the
	// keys of the benchmarks that need more rounds. The default is
	// Unresolved with Analysis.
	Unresolved func(*model.Run) ([]string, error)
	// Progress, when set, is told what the run is doing.
	Progress func(Progress)
	// Log receives failures as they happen, with their output's tail.
	Log io.Writer
	// Observer, when set, is told which benchmark, side and round each
	// measured process runs, and gets its resource usage through
	// ProcessStats; Run stops it and records what Stop returns.
	// Package observe's Observer and ProcessStats fit.
	Observer     Observer
	ProcessStats func(*os.ProcessState) *model.ProcessStats
	// Profile, when set, turns on the profiling pass: see Profiling.
	Profile *Profiling
	// Instructions says whether and how instructions per operation
	// (model.InstructionsUnit) are read: InstructionsAuto (the default,
	// also ""), InstructionsSimulate or InstructionsOff. See
	// InstructionsAuto.
	Instructions string
	// Check says what is checked before timing: see Checks.
	Check Checks
	// Shard, when set, measures only one shard's part of the selected
	// benchmarks (see Shard and Assign) and records it in the run.
	Shard *Shard
	// Plan, when set, ends the run once the benchmarks are calibrated
	// and the rounds planned, before any round: it receives the plan
	// (rigor ab --plan), and Run returns the run without samples.
	Plan func(Plan)
	// Annotate, when set, is called once measuring ends, before the test
	// binaries are removed and run.json is written for the last time, to
	// add notes to the run (package observe's Annotate, and its
	// ConfirmElision, which disassembles binary(pkg, side), the path of
	// that side's test binary for the package, "" if there is none).
	Annotate func(ctx context.Context, run *model.Run, binary func(pkg, side string) string)

	// minLowered is set by defaults when MaxRounds lowered MinRounds.
	minLowered bool
	// valgrind is the valgrind command that InstructionsSimulate runs,
	// found by defaults.
	valgrind string
	// simulate, when set, stands in for package window's simulation
	// (tests).
	simulate simulateFunc
	// counters, when set, stands in for window.CountersAvailable
	// (tests).
	counters func() (bool, string)
}

// MaxSides is the most sides a Config may have.
const MaxSides = 3

// An Observer watches the system while a run measures (see package
// observe).
type Observer interface {
	// Mark starts an interval in which benchmark (a model.Benchmark's
	// Key) runs on side in round; Pause ends it.
	Mark(benchmark, side string, round int)
	Pause()
	// AddProcess attaches a measured process's usage to the interval.
	AddProcess(*model.ProcessStats)
	// AddProfile attaches a summary of the process's CPU profile.
	AddProfile(*model.ProfileStats)
	// Observations returns the intervals that have ended so far, for
	// the stopping rule's interim looks; Stop ends observing and returns
	// one observation per interval.
	Observations() []model.Observation
	Stop() []model.Observation
}

// Phases of a run, as reported in Progress.
const (
	PhaseBuild     = "building"
	PhaseCalibrate = "calibrating"
	PhaseLink      = "linking" // the layouts after the first (see Config.Layouts)
	PhaseMeasure   = "measuring"
	PhaseSimulate  = "simulating"
	PhaseProfile   = "profiling"
)

// Progress says what a run is doing (see experiment.Progress).
type Progress = experiment.Progress

func (c *Config) defaults() error {
	if len(c.Sides) == 0 || len(c.Sides) > MaxSides {
		return fmt.Errorf("want one to %d sides, got %d", MaxSides, len(c.Sides))
	}
	seen := map[string]bool{}
	for _, sd := range c.Sides {
		if sd.Label == "" || strings.ContainsAny(sd.Label, `/\`) || seen[sd.Label] {
			return fmt.Errorf("side label %q is empty, repeated or not a file name", sd.Label)
		}
		seen[sd.Label] = true
		if err := CheckArgs(sd.Args); err != nil {
			return fmt.Errorf("%s: %w", sd.Label, err)
		}
	}
	if err := checkInstrumented(c); err != nil {
		return err
	}
	if c.Dir == "" {
		c.Dir = "."
	}
	if len(c.Packages) == 0 {
		c.Packages = []string{"."}
	}
	if c.Bench == "" {
		c.Bench = "."
	}
	if _, err := newBenchFilter(c.Bench); err != nil {
		return err
	}
	for _, p := range c.CPU {
		if p < 1 {
			return fmt.Errorf("invalid cpu count %d", p)
		}
	}
	if c.Benchtime < 0 {
		return fmt.Errorf("benchtime %v is negative", c.Benchtime)
	}
	if c.MinRounds <= 0 {
		c.MinRounds = DefaultMinRounds
		if c.MaxRounds > 0 && c.MaxRounds < DefaultMinRounds {
			c.MinRounds, c.minLowered = c.MaxRounds, true
		}
	}
	if c.MaxRounds < 0 {
		return fmt.Errorf("max rounds %d is negative", c.MaxRounds)
	}
	switch {
	case c.Layouts < 0:
		return fmt.Errorf("layouts %d is negative", c.Layouts)
	case c.MaxRounds > 0 && c.Layouts > c.MaxRounds:
		return fmt.Errorf("%d layouts need a round each, and the rounds stop at %d", c.Layouts, c.MaxRounds)
	}
	if c.Time <= 0 {
		c.Time = DefaultTime
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Order == "" {
		c.Order = experiment.OrderThueMorse
	}
	if err := experiment.ValidOrder(c.Order); err != nil {
		return err
	}
	if c.Shard != nil {
		if c.Shard.Count < 1 || c.Shard.Count > MaxShards || c.Shard.Index < 0 || c.Shard.Index >= c.Shard.Count {
			return fmt.Errorf("shard %s: want INDEX from 0 to COUNT-1, COUNT from 1 to %d", c.Shard, MaxShards)
		}
	}
	if c.Out == "" {
		return errors.New("no results directory")
	}
	if c.Analysis.Resamples == 0 {
		c.Analysis = analysis.DefaultOptions()
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if err := c.instructionsDefaults(); err != nil {
		return err
	}
	if c.Profile != nil {
		p := *c.Profile // the caller's stays as it was
		if p.ReadCPU == nil {
			return errors.New("profiling without a CPU profile reader")
		}
		if p.Time < 0 {
			return fmt.Errorf("profile time %v is negative", p.Time)
		}
		if p.Time == 0 {
			p.Time = DefaultProfileTime
		}
		c.Profile = &p
	}
	return nil
}
