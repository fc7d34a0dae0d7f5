package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
	"github.com/rigorbench/rigor/store"
)

// sideFlags are one side's revision and build settings.
type sideFlags struct {
	rev, tags, gcflags, toolchain string
	env                           []string
	// args are the side's own test binary arguments (--old-args), which
	// replace the ones after -- when argsSet.
	args []string
	// tagsSet is true when the side's own tags flag was given; argsSet
	// when its own args flag was.
	tagsSet, argsSet bool
}

func (f *sideFlags) register(fs *pflag.FlagSet, name, rev string) {
	fs.StringVar(&f.rev, name, rev, "the `revision` of the "+name+" side (anything git rev-parse accepts; \".\" is the working tree)")
	f.registerBuild(fs, name+"-")
	fs.StringArrayVar(&f.args, name+"-args", nil, "one `argument` for the "+name+" side's test binaries, in place of the ARGS after -- (repeatable; --"+name+"-args= for none)")
}

// registerBuild registers the build flags with prefix ("old-", or "" for
// rigor run's single side).
func (f *sideFlags) registerBuild(fs *pflag.FlagSet, prefix string) {
	side := ""
	if prefix != "" {
		side = " of the " + strings.TrimSuffix(prefix, "-") + " side"
	}
	fs.StringVar(&f.tags, prefix+"tags", "", "build `tags`"+side+" (go build -tags)")
	fs.StringArrayVar(&f.env, prefix+"env", nil, "`KEY=VALUE` added to the environment"+side+", for building and running (repeatable)")
	fs.StringVar(&f.gcflags, prefix+"gcflags", "", "compiler `flags`"+side+" (go build -gcflags)")
	fs.StringVar(&f.toolchain, prefix+"go", "", "Go `toolchain`"+side+", as a GOTOOLCHAIN value (go1.25.3, local)")
}

func (f *sideFlags) side(label string) (gotest.Side, error) {
	env, err := parseEnv(f.env)
	if err != nil {
		return gotest.Side{}, err
	}
	rev := f.rev
	if rev == "" {
		rev = gotest.WorkingTree
	}
	// --old-args '' is how a side says it has none.
	args := slices.DeleteFunc(slices.Clone(f.args), func(a string) bool { return a == "" })
	if err := gotest.CheckArgs(args); err != nil {
		return gotest.Side{}, usageErrorf("%v", err)
	}
	return gotest.Side{Label: label, Rev: rev, Settings: gotest.Settings{
		Tags: f.tags, Env: env, GCFlags: f.gcflags, Toolchain: f.toolchain, Args: args,
	}}, nil
}

// parseEnv checks KEY=VALUE pairs.
func parseEnv(pairs []string) ([]string, error) {
	for _, kv := range pairs {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t\n") {
			return nil, usageErrorf("environment setting %q is not KEY=VALUE", kv)
		}
	}
	return pairs, nil
}

// measureFlags are the measurement flags shared by ab and run.
type measureFlags struct {
	bench     string
	cpu       string
	benchtime string
	minRounds int
	maxRounds int
	budget    time.Duration
	timeout   time.Duration
	order     string
	out       string
	profile   string
	cpuClock  string
	// instructions is --instructions: a gotest.Instructions* mode.
	instructions string
	// layouts is --layouts: a number of links per side, or auto.
	layouts string
	// noCheck, raceCheck and force are the checks before timing (see
	// gotest.Checks).
	noCheck, raceCheck, force bool
	// minRoundsSet is true when --min-rounds was given.
	minRoundsSet bool
	// command is the command line the results record (os.Args).
	command []string
}

