// Command rigor measures Go code and says, with confidence intervals and a
// verdict, whether a change made it faster.
//
// Each subcommand lives in its own file and registers itself with the root
// command in an init function.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
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

var rootCmd = &cobra.Command{
	Use:   "rigor",
	Short: "Benchmark Go code and get a verdict you can trust",
	Long: `rigor runs and compares Go benchmarks the way measurement should be done:
interleaved and paired rounds, confidence intervals on every change, a verdict
(improved, regressed, unchanged or inconclusive) and an exit code CI can gate on.`,
	SilenceUsage:  true,
	SilenceErrors: true,
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the CLI with args and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) (code int) {
	// A panic is a bug in rigor; the user still gets one line, not a stack
	// trace (RIGOR_DEBUG=1 re-panics for the trace).
	defer func() {
		if r := recover(); r != nil {
			if os.Getenv("RIGOR_DEBUG") != "" {
				panic(r)
			}
			fmt.Fprintf(stderr, "rigor: internal error: %v (run with RIGOR_DEBUG=1 for details, and please report it)\n", r)
			code = exitUsage
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rootCmd.SetArgs(args)
	rootCmd.SetOut(stdout)
	rootCmd.SetErr(stderr)
	rootCmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitError{code: exitUsage, err: err}
	})
	strictHelp()
	err := rootCmd.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "rigor:", ee.err)
		}
		return ee.code
	}
	// Cobra's own errors (unknown command, bad args) are usage errors.
	fmt.Fprintln(stderr, "rigor:", err)
	return exitUsage
}

// strictHelp makes cobra's help and completion commands treat an unknown
// topic or shell as the usage error it is (exit 2), where cobra prints
// help and exits 0.
func strictHelp() {
	rootCmd.InitDefaultHelpCmd()
	rootCmd.InitDefaultCompletionCmd()
	for _, c := range rootCmd.Commands() {
		switch c.Name() {
		case "help":
			if show := c.Run; show != nil {
				c.Run = nil
				c.RunE = func(c *cobra.Command, args []string) error {
					if cmd, _, err := rootCmd.Find(args); err != nil || cmd == nil {
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
