package execbench

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// A Command is one side of a run: a command line, run as is or through
// the shell, with what runs before and after each of its timed runs.
type Command struct {
	// Line is the command line, with {name} where a parameter's value
	// goes.
	Line string
	// Label names the side in reports (--name); "" is Line.
	Label string
	// Prepare runs before, and Conclude after, every run of Line, warm-up
	// runs included, untimed (hyperfine's --prepare and --conclude).
	Prepare, Conclude string
	// Setup runs once per parameter value (combination) before the first
	// run of Line, and Cleanup once per value after the last, untimed,
	// their parameters substituted (hyperfine's --setup and --cleanup).
	// With interleaved rounds every setup runs before any command is
	// measured and every cleanup after the last round: per value in
	// hyperfine's order, each command's in the commands' order.
	Setup, Cleanup string
	// Names, when set, name the command in each combination of parameter
	// values, one per combination in hyperfine's order (the first
	// parameter varying fastest), its parameters substituted: what
	// hyperfine's --command-name given once per benchmark says. They
	// name the results of --export-json and the other exports; the side's
	// label is Label, else the names when they are all the same, else
	// Line.
	Names []string
}

// Defaults for Config's zero fields.
const (
	DefaultMinRounds = 10
	DefaultTime      = 60 * time.Second
	DefaultWarmup    = 1
	// ShellRuns is how many times the shell runs an empty command to
	// measure its start-up.
	ShellRuns = 30
)

// Where a command's output goes (Config.Output), as hyperfine's --output.
const (
	OutputNull    = "null"    // /dev/null (the default)
	OutputPipe    = "pipe"    // a pipe rigor reads and discards
	OutputInherit = "inherit" // rigor's own standard output and error
)

// InputNull is Config.Input's default: commands read /dev/null.
const InputNull = "null"

// Config describes a run: the commands, the parameters, how each run is
// done, when to stop and where the samples go.
type Config struct {
	// Commands are the sides; the first is the reference every other is
	// compared with.
	Commands []Command
	// Params are the parameter scans: one benchmark per combination of
	// their values. None: one benchmark, DefaultName.
	Params []Param
	// Shell, when set, runs every command as Shell... -c LINE ("sh",
	// "bash --norc" split into words), and the shell's own start-up,
	// measured with an empty command, is subtracted from every sample.
	// Empty runs each command directly, split into words as a shell
	// would (SplitWords); shell syntax is then an error.
	Shell []string
	// AuxShell runs the commands' Setup, Cleanup, Prepare and Conclude, which are not
	// timed: Shell when set, else "sh".
	AuxShell []string
	// Warmup is the number of untimed runs of every command per
	// benchmark before the rounds; negative means DefaultWarmup.
	Warmup int
	// Input is InputNull or a file every run reads from the start;
	// Output is OutputNull, OutputPipe, OutputInherit (to Stdout and
	// Stderr) or a file every run writes afresh.
	Input, Output  string
	Stdout, Stderr io.Writer
	// CheckOutput refuses, before timing, commands whose standard
	// outputs differ in their first warm-up runs: they do not do the same
	// work, and the faster is no winner. Without it a note says so. The
	// outputs are compared when Output is OutputNull or OutputPipe and
	// Warmup is at least 1.
	CheckOutput bool
	// IgnoreFailure records the runs of a command that exits non-zero
	// as any other; otherwise such a command is an error before
	// measuring, or is dropped from later rounds when it fails after
	// having succeeded.
	IgnoreFailure bool
	// IgnoreExitCodes, when set, limits IgnoreFailure to these exit
	// codes (hyperfine's --ignore-failure=1,2): a run that exits with
	// another code, or is killed by a signal, fails as without
	// IgnoreFailure.
	IgnoreExitCodes []int
	// Timeout stops (kills the process group of) a run that lasts
	// longer; zero means the whole time budget.
	Timeout time.Duration
	// KillLeftovers kills, as each run of a command ends, what it left
	// running in its process group (a server started with &). Either way
	// a run ends when its process does, and the run's notes name what
	// was left.
	KillLeftovers bool
	// MinRounds rounds always run (time permitting); then the run stops
	// when every comparison is resolved, after MaxRounds (0: no limit),
	// or when Time is spent. At least two rounds run.
	MinRounds, MaxRounds int
	Time                 time.Duration
	// Runs, when positive, is the number of rounds to run, exactly
	// (hyperfine's --runs): MinRounds and MaxRounds are set to it, the
	// stopping rule ends nothing early, and Time does not cut the rounds
	// short unless RunsTimed is set (an explicit --time); Time still
	// bounds a single run when Timeout is zero. The run's notes say the
	// rule was off.
	Runs      int
	RunsTimed bool
	// Order is experiment.OrderThueMorse (default) or OrderABBA; more
	// than two commands rotate.
	Order string
	// Seed makes the schedule (the benchmarks' order in a round)
	// reproducible.
	Seed uint64
	// Out is the results directory, which must be empty or new: run.json
	// is written there as the run goes.
	Out string
	// ID, Argv and Env are recorded in the Run.
	ID   string
	Argv []string
	Env  *model.Env
	// Analysis are the options of the stopping rule.
	Analysis analysis.Options
	// Observer, when set, is told which benchmark, side and round each
	// timed run belongs to and, with ProcessStats, gets its resource
	// usage (wait4's rusage, as package observe's RusageStats makes it);
	// Run stops it and records what Stop returns (package observe's
	// Observer fits).
	Observer     Observer
	ProcessStats bool
	// Annotate, when set, is called once measuring ends, to add notes to
	// the run (package observe's Annotate).
	Annotate func(*model.Run)
	// Progress, when set, is told what the run is doing.
	Progress func(Progress)
	// Log receives failures as they happen.
	Log io.Writer
}