func (f *measureFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.bench, "bench", ".", "run only the benchmarks matching this `regexp`, as go test -bench")
	fs.StringVar(&f.cpu, "cpu", "", "comma-separated GOMAXPROCS `list`, as go test -cpu; each value is its own benchmark")
	fs.StringVar(&f.benchtime, "benchtime", benchtimeAuto, "target `duration` of one sample, or a fixed iteration count Nx (no calibration, no jitter); auto is "+gotest.DefaultBenchtime.String()+", shortened when the --time budget would fit fewer than 20 rounds")
	fs.IntVar(&f.minRounds, "min-rounds", gotest.DefaultMinRounds, "rounds to run before the stopping rule may end the run")
	fs.IntVar(&f.maxRounds, "max-rounds", 0, "stop after this many rounds (0: no limit)")
	fs.DurationVar(&f.budget, "time", gotest.DefaultTime, "wall-clock budget for calibrating, measuring, simulating and profiling (builds excluded)")
	fs.DurationVar(&f.timeout, "timeout", gotest.DefaultTimeout, "kill a test binary that runs longer than this, and report it")
	fs.StringVar(&f.order, "order", experiment.OrderThueMorse, "order of the sides across rounds: thue-morse or abba")
	fs.StringVar(&f.out, "out", "", "results `directory` (default .rigor/runs/ID in the module root)")
	fs.StringVar(&f.profile, "profile", profileAuto, "`mode` of the untimed profiling pass after the rounds: auto (when the time budget allows) or off")
	fs.StringVar(&f.instructions, "instructions", gotest.InstructionsAuto, "`mode` of instructions per op: auto (hardware counters in the timed window, where the machine has them), simulate (counted under Valgrind after the rounds) or off")
	fs.StringVar(&f.layouts, "layouts", layoutsAuto, "links of each side's test binaries, each with its own random function layout, the rounds cycling through them: `N` (1: once, with the linker's own layout, as go test does) or auto ("+fmt.Sprint(gotest.MinAutoLayouts)+" to "+fmt.Sprint(gotest.MaxAutoLayouts)+", by the rounds --time fits)")
	fs.StringVar(&f.cpuClock, "cpu-clock", cpuClockWindow, "where CPU time is read: window (inside the benchmark's timed window, with its CPU waits) or process (the whole test process, less an estimate of its start-up)")
	fs.BoolVar(&f.noCheck, "no-check", false, "do not run each side's tests (-test.short) before timing; by default a side whose tests fail is not timed")
	fs.BoolVar(&f.raceCheck, "race-check", false, "also run each side's tests built with -race before timing")
	fs.BoolVar(&f.force, "force", false, "time a build that instruments or de-optimises the code (-race, -cover, -gcflags -N or -l), which is refused otherwise")
}

// layoutsAuto is --layouts's default: gotest chooses from the budget.
const layoutsAuto = "auto"

// maxLayouts bounds --layouts: each is a link of every test binary, and
// beyond a few dozen the rounds of a budget cannot measure them all.
const maxLayouts = 100

// The values of --cpu-clock.
const (
	cpuClockWindow  = "window"
	cpuClockProcess = "process"
)

// measureOptions are the flags and arguments rigor ab and rigor run share.
type measureOptions struct {
	verdict  verdictFlags
	measure  measureFlags
	record   recordFlags
	packages []string
	// testArgs are the arguments after --, for every side's test
	// binaries unless a side has its own (sideFlags.argsSet).
	testArgs []string
}

// register registers the shared flags.
func (o *measureOptions) register(fs *pflag.FlagSet) {
	o.measure.register(fs)
	o.verdict.register(fs)
	o.record.register(fs)
}

// parsed keeps what cobra parsed that the flags do not hold: the
// packages, the test binaries' arguments after --, whether --min-rounds
// was given, and the command line the results record.
func (o *measureOptions) parsed(cmd *cobra.Command, args []string) {
	o.packages = args
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		o.packages, o.testArgs = args[:dash], args[dash:]
	}
	o.measure.command = os.Args
	o.measure.minRoundsSet = cmd.Flags().Changed("min-rounds")
}

// A labelledSide is one side's flags and the label it is measured under.
type labelledSide struct {
	label string
	flags sideFlags
}

