package execbench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// Kind is the model.Run kind of a run of commands.
const Kind = model.KindExec

// source is the Source of this package's notes.
const source = "execbench"

// A unit is one benchmark (a combination of parameter values) measured on
// every side in every round.
type unit struct {
	key   string // model.Benchmark.Key
	bind  binding
	index int // in run.Benchmarks
	// hindex is the unit's place in hyperfine's order of combinations.
	hindex int
	// Per side: the command line with the parameters substituted, the
	// words that run it, its --prepare and --conclude lines, and its name
	// in this combination ("" without Command.Names).
	line, names       []string
	argv              [][]string
	prepare, conclude []string
	failed            bool
	// runs are the timed runs per side, in order.
	runs [][]runRecord
	// left says, per side, what the command's runs left running after
	// they ended.
	left []leftovers
}

// A runRecord is one timed run, as recorded: seconds, the shell's
// start-up subtracted; wall is NaN when the run was no longer than that
// (not recorded), cpu NaN when its CPU time was not positive.
type runRecord struct {
	round     int
	wall, cpu float64
	// rss is the command's peak RSS, 0 when it stayed below rssFloor
	// (see measurement.commandRSS).
	rss, rssFloor int64
	exit          int
	// status says how a failed run ended ("exit status 3", "killed by
	// signal terminated"), "" for one that exited 0.
	status string
}

type session struct {
	cfg     Config
	run     *model.Run
	labels  []string
	units   []*unit
	runner  *runner
	rng     *rand.Rand
	budget  *experiment.Budget
	timeout time.Duration
	// The shell's start-up (medians), subtracted from every sample.
	shellWall, shellCPU time.Duration
	// When run.json was last written, and how long that took.
	lastWrite           time.Time
	writeCost           time.Duration
	claimed             string // the run.json this run created, removed if it measures nothing
	timedRuns, warmRuns int
	// dropped says, one line each, which command failed in which round
	// after it had been measured (see drop).
	dropped []string
}

// A Result is a finished (or interrupted) run: the model.Run, and what
// the export in hyperfine's shape needs besides (exit codes, the command
// lines as run).
type Result struct {
	Run   *model.Run
	sess  *session
	Shell bool
}

// Dropped says, one line each, which commands failed (exited non-zero
// and not ignored, could not start, or outlived the time-out) after they
// had been measured, in which round, and that they were left out of later
// rounds: the run's verdict on them rests on the rounds before. Empty
// when every command ran to the end.
func (r *Result) Dropped() []string { return slices.Clone(r.sess.dropped) }

// Run runs the commands' setups, warm-ups and then interleaved rounds
// until the stopping rule, the budget or MaxRounds ends them, then the
// cleanups. Every sample is written to cfg.Out's run.json as the run goes
// (at most five seconds late, or 50 times as long as a rewrite takes once
// that exceeds 100 ms; see checkpointEvery and checkpointCost), and all
// of them when the run ends or is interrupted.
//
// An error before measuring begins (a *ConfigError, a command that cannot
// start, fails or hangs in its setup or warm-up) returns a nil Result.
// A command that fails before its first sample (a *CommandError) leaves
// nothing either, even without warm-up runs. Once measuring has begun,
// Run returns what it measured, with ctx's error when interrupted, or
// the error that stopped it (a --prepare that failed).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	fail := func(err error) (*Result, error) {
		if cfg.Observer != nil {
			cfg.Observer.Stop()
		}
		return nil, err
	}
	if err := cfg.defaults(); err != nil {
		return fail(err)
	}
	s := &session{
		cfg: cfg,
		rng: experiment.NewRand(cfg.Seed),
		run: &model.Run{
			SchemaVersion: model.SchemaVersion,
			ID:            cfg.ID,
			Kind:          Kind,
			Paired:        len(cfg.Commands) > 1,
			Start:         time.Now(),
			Command:       cfg.Argv,
			Env:           cfg.Env,
			Benchmarks:    []model.Benchmark{},
		},
		timeout: cfg.Timeout,
	}
	if s.timeout == 0 {
		s.timeout = cfg.Time
	}
	if err := s.plan(); err != nil {
		return fail(err)
	}
	if err := s.claim(); err != nil {
		return fail(err)
	}
	r, err := newRunner(&s.cfg)
	if err != nil {
		s.unclaim()
		return fail(err)
	}
	s.runner = r
	defer r.close()
	res := &Result{Run: s.run, sess: s, Shell: len(cfg.Shell) > 0}
	cleanup := func(c Command) string { return c.Cleanup }
	err = s.auxAll(ctx, PhaseSetup, "--setup", func(c Command) string { return c.Setup })
	if err == nil {
		s.budget = experiment.NewBudget(cfg.Time, time.Now())
		err = s.warmup(ctx)
	}
	if err == nil {
		err = s.timeShell(ctx)
	}
	if err != nil {
		if cerr := s.auxAll(context.WithoutCancel(ctx), PhaseCleanup, "--cleanup", cleanup); cerr != nil {
			fmt.Fprintln(cfg.Log, "rigor:", cerr)
		}
		s.unclaim()
		return fail(err)
	}
	err = s.measure(ctx)
	if cerr := s.auxAll(context.WithoutCancel(ctx), PhaseCleanup, "--cleanup", cleanup); cerr != nil {
		if err == nil {
			err = cerr
		} else {
			fmt.Fprintln(cfg.Log, "rigor:", cerr)
		}
	}
	if ce := (*CommandError)(nil); errors.As(err, &ce) {
		// A command that failed before its first sample, with no
		// warm-up to probe it: as if the probe had failed.
		s.unclaim()
		return fail(err)
	}
	s.finish(err != nil && ctx.Err() != nil)
	if werr := s.writeJSON(); werr != nil && err == nil {
		err = werr
	}
	return res, err
}

