package gotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rigorbench/rigor/internal/words"
)

// Benchmarks lists the binary's top-level benchmarks with -test.list, in
// source order. Sub-benchmarks only show up when the benchmark runs.
func (b *Binary) Benchmarks(ctx context.Context, timeout time.Duration) ([]string, error) {
	out, err := b.exec(ctx, timeout, "-test.list", "^Benchmark")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, line := range strings.Split(out.Stdout, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "Benchmark") && !strings.ContainsAny(line, " \t") {
			names = append(names, line)
		}
	}
	return names, nil
}

// An Invocation is one run of a test binary's benchmarks.
type Invocation struct {
	// Bench is the -test.bench regular expression.
	Bench string
	// Iters, when positive, fixes the iteration count of every matching
	// benchmark (-test.benchtime=Nx); otherwise Benchtime is the target
	// duration (-test.benchtime=D), which is how calibration runs.
	Iters     int64
	Benchtime time.Duration
	// CPU is the -test.cpu value (GOMAXPROCS); 0 leaves it unset.
	CPU int
	// Timeout kills the process when it runs longer; 0 means no limit.
	Timeout time.Duration
	// CPUProfile and MutexProfile, when set, are files (absolute paths)
	// the binary writes a CPU profile and a mutex profile to, as go test
	// -cpuprofile and -mutexprofile do. The mutex profile records one
	// contention in MutexProfileFraction, scaled up by the runtime.
	CPUProfile, MutexProfile string
}

// MutexProfileFraction is the -test.mutexprofilefraction of an Invocation
// with a MutexProfile. go test's default, every contention, slows a
// contended benchmark down (twice as slow with 16 goroutines on one mutex,
// measured on examples/lockbound) and so exaggerates the contention the
// CPU profile shows; one in 100 costs nothing measurable and, scaled by
// the runtime, still estimates the total wait.
const MutexProfileFraction = 100

func (inv Invocation) args() []string {
	bt := inv.Benchtime.String()
	if inv.Iters > 0 {
		bt = strconv.FormatInt(inv.Iters, 10) + "x"
	}
	args := []string{
		"-test.run=^$",
		"-test.bench=" + inv.Bench,
		"-test.benchtime=" + bt,
		"-test.benchmem",
		"-test.count=1",
		// Frame the framework's lines, so that what the benchmark
		// prints cannot pass for a result (see deframe).
		"-test.v=test2json",
	}
	if inv.CPU > 0 {
		args = append(args, "-test.cpu="+strconv.Itoa(inv.CPU))
	}
	if inv.CPUProfile != "" {
		args = append(args, "-test.cpuprofile="+inv.CPUProfile)
	}
	if inv.MutexProfile != "" {
		args = append(args, "-test.mutexprofile="+inv.MutexProfile, "-test.mutexprofilefraction="+strconv.Itoa(MutexProfileFraction))
	}
	return args
}

// An Output is what one run of a test binary printed and how it ended.
type Output struct {
	// Stdout is the standard output; Combined interleaves it with the
	// standard error as they were written, without test2json's framing
	// bytes. For a Run, Stdout holds only the testing framework's
	// configuration and result lines (and Unit metadata lines), in the Go
	// benchmark format, and Printed what the benchmarks printed
	// themselves (their b.Log lines included), which would otherwise be
	// mistaken for results or break them up.
	Stdout, Combined string
	Printed          string
	State            *os.ProcessState
	Start            time.Time
	Elapsed          time.Duration
}

// A RunError is a test binary that failed: it exited non-zero, panicked,
// or ran past its timeout and was killed.
type RunError struct {
	Reason string // "exit status 2", "timed out after 1m0s and was stopped"
	Tail   string // the last lines of its output
	// Stack is true when Tail is instead the stack of the goroutine
	// running the benchmark when it timed out: where it hangs.
	Stack bool
}

func (e *RunError) Error() string {
	switch {
	case e.Tail == "":
		return e.Reason
	case e.Stack:
		return e.Reason + "; the benchmark was here:\n" + indent(e.Tail)
	}
	return e.Reason + "; last lines of output:\n" + indent(e.Tail)
}