// config checks the shared flags and the sides' and returns the
// verdict's options and the configuration that measures the sides with
// them.
func (o *measureOptions) config(sides ...labelledSide) (analysis.Options, gotest.Config, error) {
	opts, err := o.verdict.options()
	if err != nil {
		return opts, gotest.Config{}, err
	}
	if err := o.record.check(); err != nil {
		return opts, gotest.Config{}, err
	}
	cfg, err := o.measure.config(o.packages)
	if err != nil {
		return opts, cfg, err
	}
	for _, sd := range sides {
		if !sd.flags.argsSet {
			sd.flags.args = o.testArgs
		}
		side, err := sd.flags.side(sd.label)
		if err != nil {
			return opts, cfg, err
		}
		cfg.Sides = append(cfg.Sides, side)
	}
	cfg.Analysis, cfg.Seed = opts, o.verdict.seed
	return opts, cfg, nil
}

// benchtimeAuto is --benchtime's default: gotest.DefaultBenchtime,
// shortened when the budget is short.
const benchtimeAuto = "auto"

// maxGOMAXPROCS bounds --cpu: each value is a GOMAXPROCS, and a runtime
// with a hundred thousand Ps spends its time in the scheduler and the
// garbage collector, past any time budget.
const maxGOMAXPROCS = 1024

// --profile modes.
const (
	profileAuto = "auto"
	profileOff  = "off"
)

// config checks the flags and returns the configuration without sides.
func (f *measureFlags) config(args []string) (gotest.Config, error) {
	cfg := gotest.Config{
		Packages:  args,
		Bench:     f.bench,
		MinRounds: f.minRounds,
		MaxRounds: f.maxRounds,
		Time:      f.budget,
		Timeout:   f.timeout,
		Order:     f.order,
		Out:       f.out,
		Command:   f.command,
		Check:     gotest.Checks{Skip: f.noCheck, Race: f.raceCheck, Instrumented: f.force},
	}
	switch f.cpuClock {
	case cpuClockWindow:
	case cpuClockProcess:
		cfg.ProcessClock = true
	default:
		return cfg, usageErrorf("invalid --cpu-clock %q: want window or process", f.cpuClock)
	}
	switch f.instructions {
	case gotest.InstructionsAuto, gotest.InstructionsOff:
	case gotest.InstructionsSimulate:
		if cfg.ProcessClock {
			return cfg, usageErrorf("--instructions simulate counts the benchmark timer's window, which --cpu-clock process does without: give one of them")
		}
		if _, err := gotest.FindValgrind(); err != nil {
			return cfg, usageErrorf("--instructions simulate: %v", err)
		}
	default:
		return cfg, usageErrorf("unknown --instructions %q (want %s, %s or %s)", f.instructions, gotest.InstructionsAuto, gotest.InstructionsSimulate, gotest.InstructionsOff)
	}
	cfg.Instructions = f.instructions
	if f.layouts != layoutsAuto {
		n, err := strconv.Atoi(f.layouts)
		switch {
		case err != nil || n < 0:
			return cfg, usageErrorf("invalid --layouts %q: want a number of links per side (1: once, with the linker's own layout) or auto", f.layouts)
		case n > maxLayouts:
			return cfg, usageErrorf("invalid --layouts %d: at most %d links per side", n, maxLayouts)
		case f.maxRounds > 0 && n > f.maxRounds:
			return cfg, usageErrorf("--layouts %d needs a round for each link, and --max-rounds is %d", n, f.maxRounds)
		}
		cfg.Layouts = n // 0 is auto
	}
	if f.benchtime == benchtimeAuto {
		// cfg.Benchtime 0: the default, shortened to fit the budget.
	} else if n, ok := strings.CutSuffix(f.benchtime, "x"); ok {
		iters, err := strconv.ParseInt(n, 10, 64)
		if err != nil || iters < 1 {
			return cfg, usageErrorf("invalid --benchtime %q: want a duration (100ms) or an iteration count (1000x)", f.benchtime)
		}
		cfg.Iters = iters
	} else {
		d, err := time.ParseDuration(f.benchtime)
		if err != nil || d <= 0 {
			return cfg, usageErrorf("invalid --benchtime %q: want a duration (100ms) or an iteration count (1000x)", f.benchtime)
		}
		cfg.Benchtime = d
	}
	if f.cpu != "" {
		for _, s := range strings.Split(f.cpu, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 {
				return cfg, usageErrorf("invalid --cpu %q: want a comma-separated list of positive counts", f.cpu)
			}
			if n > maxGOMAXPROCS {
				return cfg, usageErrorf("invalid --cpu %q: %d is above %d; GOMAXPROCS that high measures the Go scheduler, not the benchmark", f.cpu, n, maxGOMAXPROCS)
			}
			cfg.CPU = append(cfg.CPU, n)
		}
	}
	switch {
	case f.minRounds < 2:
		return cfg, usageErrorf("--min-rounds must be at least 2, got %d", f.minRounds)
	case f.maxRounds < 0 || f.maxRounds > 0 && f.maxRounds < 2:
		return cfg, usageErrorf("--max-rounds must be 0 (no limit) or at least 2, got %d", f.maxRounds)
	case f.maxRounds > 0 && f.maxRounds < f.minRounds && f.minRoundsSet:
		return cfg, usageErrorf("--max-rounds %d is below --min-rounds %d", f.maxRounds, f.minRounds)
	case f.budget <= 0:
		return cfg, usageErrorf("--time must be positive, got %v", f.budget)
	case f.timeout <= 0:
		return cfg, usageErrorf("--timeout must be positive, got %v", f.timeout)
	case f.order != experiment.OrderThueMorse && f.order != experiment.OrderABBA:
		return cfg, usageErrorf("unknown --order %q (want %s or %s)", f.order, experiment.OrderThueMorse, experiment.OrderABBA)
	case f.profile != profileAuto && f.profile != profileOff:
		return cfg, usageErrorf("unknown --profile %q (want %s or %s)", f.profile, profileAuto, profileOff)
	case f.noCheck && f.raceCheck:
		return cfg, usageErrorf("--race-check runs the tests that --no-check skips: give one of them")
	}
	if !f.minRoundsSet {
		// gotest's default, which a --max-rounds below it lowers, with
		// a note.
		cfg.MinRounds = 0
	}
	if f.profile == profileAuto {
		cfg.Profile = &gotest.Profiling{ReadCPU: observe.ReadCPUProfile, ReadMutex: observe.ReadMutexProfile}
	}
	return cfg, nil
}

