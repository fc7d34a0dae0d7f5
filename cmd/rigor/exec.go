package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/execbench"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
	"github.com/rigorbench/rigor/store"
)

// execOptions are rigor exec's flags and arguments.
type execOptions struct {
	verdict   verdictFlags
	commands  []string
	names     []string
	reference string
	warmup    int
	// minRounds and maxRounds are --min-rounds and --max-rounds
	// (hyperfine's --min-runs and --max-runs); runs is --runs, both at
	// once.
	minRounds, maxRounds, runs int
	minSet, maxSet, runsSet    bool
	timeSet                    bool
	budget                     time.Duration
	timeout                    time.Duration
	killLeftovers              bool
	order                      string
	out                        string
	shell                      string
	shellSet                   bool
	noShell                    bool
	prepare, conclude          []string
	setup, cleanup             []string
	// scans and lists are -P NAME LO HI and -L NAME VALUES, their words
	// joined by paramSep (see joinParamArgs); step is -D.
	scans, lists  []string
	step          string
	ignoreFailure ignoreFailureFlag
	input, output string
	showOutput    bool
	checkOutput   bool
	exportJSON    string
	hf            hyperfineFlags
	record        recordFlags
	// argv is the command line the results record (os.Args).
	argv []string
}

// paramSep joins the words of -P and -L into one flag value: no argument
// can hold a NUL byte.
const paramSep = "\x00"