// plan makes the sides' labels and one unit per combination of parameter
// values, each with the words that run it on every side.
func (s *session) plan() error {
	binds, err := combinations(s.cfg.Params)
	if err != nil {
		return &ConfigError{err}
	}
	seen := map[string]int{}
	for i, c := range s.cfg.Commands {
		if len(c.Names) > 0 && len(c.Names) != len(binds) {
			return configErrorf("command %d has %d names for %d parameter combinations", i+1, len(c.Names), len(binds))
		}
		label := strings.TrimSpace(c.Label)
		if label == "" && len(c.Names) > 0 && len(slices.Compact(slices.Clone(c.Names))) == 1 {
			label = strings.TrimSpace(c.Names[0])
		}
		if label == "" {
			label = strings.TrimSpace(c.Line)
		}
		label = uniqueLabel(seen, label)
		s.labels = append(s.labels, label)
		s.run.Sides = append(s.run.Sides, model.Side{Label: label, Source: c.Line})
	}
	keys := map[string]bool{}
	for i, b := range binds {
		u := &unit{bind: b, key: b.name(), index: len(s.run.Benchmarks), hindex: hyperfineIndex(s.cfg.Params, i), runs: make([][]runRecord, len(s.labels)), left: make([]leftovers, len(s.labels))}
		if keys[u.key] {
			return configErrorf("two parameter combinations are both named %s", u.key)
		}
		keys[u.key] = true
		for _, c := range s.cfg.Commands {
			line := b.substitute(c.Line)
			argv, err := s.cfg.argv(line)
			if err != nil {
				return &ConfigError{err}
			}
			if argv[0] == "" {
				return configErrorf("%q names no program: its first word is empty", line)
			}
			if _, err := exec.LookPath(argv[0]); err != nil {
				return configErrorf("%s: %v", argv[0], unwrapExecError(err))
			}
			u.line = append(u.line, line)
			name := ""
			if len(c.Names) > 0 {
				name = b.substitute(c.Names[u.hindex])
			}
			u.names = append(u.names, name)
			u.argv = append(u.argv, argv)
			u.prepare = append(u.prepare, b.substitute(c.Prepare))
			u.conclude = append(u.conclude, b.substitute(c.Conclude))
		}
		s.units = append(s.units, u)
		s.run.Benchmarks = append(s.run.Benchmarks, model.Benchmark{Name: u.key, Config: b.config(), Metrics: []model.Metric{}})
	}
	if s.aa() {
		s.run.Notes = append(s.run.Notes, model.Note{Kind: model.NoteAA, Source: source, Text: fmt.Sprintf(
			"A/A run: %s run the same command, so this run measures the noise floor; any verdict other than unchanged is a false alarm.",
			joinQuoted(s.labels))})
	}
	return nil
}

// aa reports whether every command is the same, with the same --prepare
// and --conclude.
func (s *session) aa() bool {
	cs := s.cfg.Commands
	if len(cs) < 2 {
		return false
	}
	for _, c := range cs[1:] {
		if c.Line != cs[0].Line || c.Prepare != cs[0].Prepare || c.Conclude != cs[0].Conclude {
			return false
		}
	}
	return true
}

