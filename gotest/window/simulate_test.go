package window

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// needValgrind skips a test without valgrind on PATH.
func needValgrind(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the overlay is made for linux")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind is not on PATH (Debian's valgrind package): the simulation is not tested")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
}

// simCount is the windows of each benchmark in a process: their least
// count is the code's (see SimResult.Instructions).
const simCount = 3

// simIters is the iterations of each simulated window: with testdata/sim's
// loops of 10,000 steps, some 5-7 million instructions, beside which
// the window's own few thousand are 0.1-0.2%, and callgrind takes a
// hundredth of a second.
const simIters = 100

// The benchmarks of testdata/sim that time work: all but Fails and Hang.
const simPattern = "^Benchmark(Steps10000|Steps11000|Setup|Sub|StopStart|StopSetup|Parallel|Loop)$"

// The simulation with the local toolchain: what each window counts, how
// two processes agree, a failing benchmark, a run cancelled.
func TestSimulate(t *testing.T) {
	needValgrind(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	mod, bin, version := buildWithOverlay(t, ctx, "testdata/sim", "local")
	cfg := SimConfig{Binary: bin, Dir: mod, Pattern: simPattern, Iters: simIters, Count: simCount}
	checkSimulated(t, ctx, cfg, version)

	t.Run("agreement", func(t *testing.T) {
		// The loops' counts are the code's: processes agree within 0.2%.
		// A window counts what the process's other threads (the
		// runtime's sysmon, waking every 10 ms of wall time) and the
		// scheduler (preempting the benchmark every 10 ms) did in it,
		// only ever more, and more the longer callgrind takes: a few
		// hundred to a few thousand instructions in 7 million on a quiet
		// machine, up to 0.6% when other processes keep it busy. So,
		// as rigor does, each process's least window, and a further
		// process (up to 4) until two agree.
		cfg := cfg
		cfg.Pattern = "^Benchmark(Steps10000|Steps11000|Loop)$"
		names := []string{"Steps10000", "Steps11000", "Loop"}
		var procs []map[string]float64
		agree := func() bool {
			last := procs[len(procs)-1]
			for _, p := range procs[:len(procs)-1] {
				ok := true
				for _, name := range names {
					a, b := p[name], last[name]
					if len(p) != len(names) && name == "Loop" {
						continue // before Go 1.24
					}
					if math.Abs(a-b) > 0.002*math.Min(a, b) {
						ok = false
					}
				}
				if ok {
					return true
				}
			}
			return false
		}
		for len(procs) < 2 || !agree() && len(procs) < 4 {
			procs = append(procs, leastPerOp(t, ctx, cfg))
		}
		for _, name := range names {
			if _, ok := procs[0][name]; !ok {
				continue
			}
			var v []string
			for _, p := range procs {
				v = append(v, strconv.FormatFloat(p[name], 'f', 2, 64))
			}
			t.Logf("%s: %s instructions/op in %d processes", name, strings.Join(v, ", "), len(procs))
		}
		if !agree() {
			t.Errorf("no two of %d processes agree within 0.2%%: %v", len(procs), procs)
		}
	})

	t.Run("fails", func(t *testing.T) {
		_, err := Simulate(ctx, SimConfig{Binary: bin, Dir: mod, Pattern: "^BenchmarkFails$", Iters: 1})
		var se *SimError
		if !errors.As(err, &se) {
			t.Fatalf("a failing benchmark: error %v, want a *SimError", err)
		}
		if !reflect.DeepEqual(se.Failed, []string{"Fails"}) || !strings.Contains(se.Output, "this benchmark fails") {
			t.Errorf("failed %q, output %q: want Fails and its message", se.Failed, se.Output)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Errorf("%v does not wrap the exit status", err)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var pid int
		go func() { // cancel once the benchmark has started its child
			defer cancel()
			for ctx.Err() == nil {
				if data, err := os.ReadFile(pidFile); err == nil && len(data) > 0 {
					pid, _ = strconv.Atoi(string(data))
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		_, err := Simulate(ctx, SimConfig{Binary: bin, Dir: mod, Pattern: "^BenchmarkHang$", Iters: 1,
			Env: append(os.Environ(), "SIMCHECK_PIDFILE="+pidFile)})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a cancelled run: error %v, want context.Canceled", err)
		}
		if pid <= 0 {
			t.Fatal("the benchmark did not start its child")
		}
		// The child was in the run's process group, killed with it.
		for deadline := time.Now().Add(30 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
				t.Fatalf("the benchmark's child (pid %d) outlived the cancelled run: its process group was not killed", pid)
			}
		}
	})
}

// alive reports whether process pid runs (a zombie does not).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// The simulation with two older releases, fetched through GOTOOLCHAIN:
// without -short.
func TestSimulateGo122(t *testing.T) { checkSimulateOlder(t, "go1.22.12") }
func TestSimulateGo124(t *testing.T) { checkSimulateOlder(t, "go1.24.11") }

func checkSimulateOlder(t *testing.T, toolchain string) {
	if testing.Short() {
		t.Skip("fetches a toolchain; without -short only")
	}
	needValgrind(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	mod, bin, version := buildWithOverlay(t, ctx, "testdata/sim", toolchain)
	checkSimulated(t, ctx, SimConfig{Binary: bin, Dir: mod, Pattern: simPattern, Iters: simIters, Count: simCount}, version)
}

// leastPerOp runs cfg and returns each benchmark's least count per
// operation.
func leastPerOp(t *testing.T, ctx context.Context, cfg SimConfig) map[string]float64 {
	t.Helper()
	rs, err := Simulate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]float64{}
	for _, r := range rs {
		if v, ok := per[r.Name]; !ok || r.PerOp < v {
			per[r.Name] = r.PerOp
		}
	}
	return per
}

// checkSimulated runs cfg (testdata/sim, built with version) and checks
// what it counts against the instructions of work's loop in the binary's
// code.
func checkSimulated(t *testing.T, ctx context.Context, cfg SimConfig, version string) {
	t.Helper()
	t0 := time.Now()
	rs, err := Simulate(ctx, cfg)
	if err != nil {
		t.Fatalf("%s: %v", version, err)
	}
	t.Logf("%s: %d windows simulated in %v", version, len(rs), time.Since(t0).Round(time.Millisecond))
	want := []string{"Steps10000", "Steps11000", "Setup", "Sub/n=10000", "Sub/n=20000", "StopStart", "StopSetup", "Parallel"}
	if version >= "go1.24" {
		want = append(want, "Loop")
	}
	per := map[string]float64{}
	n := map[string]int{}
	for _, r := range rs {
		n[r.Name]++
		if v, ok := per[r.Name]; !ok || r.PerOp < v {
			per[r.Name] = r.PerOp
		}
		if r.Iters != cfg.Iters || r.PerOp != r.Instructions/float64(r.Iters) && !(r.Name == "StopStart" && math.IsNaN(r.PerOp)) {
			t.Errorf("%s %s: %d iterations, %v instructions, %v per op", version, r.Name, r.Iters, r.Instructions, r.PerOp)
		}
		segments, parallel := 1, false
		switch r.Name {
		case "StopStart":
			segments = 1 + cfg.Iters // started by runN, then once an iteration
		case "StopSetup":
			segments = 2 // runN's start to the benchmark's stop; its own start to its stop
		case "Parallel":
			parallel = true
		}
		if r.Segments != segments || r.Parallel != parallel {
			t.Errorf("%s %s: %d segments, parallel %v; want %d, %v", version, r.Name, r.Segments, r.Parallel, segments, parallel)
		}
	}
	for _, name := range want {
		if n[name] != cfg.Count {
			t.Errorf("%s: %d results for %s, want %d (all: %+v)", version, n[name], name, cfg.Count, rs)
		}
	}
	if len(rs) != cfg.Count*len(want) {
		t.Errorf("%s: %d results, want %d", version, len(rs), cfg.Count*len(want))
	}

	// Each window counts its loop's steps at the instructions each takes
	// in the compiled code, and little else: the call, the benchmark's
	// loop, the window's own few thousand shared among its operations,
	// what other threads and the scheduler did meanwhile (in the least
	// of a benchmark's windows, 0.2% at most).
	// A window not its own (a dump of another run: of the same
	// benchmark's first, one-iteration run, of a sub-benchmark's parent,
	// of the set-up before ResetTimer or b.Loop) is far from it.
	k := float64(stepInstructions(t, cfg.Binary))
	for name, steps := range map[string]float64{
		"Steps10000": 10000, "Steps11000": 11000, "Setup": 10000, "Sub/n=10000": 10000, "Sub/n=20000": 20000, "Loop": 10000,
		// Its 500,000 steps of set-up with the timer stopped are in no
		// segment's dump (they were in its one window's: 5,000 more a
		// step at 100 iterations, which this range excludes).
		"StopSetup": 10000,
	} {
		v, ok := per[name]
		if !ok {
			continue
		}
		if lo, hi := k*steps, k*steps*1.005; !(v >= lo && v <= hi) {
			t.Errorf("%s %s: %.1f instructions/op, want %.0f (%.0f steps of %.0f instructions) to %.0f", version, name, v, lo, steps, k, hi)
		}
	}
	ratio := func(a, b string, want, tol float64) {
		if got := per[a] / per[b]; math.Abs(got/want-1) > tol {
			t.Errorf("%s: %s / %s = %.5f, want %.3f within %.1f%%", version, a, b, got, want, 100*tol)
		}
	}
	ratio("Steps11000", "Steps10000", 1.1, 0.002)
	// The window's own instructions and the call's, shared among the
	// operations, are 0.08% of n=20000's (0.16% of n=10000's).
	ratio("Sub/n=20000", "Sub/n=10000", 2, 0.003)
	// A timer stopped in every iteration has more segments than get a
	// dump each: no count.
	if v := per["StopStart"]; !math.IsNaN(v) {
		t.Errorf("%s StopStart: %.1f instructions/op, want none (NaN): %d segments, beyond %d", version, v, 1+cfg.Iters, SimSegments)
	}
	if v := per["Parallel"]; !(v > k*10000) {
		t.Errorf("%s Parallel: %.1f instructions/op, want above %.0f: 10,000 steps", version, v, k*10000)
	}
}

// stepInstructions is how many instructions a step of work's loop takes
// in bin: those from the target of the loop's backward jump to the jump,
// in go tool objdump's disassembly.
func stepInstructions(t *testing.T, bin string) int {
	t.Helper()
	out, err := exec.Command("go", "tool", "objdump", "-s", `^simcheck\.work$`, bin).Output()
	if err != nil {
		t.Fatalf("go tool objdump: %v", err)
	}
	var addrs []uint64
	var from, to uint64
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[1], "0x") {
			continue
		}
		addr, err := strconv.ParseUint(f[1][2:], 16, 64)
		if err != nil {
			continue
		}
		addrs = append(addrs, addr)
		if len(f) >= 5 && strings.HasPrefix(f[3], "J") && strings.HasPrefix(f[4], "0x") {
			target, err := strconv.ParseUint(f[4][2:], 16, 64)
			if err == nil && target < addr {
				if to != 0 {
					t.Fatalf("work has two backward jumps:\n%s", out)
				}
				from, to = target, addr
			}
		}
	}
	if to == 0 {
		t.Fatalf("no loop in work:\n%s", out)
	}
	n := 0
	for _, a := range addrs {
		if a >= from && a <= to {
			n++
		}
	}
	return n
}

// The binary's environment: the caller's, one P, asynchronous preemption
// off beside the caller's GODEBUG settings, the overlay in simulation.
func TestSimEnv(t *testing.T) {
	got := simEnv([]string{"HOME=/h", "GOMAXPROCS=8", "GODEBUG=gctrace=1", "RIGOR_INSTRUCTIONS=off", "X=a=b"})
	want := []string{"HOME=/h", "X=a=b", "GOMAXPROCS=1", "GODEBUG=gctrace=1,asyncpreemptoff=1", "RIGOR_INSTRUCTIONS=simulate"}
	if !slices.Equal(got, want) {
		t.Errorf("simEnv: %q, want %q", got, want)
	}
	if got := simEnv([]string{"GODEBUG="}); !slices.Contains(got, "GODEBUG=asyncpreemptoff=1") {
		t.Errorf("simEnv with an empty GODEBUG: %q", got)
	}
	t.Setenv("RIGOR_TEST_SIMENV", "inherited")
	if got := simEnv(nil); !slices.Contains(got, "RIGOR_TEST_SIMENV=inherited") {
		t.Errorf("simEnv(nil) leaves out this process's environment: %q", got)
	}
}

// Result lines are read with their dumps' totals; a line without the
// overlay's metrics, or whose dump is missing, is an error.
func TestReadResults(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cg.out")
	dump := func(n int, text string) {
		if err := os.WriteFile(out+"."+strconv.Itoa(n), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dump(2, "# callgrind format\nversion: 1\nevents: Ir\nsummary: 17\n\nfn=(1) x\n0 9010009\n\ntotals: 9010009\n")
	dump(4, "# callgrind format\nevents: Ir\nsummary: 900\ntotals: 4500\n")
	dump(5, "# callgrind format\nevents: Ir\n")
	// C stops its timer around its set-up: two segments, dumps 6 and 7,
	// sysmon's instructions left out of each.
	dump(6, "events: Ir\nfn=(1) main.f\n0 1000\nfn=(2) runtime.sysmon\n0 30\ntotals: 1030\n")
	dump(7, "events: Ir\nfn=(1) main.f\n0 49000\ncfn=(2) runtime.sysmon\ncalls=1 0\n0 70\nfn=(2)\n0 70\ntotals: 49070\n")
	stdout := "goos: linux\npkg: simcheck\nBenchmarkA   \t    1000\t  5 ns/op\t 0 rigor-parallel\t 1.000 rigor-segments\t 2.000 rigor-window\n" +
		"BenchmarkB/n=2 \t 10\t 7 ns/op\t 1.000 rigor-parallel\t 11.00 rigor-segments\t 4.000 rigor-window\n" +
		"BenchmarkC \t 100\t 7 ns/op\t 0 rigor-parallel\t 2.000 rigor-segments\t 6.000 rigor-window\nPASS\n"
	rs, err := readResults([]byte(stdout), out)
	if err != nil {
		t.Fatal(err)
	}
	// B's 11 segments are beyond SimSegments: no count (NaN).
	if len(rs) == 3 && math.IsNaN(rs[1].Instructions) && math.IsNaN(rs[1].PerOp) && math.IsNaN(rs[1].Sysmon) {
		rs[1].Instructions, rs[1].PerOp, rs[1].Sysmon = -1, -1, -1
	}
	want := []SimResult{
		{Name: "A", Iters: 1000, Instructions: 9010009, PerOp: 9010.009, Segments: 1},
		{Name: "B/n=2", Iters: 10, Instructions: -1, PerOp: -1, Sysmon: -1, Segments: 11, Parallel: true},
		{Name: "C", Iters: 100, Instructions: 50000, Sysmon: 100, PerOp: 500, Segments: 2},
	}
	if !reflect.DeepEqual(rs, want) {
		t.Errorf("read %+v, want %+v", rs, want)
	}
	for _, c := range []struct{ stdout, want string }{
		{"BenchmarkA \t 1000\t 5 ns/op\n", "no rigor-window"},
		{"BenchmarkA \t 1000\t 5 ns/op\t 0 rigor-parallel\t 1.000 rigor-segments\t 3.000 rigor-window\n", "cg.out.3"},
		{"BenchmarkA \t 1000\t 5 ns/op\t 0 rigor-parallel\t 1.000 rigor-segments\t 5.000 rigor-window\n", "no totals"},
	} {
		if _, err := readResults([]byte(c.stdout), out); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one saying %q", c.stdout, err, c.want)
		}
	}
}

// The benchmarks that failed, named from their "--- FAIL" lines, which
// may follow the name printed before the benchmark ran.
func TestFailures(t *testing.T) {
	stdout := "goos: linux\nBenchmarkOK \t 10\t 5 ns/op\t 1.000 rigor-window\n" +
		"BenchmarkBad         \t--- FAIL: BenchmarkBad\n    x_test.go:9: boom\n        more\n" +
		"--- FAIL: BenchmarkSub/n=2\n    x_test.go:12: bang\nFAIL\n"
	names, output := failures([]byte(stdout))
	if want := []string{"Bad", "Sub/n=2"}; !slices.Equal(names, want) {
		t.Errorf("failed %q, want %q", names, want)
	}
	if want := "--- FAIL: BenchmarkBad\n    x_test.go:9: boom\n        more\n--- FAIL: BenchmarkSub/n=2\n    x_test.go:12: bang\n"; output != want {
		t.Errorf("output %q, want %q", output, want)
	}
}

// Without valgrind, Simulate and ValgrindVersion say which package to
// install.
func TestNoValgrind(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Simulate(context.Background(), SimConfig{Binary: "x.test", Iters: 1})
	if err != ErrNoValgrind || !strings.Contains(err.Error(), "Debian's valgrind package") {
		t.Errorf("Simulate without valgrind: %v", err)
	}
	if _, err := ValgrindVersion(""); err != ErrNoValgrind {
		t.Errorf("ValgrindVersion without valgrind: %v", err)
	}
	_, err = Simulate(context.Background(), SimConfig{Valgrind: "/nonexistent/valgrind", Binary: "x.test", Iters: 1})
	if !errors.Is(err, ErrNoValgrind) || !strings.Contains(err.Error(), "/nonexistent/valgrind") {
		t.Errorf("Simulate with a valgrind that is not there: %v", err)
	}
	if _, err := Simulate(context.Background(), SimConfig{Binary: "x.test"}); err == nil || !strings.Contains(err.Error(), "iterations") {
		t.Errorf("Simulate without iterations: %v", err)
	}
}

func TestValgrindVersion(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind is not on PATH (Debian's valgrind package)")
	}
	v, err := ValgrindVersion("")
	if err != nil || !strings.HasPrefix(v, "valgrind-3.") {
		t.Errorf("ValgrindVersion: %q, %v", v, err)
	}
}

// A tailWriter keeps the last lines, however they are written.
func TestTailWriter(t *testing.T) {
	w := &tailWriter{max: 3}
	for _, p := range []string{"one\ntw", "o\nthree\n", "four\nfi", "ve"} {
		w.Write([]byte(p))
	}
	if got, want := w.String(), "three\nfour\nfive"; got != want {
		t.Errorf("tail %q, want %q", got, want)
	}
}
