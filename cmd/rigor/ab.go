package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
	"github.com/rigorbench/rigor/store"
)

func init() {
	var (
		vf         verdictFlags
		mf         measureFlags
		oldF, newF sideFlags
		bothTags   string
	)
	cmd := &cobra.Command{
		Use:   "ab [flags] [packages]",
		Short: "Compare two revisions' benchmarks in interleaved, paired rounds",
		Long: `ab builds the test binaries of two sides, old (--old, default HEAD) and new
(--new, default ".", the working tree with its uncommitted changes), and runs
their benchmarks in interleaved rounds: each round runs every benchmark once
on each side, old and new back to back in counterbalanced order, benchmarks
shuffled, with one iteration count per round shared by both sides and
jittered ±20% between rounds. Round i of old and round i of new ran under the
same conditions, so they are compared as pairs.

A revision is anything git rev-parse accepts; it is checked out into a
temporary git worktree, removed on exit. Each side has its own build
settings (--old-tags, --new-env K=V, --new-gcflags, --new-go). When both
sides are the same source built the same way, the run is an A/A run: it
measures the noise floor.

Each benchmark is calibrated once so that a sample lasts about --benchtime.
Rounds go on until every benchmark is resolved (its confidence interval
clears the noise band or lies inside it) after --min-rounds, or until --time
or --max-rounds. Since the rule looks after every round, it ends the run
early on a change only when its corrected p-value is below 0.001; the verdict
printed at the end uses --alpha as usual. Every sample is written as it arrives to --out (default
.rigor/runs/ID in the module root): old.txt and new.txt in Go benchmark
format, which benchstat reads, and run.json. --seed also seeds the schedule.

After the rounds comes a profiling pass (--profile auto, the default): each
benchmark runs once more per side, untimed so that profiling never perturbs
a sample, for about half a second with a CPU profile and a mutex profile.
The footnotes then name what limited the benchmark from where its CPU time
went (a lock, the garbage collector, the kernel) and how long goroutines
waited on mutexes. The profiles stay in --out, as
profiles/BENCHMARK/SIDE.cpu.pprof and SIDE.mutex.pprof, for go tool pprof.
The rounds leave the pass room within --time (up to a tenth of it); a budget
too short for runs of at least a quarter second skips the pass with a note,
so that the time goes to the paired rounds. When what is left is short the
profiled runs are shortened, and when the budget is spent anyway, or on
Ctrl-C during the pass, the pass is cut short with a note and the verdict,
already complete, is printed as usual. --profile off skips it.

With --benchtime auto (the default) a sample lasts 100ms, less when the
budget would otherwise fit fewer than 20 rounds (down to a process's
start-up time, 10ms at least), and shorter still when the rounds turn out
slower than planned (a busy machine). Every sample also records the test
process's CPU time per operation (cpu-sec/op, start-up removed). When the
machine was busy and the benchmark is CPU-bound, the verdict, the gate and
the stopping rule use CPU time, and a note says why; otherwise wall time.
The run's notes say how the budget was spent.

Output and exit status are compare's: 0, or 1 when --max-regression is set and
a benchmark regressed by more than it, or 2 for bad input, a run where nothing
could be measured, or an interrupted run (its partial verdict is printed).`,
		Example: `  rigor ab ./...
  rigor ab --old main --max-regression 5 ./pkg/...
  rigor ab --old-tags '' --new-tags optimized --bench Build .
  rigor ab --old HEAD~1 --new HEAD --format json .`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := vf.options()
			if err != nil {
				return err
			}
			mf.minRoundsSet = cmd.Flags().Changed("min-rounds")
			cfg, err := mf.config(args)
			if err != nil {
				return err
			}
			// --tags builds both sides with the same tags, unless a
			// side's own --old-tags/--new-tags says otherwise.
			if !cmd.Flags().Changed("old-tags") {
				oldF.tags = bothTags
			}
			if !cmd.Flags().Changed("new-tags") {
				newF.tags = bothTags
			}
			oldSide, err := oldF.side("old")
			if err != nil {
				return err
			}
			newSide, err := newF.side("new")
			if err != nil {
				return err
			}
			cfg.Sides = []gotest.Side{oldSide, newSide}
			cfg.Analysis, cfg.Seed = opts, vf.seed
			run, err := measure(cmd, cfg)
			if run == nil {
				return err
			}
			rep, aerr := analysis.Analyze(run, opts)
			if aerr != nil {
				return usageErrorf("%v", aerr)
			}
			return finish(cmd, &vf, rep, err)
		},
	}
	cmd.Flags().StringVar(&bothTags, "tags", "", "build `tags` of both sides (go build -tags); --old-tags and --new-tags override it per side")
	oldF.register(cmd.Flags(), "old", "HEAD")
	newF.register(cmd.Flags(), "new", gotest.WorkingTree)
	mf.register(cmd.Flags())
	vf.register(cmd.Flags())
	rootCmd.AddCommand(cmd)
}

