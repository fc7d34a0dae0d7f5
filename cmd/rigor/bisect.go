package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/internal/bisect"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/store"
)

// bisectOptions are rigor bisect's flags and arguments.
type bisectOptions struct {
	measureOptions
	build      sideFlags // every commit's build settings (its rev unused)
	good, bad  string
	allCommits bool
	resume     string
	// given reports whether a flag was given on the command line, or
	// ("packages", "--") the packages or the arguments after --.
	given func(name string) bool
}

// bisectDefaultTime is --time's default for rigor bisect: a whole search.
const bisectDefaultTime = 15 * time.Minute

func newBisectCmd(s stdio) *cobra.Command {
	var o bisectOptions
	cmd := &cobra.Command{
		Use:   "bisect --good REV --bad REV [flags] [packages] [-- ARGS...]",
		Short: "Find the commit that changed a benchmark, with paired rounds at every step",
		Long: `bisect finds the commit between --good and --bad that changed a benchmark,
measuring as rigor ab does: every commit is built into test binaries (in a
temporary git worktree, with --tags, --env, --gcflags and --go as ab's
sides are) and run in interleaved, paired rounds.

First good and bad are measured against each other, to establish the
change to look for: its size, sign and interval. With no change between
them (its interval inside the noise band) bisect says so in one line and
exits 0. Otherwise each step measures a midpoint against both ends of the
range left, the three in interleaved rounds, until it can say which half
holds the change: a half holds part of it when its interval clears the
noise band and reaches beyond a quarter of the change, and none of it when
its interval lies within a quarter of the change. A change found in both
halves is searched for in both, so a change made in several commits is
reported as several commits, each with its share of the whole; a range
both of whose halves hold less than a quarter each is reported as a
gradual drift. Only one benchmark is searched for: --bench should select
one; when it selects several, the one whose change between good and bad
was largest is searched for, and bisect says so.

The chance that the search takes a wrong turn anywhere is at most --alpha,
by Bonferroni's inequality: a search of n commits allows at most
2*ceil(log2 n)+2 steps (enough for a change made in two commits), each
step reads two intervals (the halves) at up to 8 looks, and every
interval is read at confidence 1 - alpha/((steps+1)*2*8) (the +1 is the
first measurement of good against bad). A step's first look comes after
the rounds that the signed-rank interval needs at that confidence (14 for
--alpha 0.05 on 64 commits), or --min-rounds if more; each later look
comes half as many rounds again after the one before (14, 21, 32, 48,
72, 108, 162, 243); a step's look after its share of the time left
(--time left over the steps the ranges still pending would take as a
binary search) is its last once a half holds part of the change, so
that one noisy step does not spend the steps after it; a step still undecided at its last look leaves its
range, or the half it could not tell, unresolved, with the reason. The intervals reported are
at --confidence.

The commits searched are the first-parent history from good to bad (git
rev-list --first-parent), as the merges of a main branch; --all-commits
enters merged branches too (git rev-list --topo-order). A commit that
does not build, whose tests fail before timing, or whose benchmark is
missing or fails there, is skipped and its neighbours tried, as git
bisect skip does. Test binaries are
built once per commit and kept in the results directory (bin/), so a
commit measured in several steps is built once; each is linked with
several random function layouts, as rigor ab's sides are (--layouts),
with the same seeds at every step, and every link is kept by its seed.

--time bounds the whole search, builds included. Every measurement is a
run of its own in the results directory (--out, default .rigor/runs/ID),
recorded in the history store as rigor ab's are, so rigor history shows
each commit measured; the search's state is kept in bisect.json there.
Ctrl-C keeps what was measured, and --resume DIR continues from it, with
the settings the search was started with, which bisect.json keeps:
--tags, --env, --gcflags, --go, --bench, --cpu, --all-commits, the
packages and the arguments after --. Leave them out to resume with the
saved ones; one given with another value is refused (exit 2), as it would
compare commits built or run differently. A state file of an older rigor,
which keeps none, is resumed with the command line's, with a warning. The
other flags (--time, --benchtime, --min-rounds, the output's) are the
session's own. A step that fails for a reason that is not its midpoint's
(no repository to check the commits out from, a results directory that
cannot be written) stops the search with exit 2; --resume continues it
once that is mended.

Output is text, or --format json. Exit status: 0 when the search ended
(whatever it found, no change included), 2 for bad input, an
interrupted search or one a step's error stopped.`,
		Example: `  rigor bisect --good v1.2.0 --bad main --bench 'Sum64$' ./...
  rigor bisect --good HEAD~40 --bad HEAD --tags purego --bench Sum64/4KB .
  rigor bisect --resume .rigor/runs/20260101-120000`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.parsed(cmd, args)
			o.given = func(name string) bool {
				switch name {
				case "packages":
					return len(o.packages) > 0
				case "--":
					return cmd.ArgsLenAtDash() >= 0
				}
				return cmd.Flags().Changed(name)
			}
			if o.resume == "" && (o.good == "" || o.bad == "") {
				return usageErrorf("bisect needs --good and --bad (or --resume DIR)")
			}
			for _, name := range []string{"max-rounds", "max-regression", "allow-missing", "test", "correction", "style"} {
				if cmd.Flags().Changed(name) {
					return usageErrorf("--%s does not apply to rigor bisect (see rigor bisect --help)", name)
				}
			}
			if o.verdict.format != "text" && o.verdict.format != "json" {
				return usageErrorf("rigor bisect writes --format text or json, not %q", o.verdict.format)
			}
			return runBisect(cmd.Context(), &o, s)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.good, "good", "", "a `revision` before the change (anything git rev-parse accepts)")
	fs.StringVar(&o.bad, "bad", "", "a `revision` after the change")
	fs.BoolVar(&o.allCommits, "all-commits", false, "search the commits of merged branches too, not only the first-parent history")
	fs.StringVar(&o.resume, "resume", "", "continue the search whose results `directory` this is (its bisect.json)")
	o.build.registerBuild(fs, "")
	o.measureOptions.register(fs)
	// A search is longer than one comparison, and profiles of every
	// step would be noise.
	o.measure.budget = bisectDefaultTime
	fs.Lookup("time").DefValue = bisectDefaultTime.String()
	fs.Lookup("time").Usage = "wall-clock budget of the whole search, builds included"
	o.measure.profile = profileOff
	fs.Lookup("profile").DefValue = profileOff
	return cmd
}

