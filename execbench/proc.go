package execbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
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
	// usage is the process's resource usage as the observer records it
	// (package observe's RusageStats).
	usage model.ProcessStats
	// tail is the end of what the process wrote to its standard error,
	// when it was captured; out, what it wrote to its standard output,
	// when that was compared (see Config.checksOutput).
	tail string
	out  *outputDigest
	// group is the process group the command ran in, when processes it
	// started were still running in it after it ended (0 otherwise);
	// heldOutput is true when one held its output pipe open after it
	// ended (see drainWait).
	group      int
	heldOutput bool
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
	pipe           *outPipe // --output pipe's, read and discarded
	pipeW          *os.File // its write end, every run's output
	rss            *rssProbe
	// paths caches where each program was found: a look-up searches
	// $PATH with a stat per directory, before every run.
	paths map[string]string
	// digest is true when a capturing run's standard output is kept as
	// an outputDigest.
	digest bool
	// spawn starts the commands, in this process's environment as
	// exec.Cmd would make it (a variable given twice kept once), made
	// once: exec.Cmd copies and de-duplicates it at every start, inside
	// the timed interval.
	spawn spawner
	// files are a run's standard streams, reused from run to run.
	files [3]*os.File
	// dog stops a run that outlives its time-out, calling onTimeout.
	dog       watchdog
	onTimeout func()

	// mu guards the current run's state, which a time-out or an
	// interrupt reads from other goroutines: the child while it runs
	// (live), the Done channel of the context it runs under, and whether
	// its time-out stopped it.
	mu       sync.Mutex
	cur      child
	live     bool
	curDone  <-chan struct{}
	timedOut bool
	// hooked is the Done channel of the context whose cancellation stops
	// the current run (one context.AfterFunc for all the runs under it,
	// not one per run); unhook removes that hook.
	hooked <-chan struct{}
	unhook func() bool
	// yielded is when the last run's goroutine last yielded (see
	// yieldEvery); restoreSignal puts SIGCHLD's handler back (see
	// quietChildren).
	yielded       time.Time
	restoreSignal func()
}

// yieldEvery is how often the goroutine that runs the commands yields to
// the scheduler. Its system calls (fork, wait4) keep its processor, so
// that without a yield the runtime's monitor takes it, after 10 ms, for
// a goroutine that never stops: it signals it to preempt it, takes the
// processor from it while it waits in wait4, and polls every 20 µs
// instead of every 10 ms for a while after, about one wake-up of its
// thread per run of a 1 ms command. A yield every 5 ms costs about 1 µs
// each; see quietChildren for what the two save together.
const yieldEvery = 5 * time.Millisecond

func newRunner(cfg *Config) (*runner, error) {
	r := &runner{input: cfg.Input, output: cfg.Output, stdout: cfg.Stdout, stderr: cfg.Stderr, rss: newRSSProbe(), paths: map[string]string{},
		digest: cfg.checksOutput()}
	r.spawn.init((&exec.Cmd{}).Environ())
	r.onTimeout = r.timeout
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", os.DevNull, err)
	}

	r.null = null
	if cfg.Output == OutputPipe {
		if r.pipe, err = newOutPipe(io.Discard); err != nil {
			null.Close()
			return nil, err
		}
		r.pipeW = r.pipe.w
	}
	r.restoreSignal = quietChildren()
	return r, nil
}

// close releases the runner's files; a process a command left running
// that still holds the output pipe is not waited for beyond drainWait.
func (r *runner) close() {
	r.dog.close()
	if r.unhook != nil {
		r.unhook()
	}
	r.restoreSignal()
	r.rss.close()
	r.null.Close()
	if r.pipe != nil {
		r.pipe.w.Close()
		closePipes([]*outPipe{r.pipe}, drainWait)
	}
}

// timeout stops the current run, which outlived its time-out.
func (r *runner) timeout() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live {
		r.timedOut = true
		r.cur.kill()
	}
}

// interrupt stops the current run when it runs under the context whose
// Done channel is done, which was cancelled.
func (r *runner) interrupt(done <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live && r.curDone == done {
		r.cur.kill()
	}
}

