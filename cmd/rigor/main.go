// Command rigor measures Go code and says, with confidence intervals and a
// verdict, whether a change made it faster.
//
// main builds the command tree with newRootCmd and runs it. Each
// subcommand lives in its own file, in three parts:
//
//   - an options struct (xOptions) holding everything the command needs,
//   - a run function, runX(ctx, opts, stdio) error, that does the work
//     and reads and writes only the streams it is given,
//   - a constructor, newXCmd(stdio) *cobra.Command, whose flags parse
//     into the options struct and whose RunE only calls runX.
//
// A new command is that file plus one line in newRootCmd's list. Errors
// carry the exit code (exitError, usageErrorf); execute prints them as one
// line, "rigor: ...". Tests run commands in process through execute, or
// call runX directly.
//
// Files: main.go (the root, exit codes, execute), verdict.go (the
// analysis, output and gate flags of compare, ab, run and report),
// measure.go (the measurement flags and the measuring shared by ab and
// run), progress.go (the terminal progress bar), term.go (colour and
// width), and one file per command: ab, baseline, compare, doctor, env,
// exec, gc, lint, ramp, report, run, version.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/internal/redact"
	"github.com/rigorbench/rigor/internal/words"
)

// Exit codes shared by every command.
const (
	exitOK       = 0
	exitGateFail = 1 // a gate (--max-regression, doctor --strict) failed
	exitUsage    = 2 // bad flags, unreadable or malformed input
)

// exitError carries an exit code out of a command. A nil err with a
// non-zero code exits quietly (the command already printed its result).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf is an input or usage error: one line on stderr, exit 2.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// stdio is the standard streams a command reads and writes, injected so
// that tests run commands in process on buffers.
type stdio struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// cmdStdio returns the streams cobra holds for cmd (those newRootCmd
// set). For a command still built the old way, in init (see rootCmd).
func cmdStdio(cmd *cobra.Command) stdio {
	return stdio{in: cmd.InOrStdin(), out: cmd.OutOrStdout(), err: cmd.ErrOrStderr()}
}

func main() {
	// rigor writes no profile of its own heap: sampling it would unwind
	// the stack of an allocation every 512 KB, paging in the code's
	// tables, and keep the samples' buckets resident (about 0.5 MB of
	// rigor compare's peak at 1,000 benchmarks).
	runtime.MemProfileRate = 0
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	args := os.Args[1:]
	// os.Args is what the results record as their command (a run's
	// command and env.command_line): without its secrets (a store URL's
	// password, an Authorization header, --token's value). The flags
	// are parsed from args, which keeps them.
	os.Args = redact.Args(os.Args)
	code := execute(ctx, args, stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	stop()
	os.Exit(code)
}

// execute runs the command line args (without the program name) on s and
// returns the process exit code. ctx ends the command early (Ctrl-C).
func execute(ctx context.Context, args []string, s stdio) (code int) {
	// A panic is a bug in rigor; the user still gets one line, not a stack
	// trace (RIGOR_DEBUG=1 re-panics for the trace).
	defer func() {
		if r := recover(); r != nil {
			if os.Getenv("RIGOR_DEBUG") != "" {
				panic(r)
			}
			fmt.Fprintf(s.err, "rigor: internal error: %v (run with RIGOR_DEBUG=1 for details, and please report it)\n", r)
			code = exitUsage
		}
	}()
	// Whatever a command started on ctx ends with it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	root := newRootCmdFor(s, args)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(safeLines{s.err}, "rigor:", ee.err)
		}
		return ee.code
	}
	// Cobra's own errors (unknown command, bad args) are usage errors.
	fmt.Fprintln(safeLines{s.err}, "rigor:", err)
	return exitUsage
}

// safeLines writes rigor's own messages, one per Write, with what a
// terminal would act on shown escaped (words.TerminalSafeLines): an
// error or a note quotes command lines, names and what a command printed,
// which may hold a title sequence or a screen clear. Line breaks and tabs
// are kept.
type safeLines struct{ w io.Writer }

