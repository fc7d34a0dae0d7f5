package window

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The local toolchain's testing/benchmark.go patches with each call on
// the line it belongs to: the file keeps its line count.
func TestPatchLocal(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(goroot(t), "src", "testing", "benchmark.go"))
	if err != nil {
		t.Skip("no toolchain source:", err)
	}
	out, err := Patch(src)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := bytes.Count(src, []byte("\n")), bytes.Count(out, []byte("\n")); a != b {
		t.Errorf("%d lines patched, %d before", b, a)
	}
	for call, want := range map[string]int{
		"rigorWindowStart(b)": 2, "rigorWindowStop(b)": 1, "rigorWindowReset(b)": 1,
		"rigorWindowOpen(b)": 1, "rigorWindowReport(b)": 1, "rigorWin rigorWindowState": 1,
		"rigorWindowParallel(b)": 1,
	} {
		if got := bytes.Count(out, []byte(call)); got != want {
			t.Errorf("%s inserted %d times, want %d", call, got, want)
		}
	}
}

// A file without the timer's shape is refused, saying what is missing.
func TestPatchShape(t *testing.T) {
	src := []byte(`package testing

type B struct{ timerOn bool }

func (b *B) StartTimer() { b.timerOn = true }
`)
	_, err := Patch(src)
	var se *ShapeError
	if !errors.As(err, &se) {
		t.Fatalf("err %v, want a ShapeError", err)
	}
	for _, want := range []string{"the assignment to b.start in StartTimer", "B.StopTimer", "B.ResetTimer", "B.runN", "B.RunParallel"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err, want)
		}
	}
	if _, err := Patch([]byte("package testing\nfunc (")); err == nil || !strings.Contains(err.Error(), "parsing") {
		t.Errorf("unparsable source: %v", err)
	}
}

// A user's own overlay is merged; one that replaces benchmark.go itself
// cannot be.
func TestMakeMergesUserOverlay(t *testing.T) {
	goroot := goroot(t)
	if _, err := os.Stat(filepath.Join(goroot, "src", "testing", "benchmark.go")); err != nil {
		t.Skip("no toolchain source")
	}
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	os.WriteFile(user, []byte(`{"Replace": {"/src/x.go": "/tmp/y.go"}}`), 0o644)
	path, err := Make(goroot, filepath.Join(dir, "w"), user)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{`"/src/x.go": "/tmp/y.go"`, "benchmark.go", HooksFile} {
		if !strings.Contains(string(data), want) {
			t.Errorf("overlay %s lacks %s", data, want)
		}
	}
	os.WriteFile(user, []byte(`{"Replace": {"`+filepath.Join(goroot, "src", "testing", "benchmark.go")+`": "/tmp/mine.go"}}`), 0o644)
	if _, err := Make(goroot, filepath.Join(dir, "w2"), user); err == nil || !strings.Contains(err.Error(), "already replaces") {
		t.Errorf("a clashing overlay: %v", err)
	}
}

// The overlay on the local toolchain: every way of driving the timer
// reports the window's CPU time and CPU waits.
func TestOverlayLocal(t *testing.T) {
	checkToolchain(t, "local")
}

// The overlay on two older releases, fetched through GOTOOLCHAIN (the
// module proxy): without -short.
func TestOverlayGo122(t *testing.T) { checkOlder(t, "go1.22.12") }
func TestOverlayGo124(t *testing.T) { checkOlder(t, "go1.24.11") }

func checkOlder(t *testing.T, toolchain string) {
	if testing.Short() {
		t.Skip("fetches a toolchain; without -short only")
	}
	checkToolchain(t, toolchain)
}

// A benchmark result line: iterations and value per unit.
type result struct {
	iters  float64
	values map[string]float64
}

