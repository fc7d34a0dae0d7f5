package window

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
)

// ErrNoValgrind is the error of Simulate and ValgrindVersion when there is
// no valgrind command.
var ErrNoValgrind = errors.New("valgrind not found: install Debian's valgrind package (apt-get install valgrind)")

// A SimConfig says which benchmarks Simulate runs, and how.
type SimConfig struct {
	// Valgrind is the valgrind command: a path, or a name looked up on
	// PATH; "" is "valgrind".
	Valgrind string
	// Binary is the test binary, built with the overlay (Make). A relative
	// path is taken from the current directory, not Dir.
	Binary string
	// Dir is the directory the binary runs in; "" is the current one.
	Dir string
	// Pattern selects the benchmarks (-test.bench); "" is ".", all of them.
	Pattern string
	// Iters is how many iterations each benchmark runs (-test.benchtime
	// Itersx): at least 1.
	Iters int
	// Count is how many times each benchmark runs (-test.count); 0 is 1.
	Count int
	// Args are further arguments to the binary, after Simulate's own.
	Args []string
	// Env is the binary's environment, to which Simulate adds GOMAXPROCS=1,
	// asyncpreemptoff=1 to GODEBUG and SimulateEnv; nil is this process's.
	Env []string
}

// A SimResult is the instructions of one benchmark result line's timed
// window, as callgrind counted them.
type SimResult struct {
	// Name is the benchmark's name as printed, without "Benchmark"; the
	// process runs at GOMAXPROCS 1, so without a GOMAXPROCS suffix.
	Name string
	// Iters is the operations (b.N) of the window.
	Iters int
	// Instructions is the window's instructions, every thread's but the
	// Go runtime's sysmon thread's: its callgrind dump's totals less
	// runtime.sysmon's inclusive cost. Beside the benchmark's, they
	// include a constant few thousand of the timer's own (StopTimer reads
	// the memory statistics: 9,500 with Go 1.26), and what the scheduler
	// did by the clock (it preempts a goroutine that ran 10 ms). Sysmon
	// wakes every 10 ms or less of wall time, so its share grows the
	// longer callgrind takes, on a busy machine most: measured in
	// windows of 14 million instructions beside three busy processes on
	// two cores, windows read 14,012,652 to 14,059,735 with it, and
	// 14,014,228 to 14,014,243 without it.
	//
	// (Counting only the thread that ends the window, with
	// --separate-threads=yes, would leave out sysmon but also the
	// benchmark's own work wherever the scheduler moved its goroutine to
	// another thread: measured, 38-75 moves in 200 iterations of a
	// benchmark that writes and syncs a file.)
	Instructions float64
	// Sysmon is what the runtime's sysmon thread did in the window,
	// left out of Instructions.
	Sysmon float64
	// PerOp is Instructions / Iters.
	PerOp float64
	// Segments is how many times the timer started in the window: 1, or
	// 2 or 3 for a benchmark that stops it around its set-up. Each of
	// the first SimSegments has a dump of its own and Instructions is
	// their sum; above SimSegments (the timer stopped in every
	// iteration) Instructions also counts what the benchmark did with
	// the timer stopped, and is not the window's: a caller should not
	// use it.
	Segments int
	// Parallel says that the benchmark called RunParallel: at GOMAXPROCS 1
	// its goroutines take turns, and Instructions counts their switching.
	Parallel bool
}

// A SimError is a simulated run that failed: valgrind or the test binary
// exited with an error, perhaps because benchmarks failed.
type SimError struct {
	// Err is the run's error (an *exec.ExitError, say).
	Err error
	// Failed names the benchmarks that failed, without "Benchmark", and
	// Output is what they printed from their "--- FAIL" line on.
	Failed []string
	Output string
	// Stderr is the last lines of the run's standard error: valgrind's
	// messages, or a panic's.
	Stderr string
}

func (e *SimError) Error() string {
	var b strings.Builder
	b.WriteString("the test binary under callgrind failed: ")
	b.WriteString(e.Err.Error())
	if len(e.Failed) > 0 {
		fmt.Fprintf(&b, "; benchmarks failed: %s", strings.Join(e.Failed, ", "))
	}
	if e.Output != "" {
		b.WriteString("\n")
		b.WriteString(strings.TrimRight(e.Output, "\n"))
	}
	if e.Stderr != "" {
		b.WriteString("\nstandard error ends:\n")
		b.WriteString(strings.TrimRight(e.Stderr, "\n"))
	}
	return b.String()
}

func (e *SimError) Unwrap() error { return e.Err }

// stderrLines is how many of its last lines of standard error a SimError
// keeps.
const stderrLines = 20