func (s safeLines) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, words.TerminalSafeLines(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// commands are rigor's commands, each by its name and constructor. To
// add a command, add it to the list (TestCommandListNames checks each name
// against the command its constructor builds).
var commands = []struct {
	name string
	new  func(stdio) *cobra.Command
}{
	{"ab", newABCmd},
	{"baseline", newBaselineCmd},
	{"bisect", newBisectCmd},
	{"changes", newChangesCmd},
	{"compare", newCompareCmd},
	{"doctor", newDoctorCmd},
	{"env", newEnvCmd},
	{"exec", newExecCmd},
	{"gc", newGCCmd},
	{"history", newHistoryCmd},
	{"import", newImportCmd},
	{"lint", newLintCmd},
	{"merge", newMergeCmd},
	{"ramp", newRampCmd},
	{"report", newReportCmd},
	{"run", newRunCmd},
	{"serve", newServeCmd},
	{"version", newVersionCmd},
}

// newRootCmdFor builds the tree that runs the command line args: when
// args name a command, a root holding only that one, as cobra would run
// it from the whole tree (the root has no flags of its own to come
// first); else, for help, completion, a mistyped command and the like,
// newRootCmd's. Building every command's flags and help costs each run
// about 0.6 MB of resident memory (the constructors' code and data,
// paged in), a tenth of what rigor compare adds to its start-up to
// compare 1,000 benchmarks (issue 28).
func newRootCmdFor(s stdio, args []string) *cobra.Command {
	if len(args) > 0 && len(rootCmd.cmds) == 0 {
		for _, c := range commands {
			if c.name == args[0] {
				root := newRoot(s)
				root.AddCommand(c.new(s))
				strictHelp(root)
				return root
			}
		}
	}
	return newRootCmd(s)
}

// newRootCmd builds rigor's command tree, every command reading and
// writing s.
func newRootCmd(s stdio) *cobra.Command {
	root := newRoot(s)
	for _, c := range commands {
		root.AddCommand(c.new(s))
	}
	root.AddCommand(rootCmd.cmds...)
	strictHelp(root)
	return root
}

// newRoot is the root command, without its commands.
func newRoot(s stdio) *cobra.Command {
	root := &cobra.Command{
		Use:   "rigor",
		Short: "Benchmark Go code and get a verdict you can trust",
		Long: `rigor runs and compares Go benchmarks the way measurement should be done:
interleaved and paired rounds, confidence intervals on every change, a verdict
(improved, regressed, unchanged or inconclusive) and an exit code CI can gate on.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		if strings.HasSuffix(err.Error(), " in -args") {
			// go test's way; pflag reads it as -a -r -g -s.
			err = errors.New("-args: give the test binaries' arguments after --, as in rigor ab ./pkg -- -benchdata=FILE")
		}
		return &exitError{code: exitUsage, err: err}
	})
	return root
}

// rootCmd keeps the old way of adding a command, rootCmd.AddCommand in
// an init function, working while files written that way are converted:
// such commands are added to every tree newRootCmd builds. They are built
// once per process, so their flag values outlive one execution; write
// newXCmd(stdio) instead and list it in newRootCmd.
//
// Deprecated: list a constructor in newRootCmd.
var rootCmd legacyCommands

type legacyCommands struct{ cmds []*cobra.Command }

// AddCommand adds cmds to every root built after it.
func (l *legacyCommands) AddCommand(cmds ...*cobra.Command) { l.cmds = append(l.cmds, cmds...) }

// strictHelp makes cobra's help and completion commands treat an unknown
// topic or shell as the usage error it is (exit 2), where cobra prints
// help and exits 0.
func strictHelp(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			if show := c.Run; show != nil {
				c.Run = nil
				c.RunE = func(c *cobra.Command, args []string) error {
					if cmd, _, err := root.Find(args); err != nil || cmd == nil {
						return usageErrorf("unknown help topic %q", strings.Join(args, " "))
					}
					show(c, args)
					return nil
				}
			}
		case "completion":
			// Without a shell it shows its help, as before; with an
			// unknown one cobra's NoArgs rejects it.
			c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		}
	}
}