// sideFlags are one side's revision and build settings.
type sideFlags struct {
	rev, tags, gcflags, toolchain string
	env                           []string
}

func (f *sideFlags) register(fs *pflag.FlagSet, name, rev string) {
	fs.StringVar(&f.rev, name, rev, "the `revision` of the "+name+" side (anything git rev-parse accepts; \".\" is the working tree)")
	f.registerBuild(fs, name+"-")
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
	return gotest.Side{Label: label, Rev: rev, Settings: gotest.Settings{
		Tags: f.tags, Env: env, GCFlags: f.gcflags, Toolchain: f.toolchain,
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
	// minRoundsSet is true when --min-rounds was given.
	minRoundsSet bool
}

func (f *measureFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.bench, "bench", ".", "run only the benchmarks matching this `regexp`, as go test -bench")
	fs.StringVar(&f.cpu, "cpu", "", "comma-separated GOMAXPROCS `list`, as go test -cpu; each value is its own benchmark")
	fs.StringVar(&f.benchtime, "benchtime", benchtimeAuto, "target `duration` of one sample, or a fixed iteration count Nx (no calibration, no jitter); auto is "+gotest.DefaultBenchtime.String()+", shortened when the --time budget would fit fewer than 20 rounds")
	fs.IntVar(&f.minRounds, "min-rounds", gotest.DefaultMinRounds, "rounds to run before the stopping rule may end the run")
	fs.IntVar(&f.maxRounds, "max-rounds", 0, "stop after this many rounds (0: no limit)")
	fs.DurationVar(&f.budget, "time", gotest.DefaultTime, "wall-clock budget for calibrating, measuring and profiling (builds excluded)")
	fs.DurationVar(&f.timeout, "timeout", gotest.DefaultTimeout, "kill a test binary that runs longer than this, and report it")
	fs.StringVar(&f.order, "order", experiment.OrderThueMorse, "order of the sides across rounds: thue-morse or abba")
	fs.StringVar(&f.out, "out", "", "results `directory` (default .rigor/runs/ID in the module root)")
	fs.StringVar(&f.profile, "profile", profileAuto, "`mode` of the untimed profiling pass after the rounds: auto (when the time budget allows) or off")
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
		Command:   os.Args,
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
	}
	if f.maxRounds > 0 && f.maxRounds < f.minRounds {
		// --max-rounds below the default minimum lowers the minimum.
		cfg.MinRounds = f.maxRounds
	}
	if f.profile == profileAuto {
		cfg.Profile = &gotest.Profiling{ReadCPU: observe.ReadCPUProfile, ReadMutex: observe.ReadMutexProfile}
	}
	return cfg, nil
}

