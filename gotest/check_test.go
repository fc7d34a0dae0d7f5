package gotest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// TestCheckRefusesFailingSide: a side whose tests fail is refused before
// any sample is taken, with the failing test's name, the side and the
// package; --no-check (Check.Skip) times it anyway, saying so.
func TestCheckRefusesFailingSide(t *testing.T) {
	if testing.Short() {
		// gotest's -short run is near go test's 10-minute limit on a busy
		// machine; cmd/rigor's TestABRefusesFailingTests runs this end to
		// end under -short.
		t.Skip("cmd/rigor's TestABRefusesFailingTests covers it under -short")
	}
	dir := newRepo(t, labRev("1"))
	// The working tree is faster and wrong: Work(0) is no longer 1.
	writeFiles(t, dir, map[string]string{"lab/work.go": strings.Replace(strings.Replace(labWork, "SCALE", "1", 1),
		"x := uint64(1)", "x := uint64(2)", 1)})
	cfg := quick(dir, t, 2, Side{Label: "old", Rev: "HEAD"}, Side{Label: "new", Rev: WorkingTree})
	cfg.Bench = "Work"
	obs := &fakeObserver{keys: map[string]bool{}}
	cfg.Observer = obs
	var log strings.Builder
	cfg.Log = &log
	run, err := Run(context.Background(), cfg)
	var ce *CheckError
	if run != nil || !errors.As(err, &ce) {
		t.Fatalf("Run = %v, %v; want no run and a *CheckError", run != nil, err)
	}
	if ce.Side != "new" || ce.Pkg != "example.com/lab/lab" || !slices.Equal(ce.Failed, []string{"TestWork"}) {
		t.Errorf("CheckError %+v, want new, example.com/lab/lab, [TestWork]", ce)
	}
	for _, want := range []string{"new: the tests of example.com/lab/lab fail (TestWork), so new is not timed", "--no-check"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error is not one line: %q", err)
	}
	if !strings.Contains(log.String(), "Work(0) != 1") {
		t.Errorf("the log does not quote the failing test's output:\n%s", log.String())
	}
	if obs.marks != 0 {
		t.Errorf("%d samples were marked before the refusal", obs.marks)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, "new.txt")); err == nil {
		t.Errorf("new.txt written for a refused side")
	}

	// One side, the failing one (its binary is in the build cache).
	cfg = quick(dir, t, 2, Side{Label: "new", Rev: WorkingTree})
	cfg.Bench = "Work"
	cfg.Check.Skip = true
	run, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(run.Notes, func(n model.Note) bool {
		return n.Topic == "check" && strings.Contains(n.Text, "not run before timing (--no-check)")
	}) {
		t.Errorf("no note says the check was skipped: %q", model.Texts(run.Notes))
	}
	if m := run.Benchmarks[0].Metric("sec/op"); m == nil || len(m.Samples) != 2 {
		t.Errorf("--no-check did not time the side")
	}
}

// argsTest is a benchmark that reports the -size flag its test binary
// was given (a benchmark's own flag, as golang/snappy's -benchdataDir).
const argsTest = `package lab

import (
	"flag"
	"testing"
)

var size = flag.Int("size", 1, "work per operation")

func BenchmarkSized(b *testing.B) {
	for b.Loop() {
		sink = Work(*size)
	}
	b.ReportMetric(float64(*size), "size")
}
`