// Simulate runs cfg.Binary's benchmarks under Valgrind's callgrind, which
// counts each timed window's instructions (see Simulation in the package
// documentation), and returns one SimResult per result line, in order.
// The binary runs with GOMAXPROCS=1 and GODEBUG=asyncpreemptoff=1 (callgrind
// runs one thread at a time, aborts on the signal of Go's asynchronous
// preemption, and idle threads would spin) and -test.benchmem=false. The
// dumps are written to a temporary directory, removed afterwards.
//
// Simulate returns a result for every line or an error: ErrNoValgrind
// without a valgrind command; a *SimError when the run fails (a benchmark
// fails, valgrind stops); an error when a result line has no rigor-window
// (the binary was not built with this package's overlay) or its dump is
// missing or unreadable. No benchmark matching cfg.Pattern is no results
// and no error. When ctx ends, the run's process group is killed and
// Simulate returns ctx's error.
func Simulate(ctx context.Context, cfg SimConfig) ([]SimResult, error) {
	if cfg.Iters < 1 {
		return nil, fmt.Errorf("simulating %s: %d iterations, want at least 1", cfg.Binary, cfg.Iters)
	}
	valgrind, err := lookValgrind(cfg.Valgrind)
	if err != nil {
		return nil, err
	}
	bin, err := filepath.Abs(cfg.Binary)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("simulating: %w", err)
	}
	dumps, err := os.MkdirTemp("", "rigor-callgrind-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dumps)

	pattern, count := cfg.Pattern, cfg.Count
	if pattern == "" {
		pattern = "."
	}
	if count == 0 {
		count = 1
	}
	out := filepath.Join(dumps, "cg.out")
	args := append(callgrindArgs(out), bin,
		"-test.run=^$",
		"-test.bench="+pattern,
		"-test.benchtime="+strconv.Itoa(cfg.Iters)+"x",
		"-test.count="+strconv.Itoa(count),
		"-test.benchmem=false",
		"-test.timeout=0", // the caller's ctx bounds the run: callgrind is 10-100 times slower
	)
	args = append(args, cfg.Args...)
	cmd := exec.CommandContext(ctx, valgrind, args...)
	cmd.Dir = cfg.Dir
	cmd.Env = simEnv(cfg.Env)
	var stdout bytes.Buffer
	stderr := &tailWriter{max: stderrLines}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	killGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if runErr != nil {
		failed, output := failures(stdout.Bytes())
		return nil, &SimError{Err: runErr, Failed: failed, Output: output, Stderr: stderr.String()}
	}
	return readResults(stdout.Bytes(), out)
}

// callgrindArgs are callgrind's options, its dumps written to out.1,
// out.2, and so on. Those that are callgrind's defaults are given so that
// a ~/.valgrindrc or VALGRIND_OPTS cannot change them: --cache-sim=yes
// would double the run's time (measured: 1.05 s for 0.54 s), and
// --separate-threads=yes would dump only the thread that ends a window
// (see SimResult.Instructions). The dumps' sizes hardly depend on
// --dump-line; --dump-instr=yes makes them 40% larger; neither changes
// the run's time.
func callgrindArgs(out string) []string {
	return []string{
		"--tool=callgrind",
		"--callgrind-out-file=" + out,
		"--zero-before=testing.rigorSimZero",
		"--dump-before=testing.rigorSimDump",
		"--dump-instr=no",
		"--dump-line=no",
		"--cache-sim=no",
		"--branch-sim=no",
		"--collect-jumps=no",
		"--collect-systime=no",
		"--collect-atstart=yes",
		"--instr-atstart=yes",
		"--separate-threads=no",
		"--combine-dumps=no",
		"--trace-children=no",
	}
}

// simEnv is env (nil: this process's) with what a simulated run needs: one
// P (callgrind runs one thread at a time; idle Ps would spin), no
// asynchronous preemption (callgrind aborts on its signal), and the
// overlay in simulation.
func simEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	var out []string
	godebug := "asyncpreemptoff=1"
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "GOMAXPROCS", "RIGOR_INSTRUCTIONS":
			continue
		case "GODEBUG":
			if v != "" {
				godebug = v + "," + godebug // the last setting of a key wins
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GOMAXPROCS=1", "GODEBUG="+godebug, SimulateEnv)
}

// lookValgrind finds the valgrind command.
func lookValgrind(valgrind string) (string, error) {
	if valgrind == "" {
		valgrind = "valgrind"
	}
	path, err := exec.LookPath(valgrind)
	if err != nil {
		if valgrind == "valgrind" {
			return "", ErrNoValgrind
		}
		return "", fmt.Errorf("%w (%v)", ErrNoValgrind, err)
	}
	return path, nil
}