// A bisectCommit is one commit of the range searched.
type bisectCommit struct {
	Hash, Subject string
	Date          time.Time
}

// short is the commit's abbreviated hash, its side label.
func (c bisectCommit) short() string { return c.Hash[:min(12, len(c.Hash))] }

// bisectState is what bisect.json keeps: enough to resume.
type bisectState struct {
	Good, Bad  string
	AllCommits bool
	// Settings are the build settings the search was started with, which
	// --resume keeps; nil in a state file of before they were saved.
	Settings *bisectSettings `json:",omitempty"`
	// Commits are good (index 0) to bad, in search order.
	Commits []bisectCommit
	// Benchmark is the key searched for once chosen; Pattern and Pkg
	// the -bench pattern and package that select it; Procs its
	// GOMAXPROCS (0: as the environment sets it).
	Benchmark, Pattern, Pkg string
	Procs                   int
	// Chosen says why Benchmark was chosen, when --bench selected
	// several.
	Chosen string `json:",omitempty"`
	// Alpha is the search's level; IntervalAlpha each interval's.
	Alpha, IntervalAlpha float64
	// Total is the change between good and bad at --confidence.
	Total  bisect.Interval
	Search *bisect.Search
	// Reports are the changes at --confidence of each step's halves, by
	// step; Runs the runs' directories, by step (0: good against bad).
	Rounds  int
	Runs    []string
	Elapsed time.Duration
	// NoChange, when set, says why there is nothing to search for.
	NoChange string `json:",omitempty"`
	// TimeSpent is set when the --time budget ended the search with
	// ranges still pending.
	TimeSpent bool `json:",omitempty"`
}

// bisectSettings are the settings a search measures every commit with:
// a search resumed with others would compare commits built or run
// differently.
type bisectSettings struct {
	Tags, GCFlags, Go string
	Env               []string `json:",omitempty"`
	// Args are the test binaries' arguments after --.
	Args     []string `json:",omitempty"`
	Bench    string
	CPU      string   `json:",omitempty"`
	Packages []string `json:",omitempty"`
}