// newExecCmd builds rigor exec, reading and writing s.
func newExecCmd(s stdio) *cobra.Command {
	var o execOptions
	cmd := &cobra.Command{
		Use:   "exec [flags] 'CMD A' 'CMD B' ...",
		Short: "Compare whole commands in interleaved, paired rounds (hyperfine, done rigorously)",
		Long: `exec times whole commands, as hyperfine does, but in interleaved rounds: each
round runs every command once, back to back in counterbalanced order (two
commands alternate in Thue-Morse order, more rotate), so round i of each ran
under the same conditions and the commands are compared as pairs. The first
command is the reference; --reference names another, or adds one.

Each run records its wall time, its CPU time (user plus system) and its peak
RSS from wait4's rusage, and its exit status. The verdict's clock is wall
time, or CPU time when the machine was busy and the command is CPU-bound (as
for rigor ab). Peak RSS is recorded only above rigor's own resident set,
which Linux reports as the peak of a child that uses less.

Rounds go on until every comparison is resolved (its confidence interval
clears the noise band or lies inside it) after --min-rounds, or until --time
or --max-rounds. Since the rule looks at the data as it goes, it ends the run
early on a change only when its corrected p-value is below 0.001; the verdict
printed at the end uses --alpha as usual. Before the rounds, --warmup untimed
runs of every command (1 by default; hyperfine's default is 0) also check
that each command runs: one that cannot start, fails or hangs is an error
before anything is measured. The first warm-up run's standard output is
compared with the reference's (unless --output sends it elsewhere): when
they differ a note says the commands may not do the same work, and with
--check-output the run is refused before timing (exit 2), since the
faster of two commands that compute different things is no winner.

A run ends when its process does, and is timed to there: what the command
leaves running in the background (in its process group) is not waited for,
nor its hold on the output; the notes name it, and --kill-leftovers kills it
as each run ends.

Commands run directly, split into words as a shell would (quotes and
backslashes work); shell syntax (pipes, redirections, variables, patterns)
is refused unless --shell names a shell. With a shell, its own start-up,
timed by running it with an empty command, is subtracted from every sample,
as hyperfine does, and a note says so. --setup, --cleanup, --prepare and
--conclude are not timed and always run through a shell (--shell, or sh).

hyperfine's flags keep their meaning: --warmup, --prepare and --conclude
(each run; once for all commands or once per command), --setup and --cleanup
(once per command and parameter value, before the first run and after the
last, in hyperfine's order; given once for all commands or once per command:
with interleaved rounds every setup runs before any command is measured, and
every cleanup after the last round), -P NAME MIN MAX [-D STEP] and -L NAME A,B,C (each value, or
combination of values, is a benchmark of its own, {NAME} substituted),
--shell and -N, -i/--ignore-failure[=CODES], --input, --output (and
--show-output), -n/--command-name (once per command, or with parameters once
per benchmark in hyperfine's order), --reference and --reference-name,
--min-runs and --max-runs, and --runs: exactly that many rounds, the stopping
rule off (a note says so; --time, when given too, still ends them). --style
takes hyperfine's values for colour and progress (basic: neither; nocolor;
color; full; none: no report, only the exports and the exit status) and keeps
rigor's layout.

--export-json writes hyperfine's JSON shape (rigor compare reads it, and
hyperfine's). --export-csv, --export-markdown, --export-asciidoc and
--export-orgmode write hyperfine's tables, one row per command and parameter
value in hyperfine's order, with rigor's columns added: the median and its
confidence interval next to hyperfine's mean ± standard deviation; Relative,
the command's wall time over the reference's in the same parameter value (the
paired Hodges-Lehmann ratio with its interval; with one command, the median
over the fastest median, as hyperfine relates rows to the fastest, and no
interval); and the verdict against the reference, "(CPU time)" when CPU time
decided it. -u/--time-unit (second, millisecond, microsecond or nanosecond)
sets the unit of those tables, and --sort their order (command, or
mean-time: by median). The terminal table keeps its own scale and order. The
report is written to standard output or -o FILE in --format, as rigor
compare's.

hyperfine's --min-benchmarking-time and --debug-mode have no rigor meaning and
are refused.

Every sample is written as it arrives to --out (default .rigor/runs/ID in the
module root, or in the current directory outside a module) as run.json.
The result is recorded in the history store as rigor run's is (--record,
--no-record, --store): each command is a series of its own, at the commit
checked out here.

Exit status: 0, or 1 when --max-regression is set and a command regressed by
more than it against the reference, or 2 for bad input (an empty command, one
that is not found, always fails or outlives --timeout, a parameter range that
is empty or too large), a command that failed or outlived --timeout after it
was measured (it is dropped from later rounds; unless --ignore-failure), or
an interrupted run (its partial verdict is printed). A run that exits 2 is
not recorded.`,
		Example: `  rigor exec 'sleep 0.01' 'sleep 0.012'
  rigor exec -N --warmup 3 'gzip -1 -c data' 'gzip -9 -c data'
  rigor exec --max-regression 5 --reference './old-build x' './new-build x'
  rigor exec -P threads 1 8 'make -j {threads}' --prepare 'make clean'
  rigor exec --shell bash 'grep -c foo *.txt | tail -1' --export-json hf.json`,
		// -P and -L take several words each, which cobra's flag parsing
		// cannot say: exec parses its own flags (see joinParamArgs).
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			args, err := joinParamArgs(fs, args)
			if err != nil {
				return err
			}
			if err := fs.Parse(args); err != nil {
				return usageErrorf("%v", err)
			}
			if help, _ := fs.GetBool("help"); help {
				return cmd.Help()
			}
			o.commands = fs.Args()
			o.minSet = fs.Changed("min-rounds") || fs.Changed("min-runs")
			o.maxSet = fs.Changed("max-rounds") || fs.Changed("max-runs")
			o.runsSet, o.shellSet, o.timeSet = fs.Changed("runs"), fs.Changed("shell"), fs.Changed("time")
			o.argv = os.Args
			return runExec(cmd.Context(), &o, s)
		},
	}
	o.register(cmd.Flags())
	return cmd
}