// checkToolchain builds testdata/mod with toolchain and the overlay, runs
// its benchmarks and checks what they report.
func checkToolchain(t *testing.T, toolchain string) {
	if runtime.GOOS != "linux" {
		t.Skip("the overlay reads Linux's clocks")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	mod, bin, version := buildWithOverlay(t, ctx, "testdata/mod", toolchain)
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^$", "-test.bench", ".", "-test.benchtime", "100x", "-test.benchmem", "-test.cpu", "1")
	cmd.Dir = mod
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	results := parse(string(out))
	counters, _ := CountersAvailable()
	want := []string{"N", "StopStart", "Reset", "Parallel", "Sub/n=10000", "Sub/n=20000", "Metric"}
	if hasLoop := version >= "go1.24"; hasLoop {
		want = append(want, "Loop")
	}
	for _, name := range want {
		r, ok := results[name]
		if !ok {
			t.Errorf("%s: no result for %s in\n%s", version, name, out)
			continue
		}
		wall, cpu, wait := r.values["ns/op"], r.values[CPUUnit], r.values[WaitUnit]
		if _, ok := r.values[WaitUnit]; !ok || !(cpu > 0) || wait < 0 {
			t.Errorf("%s %s: cpu-ns/op %v, wait-ns/op %v (present %v), want both", version, name, cpu, wait, ok)
			continue
		}
		// One thread computes in the window, so its CPU time is at most
		// its wall time, with room for the clocks' own reads; had the
		// overlay read the whole process, StopStart and Reset (20 and
		// 50 times more work outside the window than in it) would be
		// far above.
		if name != "Parallel" && cpu > 3*wall {
			t.Errorf("%s %s: cpu-ns/op %.0f against %.0f ns/op: the window's CPU time includes what lies outside it", version, name, cpu, wall)
		}
		// Where the machine counts them: 10,000 steps or more of at least
		// two instructions each.
		if instr, cycles := r.values[InstructionsUnit], r.values[CyclesUnit]; counters && !(instr >= 20000 && cycles > 0) {
			t.Errorf("%s %s: %s %v, %s %v: the machine has counters", version, name, InstructionsUnit, instr, CyclesUnit, cycles)
		}
		if a, ok := r.values["allocs/op"]; !ok || a != 0 {
			t.Errorf("%s %s: allocs/op %v, want 0: the overlay's reads must not allocate", version, name, a)
		}
	}
	// The working threads' voluntary context switches: a thread that only
	// computes has no reason to block (experiments/switches: 0 per ms at
	// GOMAXPROCS 1, at load 2 to 8), so one switch in its 100 operations
	// at most; one that sleeps in every operation blocks in every one.
	for _, name := range want {
		v, ok := results[name].values[SwitchesUnit]
		switch {
		case !ok:
			t.Errorf("%s %s: no %s", version, name, SwitchesUnit)
		case name == "N" && v*results[name].iters > 1:
			t.Errorf("%s N: %v %s over %v operations that only compute, want at most one switch", version, v, SwitchesUnit, results[name].iters)
		}
	}
	if s, ok := results["Sleep"]; !ok || s.values[SwitchesUnit] < 0.5 {
		t.Errorf("%s Sleep: %v, want at least 0.5 %s: each operation sleeps", version, s.values, SwitchesUnit)
	}
	if m := results["Metric"]; m.values["things/op"] != 7 {
		t.Errorf("%s: the benchmark's own metric: %v", version, m.values)
	}
}

// buildWithOverlay builds the test binary of the module in dir with
// toolchain (through GOTOOLCHAIN: "local", or a release the go command
// fetches from the module proxy) and the overlay, as gotest.Build does. It
// returns dir's absolute path, the binary and the toolchain's version.
func buildWithOverlay(t *testing.T, ctx context.Context, dir, toolchain string) (mod, bin, version string) {
	t.Helper()
	mod, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOTOOLCHAIN="+toolchain, "GOFLAGS=")
	goCmd := func(args ...string) string {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir, cmd.Env = mod, env
		// Standard output only: the first use of a toolchain says
		// "go: downloading go1.22.12" on standard error, which is not
		// part of go env's answer.
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
		}
		return strings.TrimSpace(string(out))
	}
	goroot := goCmd("env", "GOROOT")
	version = goCmd("env", "GOVERSION")
	tmp := t.TempDir()
	overlay, err := Make(goroot, filepath.Join(tmp, "overlay"), "")
	if err != nil {
		t.Fatalf("%s: %v", version, err)
	}
	bin = filepath.Join(tmp, "check.test")
	goCmd("test", "-c", "-overlay", overlay, "-vet=off", "-o", bin, ".")
	return mod, bin, version
}

// parse reads benchmark result lines: "BenchmarkX-N iters v unit ...".
func parse(out string) map[string]result {
	rs := map[string]result{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		iters, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		r := result{iters: iters, values: map[string]float64{}}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err == nil {
				r.values[f[i+1]] = v
			}
		}
		rs[name] = r
	}
	return rs
}

// goroot is the go command's GOROOT, or skips the test without one.
func goroot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip("no go command:", err)
	}
	return strings.TrimSpace(string(out))
}

// TestSwitchesLive runs benchmarks that compute, sleep and hand values
// between goroutines at GOMAXPROCS 2, with the overlay, and checks that
// their switches per ms of CPU time fall on the sides of package
// analysis's bound (0.5, maxSwitchRate) that experiments/switches
// measured: computing 0-0.27, ping-pong 5.5-8.4, sleeping 44-121. It
// times the live machine: without -short only.
func TestSwitchesLive(t *testing.T) {
	if testing.Short() {
		t.Skip("times the live machine; without -short only")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the overlay reads Linux's clocks")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	mod, bin, _ := buildWithOverlay(t, ctx, "testdata/mod", "local")
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^$", "-test.bench", "^Benchmark(N|Sleep|PingPong)$", "-test.benchtime", "200ms", "-test.cpu", "2")
	cmd.Dir = mod
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	const bound = 0.5
	for name, blocks := range map[string]bool{"N": false, "Sleep": true, "PingPong": true} {
		r, ok := parse(string(out))[name]
		sw, cpu := r.values[SwitchesUnit], r.values[CPUUnit]
		if !ok || !(cpu > 0) {
			t.Errorf("%s: no result with CPU time in\n%s", name, out)
			continue
		}
		rate := sw / (cpu / 1e6) // per ms of CPU time
		if (rate > bound) != blocks {
			t.Errorf("%s: %.3g voluntary switches per ms of CPU time (%v %s, %v %s), want it %s %v", name, rate, sw, SwitchesUnit, cpu, CPUUnit,
				map[bool]string{true: "above", false: "at most"}[blocks], bound)
		}
	}
}