// settings are the command line's settings, as the state keeps them.
func (o *bisectOptions) settings() *bisectSettings {
	return &bisectSettings{
		Tags: o.build.tags, GCFlags: o.build.gcflags, Go: o.build.toolchain, Env: o.build.env,
		Args: o.testArgs, Bench: o.measure.bench, CPU: o.measure.cpu, Packages: o.packages,
	}
}

// resumeSettings sets o's settings to those the search st was started
// with: a setting left out of the command line takes the saved value, and
// one given with another value is refused. A state that keeps none (an
// older rigor's) is resumed with the command line's, which are saved
// from then on, with a warning on warn.
func (o *bisectOptions) resumeSettings(st *bisectState, warn io.Writer) error {
	if st.Settings == nil {
		fmt.Fprintf(warn, "rigor: warning: %s keeps no build settings (an older rigor wrote it): resuming with this command line's --tags, --env, --gcflags, --go, --bench, --cpu, packages and arguments after --, which must be those the search was started with\n", filepath.Join(o.resume, bisectStateFile))
		st.Settings = o.settings()
		return nil
	}
	given := o.given
	if given == nil {
		given = func(string) bool { return false }
	}
	saved := st.Settings
	differs := func(what, was, now string) error {
		return usageErrorf("--resume %s: the search was started with %s %s, not %s: leave %s out to resume with it, or start a new search", o.resume, what, was, now, what)
	}
	for _, f := range []struct {
		name string
		now  *string
		was  string
	}{
		{"tags", &o.build.tags, saved.Tags},
		{"gcflags", &o.build.gcflags, saved.GCFlags},
		{"go", &o.build.toolchain, saved.Go},
		{"bench", &o.measure.bench, saved.Bench},
		{"cpu", &o.measure.cpu, saved.CPU},
	} {
		switch {
		case !given(f.name):
			*f.now = f.was
		case *f.now != f.was:
			return differs("--"+f.name, fmt.Sprintf("%q", f.was), fmt.Sprintf("%q", *f.now))
		}
	}
	for _, f := range []struct {
		name, what string
		now        *[]string
		was        []string
	}{
		{"env", "--env", &o.build.env, saved.Env},
		{"packages", "packages", &o.packages, saved.Packages},
		{"--", "arguments after --", &o.testArgs, saved.Args},
	} {
		switch {
		case !given(f.name):
			*f.now = f.was
		case !slices.Equal(*f.now, f.was):
			return differs(f.what, quotedList(f.was), quotedList(*f.now))
		}
	}
	if given("all-commits") && o.allCommits != st.AllCommits {
		return differs("--all-commits", fmt.Sprint(st.AllCommits), fmt.Sprint(o.allCommits))
	}
	return nil
}

// quotedList is list quoted, item by item, or "none".
func quotedList(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, " ")
}

const bisectStateFile = "bisect.json"

func (st *bisectState) save(dir string) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, bisectStateFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, bisectStateFile))
}

func loadBisectState(dir string) (*bisectState, error) {
	b, err := os.ReadFile(filepath.Join(dir, bisectStateFile))
	if err != nil {
		return nil, usageErrorf("--resume: %v", err)
	}
	var st bisectState
	if err := json.Unmarshal(b, &st); err != nil || len(st.Commits) < 2 {
		return nil, usageErrorf("--resume: %s is not a rigor bisect state file", filepath.Join(dir, bisectStateFile))
	}
	if st.Search != nil && st.Search.Skipped == nil {
		st.Search.Skipped = map[int]bool{}
	}
	return &st, nil
}