func (o *execOptions) register(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&o.names, "name", "n", nil, "`NAME` of a command in reports and --export-json, in order (repeatable; hyperfine's --command-name)")
	// --command-name is hyperfine's name for --name: one flag, so that
	// -n a --command-name b names two commands (two flags sharing a
	// slice each replaced it on first use, and a was lost).
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "command-name" {
			name = "name"
		}
		return pflag.NormalizedName(name)
	})
	fs.StringVar(&o.reference, "reference", "", "the `CMD` every other is compared with: one of the commands (or a --name), or another command to measure first (default: the first command)")
	fs.IntVarP(&o.warmup, "warmup", "w", execbench.DefaultWarmup, "untimed runs of every command (per parameter value) before the rounds; the first also checks that it runs")
	fs.IntVar(&o.minRounds, "min-rounds", execbench.DefaultMinRounds, "rounds to run before the stopping rule may end the run")
	fs.IntVarP(&o.minRounds, "min-runs", "m", execbench.DefaultMinRounds, "same as --min-rounds: a round runs every command once")
	fs.IntVar(&o.maxRounds, "max-rounds", 0, "stop after this many rounds (0: no limit)")
	fs.IntVarP(&o.maxRounds, "max-runs", "M", 0, "same as --max-rounds")
	fs.IntVarP(&o.runs, "runs", "r", 0, "run exactly this many rounds: the stopping rule is off, and --time ends them early only when given too")
	fs.DurationVar(&o.budget, "time", execbench.DefaultTime, "wall-clock budget for warm-up and rounds (setup and cleanup excluded)")
	fs.BoolVar(&o.killLeftovers, "kill-leftovers", false, "kill what a command leaves running in its process group (a process started with &) as each of its runs ends; without it, they are named in the notes and left running")
	fs.DurationVar(&o.timeout, "timeout", 0, "stop a run (and every process it started) that lasts longer than this, and report it (default: the whole --time budget)")
	fs.StringVar(&o.order, "order", experiment.OrderThueMorse, "order of two commands across rounds: thue-morse or abba (more commands rotate)")
	fs.StringVar(&o.out, "out", "", "results `directory` (default .rigor/runs/ID in the module root, or the current directory)")
	fs.StringVarP(&o.shell, "shell", "S", "none", "run the commands through this `shell` (sh, \"bash --norc\", default for sh) and subtract its start-up; none runs them directly")
	fs.BoolVarP(&o.noShell, "no-shell", "N", false, "run the commands directly, without a shell (the default; as --shell none)")
	fs.StringArrayVarP(&o.prepare, "prepare", "p", nil, "`CMD` to run before every run, untimed: once for all commands, or once per command in order")
	fs.StringArrayVarP(&o.conclude, "conclude", "C", nil, "`CMD` to run after every run, untimed: once for all commands, or once per command in order")
	fs.StringArrayVarP(&o.setup, "setup", "s", nil, "`CMD` to run once per command and parameter value before the first run: once for all commands, or once per command in order")
	fs.StringArrayVarP(&o.cleanup, "cleanup", "c", nil, "`CMD` to run once per command and parameter value after the last run: once for all commands, or once per command in order")
	fs.StringArrayVarP(&o.scans, "parameter-scan", "P", nil, "`NAME MIN MAX`: one benchmark per value from MIN to MAX (step 1, or -D), substituted for {NAME}")
	fs.StringVarP(&o.step, "parameter-step-size", "D", "", "the `STEP` of -P's range (decimals allowed: -P d 0.3 0.7 -D 0.2)")
	fs.StringArrayVarP(&o.lists, "parameter-list", "L", nil, "`NAME A,B,C`: one benchmark per value, substituted for {NAME} (repeatable: every combination)")
	fs.VarPF(&o.ignoreFailure, "ignore-failure", "i", "measure runs that exit non-zero like any other, rather than refusing the command; =1,2 only those exit codes (hyperfine's --ignore-failure=CODES)").NoOptDefVal = allNonZero
	fs.StringVar(&o.input, "input", execbench.InputNull, "what the commands read: null or a `FILE` (read from its start by every run)")
	fs.StringVar(&o.output, "output", execbench.OutputNull, "where the commands' output goes: null, pipe (read and discarded), inherit, or a `FILE` (rewritten by every run)")
	fs.BoolVar(&o.showOutput, "show-output", false, "same as --output inherit")
	fs.BoolVar(&o.checkOutput, "check-output", false, "refuse, before timing, commands whose standard outputs differ in their first warm-up runs (without it, a note says so)")
	fs.StringVar(&o.exportJSON, "export-json", "", "also write the runs to `FILE` in hyperfine's --export-json shape")
	o.hf.register(fs)
	o.record.register(fs)
	// The verdict flags, with -o's long name --report: --output is
	// hyperfine's.
	vf := pflag.NewFlagSet("verdict", pflag.ContinueOnError)
	o.verdict.register(vf)
	vf.VisitAll(func(f *pflag.Flag) {
		if f.Name == "output" {
			report := *f
			report.Name, report.Usage = "report", "write the report to this `file` instead of standard output"
			fs.AddFlag(&report)
			return
		}
		fs.AddFlag(f)
	})
}