// measure runs cfg with the results directory, environment, observer and
// progress bar set up, logging to s.err. A nil run comes with the error to
// return, a usage error wrapping gotest's (a *gotest.CheckError, a
// *gotest.ListError) when measuring never began; a non-nil run with a
// non-nil error is a partial run (ctx ended) or one that measured nothing
// (errNothingMeasured).
func measure(ctx context.Context, cfg gotest.Config, s stdio) (*model.Run, error) {
	stderr := s.err
	madeOut := false
	if cfg.Out == "" {
		root, err := store.ModuleRoot(".")
		if err != nil {
			return nil, usageErrorf("%w", err)
		}
		if cfg.ID, cfg.Out, err = store.Open(root).NewRunDir(time.Now()); err != nil {
			return nil, err
		}
		madeOut = true
	} else {
		cfg.ID = filepath.Base(cfg.Out)
	}
	env := observe.CaptureEnv(ctx)
	cfg.Env = &env
	cfg.Observer, cfg.ProcessStats = observe.Start(ctx, 0), observe.ProcessStats
	cfg.Annotate = annotate
	cfg.Log = safeLines{stderr}
	bar := newProgressBar(stderr, cfg.Time)
	if bar != nil {
		cfg.Progress, cfg.Log = bar.update, safeLines{bar}
	}
	run, err := gotest.Run(ctx, cfg)
	bar.done()
	// A run that measured nothing leaves no directory of its own behind
	// (one that --out names is the user's).
	if madeOut && (run == nil || !measured(run)) && !emptyShard(run) {
		os.RemoveAll(cfg.Out)
	}
	if run == nil {
		if ctx.Err() != nil {
			return nil, &exitError{code: exitUsage, err: errors.New("interrupted")}
		}
		return nil, usageErrorf("%w", err)
	}
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	if emptyShard(run) && err == nil {
		// Nothing to measure here, and nothing lost: rigor merge counts
		// the shard as present.
		fmt.Fprintf(stderr, "rigor: shard %d/%d holds none of the suite's %d benchmarks; its results in %s say so\n",
			run.Shard.Index, run.Shard.Count, run.Shard.Selected, cfg.Out)
		return nil, nil
	}
	if !compared(run) {
		switch {
		case lostAny(run):
			// The report says which benchmarks were lost and why, and
			// the gate must see them; the run still measured nothing.
			if err == nil {
				err = errNothingMeasured
			}
			return run, err
		case err != nil:
			return nil, &exitError{code: exitUsage, err: errors.New("interrupted before any benchmark was measured")}
		}
		return nil, usageErrorf("no benchmark was measured")
	}
	fmt.Fprintf(stderr, "rigor: samples in %s\n", cfg.Out)
	return run, err
}

