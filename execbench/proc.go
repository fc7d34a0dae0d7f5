package execbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// A measurement is what one run of a command took and how it ended.
type measurement struct {
	// wall is from just before the process was started to just after it
	// was reaped; user and sys are its CPU time (and that of the
	// children it waited for), from wait4's rusage, as is maxRSS, its
	// peak resident set in bytes (0 where rusage has none). A peak no
	// larger than rssFloor (this process's own resident set when the
	// command started; see rssProbe) is this process's, not the
	// command's.
	wall, user, sys  time.Duration
	maxRSS, rssFloor int64
	// exit is the exit code, -1 when a signal ended the process.
	exit   int
	signal string
	state  *os.ProcessState
	// tail is the end of what the process wrote to its standard error,
	// when it was captured.
	tail string
}

// commandRSS returns the command's own peak RSS in bytes, or 0 when it
// stayed within rssMargin of the floor, where wait4 reports this
// process's instead.
func (m *measurement) commandRSS() int64 {
	if m.maxRSS <= m.rssFloor+rssMargin {
		return 0
	}
	return m.maxRSS
}

// rssMargin is how far above the floor a peak must be to be the
// command's: between reading the floor and the exec, this process may
// touch a few more pages.
const rssMargin = 512 << 10

// failed reports whether the run ended with a non-zero exit code or a
// signal.
func (m *measurement) failed() bool { return m.exit != 0 }

// status says how the run ended, in words: "exit status 3", "killed by
// signal interrupt".
func (m *measurement) status() string {
	if m.exit == -1 {
		if m.signal != "" {
			return "killed by signal " + m.signal
		}
		return "killed by a signal"
	}
	return fmt.Sprintf("exit status %d", m.exit)
}

// A startError is a command that could not be started or did not end in
// time: no such file, not executable, or a time-out.
type startError struct {
	reason string
	// timeout is the time-out the command outlived, 0 when it could
	// not start.
	timeout time.Duration
}

func (e *startError) Error() string { return e.reason }

// A runner runs commands with the run's standard input and output.
type runner struct {
	input, output  string
	stdout, stderr io.Writer
	null           *os.File
	pipeW          *os.File
	drained        chan struct{}
	rss            *rssProbe
	// paths caches where each program was found: a look-up searches
	// $PATH with a stat per directory, before every run.
	paths map[string]string
	// env is the commands' environment, as exec.Cmd would make it (this
	// process's, a variable given twice kept once), made once: exec.Cmd
	// copies and de-duplicates it at every start, inside the timed
	// interval.
	env []string
}

func newRunner(cfg *Config) (*runner, error) {
	r := &runner{input: cfg.Input, output: cfg.Output, stdout: cfg.Stdout, stderr: cfg.Stderr, rss: newRSSProbe(), paths: map[string]string{},
		env: (&exec.Cmd{}).Environ()}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", os.DevNull, err)
	}
	r.null = null
	if cfg.Output == OutputPipe {
		pr, pw, err := os.Pipe()
		if err != nil {
			null.Close()
			return nil, fmt.Errorf("making the output pipe: %w", err)
		}
		r.pipeW, r.drained = pw, make(chan struct{})
		go func() {
			io.Copy(io.Discard, pr)
			pr.Close()
			close(r.drained)
		}()
	}
	return r, nil
}

func (r *runner) close() {
	r.rss.close()
	r.null.Close()
	if r.pipeW != nil {
		r.pipeW.Close()
		<-r.drained
	}
}

// tailMax bounds the standard error kept from a probing run.
const tailMax = 4 << 10

