package gotest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

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
	// startOne is startWall as the one-iteration processes measured it,
	// which observeStartup leaves alone: for a benchmark that stops its
	// timer inside its loop, what a sample takes beyond its window grows
	// with its iterations.
	startOne time.Duration
	samples  int // timed samples taken
	// perOp is the operation's time as calibration measured it
	// (seconds); minIters the count below which planSamples and replan
	// never shorten a sample (see minSampleWork).
	perOp    float64
	minIters int64
	// calOp is the slowest side's sec/op in calibration.
	calOp float64
	// overheads are the samples' wall time beyond their timed windows
	// (seconds), when read in the window: start-up, set-up, the
	// one-iteration run go test makes first.
	overheads []float64
}

type sideState struct {
	Side
	tree *Tree
	bins map[string]*Binary // by import path
	// links are the test binaries of every layout by import path,
	// links[path][k-1] linked with the k-th seed: the first is
	// bins[path], which calibration, the checks and the passes after
	// the rounds run (see Config.Layouts).
	links map[string][]*Binary
	// goflags is GOFLAGS as the side's go command reads it, whose
	// -ldflags a layout's are merged with.
	goflags string
	// window is set when the side's binaries are built with the timer
	// overlay (setupWindow): their results carry cpu-sec/op and
	// wait-sec/op for the timed window.
	window bool
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
	shortened   bool          // samples were cut to fit enough rounds (floors may hold sampleTime above the default)
	lastRound   time.Duration // how long the last round took
	filter      *benchFilter
	rng         *rand.Rand
	profNotes   map[int][]model.Note // benchmark index -> the profiling pass's notes
	// simScale corrects the simulation pass's estimates of a process's
	// wall time: the processes' wall time so far over their estimates
	// (simSpent over simEstimated); 0 before the first.
	simScale               float64
	simSpent, simEstimated time.Duration
	// binDir holds the test binaries.
	binDir string
	// random is set when the sides are linked with random layouts;
	// layouts is how many links each side has, once planLayouts decided
	// (1 when not random), and seeds their -randlayout seeds. minRaised
	// is the minimum of rounds planLayouts raised to layouts, or 0.
	random    bool
	layouts   int
	seeds     []int64
	minRaised int
}

// Run builds the sides' test binaries, calibrates every benchmark and
// measures it in interleaved rounds until the stopping rule says so. It
// writes every sample to cfg.Out as it arrives.
//
// With cfg.Instructions InstructionsSimulate, a simulation pass follows
// the rounds (see InstructionsSimulate); with cfg.Profile set, a profiling
// pass follows them (see Profiling).
//
// An error before measuring begins (an unknown revision, no package with
// tests) returns a nil Run. Once measuring has begun, Run returns
// the Run measured so far; when ctx is cancelled (Ctrl-C) it stops, keeps
// the files, and returns that partial Run with ctx's error. Cancelled
// during the simulation or the profiling pass, it returns the complete Run
// and no error: the rounds' samples are all there, and a note says the pass
// was cut short.
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
	if err == errPlanned { // Config.Plan: calibrated and planned only
		if cfg.Observer != nil {
			cfg.Observer.Stop()
		}
		return s.run, nil
	}
	if err == nil {
		s.countersRead()
		if s.simulating() {
			s.simulate(ctx)
		}
	}
	if err == nil && s.cfg.Profile != nil && ctx.Err() == nil {
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
