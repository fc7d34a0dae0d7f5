package gotest

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// Checks say what is checked before a run times anything. By default
// each side's tests of the measured packages run once, with -test.short,
// from the test binaries already built: a side whose tests fail is not
// timed, since a faster wrong result is no improvement.
type Checks struct {
	// Skip skips the tests (rigor's --no-check).
	Skip bool
	// Race adds a run of the same tests built with -race (go test
	// -race -short), which catches the data races an optimisation
	// brings in. It needs a toolchain with the race detector.
	Race bool
	// Instrumented allows timing a build that instruments or
	// de-optimises the code (-race, -msan, -asan, -cover, -gcflags -N or
	// -l): its times are not the program's, so such a side is refused
	// unless this is set.
	Instrumented bool
}

// PhaseCheck is the Progress phase of the tests run before timing.
const PhaseCheck = "checking"

// A CheckError is a side whose tests failed before timing.
type CheckError struct {
	Side, Pkg string
	// Race is true when the failing run was the -race one.
	Race bool
	// Failed names the tests that failed, as go test prints them
	// ("TestDecode/golden"); empty when the binary failed otherwise (a
	// panic in init, a TestMain exiting non-zero, a time-out).
	Failed []string
	Err    error
}

func (e *CheckError) Error() string {
	what := "fail"
	if e.Race {
		what = "fail under -race"
	}
	if len(e.Failed) > 0 {
		what += " (" + words.JoinList(e.Failed, 3) + ")"
	} else if e.Err != nil {
		what += " (" + strings.SplitN(e.Err.Error(), ";", 2)[0] + ")"
	}
	return fmt.Sprintf("%s: the tests of %s %s, so %s is not timed: fix them, or skip this check with --no-check", e.Side, e.Pkg, what, e.Side)
}

func (e *CheckError) Unwrap() error { return e.Err }

// instrumented returns why settings s build code whose times are not the
// program's, or "": a -race, -msan, -asan or -cover build (in GOFLAGS),
// or -gcflags with -N (no optimisation) or -l (no inlining), in the
// side's GCFlags or in GOFLAGS.
func instrumented(s Settings) string {
	if f := gcflagsDebug(s.GCFlags); f != "" {
		return "its gcflags " + f + " turn off the compiler's optimisations"
	}
	goflags := ""
	for _, kv := range s.environ() {
		if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			goflags = v // the last one wins, as in exec.Cmd
		}
	}
	for _, f := range strings.Fields(goflags) {
		name, value, _ := strings.Cut(strings.TrimPrefix(f, "-"), "=")
		name = strings.TrimPrefix(name, "-")
		switch {
		case name == "race" || name == "msan" || name == "asan" || name == "cover" || name == "covermode" || name == "coverpkg":
			if value != "false" {
				return "GOFLAGS has " + f + ", which instruments the code"
			}
		case name == "gcflags":
			if d := gcflagsDebug(value); d != "" {
				return "GOFLAGS has " + f + ", which turns off the compiler's optimisations"
			}
		}
	}
	return ""
}

// gcflagsDebug returns the -N or -l in a -gcflags value ("all=-N -l",
// "-l", "pkg=-N"), or "".
func gcflagsDebug(v string) string {
	for _, f := range strings.Fields(v) {
		if !strings.HasPrefix(f, "-") {
			_, f, _ = strings.Cut(f, "=") // a package pattern
		}
		if f == "-N" || f == "-l" {
			return f
		}
	}
	return ""
}

// checkInstrumented refuses a side built with instrumentation, unless
// allowed.
func checkInstrumented(c *Config) error {
	if c.Check.Instrumented {
		return nil
	}
	for _, sd := range c.Sides {
		if why := instrumented(sd.Settings); why != "" {
			return fmt.Errorf("%s: %s, so its times are not the program's: not timed (--force times it anyway)", sd.Label, why)
		}
	}
	return nil
}