// Run runs the binary once with inv's flags, in the package's directory as
// go test does. A failure of the binary is a *RunError, returned with the
// output; a cancelled ctx returns ctx.Err().
//
// A binary that exits with status 0 without finishing (a benchmark that
// calls os.Exit(0)) is a *RunError too, not a benchmark that printed
// nothing.
func (b *Binary) Run(ctx context.Context, inv Invocation) (*Output, error) {
	out, err := b.exec(ctx, inv.Timeout, inv.args()...)
	if out == nil {
		return out, err
	}
	f := deframe(out.Stdout)
	out.Stdout, out.Printed = f.results, f.printed
	if err == nil && !f.passed {
		reason := "exited before printing a result (os.Exit?)"
		if rs, _ := ParseResults(out.Stdout); len(rs) > 0 {
			reason = "exited before it finished (os.Exit?)"
		}
		err = &RunError{Reason: reason, Tail: words.Tail(out.Combined, tailLines)}
	}
	return out, err
}

// timeoutGrace is how long a timed-out test binary has, after SIGQUIT, to
// print its goroutines (where it hangs) before it is killed.
const timeoutGrace = 2 * time.Second

func (b *Binary) exec(ctx context.Context, timeout time.Duration, args ...string) (*Output, error) {
	// -test.timeout does not cover benchmarks, so rigor enforces the
	// timeout itself.
	runCtx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var stdout bytes.Buffer
	combined := &lockedBuffer{}
	cmd := exec.CommandContext(runCtx, b.Path, withArgs(args, b.Args)...)
	cmd.Dir = b.Pkg.Dir
	cmd.Env = b.Env
	cmd.Stdout = &tee{&stdout, combined}
	cmd.Stderr = combined
	cmd.Cancel = func() error {
		if ctx.Err() != nil {
			return cmd.Process.Kill() // the user interrupted: no dump
		}
		return quit(cmd.Process) // timed out: dump the goroutines
	}
	cmd.WaitDelay = timeoutGrace
	out := &Output{Start: time.Now()}
	err := cmd.Run()
	out.Elapsed = time.Since(out.Start)
	out.Stdout, out.State = stdout.String(), cmd.ProcessState
	out.Combined = strings.ReplaceAll(combined.String(), string(marker), "")
	if err == nil {
		return out, nil
	}
	if interrupted(out.State) {
		// Ctrl-C reaches the whole process group: the test binary may
		// die of it before our own handler cancels ctx.
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	rerr := &RunError{Reason: err.Error(), Tail: words.Tail(out.Combined, tailLines)}
	var exitErr *exec.ExitError
	switch {
	case runCtx.Err() != nil:
		rerr.Reason = fmt.Sprintf("timed out after %v and was stopped", timeout)
		if g := hungGoroutine(out.Combined); g != "" {
			rerr.Tail, rerr.Stack = words.Tail(g, tailLines), true
		}
	case errors.As(err, &exitErr) && (strings.HasPrefix(out.Combined, "panic: ") || strings.Contains(out.Combined, "\npanic: ")):
		rerr.Reason = "panicked (" + exitErr.String() + ")"
	case errors.As(err, &exitErr):
		rerr.Reason = exitErr.String()
	}
	return out, rerr
}

// hungGoroutine returns, from the goroutine dump a Go program prints on
// SIGQUIT, the stack of the goroutine running a benchmark function: where
// it hangs. It returns "" when there is none.
func hungGoroutine(dump string) string {
	for _, block := range strings.Split(dump, "\n\n") {
		block = strings.TrimSpace(block)
		if !strings.HasPrefix(block, "goroutine ") {
			continue
		}
		for _, line := range strings.Split(block, "\n") {
			// A frame of a benchmark function, not of package testing.
			if i := strings.Index(line, ".Benchmark"); i >= 0 && !strings.HasPrefix(line, "testing.") {
				return block
			}
		}
	}
	return ""
}

// lockedBuffer is a bytes.Buffer safe for the two goroutines exec copies
// standard output and standard error with.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// tee copies standard output to its own buffer and the combined one.
type tee struct {
	own      *bytes.Buffer
	combined *lockedBuffer
}

func (t *tee) Write(p []byte) (int, error) {
	t.own.Write(p)
	return t.combined.Write(p)
}
