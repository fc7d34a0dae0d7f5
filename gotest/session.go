package gotest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/internal/words"
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