// hook makes ctx's cancellation stop the run that runs under it. The
// hook stays for the next runs under the same context.
func (r *runner) hook(ctx context.Context) {
	done := ctx.Done()
	if done == nil || done == r.hooked {
		return
	}
	if r.unhook != nil {
		r.unhook()
	}
	r.hooked = done
	r.unhook = context.AfterFunc(ctx, func() { r.interrupt(done) })
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
// The run ends when the process does: processes it started and left
// running in its process group are not waited for (the measurement's
// group says so), nor is their hold on an output pipe beyond drainWait.
//
// A command that exits non-zero is not an error: the measurement says how
// it ended. A command that cannot start or runs past its timeout is a
// *startError.
//
// A run of a command whose streams are files (--output null, pipe or a
// file) starts no goroutine and no timer, and allocates only its
// measurement (see spawner and watchdog): at a run of true every 1 ms,
// what rigor spends between the runs is what it costs.
func (r *runner) run(ctx context.Context, argv []string, timeout time.Duration, capture bool) (*measurement, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
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
	var out *digestWriter
	if capture {
		tail = &tailBuffer{}
		stderr = tail
		if r.digest {
			out = newDigestWriter()
			stdout = out
		}
	}
	// The process's standard streams are files: a writer that is not a
	// file gets a pipe, copied from while the process runs and drained
	// after it ends (see outPipe). exec.Cmd's Wait would wait for the end
	// of the output it copies, which a process the command left running
	// in the background holds open.
	files := r.files[:]
	files[0] = stdin
	var pipes []*outPipe
	for i, w := range []io.Writer{stdout, stderr} {
		if f, ok := w.(*os.File); ok && f != nil {
			files[i+1] = f
			continue
		}
		if w == nil {
			files[i+1] = r.null
			continue
		}
		if i == 1 && sameWriter(stdout, stderr) {
			files[2] = files[1]
			continue
		}
		p, err := newOutPipe(w)
		if err != nil {
			closePipes(pipes, 0)
			return nil, err
		}
		files[i+1] = p.w
		pipes = append(pipes, p)
	}
	r.hook(ctx)
	floor := r.rss.floor()
	t0 := time.Now()
	c, err := r.spawn.start(path, argv, files)
	for _, pp := range pipes {
		pp.w.Close() // the process has its own copy
	}
	clear(r.files[:])
	if err != nil {
		closePipes(pipes, 0)
		return nil, &startError{reason: fmt.Sprintf("%s: %v", argv[0], unwrapStartError(err))}
	}
	r.mu.Lock()
	r.cur, r.live, r.curDone, r.timedOut = c, true, ctx.Done(), false
	if ctx.Err() != nil {
		c.kill() // cancelled before the hook could see the child
	}
	r.mu.Unlock()
	if timeout > 0 {
		r.dog.watch(t0.Add(timeout), r.onTimeout)
	}
	m := &measurement{rssFloor: floor}
	err = c.wait(m)
	m.wall = time.Since(t0)
	r.mu.Lock()
	r.live, r.curDone = false, nil
	timedOut := r.timedOut
	r.mu.Unlock()
	if timeout > 0 {
		r.dog.done()
	}
	if t1 := t0.Add(m.wall); t1.Sub(r.yielded) >= yieldEvery {
		runtime.Gosched()
		r.yielded = t1
	}
	// The process has ended: what it left running in its process group
	// is not waited for, nor its hold on a pipe beyond drainWait.
	if err == nil && groupAlive(c.group()) {
		m.group = c.group()
	}
	m.heldOutput = closePipes(pipes, drainWait)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if timedOut {
		return nil, &startError{reason: fmt.Sprintf("ran longer than the timeout of %v and was stopped", timeout), timeout: timeout}
	}
	if err != nil {
		return nil, fmt.Errorf("running %s: %w", argv[0], err)
	}
	if tail != nil {
		m.tail = tail.String()
	}
	if out != nil {
		m.out = out.digest()
	}
	return m, nil
}

// drainWait is how long a run's output pipes are read after the process
// ended before they are closed: what it wrote is read at once, and only a
// process it left running (in the background, holding the pipe) keeps one
// open longer.
const drainWait = 100 * time.Millisecond

// An outPipe carries what a process writes to a writer that is not a
// file: the process writes to w, a goroutine copies r to the writer.
type outPipe struct {
	r, w *os.File
	done chan struct{}
}

func newOutPipe(dst io.Writer) (*outPipe, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("making an output pipe: %w", err)
	}
	p := &outPipe{r: pr, w: pw, done: make(chan struct{})}
	go func() {
		io.Copy(dst, pr)
		close(p.done)
	}()
	return p, nil
}

// closePipes waits up to wait for every pipe's copy to reach the end of
// the output, then closes the read ends (which ends the copies), and
// reports whether some pipe was still held open: by a process the
// command left running.
func closePipes(pipes []*outPipe, wait time.Duration) (held bool) {
	var deadline <-chan time.Time
	if len(pipes) > 0 && wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		deadline = t.C
	}
	for _, p := range pipes {
		if deadline != nil {
			select {
			case <-p.done:
			case <-deadline:
				held, deadline = true, nil
			}
		} else {
			select {
			case <-p.done:
			default:
				held = held || wait > 0
			}
		}
		p.r.Close()
		<-p.done
	}
	return held
}

// sameWriter reports whether a and b are the same writer, as exec.Cmd
// compares Stdout and Stderr (a type that cannot be compared is never the
// same).
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
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
// runes, with what a terminal would act on (a title sequence, a screen
// clear, NULs) shown escaped: what a failing command said last, as an
// error line shows it.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := words.TerminalSafe(strings.TrimSpace(lines[len(lines)-1]))
	if r := []rune(l); len(r) > 200 {
		l = string(r[:200]) + "..."
	}
	return l
}