// TestArgsPassed: each side's Args reach its test binaries after rigor's
// flags (the tests too, before timing), are recorded in the run's sides,
// and sides that differ only in them are no A/A run.
func TestArgsPassed(t *testing.T) {
	if testing.Short() {
		t.Skip("cmd/rigor's TestABTestArgs covers it under -short")
	}
	rev := labRev("1")
	rev["lab/args_test.go"] = argsTest
	dir := newRepo(t, rev)
	for _, tc := range []struct {
		oldArgs, newArgs []string
		want             [2]float64
		aa               bool
	}{
		{[]string{"-size=7"}, []string{"-size", "9"}, [2]float64{7, 9}, false},
		{[]string{"-size=3"}, []string{"-size=3"}, [2]float64{3, 3}, true},
	} {
		// Both sides the working tree, so that one build serves both (the
		// arguments change no build).
		cfg := quick(dir, t, 2, Side{Label: "old", Rev: WorkingTree, Settings: Settings{Args: tc.oldArgs}},
			Side{Label: "new", Rev: WorkingTree, Settings: Settings{Args: tc.newArgs}})
		cfg.Bench = "Sized"
		run, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		m := run.Benchmarks[0].Metric("size")
		if m == nil {
			t.Fatalf("%q/%q: no size metric", tc.oldArgs, tc.newArgs)
		}
		for i, side := range []string{"old", "new"} {
			for _, s := range m.Samples {
				if s.Side == side && s.Value != tc.want[i] {
					t.Errorf("%q/%q: %s reported size %v, want %v", tc.oldArgs, tc.newArgs, side, s.Value, tc.want[i])
				}
			}
		}
		if !slices.Equal(run.Sides[0].Args, tc.oldArgs) || !slices.Equal(run.Sides[1].Args, tc.newArgs) {
			t.Errorf("sides record args %q and %q", run.Sides[0].Args, run.Sides[1].Args)
		}
		if isAA(run) != tc.aa {
			t.Errorf("%q/%q: A/A %v, want %v", tc.oldArgs, tc.newArgs, isAA(run), tc.aa)
		}
	}

	// An argument the test binary does not know fails the check, before
	// timing, with the binary's own words.
	cfg := quick(dir, t, 2, Side{Label: "current", Rev: WorkingTree, Settings: Settings{Args: []string{"-sizes=3"}}})
	var log strings.Builder
	cfg.Log = &log
	if _, err := Run(context.Background(), cfg); !errors.As(err, new(*CheckError)) {
		t.Errorf("an unknown flag: %v, want a *CheckError", err)
	}
	if !strings.Contains(log.String(), "flag provided but not defined: -sizes") {
		t.Errorf("the log lacks the test binary's complaint:\n%s", log.String())
	}
}

func TestCheckArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		bad  string
	}{
		{nil, ""},
		{[]string{"-benchdataDir=testdata", "-size", "3", "word"}, ""},
		{[]string{"-test"}, ""},
		{[]string{"-tests.x"}, ""},
		{[]string{"---test.bench=x"}, ""}, // not a flag the flag package reads
		{[]string{"-test.bench=x"}, "-test.bench"},
		{[]string{"-size=1", "--test.benchtime", "1s"}, "-test.benchtime"},
		{[]string{"-test.v"}, "-test.v"},
	} {
		err := CheckArgs(tc.args)
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("CheckArgs(%q) = %v, want nil", tc.args, err)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), "("+tc.bad+":")):
			t.Errorf("CheckArgs(%q) = %v, want it to name %s", tc.args, err, tc.bad)
		}
	}
	cfg := Config{Sides: []Side{{Label: "new", Settings: Settings{Args: []string{"-test.count=3"}}}}, Out: t.TempDir()}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.HasPrefix(err.Error(), "new: ") {
		t.Errorf("Run with a -test.* argument: %v", err)
	}
}

func TestInstrumented(t *testing.T) {
	t.Setenv("GOFLAGS", "")
	for _, tc := range []struct {
		s    Settings
		want string // a word of the reason; "" for none
	}{
		{Settings{}, ""},
		{Settings{GCFlags: "-m"}, ""},
		{Settings{GCFlags: "all=-N -l"}, "-N"},
		{Settings{GCFlags: "-l"}, "-l"},
		{Settings{GCFlags: "example.com/p=-N"}, "-N"},
		{Settings{GCFlags: "-lang=go1.22"}, ""},
		{Settings{Env: []string{"GOFLAGS=-race"}}, "-race"},
		{Settings{Env: []string{"GOFLAGS=-mod=mod -cover"}}, "-cover"},
		{Settings{Env: []string{"GOFLAGS=-race=false"}}, ""},
		{Settings{Env: []string{"GOFLAGS=-gcflags=all=-N"}}, "-gcflags=all=-N"},
		{Settings{Env: []string{"GOFLAGS=-race", "GOFLAGS=-trimpath"}}, ""}, // the last one wins
		{Settings{Env: []string{"GOFLAGS=--asan"}}, "--asan"},
	} {
		got := instrumented(tc.s)
		if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
			t.Errorf("instrumented(%+v) = %q, want %q in it", tc.s, got, tc.want)
		}
	}
	t.Setenv("GOFLAGS", "-race")
	if instrumented(Settings{}) == "" {
		t.Errorf("GOFLAGS=-race in the environment is not seen")
	}
	cfg := Config{Sides: []Side{{Label: "new"}}, Out: t.TempDir()}
	err := checkInstrumented(&cfg)
	if err == nil || !strings.Contains(err.Error(), "--force") || strings.Contains(err.Error(), "\n") {
		t.Errorf("checkInstrumented = %v, want one line naming --force", err)
	}
	cfg.Check.Instrumented = true
	if err := checkInstrumented(&cfg); err != nil {
		t.Errorf("allowed: %v", err)
	}
}