// ValgrindVersion returns the version valgrind (a path, or a name looked up
// on PATH; "" is "valgrind") says it is: "valgrind-3.19.0", say.
func ValgrindVersion(valgrind string) (string, error) {
	path, err := lookValgrind(valgrind)
	if err != nil {
		return "", err
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	v := strings.TrimSpace(string(out))
	if v == "" {
		return "", fmt.Errorf("%s --version printed nothing", path)
	}
	return v, nil
}

// readResults reads the benchmark result lines of a simulated run's
// standard output, and each line's dump from out.N.
func readResults(stdout []byte, out string) ([]SimResult, error) {
	var rs []SimResult
	r := benchfmt.NewReader(bytes.NewReader(stdout), "stdout")
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		name := strings.TrimPrefix(res.Name.String(), "Benchmark")
		var window, segments, parallel float64
		var haveWindow, haveSegments, haveParallel bool
		for _, v := range res.Values {
			unit, val := v.Unit, v.Value
			if v.OrigUnit != "" {
				unit, val = v.OrigUnit, v.OrigValue
			}
			switch unit {
			case "rigor-window":
				window, haveWindow = val, true
			case "rigor-segments":
				segments, haveSegments = val, true
			case "rigor-parallel":
				parallel, haveParallel = val, true
			}
		}
		if !haveWindow || !haveSegments || !haveParallel {
			return nil, fmt.Errorf("the result of %s has no rigor-window, rigor-segments or rigor-parallel: was the test binary built with rigor's overlay (window.Make) of this version?", name)
		}
		if res.Iters < 1 {
			return nil, fmt.Errorf("the result of %s has %d iterations", name, res.Iters)
		}
		// One dump per timed segment, in order; beyond SimSegments the
		// later segments have none, and the window no count.
		var n, sysmon float64
		if int(segments) > SimSegments {
			n, sysmon = math.NaN(), math.NaN()
		}
		for k := range max(1, int(segments)) {
			if int(segments) > SimSegments {
				break
			}
			dump := out + "." + strconv.Itoa(int(window)+k)
			dc, err := readDumpFile(dump)
			if err != nil {
				return nil, fmt.Errorf("the callgrind dump of %s: %w", name, err)
			}
			n += dc.Totals - dc.Sysmon
			sysmon += dc.Sysmon
		}
		rs = append(rs, SimResult{
			Name:         name,
			Iters:        res.Iters,
			Instructions: n,
			Sysmon:       sysmon,
			PerOp:        n / float64(res.Iters),
			Segments:     int(segments),
			Parallel:     parallel != 0,
		})
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return rs, nil
}

// readDumpFile is readDump of the file at path.
func readDumpFile(path string) (dumpCount, error) {
	f, err := os.Open(path)
	if err != nil {
		return dumpCount{}, err
	}
	defer f.Close()
	return readDump(f, path)
}

// failures returns the benchmarks that failed in a run's standard output,
// and what they printed from their "--- FAIL: " line on. The line may
// follow the benchmark's name, which is printed before it runs.
func failures(stdout []byte) (names []string, output string) {
	var b strings.Builder
	in := false
	for _, line := range strings.SplitAfter(string(stdout), "\n") {
		if i := strings.Index(line, "--- FAIL: "); i >= 0 {
			name := strings.TrimSpace(line[i+len("--- FAIL: "):])
			names = append(names, strings.TrimPrefix(name, "Benchmark"))
			line, in = line[i:], true
		} else if in && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") {
			in = false
		}
		if in {
			b.WriteString(line)
		}
	}
	return names, b.String()
}

// A tailWriter keeps the last max lines written to it.
type tailWriter struct {
	max   int
	lines []string
	part  []byte // the last line, unfinished
}

func (w *tailWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.part = append(w.part, p...)
			if len(w.part) > 4096 {
				w.part = w.part[len(w.part)-4096:]
			}
			break
		}
		w.part = append(w.part, p[:i]...)
		w.lines = append(w.lines, string(w.part))
		w.part = w.part[:0]
		if len(w.lines) > w.max {
			w.lines = w.lines[len(w.lines)-w.max:]
		}
		p = p[i+1:]
	}
	return n, nil
}

func (w *tailWriter) String() string {
	lines := w.lines
	if len(w.part) > 0 {
		lines = append(lines[:len(lines):len(lines)], string(w.part))
	}
	if len(lines) > w.max {
		lines = lines[len(lines)-w.max:]
	}
	return strings.Join(lines, "\n")
}