// bisectCommits lists the commits from good to bad, good first: the
// first-parent history unless all.
func bisectCommits(ctx context.Context, good, bad string, all bool) ([]bisectCommit, error) {
	hash := func(rev string) (string, error) {
		out, err := bisectGit(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
		if err != nil || out == "" {
			return "", usageErrorf("unknown revision %q", rev)
		}
		return out, nil
	}
	g, err := hash(good)
	if err != nil {
		return nil, err
	}
	b, err := hash(bad)
	if err != nil {
		return nil, err
	}
	if g == b {
		return nil, usageErrorf("--good and --bad are the same commit %s", g[:12])
	}
	if _, err := bisectGit(ctx, "merge-base", "--is-ancestor", g, b); err != nil {
		return nil, usageErrorf("--good %s is not an ancestor of --bad %s", good, bad)
	}
	args := []string{"log", "--format=%H%x00%aI%x00%s", "--reverse"}
	if all {
		args = append(args, "--topo-order")
	} else {
		args = append(args, "--first-parent")
	}
	out, err := bisectGit(ctx, append(args, "--ancestry-path", g+".."+b)...)
	if err != nil {
		return nil, err
	}
	commits := []bisectCommit{}
	gc, err := commitInfo(ctx, g)
	if err != nil {
		return nil, err
	}
	commits = append(commits, gc)
	for _, line := range strings.Split(out, "\n") {
		if c, ok := parseCommitLine(line); ok {
			commits = append(commits, c)
		}
	}
	if len(commits) < 2 || commits[len(commits)-1].Hash != b {
		return nil, usageErrorf("--bad %s is not reached from --good %s by first-parent history (try --all-commits)", bad, good)
	}
	return commits, nil
}

func commitInfo(ctx context.Context, hash string) (bisectCommit, error) {
	out, err := bisectGit(ctx, "log", "-1", "--format=%H%x00%aI%x00%s", hash)
	if err != nil {
		return bisectCommit{}, err
	}
	c, ok := parseCommitLine(out)
	if !ok {
		return c, fmt.Errorf("git log %s: unexpected output", hash)
	}
	return c, nil
}

func parseCommitLine(line string) (bisectCommit, bool) {
	f := strings.SplitN(line, "\x00", 3)
	if len(f) != 3 || f[0] == "" {
		return bisectCommit{}, false
	}
	t, _ := time.Parse(time.RFC3339, f[1])
	return bisectCommit{Hash: f[0], Date: t, Subject: f[2]}, true
}

// bisectGit runs git in the current directory; its error quotes git.
func bisectGit(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			return "", fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(firstLineOf(string(ee.Stderr))))
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return strings.TrimSpace(string(out)), nil
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// benchPattern is the -bench pattern that selects exactly the benchmark
// named name ("Sum64/4KB"), level by level.
func benchPattern(name string) string {
	levels := strings.Split(name, "/")
	for i, l := range levels {
		if i == 0 {
			l = "Benchmark" + l
		}
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	return strings.Join(levels, "/")
}

// bisector runs one search.
type bisector struct {
	o     *bisectOptions
	s     stdio
	opts  analysis.Options
	cfg   gotest.Config // the sides left out
	side  sideFlags
	dir   string // results directory
	st    *bisectState
	start time.Time
	prior time.Duration // elapsed in earlier sessions (--resume)
}

func runBisect(ctx context.Context, o *bisectOptions, s stdio) error {
	var st *bisectState
	if o.resume != "" {
		var err error
		if st, err = loadBisectState(o.resume); err != nil {
			return err
		}
		if (o.good != "" && o.good != st.Good) || (o.bad != "" && o.bad != st.Bad) {
			return usageErrorf("--resume %s searches from %s to %s: leave --good and --bad out, or give those", o.resume, st.Good, st.Bad)
		}
		if err := o.resumeSettings(st, s.err); err != nil {
			return err
		}
	}
	opts, cfg, err := o.config()
	if err != nil {
		return err
	}
	if _, err := o.build.side("x"); err != nil {
		return err
	}
	b := &bisector{o: o, s: s, opts: opts, cfg: cfg, side: o.build, start: time.Now(), st: st}
	if st != nil {
		b.dir, b.prior = o.resume, st.Elapsed
	} else {
		commits, err := bisectCommits(ctx, o.good, o.bad, o.allCommits)
		if err != nil {
			return err
		}
		b.st = &bisectState{Good: o.good, Bad: o.bad, AllCommits: o.allCommits, Settings: o.settings(), Commits: commits, Alpha: opts.Alpha}
		if b.dir, err = b.resultsDir(); err != nil {
			return err
		}
	}
	if err := b.search(ctx); err != nil {
		b.saveElapsed()
		if ctx.Err() != nil {
			fmt.Fprintf(s.err, "rigor: interrupted; what was measured is kept: rigor bisect --resume %s continues\n", b.dir)
			return &exitError{code: exitUsage, err: errors.New("interrupted")}
		}
		if b.st.Search != nil {
			fmt.Fprintf(s.err, "rigor: the search stopped; what was measured is kept: once the error below is mended, rigor bisect --resume %s continues\n", b.dir)
		}
		return err
	}
	b.saveElapsed()
	return b.emit()
}

func (b *bisector) saveElapsed() {
	b.st.Elapsed = b.prior + time.Since(b.start)
	if err := b.st.save(b.dir); err != nil {
		fmt.Fprintln(b.s.err, "rigor: saving the search's state:", err)
	}
}

// resultsDir makes the search's results directory.
func (b *bisector) resultsDir() (string, error) {
	if b.cfg.Out != "" {
		if err := os.MkdirAll(b.cfg.Out, 0o755); err != nil {
			return "", err
		}
		return b.cfg.Out, nil
	}
	root, err := store.ModuleRoot(".")
	if err != nil {
		return "", usageErrorf("%v", err)
	}
	_, dir, err := store.Open(root).NewRunDir(time.Now())
	return dir, err
}

// left is the time the search has left.
// --time is the budget of each session: a search resumed has --time
// again.
func (b *bisector) left() time.Duration {
	return b.o.measure.budget - time.Since(b.start)
}

// errTimeSpent is a step's error when the --time budget ended its rounds
// before a look could decide: the step is not taken, its range stays
// pending, and --resume measures it again.
var errTimeSpent = errors.New("the --time budget was spent")

// search runs (or resumes) the search.
func (b *bisector) search(ctx context.Context) error {
	st := b.st
	n := len(st.Commits) - 1
	st.IntervalAlpha = bisect.IntervalAlpha(st.Alpha, bisect.MaxSteps(n), bisect.Looks)
	if st.Search == nil && st.NoChange == "" {
		if err := b.establish(ctx); err != nil {
			return err
		}
		b.saveElapsed()
	}
	if st.NoChange != "" {
		return nil
	}
	for {
		r, mid, ok := st.Search.Next()
		if !ok {
			return nil
		}
		if b.left() <= 0 {
			st.TimeSpent = true
			return nil
		}
		if err := b.step(ctx, r, mid); errors.Is(err, errTimeSpent) {
			st.TimeSpent = true
			return nil
		} else if err != nil {
			return err
		}
		b.saveElapsed()
	}
}

// sides makes the sides of the given commits.
func (b *bisector) sides(idx ...int) ([]gotest.Side, error) {
	var sides []gotest.Side
	for _, i := range idx {
		f := b.side
		f.rev = b.st.Commits[i].Hash
		f.args = b.o.testArgs
		sd, err := f.side(b.st.Commits[i].short())
		if err != nil {
			return nil, err
		}
		sides = append(sides, sd)
	}
	return sides, nil
}

// runLooks measures sides in interleaved rounds, looking after each round
// of bisect.LookRounds: done says whether a look's report (at the search's
// interval level) ends the rounds, and progress whether it found enough
// to end them once the step's share of the time left is spent. It returns the run and the report of
// the look that decided (nil when the --time budget ended the rounds
// before one did); or measure's error, with the run when it measured
// nothing (errNothingMeasured: a side does not build, or lacks the
// benchmark), for the caller to judge (see skipReason).
func (b *bisector) runLooks(ctx context.Context, name string, sides []gotest.Side, reorder func(*model.Run) *model.Run, done, progress func(*analysis.Report) bool) (*model.Run, *analysis.Report, error) {
	cfg := b.cfg
	cfg.Sides = sides
	cfg.Out = freshDir(filepath.Join(b.dir, filepath.Base(b.dir)+"-"+name))
	cfg.BuildCache = filepath.Join(b.dir, "bin")
	cfg.Time = b.left()
	if b.st.Pattern != "" {
		cfg.Bench, cfg.Packages = b.st.Pattern, []string{b.st.Pkg}
		cfg.CPU = nil
		if b.st.Procs > 0 {
			cfg.CPU = []int{b.st.Procs}
		}
	}
	first := max(bisect.MinPairs(b.st.IntervalAlpha), b.o.measure.minRounds)
	looks := bisect.LookRounds(first)
	// The step's share of the time left: a look after it that made
	// progress is the step's last, so that one noisy step does not spend
	// the budget of the steps after it. Stopping at an earlier look of
	// the schedule keeps the error bound, which counts every look.
	steps := 1 + bisect.CeilLog2(len(b.st.Commits)-1)
	if b.st.Search != nil {
		steps = b.st.Search.StepsLeft()
	}
	share := b.left() / time.Duration(steps)
	stepStart := time.Now()
	cfg.MinRounds, cfg.MaxRounds = first, looks[len(looks)-1]
	lookOpts := b.opts
	lookOpts.Confidence = 1 - b.st.IntervalAlpha
	lookOpts.Correction = analysis.CorrectionNone
	lookOpts.Resamples = min(lookOpts.Resamples, 100)
	// A benchmark retires after two consecutive resolved looks, so once a
	// look decides, every later call says resolved; the decision is that
	// look's report.
	var decision *analysis.Report
	cfg.Unresolved = func(run *model.Run) ([]string, error) {
		if decision != nil {
			return nil, nil
		}
		var keys []string
		for _, bm := range run.Benchmarks {
			keys = append(keys, bm.Key())
		}
		k := rounds(run)
		if !slices.Contains(looks, k) {
			return keys, nil
		}
		rep, err := analysis.Analyze(reorder(run), lookOpts)
		if err != nil {
			return nil, err
		}
		if done(rep) || k == looks[len(looks)-1] || (time.Since(stepStart) >= share && progress(rep)) {
			decision = rep
			return nil, nil
		}
		return keys, nil
	}
	run, err := measure(ctx, cfg, b.s)
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	b.st.Runs = append(b.st.Runs, cfg.Out)
	if err != nil {
		return run, nil, err
	}
	b.st.Rounds += rounds(run)
	// Recorded as rigor ab's runs are; a failure to record is a line on
	// stderr.
	b.o.record.after(ctx, b.s.err, run, nil)
	return run, decision, nil
}

// freshDir returns path, or path-2, path-3, ... when it exists: a step cut
// short by --time is measured again on --resume under the same name, and
// measuring into the first attempt's directory failed before a sample,
// which read as the midpoint not building (it was skipped).
func freshDir(path string) string {
	p := path
	for i := 2; ; i++ {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p
		}
		p = fmt.Sprintf("%s-%d", path, i)
	}
}

// skipReason says whether a step's measuring, which returned run and err,
// found its midpoint (side label mid) one that cannot be measured, to be
// skipped as git bisect skip would, and why: it does not build (go list
// or go test -c fails there), its tests fail before timing, or its
// benchmark is missing or measured nothing there. Any other error (no
// repository to check the commits out from, a results directory that
// cannot be written, a setting gotest refuses, an end that measured
// nothing) is not the midpoint's and stops the search; so is a
// midpoint that measured.
func skipReason(run *model.Run, err error, mid string) (string, bool) {
	var ce *gotest.CheckError
	var le *gotest.ListError
	switch {
	case errors.As(err, &ce):
		return "its tests fail before timing", ce.Side == mid
	case errors.As(err, &le):
		return "go list fails there, so it does not build", le.Side == mid
	case run == nil || err != nil && !errors.Is(err, errNothingMeasured) || measuredOn(run, mid):
		return "", false
	}
	for _, bm := range run.Benchmarks {
		if m, ok := bm.Missing[mid]; ok {
			switch m.Kind {
			case model.MissingBuild:
				return "it does not build", true
			case model.MissingAbsent:
				return "its benchmark is missing", true
			}
			return "its benchmark fails there", true
		}
	}
	return "its benchmark measured nothing there", true
}

// rounds is the number of rounds run holds.
func rounds(run *model.Run) int {
	n := 0
	for _, bm := range run.Benchmarks {
		for _, m := range bm.Metrics {
			for _, s := range m.Samples {
				n = max(n, s.Round)
			}
		}
	}
	return n
}

// timeChange returns the change of side i+1 against the baseline of b's
// time metric that decides its verdict (wall or CPU time), or nil.
func timeChange(b *analysis.Benchmark, i int) *analysis.Change {
	var pick *analysis.Metric
	for j := range b.Metrics {
		m := &b.Metrics[j]
		if m.Decides() && (m.Unit == "sec/op" || m.Unit == "cpu-sec/op") {
			pick = m
			break
		}
	}
	if pick == nil || i >= len(pick.Changes) {
		return nil
	}
	return pick.Changes[i]
}

// interval is c as a log ratio, NaN when c is nil; negate turns a change
// from a to b into one from b to a.
func interval(c *analysis.Change, negate bool) bisect.Interval {
	if c == nil {
		return bisect.Interval{Est: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	iv := bisect.FromRatio(c.Estimate, c.Lo, c.Hi)
	if negate {
		iv = bisect.Interval{Est: -iv.Est, Lo: -iv.Hi, Hi: -iv.Lo}
	}
	return iv
}

func noiseLog(opts analysis.Options) float64 { return math.Log1p(opts.Noise) }

// establish measures good against bad, chooses the benchmark and starts
// the search.
func (b *bisector) establish(ctx context.Context) error {
	st := b.st
	n := len(st.Commits) - 1
	// The same tree at both ends builds the same binaries: nothing to
	// measure.
	if _, err := bisectGit(ctx, "diff", "--quiet", st.Commits[0].Hash, st.Commits[n].Hash, "--"); err == nil {
		st.NoChange = fmt.Sprintf("no change between good %s and bad %s: their trees are identical", st.Commits[0].short(), st.Commits[n].short())
		return nil
	}
	sides, err := b.sides(0, n)
	if err != nil {
		return err
	}
	noise := noiseLog(b.opts)
	same := func(r *model.Run) *model.Run { return r }
	established := func(rep *analysis.Report, want func(bisect.Part) bool) bool {
		for i := range rep.Benchmarks {
			if want(bisect.Established(interval(timeChange(&rep.Benchmarks[i], 0), false), noise)) {
				return true
			}
		}
		return false
	}
	run, dec, err := b.runLooks(ctx, "good-bad", sides, same, func(rep *analysis.Report) bool {
		return !established(rep, func(p bisect.Part) bool { return p == bisect.Undecided })
	}, func(rep *analysis.Report) bool {
		return established(rep, func(p bisect.Part) bool { return p == bisect.Holds })
	})
	if errors.Is(err, errNothingMeasured) {
		return usageErrorf("good %s and bad %s: no benchmark matching %q was measured on both (see the notes above)", st.Commits[0].short(), st.Commits[n].short(), b.cfg.Bench)
	}
	if err != nil {
		return err
	}
	if dec == nil {
		st.NoChange = fmt.Sprintf("inconclusive between good %s and bad %s: the --time budget was spent before the change could be established", st.Commits[0].short(), st.Commits[n].short())
		return nil
	}
	rep, err := analysis.Analyze(run, b.opts)
	if err != nil {
		return usageErrorf("%v", err)
	}
	best, measured := -1, 0
	undecided := 0
	for i := range dec.Benchmarks {
		iv := interval(timeChange(&dec.Benchmarks[i], 0), false)
		if math.IsNaN(iv.Est) {
			continue
		}
		measured++
		switch bisect.Established(iv, noise) {
		case bisect.Holds:
			if best < 0 || math.Abs(iv.Est) > math.Abs(interval(timeChange(&dec.Benchmarks[best], 0), false).Est) {
				best = i
			}
		case bisect.Undecided:
			undecided++
		}
	}
	if best < 0 {
		what := "no change"
		if undecided > 0 {
			what = "inconclusive"
		}
		st.NoChange = fmt.Sprintf("%s between good %s and bad %s", what, st.Commits[0].short(), st.Commits[n].short())
		if measured == 1 {
			iv := interval(timeChange(&rep.Benchmarks[0], 0), false)
			st.NoChange += fmt.Sprintf(" in %s: %s", rep.Benchmarks[0].FullName, fmtInterval(iv))
		}
		if undecided > 0 {
			st.NoChange += fmt.Sprintf(" (the interval reaches beyond the noise band after %d rounds; a larger --min-rounds, %d now, gives every step more)", rounds(run), b.o.measure.minRounds)
		} else {
			st.NoChange += fmt.Sprintf(" (inside the ±%g%% noise band)", b.opts.Noise*100)
		}
		return nil
	}
	bm := run.Benchmarks[best]
	st.Benchmark, st.Pattern, st.Pkg, st.Procs = bm.Key(), benchPattern(bm.Name), bm.Pkg, 0
	if len(b.cfg.CPU) > 0 {
		st.Procs = bm.Procs
	}
	if measured > 1 {
		st.Chosen = fmt.Sprintf("--bench %q selects %d benchmarks; searching for %s, whose change from good to bad was the largest", b.cfg.Bench, measured, bm.FullName())
		fmt.Fprintln(safeLines{b.s.err}, "rigor:", st.Chosen)
	}
	st.Total = interval(timeChange(&rep.Benchmarks[best], 0), false)
	total := interval(timeChange(&dec.Benchmarks[best], 0), false)
	st.Search = bisect.New(n, total, noise)
	st.Search.Total = st.Total
	st.Search.Pending[0].Change = st.Total
	return nil
}

// step measures mid against the ends of r.
func (b *bisector) step(ctx context.Context, r bisect.Range, mid int) error {
	st := b.st
	sides, err := b.sides(r.Lo, mid, r.Hi)
	if err != nil {
		return err
	}
	// The analysis compares every side with the midpoint: the first side
	// of the view it reads.
	midFirst := func(run *model.Run) *model.Run {
		v := *run
		if len(v.Sides) == 3 {
			v.Sides = []model.Side{run.Sides[1], run.Sides[0], run.Sides[2]}
		}
		return &v
	}
	halves := func(rep *analysis.Report) (l, h bisect.Interval) {
		if len(rep.Benchmarks) != 1 {
			nan := interval(nil, false)
			return nan, nan
		}
		return interval(timeChange(&rep.Benchmarks[0], 0), true), interval(timeChange(&rep.Benchmarks[0], 1), false)
	}
	name := fmt.Sprintf("step%02d-%s", len(st.Search.Steps)+1, st.Commits[mid].short())
	run, dec, err := b.runLooks(ctx, name, sides, midFirst, func(rep *analysis.Report) bool {
		return st.Search.Done(halves(rep))
	}, func(rep *analysis.Report) bool {
		return st.Search.Progress(halves(rep))
	})
	if why, ok := skipReason(run, err, st.Commits[mid].short()); ok {
		// The subject is the commit's author's: escaped, as is why
		// (which may quote a compiler).
		fmt.Fprintf(safeLines{b.s.err}, "rigor: skipping %s (%s): %s\n", st.Commits[mid].short(), st.Commits[mid].Subject, why)
		st.Search.Skip(mid)
		return nil
	}
	if err != nil && !errors.Is(err, errNothingMeasured) {
		return err
	}
	for _, end := range []int{r.Lo, r.Hi} {
		if !measuredOn(run, st.Commits[end].short()) {
			return usageErrorf("%s, measured before, measured nothing in this step (see the notes above)", st.Commits[end].short())
		}
	}
	if dec == nil {
		return errTimeSpent
	}
	rep, err := analysis.Analyze(midFirst(run), b.opts)
	if err != nil {
		return usageErrorf("%v", err)
	}
	l, h := halves(dec)
	lr, hr := halves(rep)
	step := st.Search.Apply(mid, l, h, lr, hr, rounds(run))
	fmt.Fprintf(safeLines{b.s.err}, "rigor: step %d: %s\n", len(st.Search.Steps), stepWords(st, step, lr, hr))
	return nil
}

// measuredOn reports whether run has samples on side.
func measuredOn(run *model.Run, side string) bool {
	for _, bm := range run.Benchmarks {
		for _, m := range bm.Metrics {
			for _, s := range m.Samples {
				if s.Side == side {
					return true
				}
			}
		}
	}
	return false
}