// run runs argv once, untimed work (opening files) done before the clock
// starts, and waits for it. A run longer than timeout (0: no limit) is
// stopped with its whole process group, as is one still running when ctx
// is cancelled (then run returns ctx's error). With capture, the
// standard error is kept (its last 4 KiB) to explain a failure; a timed
// run never captures, so that its output costs what --output says.
//
// A command that exits non-zero is not an error: the measurement says how
// it ended. A command that cannot start or runs past its timeout is a
// *startError.
func (r *runner) run(ctx context.Context, argv []string, timeout time.Duration, capture bool) (*measurement, error) {
	path, ok := r.paths[argv[0]]
	if !ok {
		var err error
		if path, err = exec.LookPath(argv[0]); err != nil {
			return nil, &startError{reason: fmt.Sprintf("%s: %v", argv[0], unwrapExecError(err))}
		}
		r.paths[argv[0]] = path
	}
	stdin := r.null
	if r.input != InputNull {
		f, err := os.Open(r.input)
		if err != nil {
			return nil, fmt.Errorf("--input: %w", err)
		}
		defer f.Close()
		stdin = f
	}
	var stdout, stderr io.Writer
	switch r.output {
	case OutputNull:
		stdout, stderr = r.null, r.null
	case OutputPipe:
		stdout, stderr = r.pipeW, r.pipeW
	case OutputInherit:
		stdout, stderr = r.stdout, r.stderr
	default:
		f, err := os.Create(r.output)
		if err != nil {
			return nil, fmt.Errorf("--output: %w", err)
		}
		defer f.Close()
		stdout, stderr = f, f
	}
	var tail *tailBuffer
	if capture {
		tail = &tailBuffer{}
		stderr = tail
	}
	// With files only (every timed run but --output inherit to a writer
	// that is not one), the process starts from os.StartProcess: exec.Cmd
	// costs about 20 µs more of this process's CPU per run, most of it
	// (its environment) after the clock has started. Otherwise exec.Cmd
	// copies what the process writes.
	var (
		start func() (*os.Process, error)
		wait  func() (*os.ProcessState, error)
	)
	if files, ok := allFiles(stdin, stdout, stderr); ok {
		attr := &os.ProcAttr{Env: r.env, Files: files, Sys: sysProcAttr()}
		var p *os.Process
		start = func() (*os.Process, error) {
			var err error
			p, err = os.StartProcess(path, argv, attr)
			return p, err
		}
		wait = func() (*os.ProcessState, error) { return p.Wait() }
	} else {
		cmd := exec.Command(path, argv[1:]...)
		cmd.Args[0] = argv[0]
		cmd.Env = r.env
		cmd.SysProcAttr = sysProcAttr()
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
		start = func() (*os.Process, error) {
			err := cmd.Start()
			return cmd.Process, err
		}
		wait = func() (*os.ProcessState, error) {
			err := cmd.Wait()
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				err = nil // a non-zero exit: the state says how it ended
			}
			return cmd.ProcessState, err
		}
	}
	var (
		mu       sync.Mutex
		proc     *os.Process
		reaped   bool
		timedOut bool
	)
	stop := func(why bool) func() {
		return func() {
			mu.Lock()
			defer mu.Unlock()
			if !reaped {
				timedOut = timedOut || why
				killGroup(proc)
			}
		}
	}
	floor := r.rss.floor()
	t0 := time.Now()
	p, err := start()
	if err != nil {
		return nil, &startError{reason: fmt.Sprintf("%s: %v", argv[0], unwrapStartError(err))}
	}
	mu.Lock()
	proc = p
	mu.Unlock()
	var timer *time.Timer
	if timeout > 0 {
		timer = time.AfterFunc(timeout, stop(true))
	}
	unhook := context.AfterFunc(ctx, stop(false))
	state, err := wait()
	wall := time.Since(t0)
	mu.Lock()
	reaped = true
	mu.Unlock()
	if timer != nil {
		timer.Stop()
	}
	unhook()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if timedOut {
		return nil, &startError{reason: fmt.Sprintf("ran longer than the timeout of %v and was stopped", timeout), timeout: timeout}
	}
	if err != nil {
		return nil, fmt.Errorf("running %s: %w", argv[0], err)
	}
	m := &measurement{wall: wall, state: state, exit: state.ExitCode(), rssFloor: floor}
	m.user, m.sys, m.maxRSS = usage(state)
	m.signal = signalName(state)
	if tail != nil {
		m.tail = tail.String()
	}
	return m, nil
}

// allFiles returns stdin, stdout and stderr as files when all three are.
func allFiles(stdin *os.File, stdout, stderr io.Writer) ([]*os.File, bool) {
	out, ok := stdout.(*os.File)
	errf, ok2 := stderr.(*os.File)
	if !ok || !ok2 || stdin == nil || out == nil || errf == nil {
		return nil, false
	}
	return []*os.File{stdin, out, errf}, true
}

// unwrapStartError drops the path os.StartProcess repeats: "permission
// denied", "exec format error".
func unwrapStartError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return unwrapExecError(err)
}

// A tailBuffer keeps the last tailMax bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailMax:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// lastLine returns the last non-empty line of s, trimmed, at most 200
// bytes: what a failing command said last.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 200 {
		l = l[:200] + "..."
	}
	return l
}