// measure runs cfg with the results directory, environment, observer and
// progress bar set up. A nil run comes with the error to return; a
// non-nil run with a non-nil error is a partial run.
func measure(cmd *cobra.Command, cfg gotest.Config) (*model.Run, error) {
	ctx := cmd.Context()
	stderr := cmd.ErrOrStderr()
	madeOut := false
	if cfg.Out == "" {
		root, err := store.ModuleRoot(".")
		if err != nil {
			return nil, usageErrorf("%v", err)
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
	cfg.Log = stderr
	bar := newProgressBar(stderr, cfg.Time)
	if bar != nil {
		cfg.Progress, cfg.Log = bar.update, bar
	}
	run, err := gotest.Run(ctx, cfg)
	bar.done()
	// A run that measured nothing leaves no directory of its own behind
	// (one that --out names is the user's).
	if madeOut && (run == nil || !measured(run) && !lostAny(run)) {
		os.RemoveAll(cfg.Out)
	}
	if run == nil {
		if ctx.Err() != nil {
			return nil, &exitError{code: exitUsage, err: errors.New("interrupted")}
		}
		return nil, usageErrorf("%v", err)
	}
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	if !measured(run) && !lostAny(run) {
		if err != nil {
			return nil, &exitError{code: exitUsage, err: errors.New("interrupted before any benchmark was measured")}
		}
		return nil, usageErrorf("no benchmark was measured")
	}
	fmt.Fprintf(stderr, "rigor: samples in %s\n", cfg.Out)
	return run, err
}

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
// exits 2 unless the gate already failed.
func finish(cmd *cobra.Command, vf *verdictFlags, rep *analysis.Report, interrupted error) error {
	err := vf.emit(cmd, rep)
	if err == nil && interrupted != nil {
		return &exitError{code: exitUsage, err: errors.New("interrupted: the verdict above is partial")}
	}
	return err
}

// progressBar shows a run's progress on a terminal: the phase or round,
// the time spent against the budget, what is still unresolved.
type progressBar struct {
	p      *mpb.Progress
	bar    *mpb.Bar
	budget time.Duration
	stop   chan struct{}

	mu   sync.Mutex
	last gotest.Progress
}

// newProgressBar returns nil unless w is a terminal.
func newProgressBar(w io.Writer, budget time.Duration) *progressBar {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	// A terminal without a size (some CI pseudo-terminals) shows no bar.
	if width, _, err := term.GetSize(int(f.Fd())); err != nil || width < 40 {
		return nil
	}
	pb := &progressBar{budget: budget, stop: make(chan struct{})}
	pb.p = mpb.New(mpb.WithOutput(f), mpb.WithWidth(100), mpb.WithRefreshRate(200*time.Millisecond))
	pb.bar = pb.p.New(budget.Milliseconds(), mpb.BarStyle().Lbound("[").Rbound("]"),
		mpb.PrependDecorators(decor.Any(pb.left, decor.WC{W: 34, C: decor.DindentRight})),
		mpb.AppendDecorators(decor.Any(pb.right)),
	)
	go pb.tick()
	return pb
}

func (pb *progressBar) tick() {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-pb.stop:
			return
		case <-t.C:
			pb.mu.Lock()
			start := pb.last.Start
			pb.mu.Unlock()
			if !start.IsZero() {
				pb.bar.SetCurrent(min(time.Since(start), pb.budget).Milliseconds())
			}
		}
	}
}

func (pb *progressBar) update(p gotest.Progress) {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	if p.Unresolved == nil && p.Phase == pb.last.Phase && p.Round == pb.last.Round {
		p.Unresolved = pb.last.Unresolved
	}
	pb.last = p
}

func (pb *progressBar) left(decor.Statistics) string {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	p := pb.last
	switch p.Phase {
	case gotest.PhaseMeasure:
		return fmt.Sprintf("round %d (%d/%d) %s", p.Round, p.Step, p.Steps, elapsed(p.Start))
	case "":
		return "starting"
	default:
		return fmt.Sprintf("%s %d/%d", p.Phase, p.Step, p.Steps)
	}
}

func (pb *progressBar) right(decor.Statistics) string {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	p := pb.last
	s := p.Current
	if n := len(p.Unresolved); n > 0 {
		s = fmt.Sprintf("%d unresolved: %s", n, strings.Join(p.Unresolved[:min(n, 2)], ", "))
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func elapsed(start time.Time) string {
	if start.IsZero() {
		return ""
	}
	return time.Since(start).Round(time.Second).String()
}

// Write prints log lines above the bar.
func (pb *progressBar) Write(b []byte) (int, error) {
	return pb.p.Write(b)
}

// done removes the bar; a nil bar is a no-op.
func (pb *progressBar) done() {
	if pb == nil {
		return
	}
	close(pb.stop)
	pb.bar.Abort(true)
	pb.p.Wait()
}
