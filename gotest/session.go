package gotest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/internal/words"
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
	// Sides are the sides measured: one (rigor run) or two (rigor ab,
	// the first being the baseline).
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
	MinRounds, MaxRounds int
	Time                 time.Duration
	// Timeout kills a test binary that runs longer (a hang).
	Timeout time.Duration
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
	// Annotate, when set, is called once measuring ends, before the test
	// binaries are removed and run.json is written for the last time, to
	// add notes to the run (package observe's Annotate, and its
	// ConfirmElision, which disassembles binary(pkg, side), the path of
	// that side's test binary for the package, "" if there is none).
	Annotate func(ctx context.Context, run *model.Run, binary func(pkg, side string) string)
}

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
	// Stop ends observing and returns one observation per interval.
	Stop() []model.Observation
}

// Phases of a run, as reported in Progress.
const (
	PhaseBuild     = "building"
	PhaseCalibrate = "calibrating"
	PhaseMeasure   = "measuring"
	PhaseProfile   = "profiling"
)

// Progress says what a run is doing.
type Progress struct {
	Phase string
	// Round is the current round, from 1, while measuring.
	Round int
	// Start is when measuring (calibration included) began; Budget is
	// Config.Time.
	Start  time.Time
	Budget time.Duration
	// Step of Steps is the position within the phase or the round.
	Step, Steps int
	// Unresolved are the benchmarks still unresolved after the last
	// analysed round; nil before the first analysis.
	Unresolved []string
	// Current is what runs now: "new Build/size=1".
	Current string
}

// A unit is one benchmark (a leaf, with one GOMAXPROCS value) scheduled in
// every round.
type unit struct {
	pkg     string
	key     string // model.Benchmark.Key
	pattern string // -test.bench
	cpu     int
	iters   int64
	failed  bool
	// startCPU and startWall are the CPU and wall time of a process that
	// runs the benchmark for one iteration: start-up, the benchmark's own
	// set-up and one operation (see measureStartup).
	startCPU, startWall time.Duration
	samples             int // timed samples taken
}

type sideState struct {
	Side
	tree   *Tree
	bins   map[string]*Binary // by import path
	file   *os.File
	config map[string]string // file configuration last written to file
}

type session struct {
	cfg         Config
	run         *model.Run
	sides       []*sideState
	pkgs        []string // import paths built on every side
	units       []*unit
	cleanupDirs []string
	bench       map[string]int // key -> index in run.Benchmarks
	start       time.Time
	budget      *experiment.Budget
	sampleTime  time.Duration // what a sample lasts, about
	shortened   bool          // sampleTime is below the default to fit enough rounds
	lastRound   time.Duration // how long the last round took
	filter      *benchFilter
	rng         *rand.Rand
	profNotes   map[int][]model.Note // benchmark index -> the profiling pass's notes
}

// Run builds the sides' test binaries, calibrates every benchmark and
// measures it in interleaved rounds until the stopping rule says so. It
// writes every sample to cfg.Out as it arrives.
//
// With cfg.Profile set, a profiling pass follows the rounds (see
// Profiling).
//
// An error before measuring begins (an unknown revision, no package with
// tests) returns a nil Run. Once measuring has begun, Run returns
// the Run measured so far; when ctx is cancelled (Ctrl-C) it stops, keeps
// the files, and returns that partial Run with ctx's error. Cancelled
// during the profiling pass, it returns the complete Run and no error:
// the samples are all there, and a note says the pass was cut short.
func Run(ctx context.Context, cfg Config) (*model.Run, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	s := &session{
		cfg:   cfg,
		bench: map[string]int{},
		rng:   experiment.NewRand(cfg.Seed),
		run: &model.Run{
			SchemaVersion: model.SchemaVersion,
			ID:            cfg.ID,
			Kind:          model.KindRun,
			Paired:        len(cfg.Sides) > 1,
			Start:         time.Now(),
			Command:       cfg.Command,
			Env:           cfg.Env,
			Benchmarks:    []model.Benchmark{},
		},
	}
	if len(cfg.Sides) > 1 {
		s.run.Kind = model.KindAB
	}
	defer s.close()
	err := s.prepare(ctx)
	if err == nil {
		err = s.open()
	}
	if err != nil {
		if cfg.Observer != nil {
			cfg.Observer.Stop()
		}
		return nil, err
	}
	err = s.measure(ctx)
	if err == nil && s.cfg.Profile != nil {
		s.profile(ctx)
	}
	if s.budget != nil && len(s.units) > 0 {
		s.run.Notes = append(s.run.Notes, gotestNote(model.NoteBudget, s.budgetNote()+"."))
	}
	s.run.End = time.Now()
	if cfg.Observer != nil {
		s.run.Observations = append(s.run.Observations, cfg.Observer.Stop()...)
	}
	if cfg.Annotate != nil {
		cfg.Annotate(ctx, s.run, s.binary)
	}
	// The profiling pass's notes follow the bottleneck they explain.
	for i, notes := range s.profNotes {
		s.run.Benchmarks[i].Notes = append(s.run.Benchmarks[i].Notes, notes...)
	}
	if err != nil && ctx.Err() != nil {
		s.run.Notes = append(s.run.Notes, gotestNote(model.NoteInterrupted, "The run was interrupted: these are partial results."))
	}
	if werr := s.writeJSON(); werr != nil && err == nil {
		err = werr
	}
	return s.run, err
}