// joinParamArgs rewrites -P NAME MIN MAX and -L NAME VALUES (and their
// long forms) into one argument each, their words joined by paramSep,
// so that the flag set can parse them; every other argument stays, a
// flag's value included (--prepare -P is a --prepare of "-P").
func joinParamArgs(fs *pflag.FlagSet, args []string) ([]string, error) {
	words := map[string]int{"parameter-scan": 3, "parameter-list": 2}
	short := map[byte]string{'P': "parameter-scan", 'L': "parameter-list"}
	var out []string
	take := func(i int, name string, have []string) ([]string, int, error) {
		need := words[name] - len(have)
		if i+need >= len(args) {
			if name == "parameter-scan" {
				return nil, 0, usageErrorf("-P takes three words: NAME MIN MAX (-P threads 1 8)")
			}
			return nil, 0, usageErrorf("-L takes two words: NAME VALUES (-L cc gcc,clang)")
		}
		return append(have, args[i+1:i+1+need]...), i + need, nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...), nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			if _, ok := words[name]; ok {
				var have []string
				if hasVal {
					have = []string{val}
				}
				vals, j, err := take(i, name, have)
				if err != nil {
					return nil, err
				}
				out, i = append(out, "--"+name+"="+strings.Join(vals, paramSep)), j
				continue
			}
			out = append(out, a)
			if f := fs.Lookup(name); f != nil && !hasVal && f.NoOptDefVal == "" && i+1 < len(args) {
				out, i = append(out, args[i+1]), i+1
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			done := false
			for j := 1; j < len(a) && !done; j++ {
				if name, ok := short[a[j]]; ok {
					if j > 1 {
						out = append(out, a[:j])
					}
					var have []string
					if rest := strings.TrimPrefix(a[j+1:], "="); rest != "" {
						have = []string{rest}
					}
					vals, k, err := take(i, name, have)
					if err != nil {
						return nil, err
					}
					out, i, done = append(out, "--"+name+"="+strings.Join(vals, paramSep)), k, true
					continue
				}
				if f := fs.ShorthandLookup(a[j : j+1]); f != nil && f.NoOptDefVal == "" {
					// A shorthand that takes a value: the rest of the
					// argument, or the next one.
					out = append(out, a)
					if j == len(a)-1 && i+1 < len(args) {
						out, i = append(out, args[i+1]), i+1
					}
					done = true
				}
			}
			if !done {
				out = append(out, a)
			}
		default:
			out = append(out, a)
		}
	}
	return out, nil
}