// An Observer watches the system while a run measures (see package
// observe).
type Observer interface {
	Mark(benchmark, side string, round int)
	Pause()
	AddProcess(*model.ProcessStats)
	// Observations returns the intervals that have ended so far, for
	// the stopping rule's interim looks.
	Observations() []model.Observation
	Stop() []model.Observation
}

// Phases of a run, as reported in Progress.
const (
	PhaseSetup   = "setting up"
	PhaseWarmup  = "warming up"
	PhaseShell   = "timing the shell"
	PhaseMeasure = "measuring"
	PhaseCleanup = "cleaning up"
)

// Progress says what a run is doing (see experiment.Progress).
type Progress = experiment.Progress

// A ConfigError is a Config that cannot run: an empty command, one that
// is not found, shell syntax without a shell, a bad parameter. Nothing
// was run.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

func configErrorf(format string, args ...any) error {
	return &ConfigError{fmt.Errorf(format, args...)}
}

// defaults checks c and fills its zero fields.
func (c *Config) defaults() error {
	if len(c.Commands) == 0 {
		return configErrorf("no command to measure")
	}
	for i, cmd := range c.Commands {
		if strings.TrimSpace(cmd.Line) == "" {
			return configErrorf("command %d is empty", i+1)
		}
		if strings.ContainsRune(cmd.Line, 0) {
			return configErrorf("command %d contains a NUL byte", i+1)
		}
	}
	seen := map[string]bool{}
	for _, p := range c.Params {
		switch {
		case !validParamName(p.Name):
			return configErrorf("parameter name %q is empty or has a character ({}=/, or a blank) that makes {%s} ambiguous", p.Name, p.Name)
		case seen[p.Name]:
			return configErrorf("parameter %s is given twice", p.Name)
		case len(p.Values) == 0:
			return configErrorf("parameter %s has no values", p.Name)
		case !c.uses("{" + p.Name + "}"):
			return configErrorf("parameter %s: {%s} appears in no command (nor --prepare, --conclude, --setup or --cleanup)", p.Name, p.Name)
		}
		seen[p.Name] = true
	}
	if c.Warmup < 0 {
		c.Warmup = DefaultWarmup
	}
	switch {
	case c.CheckOutput && !c.checksOutput():
		return configErrorf("--check-output compares what the commands write to their standard output, which --output %s sends elsewhere", c.Output)
	case c.CheckOutput && c.Warmup == 0:
		return configErrorf("--check-output compares the commands' first warm-up runs: give --warmup 1 or more")
	}
	if len(c.AuxShell) == 0 {
		c.AuxShell = c.Shell
		if len(c.AuxShell) == 0 {
			c.AuxShell = []string{"sh"}
		}
	}
	switch {
	case c.Runs == 1 || c.Runs < 0:
		return configErrorf("runs %d: a paired comparison needs at least 2 rounds", c.Runs)
	case c.Runs > 0:
		c.MinRounds, c.MaxRounds = c.Runs, c.Runs
	}
	if c.MinRounds <= 0 {
		c.MinRounds = DefaultMinRounds
	}
	c.MinRounds = max(c.MinRounds, 2)
	switch {
	case c.MaxRounds < 0:
		return configErrorf("max rounds %d is negative", c.MaxRounds)
	case c.MaxRounds == 1:
		return configErrorf("max rounds 1: a paired comparison needs at least 2")
	case c.MaxRounds > 0 && c.MaxRounds < c.MinRounds:
		c.MinRounds = c.MaxRounds
	}
	if c.Time <= 0 {
		c.Time = DefaultTime
	}
	if c.Timeout < 0 {
		return configErrorf("timeout %v is negative", c.Timeout)
	}
	if c.Order == "" {
		c.Order = experiment.OrderThueMorse
	}
	if err := experiment.ValidOrder(c.Order); err != nil {
		return &ConfigError{err}
	}
	if c.Out == "" {
		return configErrorf("no results directory")
	}
	if c.Analysis.Resamples == 0 {
		c.Analysis = analysis.DefaultOptions()
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Input == "" {
		c.Input = InputNull
	}
	if c.Input != InputNull {
		f, err := os.Open(c.Input)
		if err != nil {
			return configErrorf("--input: %v", err)
		}
		fi, err := f.Stat()
		f.Close()
		if err == nil && fi.IsDir() {
			return configErrorf("--input %s is a directory", c.Input)
		}
	}
	switch c.Output {
	case "":
		c.Output = OutputNull
	case OutputNull, OutputPipe:
	case OutputInherit:
		if c.Stdout == nil {
			c.Stdout = os.Stdout
		}
		if c.Stderr == nil {
			c.Stderr = os.Stderr
		}
	default:
		if fi, err := os.Stat(c.Output); err == nil && fi.IsDir() {
			return configErrorf("--output %s is a directory", c.Output)
		}
	}
	for _, sh := range [][]string{c.Shell, c.AuxShell} {
		if len(sh) > 0 {
			if _, err := exec.LookPath(sh[0]); err != nil {
				return configErrorf("shell %s: %v", sh[0], unwrapExecError(err))
			}
		}
	}
	return nil
}

// ignores reports whether the failure of m, a run that failed, is to be
// measured as any other run.
func (c *Config) ignores(m *measurement) bool {
	if !c.IgnoreFailure {
		return false
	}
	return len(c.IgnoreExitCodes) == 0 || m.exit > 0 && slices.Contains(c.IgnoreExitCodes, m.exit)
}

// uses reports whether s appears in a command or an auxiliary command.
func (c *Config) uses(s string) bool {
	return slices.ContainsFunc(c.Commands, func(cmd Command) bool {
		return strings.Contains(cmd.Line, s) || strings.Contains(cmd.Prepare, s) || strings.Contains(cmd.Conclude, s) ||
			strings.Contains(cmd.Setup, s) || strings.Contains(cmd.Cleanup, s)
	})
}

// argv returns the words that run line: through the shell, or split.
func (c *Config) argv(line string) ([]string, error) {
	if len(c.Shell) > 0 {
		return append(slices.Clone(c.Shell), "-c", line), nil
	}
	words, err := SplitWords(line)
	if errors.Is(err, errEmpty) {
		return nil, fmt.Errorf("%q is empty once its parameters are substituted", line)
	}
	return words, err
}

// unwrapExecError drops exec's repetition of the name from a look-up
// error: "executable file not found in $PATH".
func unwrapExecError(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

// ParseShell turns a --shell value into the words that run a command:
// "none" (and "") is no shell, "default" is sh, anything else is a shell
// or a command line ("bash --norc") split into words.
func ParseShell(s string) ([]string, error) {
	switch strings.TrimSpace(s) {
	case "", "none":
		return nil, nil
	case "default":
		return []string{"sh"}, nil
	}
	words, err := SplitWords(s)
	if err != nil {
		return nil, fmt.Errorf("--shell %q: %v", s, err)
	}
	return words, nil
}