// check runs each side's tests of the measured packages once, before any
// sample, and returns a *CheckError for the first side whose tests fail.
// What failed is logged with its output's tail.
func (s *session) check(ctx context.Context) error {
	if len(s.pkgs) == 0 {
		return nil
	}
	if s.cfg.Check.Skip {
		s.run.Notes = append(s.run.Notes, checkNote("The sides' tests were not run before timing (--no-check): nothing says the sides compute the same, correct results."))
		return nil
	}
	steps := len(s.pkgs) * len(s.sides)
	if s.cfg.Check.Race {
		steps *= 2
	}
	step := 0
	for _, sd := range s.sides {
		for _, pkg := range s.pkgs {
			bin := sd.bins[pkg]
			step++
			s.progress(Progress{Phase: PhaseCheck, Step: step, Steps: steps, Current: sd.Label + " " + pkg})
			out, err := bin.exec(ctx, s.cfg.Timeout, "-test.short", "-test.count=1", "-test.bench=^$")
			if err := s.checkFailed(ctx, sd.Label, pkg, false, out, err); err != nil {
				return err
			}
			if !s.cfg.Check.Race {
				continue
			}
			step++
			s.progress(Progress{Phase: PhaseCheck, Step: step, Steps: steps, Current: sd.Label + " " + pkg + " -race"})
			out, err = raceTest(ctx, sd.Settings, bin.Pkg, s.cfg.Timeout)
			if err := s.checkFailed(ctx, sd.Label, pkg, true, out, err); err != nil {
				return err
			}
		}
	}
	n := len(s.pkgs) * len(s.sides)
	what := "tests"
	if s.cfg.Check.Race {
		what = "tests, and under -race,"
	}
	passed := checkNote(fmt.Sprintf(
		"Before timing, each side's %s passed with -test.short (%d %s).", what, n, words.Plural(n, "test binary", "test binaries")))
	passed.Evidence = map[string]float64{"passed": float64(n)}
	s.run.Notes = append(s.run.Notes, passed)
	return nil
}

// checkNote is a run note about the tests run before timing; the note
// that they passed has Evidence "passed", the number of test binaries
// (analysis.Routine leaves it for -v).
func checkNote(text string) model.Note {
	return model.Note{Kind: model.NoteBuild, Source: source, Topic: "check", Text: text}
}

// checkFailed turns a failed check run into a *CheckError, logging what
// it printed; nil when the run passed.
func (s *session) checkFailed(ctx context.Context, side, pkg string, race bool, out *Output, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	ce := &CheckError{Side: side, Pkg: pkg, Race: race, Err: err}
	tail := ""
	if out != nil {
		ce.Failed = failedTests(out.Combined)
		tail = words.Tail(out.Combined, tailLines)
		if m := flagError.FindString(out.Combined); m != "" {
			// The test binary's usage follows its complaint, which the
			// tail would leave out.
			ce.Err, tail = &RunError{Reason: m}, m
		}
	}
	if tail == "" {
		tail = err.Error()
	}
	fmt.Fprintf(s.cfg.Log, "rigor: %s\n%s\n", ce, indent(tail))
	return ce
}

// flagError is the flag package's complaint about an argument, printed
// before the test binary's usage.
var flagError = regexp.MustCompile(`(?m)^(flag provided but not defined|invalid value|flag needs an argument|bad flag syntax)[^\n]*`)

// failLine is go test's line for a failed test: "--- FAIL: TestX (0.00s)",
// indented for a subtest.
var failLine = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

// failedTests returns the tests go test's output says failed, in order,
// once each.
func failedTests(output string) []string {
	var names []string
	for _, m := range failLine.FindAllStringSubmatch(output, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	// A parent fails with its subtests: name only the leaves.
	var leaves []string
	for _, n := range names {
		if !slices.ContainsFunc(names, func(o string) bool { return strings.HasPrefix(o, n+"/") }) {
			leaves = append(leaves, n)
		}
	}
	return leaves
}

// raceTest runs pkg's tests built with -race, as go test -race -short
// does, with s's settings and arguments.
func raceTest(ctx context.Context, s Settings, pkg Package, timeout time.Duration) (*Output, error) {
	args := []string{"test", "-race", "-short", "-count=1", "-run=.", "-bench=^$"}
	if s.Tags != "" {
		args = append(args, "-tags", s.Tags)
	}
	if s.GCFlags != "" {
		args = append(args, "-gcflags", s.GCFlags)
	}
	if timeout > 0 {
		args = append(args, "-timeout", timeout.String())
	}
	args = append(args, ".")
	if len(s.Args) > 0 {
		args = append(append(args, "-args"), s.Args...)
	}
	output, err := goCmd(ctx, pkg.Dir, s, args...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return &Output{Combined: string(output)}, &RunError{Reason: "go test -race: " + strings.SplitN(err.Error(), "\n", 2)[0]}
	}
	return nil, nil
}