// config checks the options and returns the configuration, without the
// results directory, environment and observer.
func (o *execOptions) config() (execbench.Config, error) {
	cfg := execbench.Config{
		Warmup:        o.warmup,
		Input:         o.input,
		Output:        o.output,
		IgnoreFailure: o.ignoreFailure.set,
		CheckOutput:   o.checkOutput,
		Timeout:       o.timeout,
		KillLeftovers: o.killLeftovers,
		MinRounds:     o.minRounds,
		MaxRounds:     o.maxRounds,
		Time:          o.budget,
		Order:         o.order,
		Out:           o.out,
		Argv:          o.argv,
	}
	cfg.IgnoreExitCodes = o.ignoreFailure.codes
	if len(o.commands) == 0 {
		return cfg, usageErrorf("no command to measure: rigor exec 'CMD A' 'CMD B' ...")
	}
	for i, c := range o.commands {
		if strings.TrimSpace(c) == "" {
			return cfg, usageErrorf("command %d is empty", i+1)
		}
	}
	switch {
	case o.warmup < 0:
		return cfg, usageErrorf("--warmup must not be negative, got %d", o.warmup)
	case o.runsSet && (o.minSet || o.maxSet):
		return cfg, usageErrorf("--runs sets both --min-rounds and --max-rounds: give one or the others")
	case o.runsSet && o.runs < 2:
		return cfg, usageErrorf("--runs must be at least 2 (a paired comparison needs pairs), got %d", o.runs)
	case o.minRounds < 2:
		return cfg, usageErrorf("--min-rounds must be at least 2, got %d", o.minRounds)
	case o.maxRounds < 0 || o.maxRounds == 1:
		return cfg, usageErrorf("--max-rounds must be 0 (no limit) or at least 2, got %d", o.maxRounds)
	case o.maxRounds > 0 && o.maxRounds < o.minRounds && o.minSet:
		return cfg, usageErrorf("--max-rounds %d is below --min-rounds %d", o.maxRounds, o.minRounds)
	case o.budget <= 0:
		return cfg, usageErrorf("--time must be positive, got %v", o.budget)
	case o.timeout < 0:
		return cfg, usageErrorf("--timeout must not be negative (0: the whole --time budget), got %v", o.timeout)
	case o.order != experiment.OrderThueMorse && o.order != experiment.OrderABBA:
		return cfg, usageErrorf("unknown --order %q (want %s or %s)", o.order, experiment.OrderThueMorse, experiment.OrderABBA)
	case o.noShell && o.shellSet && strings.TrimSpace(o.shell) != "none":
		return cfg, usageErrorf("-N runs the commands without a shell, and --shell %s with one: give one", o.shell)
	case o.showOutput && o.output != execbench.OutputNull && o.output != execbench.OutputInherit:
		return cfg, usageErrorf("--show-output is --output inherit, and --output says %s: give one", o.output)
	}
	if o.showOutput {
		cfg.Output = execbench.OutputInherit
	}
	if o.runsSet {
		cfg.Runs, cfg.RunsTimed = o.runs, o.timeSet
	}
	var err error
	if !o.noShell {
		if cfg.Shell, err = execbench.ParseShell(o.shell); err != nil {
			return cfg, usageErrorf("%v", err)
		}
	}
	if err := o.hf.check(o.reference); err != nil {
		return cfg, err
	}
	if cfg.Params, err = o.params(); err != nil {
		return cfg, err
	}
	combinations := 1
	for _, p := range cfg.Params {
		combinations *= len(p.Values)
	}
	labels, names, err := commandNames(o.names, len(o.commands), combinations)
	if err != nil {
		return cfg, err
	}
	prepare, err := perCommand("--prepare", o.prepare, len(o.commands))
	if err != nil {
		return cfg, err
	}
	conclude, err := perCommand("--conclude", o.conclude, len(o.commands))
	if err != nil {
		return cfg, err
	}
	setup, err := perCommand("--setup", o.setup, len(o.commands))
	if err != nil {
		return cfg, err
	}
	cleanup, err := perCommand("--cleanup", o.cleanup, len(o.commands))
	if err != nil {
		return cfg, err
	}
	for i, line := range o.commands {
		c := execbench.Command{Line: line, Prepare: prepare[i], Conclude: conclude[i], Setup: setup[i], Cleanup: cleanup[i]}
		if i < len(labels) {
			c.Label = labels[i]
		}
		if names != nil {
			c.Names = names[i]
		}
		cfg.Commands = append(cfg.Commands, c)
	}
	if o.reference != "" {
		cfg.Commands = withReference(cfg.Commands, o.reference, prepare, conclude, setup, cleanup)
		if o.hf.referenceName != "" {
			cfg.Commands[0].Label, cfg.Commands[0].Names = o.hf.referenceName, nil
		}
	}
	if err := checkFile("--export-json", o.exportJSON); err != nil {
		return cfg, err
	}
	switch o.output {
	case execbench.OutputNull, execbench.OutputPipe, execbench.OutputInherit:
	default:
		if err := checkFile("--output", o.output); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// perCommand spreads a repeatable per-run command over n commands:
// none, one for all, or one each.
func perCommand(flag string, values []string, n int) ([]string, error) {
	out := make([]string, n)
	switch len(values) {
	case 0:
	case 1:
		for i := range out {
			out[i] = values[0]
		}
	case n:
		copy(out, values)
	default:
		return nil, usageErrorf("%s given %d times for %s: give it once for all, or once per command", flag, len(values), words.Count(n, "command", "commands"))
	}
	return out, nil
}

// withReference puts the --reference command first: the command it
// names (by line or --name), or a new one, run as hyperfine 1.19 runs
// its reference, with the --prepare, --conclude, --setup and --cleanup
// given for all.
func withReference(cmds []execbench.Command, ref string, prepare, conclude, setup, cleanup []string) []execbench.Command {
	for i, c := range cmds {
		if c.Line == ref || c.Label == ref {
			return append([]execbench.Command{c}, slices.Delete(slices.Clone(cmds), i, i+1)...)
		}
	}
	r := execbench.Command{Line: ref}
	if len(cmds) > 0 && allSame(prepare) && allSame(conclude) {
		r.Prepare, r.Conclude = prepare[0], conclude[0]
	}
	if len(cmds) > 0 && allSame(setup) && allSame(cleanup) {
		r.Setup, r.Cleanup = setup[0], cleanup[0]
	}
	return append([]execbench.Command{r}, cmds...)
}

func allSame(s []string) bool {
	for _, v := range s {
		if v != s[0] {
			return false
		}
	}
	return true
}

// params turns -P/-D and -L into parameters.
func (o *execOptions) params() ([]execbench.Param, error) {
	var params []execbench.Param
	if len(o.scans) > 1 {
		return nil, usageErrorf("-P is given %d times: give one scan, and -L for more parameters", len(o.scans))
	}
	if o.step != "" && len(o.scans) == 0 {
		return nil, usageErrorf("-D is the step of -P's range, and there is no -P")
	}
	for _, s := range o.scans {
		w := strings.Split(s, paramSep)
		if len(w) != 3 {
			return nil, usageErrorf("-P takes three words: NAME MIN MAX (-P threads 1 8)")
		}
		values, err := execbench.ScanValues(w[1], w[2], o.step)
		if err != nil {
			return nil, usageErrorf("-P %s: %v", w[0], err)
		}
		params = append(params, execbench.Param{Name: w[0], Values: values})
	}
	for _, l := range o.lists {
		w := strings.Split(l, paramSep)
		if len(w) != 2 {
			return nil, usageErrorf("-L takes two words: NAME VALUES (-L cc gcc,clang)")
		}
		values, err := execbench.ListValues(w[1])
		if err != nil {
			return nil, usageErrorf("-L %s: %v", w[0], err)
		}
		params = append(params, execbench.Param{Name: w[0], Values: values})
	}
	return params, nil
}

// checkFile refuses, before a run of many minutes, a file that cannot be
// written: its directory missing, or a directory in its place.
func checkFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if dir, err := os.Stat(filepath.Dir(path)); err != nil || !dir.IsDir() {
		return usageErrorf("%s %s: %s is not a directory", flag, path, filepath.Dir(path))
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usageErrorf("%s %s: is a directory", flag, path)
	}
	return nil
}

// runExec measures the commands o names and prints the verdict on s.out
// (or -o), progress and failures on s.err.
func runExec(ctx context.Context, o *execOptions, s stdio) error {
	if slices.Contains(hyperfineStyles, o.verdict.style) {
		o.hf.style, o.verdict.style = o.verdict.style, "benchstat"
		o.verdict.color = o.hf.colour()
		if o.hf.style == "none" {
			s.out = io.Discard
		}
	}
	opts, err := o.verdict.options()
	if err != nil {
		return err
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	if err := o.record.check(); err != nil {
		return err
	}
	cfg.Analysis, cfg.Seed = opts, o.verdict.seed
	if cfg.Output == execbench.OutputInherit {
		cfg.Stdout, cfg.Stderr = s.out, s.err
	}
	madeOut := false
	if cfg.Out == "" {
		root, err := store.ModuleRoot(".")
		if err != nil {
			root = "." // not in a module: the current directory
		}
		if cfg.ID, cfg.Out, err = store.Open(root).NewRunDir(time.Now()); err != nil {
			return usageErrorf("%v", err)
		}
		madeOut = true
	} else {
		cfg.ID = filepath.Base(cfg.Out)
	}
	env := observe.CaptureEnv(ctx)
	cfg.Env = &env
	// No storage accounting: rigor exec takes no CPU profile, so no note
	// reads it, and it would cost a pread of /proc/self/io at both ends of
	// every run.
	cfg.Observer, cfg.ProcessStats, cfg.Annotate = observe.Start(ctx, 0, observe.WithoutStorageIO()), true, observe.Annotate
	cfg.Log = safeLines{s.err}
	var bar *progressBar
	if o.hf.progress() {
		bar = newProgressBar(s.err, cfg.Time)
	}
	if bar != nil {
		cfg.Progress, cfg.Log = bar.update, safeLines{bar}
	}
	res, err := execbench.Run(ctx, cfg)
	bar.done()
	if res == nil {
		if madeOut {
			os.Remove(cfg.Out) // still empty
		}
		if ctx.Err() != nil {
			return &exitError{code: exitUsage, err: errors.New("interrupted")}
		}
		return usageErrorf("%v", err)
	}
	interrupted := err != nil && ctx.Err() != nil
	if err != nil && !interrupted {
		return usageErrorf("%v", err)
	}
	if o.hf.style != "none" {
		fmt.Fprintf(s.err, "rigor: samples in %s\n", cfg.Out)
	}
	if o.exportJSON != "" {
		if werr := writeExport(o.exportJSON, res.Hyperfine()); werr != nil {
			return usageErrorf("%v", werr)
		}
	}
	if !sampled(res.Run) {
		return usageErrorf("no run of any command was measured")
	}
	rep, aerr := analysis.Analyze(res.Run, opts)
	if aerr != nil {
		return usageErrorf("%v", aerr)
	}
	if werr := o.hf.write(res, rep); werr != nil {
		return usageErrorf("%v", werr)
	}
	if interrupted {
		return finish(s, &o.verdict, rep, err) // never recorded
	}
	result := finish(s, &o.verdict, rep, nil)
	if dropped := res.Dropped(); len(dropped) > 0 && result == nil {
		// A command that failed mid-run fails the run, as in hyperfine
		// (unless --ignore-failure), and the run is not recorded.
		msg := dropped[0]
		if len(dropped) > 1 {
			msg += fmt.Sprintf("; %d more failed", len(dropped)-1)
		}
		return &exitError{code: exitUsage, err: fmt.Errorf("%s; the verdict above rests on the rounds before", msg)}
	}
	return o.record.afterPlacing(ctx, s.err, res.Run, result, atWorkingTree)
}

// writeExport writes exp to path through a temporary file.
func writeExport(path string, exp *model.HyperfineExport) error {
	if err := writeFileAtomic(path, exp.Write); err != nil {
		return fmt.Errorf("--export-json: %w", err)
	}
	return nil
}

// sampled reports whether run holds a sample.
func sampled(run *model.Run) bool {
	for _, b := range run.Benchmarks {
		for _, m := range b.Metrics {
			if len(m.Samples) > 0 {
				return true
			}
		}
	}
	return false
}