// errNothingMeasured is measure's error for a run that took no sample on
// any side but has benchmarks to report as lost (a package that does not
// build on new): its verdict is printed, the gate applies, and it exits 2
// unless the gate failed; it is never recorded.
var errNothingMeasured = errors.New("no benchmark was measured (the notes say why)")

// annotate adds package observe's notes to run: what the system did, the
// bottleneck, and for a benchmark that looks optimized away, what its
// disassembly shows (the new side's binary first: the code under change).
func annotate(ctx context.Context, run *model.Run, binary func(pkg, side string) string) {
	observe.Annotate(run)
	for i := range run.Benchmarks {
		b := &run.Benchmarks[i]
		if !observe.LikelyElided(b) {
			continue
		}
		for j := len(run.Sides) - 1; j >= 0; j-- {
			if path := binary(b.Pkg, run.Sides[j].Label); path != "" {
				observe.ConfirmElision(ctx, path, b) // on failure the note stays "likely"
				break
			}
		}
	}
}

// measured reports whether run holds at least one sample.
func measured(run *model.Run) bool {
	for _, b := range run.Benchmarks {
		for _, m := range b.Metrics {
			if len(m.Samples) > 0 {
				return true
			}
		}
	}
	return false
}

// compared reports whether run measured some benchmark on every side: a
// run of several sides where only the baseline got samples (the new side
// panicked in its first round, after the baseline's sample) compared
// nothing, and exits as one that measured nothing.
func compared(run *model.Run) bool {
	if len(run.Sides) < 2 {
		return measured(run)
	}
	for _, b := range run.Benchmarks {
		if sampledOnEverySide(b, run.Sides) {
			return true
		}
	}
	return false
}

// sampledOnEverySide reports whether some metric of b has a sample on
// each of sides.
func sampledOnEverySide(b model.Benchmark, sides []model.Side) bool {
	for _, m := range b.Metrics {
		all := true
		for _, sd := range sides {
			if len(m.Values(sd.Label)) == 0 {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// lostAny reports whether some benchmark ran on the baseline and failed,
// or is absent, on another side: a result the gate must see even when
// nothing else was measured.
func lostAny(run *model.Run) bool {
	if len(run.Sides) < 2 {
		return false
	}
	for _, b := range run.Benchmarks {
		for side := range b.Missing {
			if side != run.Sides[0].Label {
				return true
			}
		}
	}
	return false
}

// finish renders rep and applies the gate; an interrupted run (err set)
// or one that measured nothing (errNothingMeasured) exits 2 unless the
// gate already failed.
func finish(s stdio, vf *verdictFlags, rep *analysis.Report, incomplete error) error {
	err := vf.emit(s, rep)
	switch {
	case err != nil || incomplete == nil:
		return err
	case errors.Is(incomplete, errNothingMeasured):
		return &exitError{code: exitUsage, err: incomplete}
	}
	return &exitError{code: exitUsage, err: errors.New("interrupted: the verdict above is partial")}
}