// binary returns the path of side's test binary for pkg, or "".
func (s *session) binary(pkg, side string) string {
	for _, sd := range s.sides {
		if b := sd.bins[pkg]; sd.Label == side && b != nil {
			return b.Path
		}
	}
	return ""
}

func (c *Config) defaults() error {
	if len(c.Sides) == 0 || len(c.Sides) > 2 {
		return fmt.Errorf("want one or two sides, got %d", len(c.Sides))
	}
	seen := map[string]bool{}
	for _, sd := range c.Sides {
		if sd.Label == "" || strings.ContainsAny(sd.Label, `/\`) || seen[sd.Label] {
			return fmt.Errorf("side label %q is empty, repeated or not a file name", sd.Label)
		}
		seen[sd.Label] = true
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
	}
	if c.MaxRounds < 0 {
		return fmt.Errorf("max rounds %d is negative", c.MaxRounds)
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
	if c.Out == "" {
		return errors.New("no results directory")
	}
	if c.Analysis.Resamples == 0 {
		c.Analysis = analysis.DefaultOptions()
	}
	if c.Log == nil {
		c.Log = io.Discard
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

func (s *session) close() {
	for _, sd := range s.sides {
		if sd.file != nil {
			sd.file.Close()
		}
		sd.tree.Close()
	}
	for _, d := range s.cleanupDirs {
		os.RemoveAll(d)
	}
}

func (s *session) progress(p Progress) {
	if s.cfg.Progress != nil {
		p.Start, p.Budget = s.start, s.cfg.Time
		s.cfg.Progress(p)
	}
}

// note adds a run note of kind and says it on the log as it happens.
func (s *session) note(kind model.NoteKind, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.run.Notes = append(s.run.Notes, gotestNote(kind, msg))
	fmt.Fprintln(s.cfg.Log, "rigor:", msg)
}

// outputWarnings notes, once a run, each warning ParseResults gave about
// what pkg's test binary printed on side: unit metadata it ignored.
func (s *session) outputWarnings(pkg, side string, warnings []string) {
	for _, w := range warnings {
		text := fmt.Sprintf("%s on %s: %s", pkg, side, w)
		if !slices.ContainsFunc(s.run.Notes, func(n model.Note) bool { return n.Text == text }) {
			s.note(model.NoteInput, "%s", text)
		}
	}
}

// source is the Source of this package's notes.
const source = "gotest"

// gotestNote is a run note of this package.
func gotestNote(kind model.NoteKind, text string) model.Note {
	return model.Note{Kind: kind, Source: source, Text: text}
}

// prepare checks the sides out, builds their test binaries and records the
// sides in the run.
func (s *session) prepare(ctx context.Context) error {
	if err := s.claimDirs(ctx); err != nil {
		return err
	}
	s.progress(Progress{Phase: PhaseBuild})
	trees := map[string]*Tree{}
	for _, sd := range s.cfg.Sides {
		t, ok := trees[sd.Rev]
		if !ok {
			var err error
			if t, err = Checkout(ctx, s.cfg.Dir, sd.Rev); err != nil {
				return err
			}
			trees[sd.Rev] = t
		}
		s.sides = append(s.sides, &sideState{Side: sd, tree: t, bins: map[string]*Binary{}})
		s.run.Sides = append(s.run.Sides, model.Side{
			Label:     sd.Label,
			Source:    sd.Rev,
			Rev:       t.Rev,
			Dirty:     t.Dirty,
			Tags:      sd.Tags,
			BuildEnv:  sd.Env,
			GCFlags:   sd.GCFlags,
			Toolchain: sd.Toolchain,
		})
	}
	if len(s.sides) == 2 && s.sameBuild(ctx, s.sides[0], s.sides[1]) {
		s.run.Notes = append(s.run.Notes, gotestNote(model.NoteAA, fmt.Sprintf(
			"A/A run: %s and %s build the same source with the same settings, so this run measures the noise floor; any verdict other than unchanged is a false alarm.",
			s.sides[0].Label, s.sides[1].Label)))
	}
	return s.build(ctx)
}

// mayHaveBenchmarks reports whether path, on some side, declares a
// benchmark that -bench selects, by parsing its test files: a package
// without one is skipped before it is built, so that a TestMain that takes
// long (building a plugin, starting a server) costs nothing. Unparsable
// files leave the answer to the test binary.
func (s *session) mayHaveBenchmarks(pkgs []map[string]Package, path string) bool {
	filter, err := newBenchFilter(s.cfg.Bench)
	if err != nil {
		return true
	}
	for _, side := range pkgs {
		names, ok := declaredBenchmarks(side[path].TestFiles)
		if !ok {
			return true
		}
		for _, n := range names {
			if filter.pattern(n) != "" {
				return true
			}
		}
	}
	return false
}

// nestedModule returns the first of patterns (relative to dir) that names
// a directory with a go.mod of its own below dir's module, or "".
func nestedModule(dir string, patterns []string) string {
	for _, p := range patterns {
		rel := strings.TrimSuffix(strings.TrimSuffix(p, "..."), "/")
		if rel == "" || rel == "." || !strings.HasPrefix(p, ".") {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, rel, "go.mod")); err == nil && !fi.IsDir() {
			return rel
		}
	}
	return ""
}

// lostPackage records that side lacks every benchmark the baseline's
// test binary of pkg has (and -bench selects): its package does not build
// there.
func (s *session) lostPackage(ctx context.Context, pkg, side string) {
	bin := s.sides[0].bins[pkg]
	if bin == nil {
		return
	}
	names, err := bin.Benchmarks(ctx, s.cfg.Timeout)
	if err != nil {
		return
	}
	filter, err := newBenchFilter(s.cfg.Bench)
	if err != nil {
		return
	}
	for _, n := range names {
		if filter.pattern(n) != "" {
			s.run.MarkMissing(pkg, strings.TrimPrefix(n, "Benchmark"), 0, side, model.MissingBuild, "its package does not build on "+side)
		}
	}
}

// build lists the packages on every side and builds the test binaries of
// those present on all of them. A package that fails to build on some side
// is noted with the compiler's output and left out.
func (s *session) build(ctx context.Context) error {
	var order []string
	where := map[string][]string{} // import path -> labels of sides having it
	pkgs := make([]map[string]Package, len(s.sides))
	for i, sd := range s.sides {
		list, err := ListPackages(ctx, sd.tree.Dir, sd.Settings, s.cfg.Packages)
		if err != nil {
			return fmt.Errorf("%s: %w", sd.Label, err)
		}
		pkgs[i] = map[string]Package{}
		for _, p := range list {
			if _, ok := where[p.ImportPath]; !ok {
				order = append(order, p.ImportPath)
			}
			where[p.ImportPath] = append(where[p.ImportPath], sd.Label)
			pkgs[i][p.ImportPath] = p
		}
	}
	if len(order) == 0 {
		if sub := nestedModule(s.cfg.Dir, s.cfg.Packages); sub != "" {
			return fmt.Errorf("%s is a separate module (it has its own go.mod), which go list does not enter from here: run rigor in it (cd %s && rigor ... ./...)", sub, sub)
		}
		return fmt.Errorf("no packages with tests match %s", strings.Join(s.cfg.Packages, " "))
	}
	var skipped []string
	defer func() {
		if len(skipped) > 0 {
			s.note(model.NoteBuild, "%d %s no benchmark matching %q, so %s not built or run: %s.",
				len(skipped), words.Plural(len(skipped), "package declares", "packages declare"), s.cfg.Bench, words.Plural(len(skipped), "it was", "they were"), words.JoinList(skipped, 5))
		}
	}()
	binDir, err := makeTempDir(binPrefix, "")
	if err != nil {
		return err
	}
	s.cleanupDirs = append(s.cleanupDirs, binDir)
	step := 0
	for _, path := range order {
		if len(where[path]) < len(s.sides) {
			s.note(model.NoteOneSide, "package %s has tests only on %s: not measured.", path, strings.Join(where[path], ", "))
			continue
		}
		if !s.mayHaveBenchmarks(pkgs, path) {
			skipped = append(skipped, path)
			continue
		}
		ok := true
		for i, sd := range s.sides {
			step++
			s.progress(Progress{Phase: PhaseBuild, Step: step, Steps: len(order) * len(s.sides), Current: sd.Label + " " + path})
			bin, err := Build(ctx, sd.Settings, pkgs[i][path], filepath.Join(binDir, binaryName(sd.Label, path)))
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var be *BuildError
			if errors.As(err, &be) {
				s.note(model.NoteBuild, "package %s does not build on %s, so it is not measured:\n%s", path, sd.Label, indent(tail(be.Output, tailLines)))
				if i > 0 {
					s.lostPackage(ctx, path, sd.Label)
				}
				ok = false
				break
			} else if err != nil {
				return err
			}
			sd.bins[path] = bin
		}
		if !ok {
			for _, sd := range s.sides {
				delete(sd.bins, path)
			}
			continue
		}
		s.pkgs = append(s.pkgs, path)
	}
	return nil
}