func TestFailedTests(t *testing.T) {
	out := `=== RUN   TestA
--- FAIL: TestA (0.00s)
    a_test.go:3: wrong
=== RUN   TestB
    --- FAIL: TestB/sub (0.00s)
--- FAIL: TestB (0.00s)
--- PASS: TestC (0.00s)
    --- FAIL: TestB/sub (0.00s)
printed --- FAIL: TestNot
FAIL
`
	if got, want := failedTests(out), []string{"TestA", "TestB/sub"}; !slices.Equal(got, want) {
		t.Errorf("failedTests = %q, want %q", got, want)
	}
}

// TestRaceCheck: with Check.Race, a side whose tests race is refused,
// though its tests pass without -race. It builds with -race, which needs
// cgo and a C compiler here, and takes a while: not under -short.
func TestRaceCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with -race")
	}
	if out, err := exec.Command("go", "env", "CGO_ENABLED").Output(); err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Skip("cgo is off: no race detector")
	}
	rev := labRev("1")
	rev["lab/race_test.go"] = `package lab

import "testing"

func TestRacy(t *testing.T) {
	n := 0
	done := make(chan bool)
	go func() { n++; done <- true }()
	n++
	<-done
	_ = n
}
`
	dir := newRepo(t, rev)
	cfg := quick(dir, t, 2, Side{Label: "current", Rev: WorkingTree})
	cfg.Bench = "Work"
	cfg.Check.Race = true
	_, err := Run(context.Background(), cfg)
	var ce *CheckError
	if !errors.As(err, &ce) || !ce.Race {
		t.Fatalf("Run = %v, want a -race *CheckError", err)
	}
	if !strings.Contains(err.Error(), "under -race") {
		t.Errorf("error %q does not say -race", err)
	}
}

// FuzzFailedTests: whatever a test binary prints, failedTests returns
// names without blanks, each once, each from a "--- FAIL: " line of it.
func FuzzFailedTests(f *testing.F) {
	f.Add("--- FAIL: TestA (0.00s)\n    --- FAIL: TestA/b (0.00s)\nFAIL\n")
	f.Add("printed --- FAIL: TestNot\n")
	f.Fuzz(func(t *testing.T, out string) {
		names := failedTests(out)
		for i, n := range names {
			if n == "" || strings.ContainsAny(n, " \t\n") || !strings.Contains(out, "--- FAIL: "+n) || slices.Contains(names[:i], n) {
				t.Errorf("failedTests(%q) = %q: %q is not a failed test's name", out, names, n)
			}
		}
	})
}

// FuzzInstrumented: any gcflags and GOFLAGS are read without a panic, and
// a reason names what it found in them.
func FuzzInstrumented(f *testing.F) {
	f.Add("all=-N -l", "-race")
	f.Add("-m", "-gcflags=all=-l -mod=mod")
	f.Fuzz(func(t *testing.T, gcflags, goflags string) {
		why := instrumented(Settings{GCFlags: gcflags, Env: []string{"GOFLAGS=" + goflags}})
		if why == "" {
			return
		}
		rest := strings.TrimPrefix(strings.TrimPrefix(why, "its gcflags "), "GOFLAGS has ")
		if tok := strings.TrimSuffix(strings.Fields(rest)[0], ","); !strings.Contains(gcflags+" "+goflags, tok) {
			t.Errorf("instrumented(%q, %q) = %q names nothing of them", gcflags, goflags, why)
		}
	})
}