// uniqueLabel returns label, or label with " (2)", " (3)", ... when it is
// taken: 'true' 'true' are the sides "true" and "true (2)".
func uniqueLabel(seen map[string]int, label string) string {
	unique := label
	for n := seen[label]; seen[unique] > 0; {
		n++
		unique = fmt.Sprintf("%s (%d)", label, n)
	}
	seen[label]++
	if unique != label {
		seen[unique]++
	}
	return unique
}

func joinQuoted(labels []string) string {
	q := make([]string, len(labels))
	for i, l := range labels {
		q[i] = "'" + l + "'"
	}
	if len(q) == 2 {
		return q[0] + " and " + q[1]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// claim makes the results directory and creates its run.json
// exclusively, so that two runs never write to the same one; a directory
// that holds anything is refused, so that no result is overwritten.
func (s *session) claim() error {
	dir := s.cfg.Out
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return configErrorf("creating results directory: %v", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return configErrorf("reading results directory: %v", err)
	}
	if len(entries) > 0 {
		return configErrorf("results directory %s already holds %s; give an empty or new --out", dir, entries[0].Name())
	}
	path := filepath.Join(dir, experiment.RunFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return configErrorf("results directory %s is in use by another run; give another --out", dir)
	}
	if err != nil {
		return configErrorf("creating %s: %v", path, err)
	}
	f.Close()
	s.claimed = path
	return s.writeJSON()
}

// unclaim removes the run.json of a run that never measured.
func (s *session) unclaim() {
	if s.claimed != "" {
		os.Remove(s.claimed)
	}
}

// writeJSON rewrites run.json atomically.
func (s *session) writeJSON() error {
	s.lastWrite = time.Now()
	err := writeRun(s.cfg.Out, experiment.RunFile, s.run)
	s.writeCost = time.Since(s.lastWrite)
	return err
}

func (s *session) progress(p Progress) {
	if s.cfg.Progress != nil {
		p.Budget = s.cfg.Time
		if s.budget != nil {
			p.Start = s.budget.Start()
		}
		s.cfg.Progress(p)
	}
}

func (s *session) note(kind model.NoteKind, text string) {
	s.run.Notes = append(s.run.Notes, model.Note{Kind: kind, Source: source, Text: text})
}

// auxAll runs each command's line (its --setup or --cleanup) once per
// benchmark, its parameters substituted, through the auxiliary shell: the
// benchmarks in hyperfine's order, each one's commands in order, as
// hyperfine runs them (the same line as often as it comes).
func (s *session) auxAll(ctx context.Context, phase, flag string, line func(Command) string) error {
	order := slices.Clone(s.units)
	slices.SortFunc(order, func(a, b *unit) int { return a.hindex - b.hindex })
	step := 0
	for _, u := range order {
		for _, c := range s.cfg.Commands {
			l := u.bind.substitute(line(c))
			if l == "" {
				continue
			}
			step++
			s.progress(Progress{Phase: phase, Step: step, Current: l})
			if err := s.aux(ctx, flag, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// aux runs an untimed auxiliary command; a failure is an error.
func (s *session) aux(ctx context.Context, flag, line string) error {
	if line == "" {
		return nil
	}
	argv := append(slices.Clone(s.cfg.AuxShell), "-c", line)
	m, err := s.runner.run(ctx, argv, s.timeout, true)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s %q %s", flag, line, s.explain(err))
	}
	if m.failed() {
		msg := fmt.Sprintf("%s %q failed: %s", flag, line, m.status())
		if t := lastLine(m.tail); t != "" {
			msg += ": " + t
		}
		return errors.New(msg)
	}
	return nil
}

// explain says why a run could not start or finish, as what the command
// did ("ran longer than the timeout of 2s and was stopped"), naming the
// time budget when the timeout is the budget, with what to do about it.
func (s *session) explain(err error) string {
	what, hint := s.explainParts(err)
	if hint != "" {
		return what + "; " + hint
	}
	return what
}

// explainParts is explain's two parts: what the command did, and what to
// do about it ("" when there is nothing to say).
func (s *session) explainParts(err error) (what, hint string) {
	var se *startError
	switch {
	case errors.As(err, &se) && se.timeout > 0 && s.cfg.Timeout == 0:
		return fmt.Sprintf("was still running after %v, the whole --time budget, and was stopped", s.timeout), "give --timeout or a longer --time"
	case errors.As(err, &se) && se.timeout == 0:
		return "could not start: " + se.reason, ""
	}
	return err.Error(), ""
}

// warmup runs every command Warmup times per benchmark, untimed, sides in
// the rounds' order. The first run of each is a probe: a command that
// cannot start, fails (unless IgnoreFailure) or times out is an error
// here, before anything is measured, with the last line it printed.
func (s *session) warmup(ctx context.Context) error {
	t0 := time.Now()
	defer func() {
		s.budget.Spend("warm-up", time.Since(t0), fmt.Sprintf("%d %s", s.warmRuns, plural(s.warmRuns, "run", "runs")))
	}()
	steps := s.cfg.Warmup * len(s.units) * len(s.labels)
	step := 0
	capture := s.cfg.Output == OutputNull || s.cfg.Output == OutputPipe
	for w := 1; w <= s.cfg.Warmup; w++ {
		for _, u := range s.units {
			outs := make([]*outputDigest, len(s.labels))
			for _, si := range experiment.SideOrder(s.cfg.Order, w, len(s.labels)) {
				step++
				s.progress(Progress{Phase: PhaseWarmup, Step: step, Steps: steps, Current: s.current(u, si)})
				if err := s.aux(ctx, "--prepare", u.prepare[si]); err != nil {
					return err
				}
				m, err := s.runner.run(ctx, u.argv[si], s.timeout, capture && w == 1)
				s.warmRuns++
				s.leftBehind(u, si, m)
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					return &CommandError{s.what(u, si) + " " + s.explain(err)}
				}
				if m.failed() && !s.cfg.ignores(m) {
					return s.failure(u, si, m, "in its first run")
				}
				outs[si] = m.out
				if err := s.aux(ctx, "--conclude", u.conclude[si]); err != nil {
					return err
				}
			}
			if err := s.compareOutputs(u, outs); err != nil {
				return err
			}
		}
	}
	return nil
}

// what names side si of u for an error: "'gzip -1 f'" or "'gzip -{l} f'
// (l=1)".
func (s *session) what(u *unit, si int) string {
	w := fmt.Sprintf("%q", u.line[si])
	if len(u.bind) > 0 {
		w += " (" + u.key + ")"
	}
	return w
}

func (s *session) current(u *unit, si int) string {
	if len(u.bind) == 0 {
		return s.labels[si]
	}
	return s.labels[si] + " " + u.key
}

// A CommandError is a command that cannot be measured: it fails, cannot
// start or runs past its timeout before its first sample (in its first
// warm-up run, or its first timed run without warm-up).
type CommandError struct{ msg string }

func (e *CommandError) Error() string { return e.msg }

// failure is the error of a command that failed before it had a sample.
func (s *session) failure(u *unit, si int, m *measurement, when string) error {
	msg := fmt.Sprintf("%s failed %s: %s", s.what(u, si), when, m.status())
	if t := lastLine(m.tail); t != "" {
		msg += ": " + t
	} else if m.exit == 127 && len(s.cfg.Shell) > 0 {
		msg += " (the shell's status for a command not found)"
	}
	return &CommandError{msg + "; --ignore-failure measures it anyway, --output inherit shows what it printed"}
}

// timeShell measures the shell's start-up: ShellRuns runs of an empty
// command, whose median wall and CPU times are subtracted from every
// sample, as hyperfine subtracts its mean.
func (s *session) timeShell(ctx context.Context) error {
	if len(s.cfg.Shell) == 0 {
		return nil
	}
	t0 := time.Now()
	defer func() { s.budget.Spend("shell start-up", time.Since(t0), fmt.Sprintf("%d runs", ShellRuns)) }()
	argv := append(slices.Clone(s.cfg.Shell), "-c", "")
	var walls, cpus []float64
	for i := range ShellRuns {
		s.progress(Progress{Phase: PhaseShell, Step: i + 1, Steps: ShellRuns, Current: strings.Join(argv, " ") + "''"})
		m, err := s.runner.run(ctx, argv, s.timeout, i == 0)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("timing the shell (%s -c ''): %s", strings.Join(s.cfg.Shell, " "), s.explain(err))
		}
		if m.failed() {
			return fmt.Errorf("timing the shell: %s -c '' failed: %s %s", strings.Join(s.cfg.Shell, " "), m.status(), lastLine(m.tail))
		}
		walls = append(walls, m.wall.Seconds())
		cpus = append(cpus, (m.user + m.sys).Seconds())
	}
	s.shellWall = time.Duration(stats.Median(walls) * 1e9)
	s.shellCPU = time.Duration(stats.Median(cpus) * 1e9)
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
