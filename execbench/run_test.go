package execbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// helper is the path of testdata/helper, built once by TestMain: a
// command that does what its flags say (exit, sleep, print, read, count
// its runs), so that tests know what a command did without timing it.
var helper string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "execbench-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	helper = filepath.Join(dir, "helper")
	build := exec.Command("go", "build", "-o", helper, "./testdata/helper")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the test helper: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// h is a command line running the helper with args.
func h(args ...string) string {
	return "'" + helper + "' " + strings.Join(args, " ")
}

// config is a quick Config: no warm-up, a few rounds, results in a fresh
// directory.
func config(t *testing.T, rounds int, lines ...string) Config {
	t.Helper()
	cfg := Config{Out: filepath.Join(t.TempDir(), "out"), MinRounds: rounds, MaxRounds: rounds, Time: time.Minute, Timeout: 30 * time.Second}
	for _, l := range lines {
		cfg.Commands = append(cfg.Commands, Command{Line: l})
	}
	return cfg
}

func TestRunRecordsEveryRun(t *testing.T) {
	cfg := config(t, 3, h("-print", "a"), h("-print", "b"))
	cfg.Commands[1].Label = "second"
	cfg.Warmup = 2
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	run := res.Run
	if run.Kind != Kind || !run.Paired || len(run.Sides) != 2 || run.Sides[0].Label != h("-print", "a") || run.Sides[1].Label != "second" {
		t.Fatalf("kind %q paired %v sides %+v", run.Kind, run.Paired, run.Sides)
	}
	if len(run.Benchmarks) != 1 || run.Benchmarks[0].Name != DefaultName {
		t.Fatalf("benchmarks %+v, want one named %s", run.Benchmarks, DefaultName)
	}
	b := run.Benchmarks[0]
	for _, unit := range []string{WallUnit, CPUUnit} {
		m := b.Metric(unit)
		if m == nil {
			t.Fatalf("no %s metric", unit)
		}
		for _, side := range run.Sides {
			var rounds []int
			for _, s := range m.BySide(side.Label) {
				if s.Iters != 1 || !(s.Value > 0) {
					t.Errorf("%s %s: sample %+v, want one run with a positive value", unit, side.Label, s)
				}
				rounds = append(rounds, s.Round)
			}
			if !slices.Equal(rounds, []int{1, 2, 3}) {
				t.Errorf("%s %s: rounds %v, want [1 2 3]", unit, side.Label, rounds)
			}
		}
	}
	if len(model.OfKind(run.Notes, model.NoteAA)) != 0 {
		t.Error("different commands called an A/A run")
	}
	if !slices.ContainsFunc(run.Notes, func(n model.Note) bool {
		return n.Kind == model.NoteBudget && strings.Contains(n.Text, "warm-up") && strings.Contains(n.Text, "4 runs") && strings.Contains(n.Text, "6 timed runs")
	}) {
		t.Errorf("the budget note does not count 4 warm-up runs and 6 timed runs: %q", model.Texts(run.Notes))
	}
	// run.json holds what Run returned.
	saved, err := model.ReadFile(filepath.Join(cfg.Out, experiment.RunFile), "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(saved.Benchmarks[0].Metric(WallUnit).Samples), 6; got != want {
		t.Errorf("run.json has %d wall samples, want %d", got, want)
	}
}

// TestSideOrder: the rounds run the commands in counterbalanced order,
// read from what --prepare appends to a log: two commands as Thue-Morse
// (AB BA BA AB), three rotating (ABC BCA CAB).
func TestSideOrder(t *testing.T) {
	for _, tc := range []struct {
		sides int
		want  string
	}{
		{2, "AB BA BA AB"},
		{3, "ABC BCA CAB ABC"},
	} {
		log := filepath.Join(t.TempDir(), "log")
		cfg := config(t, 4)
		for i := range tc.sides {
			name := string(rune('A' + i))
			cfg.Commands = append(cfg.Commands, Command{Line: h("-print", name), Prepare: "printf " + name + " >> " + log})
		}
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(log)
		var rounds []string
		for i := 0; i+tc.sides <= len(b); i += tc.sides {
			rounds = append(rounds, string(b[i:i+tc.sides]))
		}
		if got := strings.Join(rounds, " "); got != tc.want {
			t.Errorf("%d commands ran in the order %s, want %s", tc.sides, got, tc.want)
		}
	}
}

func TestAA(t *testing.T) {
	cfg := config(t, 2, h(), h())
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{res.Run.Sides[0].Label, res.Run.Sides[1].Label}; got[1] != got[0]+" (2)" {
		t.Errorf("labels %q: the second should be the first with (2)", got)
	}
	if len(model.OfKind(res.Run.Notes, model.NoteAA)) != 1 {
		t.Errorf("no A/A note: %q", model.Texts(res.Run.Notes))
	}
}

func TestParameters(t *testing.T) {
	out := filepath.Join(t.TempDir(), "printed")
	cfg := config(t, 2, h("-print", "{n}-{s}"))
	cfg.Output = out
	n, err := ScanValues("1", "2", "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Params = []Param{{Name: "n", Values: n}, {Name: "s", Values: []string{"a", "b"}}}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range res.Run.Benchmarks {
		names = append(names, b.Name)
		if got := b.Metric(WallUnit); got == nil || len(got.Samples) != 2 {
			t.Errorf("%s: wall samples %+v, want 2", b.Name, got)
		}
	}
	if want := []string{"n=1/s=a", "n=1/s=b", "n=2/s=a", "n=2/s=b"}; !slices.Equal(names, want) {
		t.Errorf("benchmarks %q, want %q", names, want)
	}
	if c := res.Run.Benchmarks[3].Config; c["n"] != "2" || c["s"] != "b" {
		t.Errorf("config %v, want n=2 s=b", c)
	}
	// --output FILE holds one run's output: it is written afresh.
	b, _ := os.ReadFile(out)
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 1 {
		t.Errorf("--output file holds %q, want one run's line", b)
	}
	exp := res.Hyperfine()
	if len(exp.Results) != 4 || exp.Results[0].Command != h("-print", "1-a") || exp.Results[0].Parameters["s"] != "a" {
		t.Errorf("export %+v", exp.Results)
	}
}

func TestInputEveryRun(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(in, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each run reads the whole file: helper exits 4 otherwise.
	cfg := config(t, 3, h("-want-input", "hello"))
	cfg.Input, cfg.Warmup = in, 1
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
}

func TestOutputPipe(t *testing.T) {
	// 1 MiB a run through the pipe: more than a pipe holds, so a pipe
	// nobody read would block the command.
	cfg := config(t, 2, h("-spew", "1024"))
	cfg.Output = OutputPipe
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cfg = config(t, 2, h("-print", "shown"))
	cfg.Output, cfg.Stdout, cfg.Stderr = OutputInherit, &stdout, &stdout
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(stdout.String(), "shown\n"); got != 2 {
		t.Errorf("--output inherit showed %d lines, want 2: %q", got, stdout.String())
	}
}

// TestBadCommands: what cannot be measured is an error before any
// sample, in one line, with nothing left in the results directory.
func TestBadCommands(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*Config)
		lines []string
		want  string
	}{
		{"empty", nil, []string{"  "}, "command 1 is empty"},
		{"not found", nil, []string{"no-such-command-rigor-test x"}, "executable file not found"},
		{"shell syntax", nil, []string{"true | false"}, "--shell"},
		// It said ": executable file not found" (issue 23 item 8).
		{"empty program", nil, []string{`""`}, `"\"\"" names no program: its first word is empty`},
		{"always fails", nil, []string{h(), h("-exit", "3", "-stderr", "boom")}, "exit status 3: boom"},
		{"fails without warm-up", func(c *Config) { c.Warmup = 0 }, []string{h("-exit", "3")}, "failed in its first timed run: exit status 3"},
		{"not found in the shell", func(c *Config) { c.Shell = []string{"sh"} }, []string{"no-such-command-rigor-test"}, "exit status 127"},
		{"timeout", func(c *Config) { c.Timeout = 100 * time.Millisecond }, []string{h("-sleep", "1h")}, "longer than the timeout of 100ms"},
		{"budget as timeout", func(c *Config) { c.Timeout, c.Time = 0, 200*time.Millisecond }, []string{h("-sleep", "1h")}, "whole --time budget"},
		{"setup fails", func(c *Config) { c.Commands[0].Setup = "exit 7" }, []string{h()}, `--setup "exit 7" failed: exit status 7`},
		{"prepare fails", func(c *Config) { c.Commands[0].Prepare = "echo nope >&2; exit 1" }, []string{h()}, "nope"},
		{"unused parameter", func(c *Config) { c.Params = []Param{{Name: "x", Values: []string{"1"}}} }, []string{h()}, "{x} appears in no command"},
		{"input missing", func(c *Config) { c.Input = "/no/such/file" }, []string{h()}, "--input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config(t, 2, tc.lines...)
			cfg.Warmup = 1
			if tc.edit != nil {
				tc.edit(&cfg)
			}
			res, err := Run(context.Background(), cfg)
			if err == nil || res != nil {
				t.Fatalf("Run = %v, %v; want an error and no result", res, err)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line containing %q", err, tc.want)
			}
			if entries, _ := os.ReadDir(cfg.Out); len(entries) > 0 {
				t.Errorf("the results directory keeps %s", entries[0].Name())
			}
		})
	}
	var ce *ConfigError
	if _, err := Run(context.Background(), config(t, 2, "")); !errors.As(err, &ce) {
		t.Errorf("an empty command: %v, want a *ConfigError", err)
	}
}

// TestCleanupAfterFailure: --cleanup runs even when a command fails.
func TestCleanupAfterFailure(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "cleaned")
	cfg := config(t, 2, h("-exit", "1"))
	cfg.Warmup, cfg.Commands[0].Cleanup = 1, "touch "+mark
	if _, err := Run(context.Background(), cfg); err == nil {
		t.Fatal("a failing command measured")
	}
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("--cleanup did not run: %v", err)
	}
}

// TestSetupCleanup: --setup runs once per command and parameter value
// before any run, --cleanup once per command and value after the last,
// in hyperfine's order (the commands within each value, the first
// parameter varying fastest), the same line as often as it comes: it ran
// once per distinct line (issue 23 item 6). A command's own setup and
// cleanup are its own.
func TestSetupCleanup(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	cfg := config(t, 2, h("-print", "{v}"), h("-print", "{v}", "-exit", "0"))
	cfg.Params = []Param{{Name: "v", Values: []string{"1", "2"}}, {Name: "w", Values: []string{"a", "b"}}}
	for i := range cfg.Commands {
		cfg.Commands[i].Setup = "echo setup {v}{w} >> " + log
		cfg.Commands[i].Cleanup = "echo cleanup {v}{w} >> " + log
	}
	cfg.Commands[1].Setup = "echo setup B {v}{w} >> " + log
	cfg.Commands[0].Conclude = "echo run >> " + log
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(log)
	want := "setup 1a\nsetup B 1a\nsetup 2a\nsetup B 2a\nsetup 1b\nsetup B 1b\nsetup 2b\nsetup B 2b\n" +
		strings.Repeat("run\n", 4*2) +
		"cleanup 1a\ncleanup 1a\ncleanup 2a\ncleanup 2a\ncleanup 1b\ncleanup 1b\ncleanup 2b\ncleanup 2b\n"
	if string(b) != want {
		t.Errorf("log:\n%s\nwant:\n%s", b, want)
	}
}

// TestFailsLater: a command that fails after it succeeded is dropped
// from later rounds; its earlier samples stay and the gate sees it.
func TestFailsLater(t *testing.T) {
	counter := filepath.Join(t.TempDir(), "n")
	cfg := config(t, 6, h(), h("-counter", counter, "-fail-after", "4"))
	cfg.Warmup = 1 // run 1; timed runs 2 and 3 succeed, run 4 fails
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := res.Run.Benchmarks[0]
	label := res.Run.Sides[1].Label
	if m, ok := b.Missing[label]; !ok || m.Kind != model.MissingFailed || !strings.Contains(m.Reason, "exit status 5 in round 3") {
		t.Errorf("missing %+v, want %s failed with exit status 5 in round 3", b.Missing, label)
	}
	if got := len(b.Metric(WallUnit).BySide(label)); got != 2 {
		t.Errorf("%d samples kept, want the 2 before the failure", got)
	}
	if len(model.OfKind(b.Notes, model.NoteFailure)) != 1 {
		t.Errorf("failure not noted: %+v", b.Notes)
	}
	// Dropped says it in order: the command, what it did, the round, the
	// consequence, then what to do (issue 23 item 3).
	want := fmt.Sprintf("%q failed (exit status 5) in round 3, so it was dropped from later rounds (--ignore-failure measures such runs as the others)", cfg.Commands[1].Line)
	if got := res.Dropped(); len(got) != 1 || got[0] != want {
		t.Errorf("Dropped() = %q, want [%q]", got, want)
	}
}

// TestHangsLaterInBudget: a command that hangs after it was measured,
// with no --timeout, is stopped at the budget, and the message says so
// before the round and ends with what to do (it read "...give --timeout or
// a longer --time in round 2 and was dropped").
func TestHangsLaterInBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a 3s budget")
	}
	counter := filepath.Join(t.TempDir(), "n")
	script := filepath.Join(t.TempDir(), "hang.sh")
	body := fmt.Sprintf("#!/bin/sh\n%s\n[ $(cat %s) -ge 2 ] && exec sleep 100\nexit 0\n", h("-counter", counter), counter)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := config(t, 4, h(), script)
	cfg.Time, cfg.Timeout = 3*time.Second, 0
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%q was still running after 3s, the whole --time budget, and was stopped in round 2, so it was dropped from later rounds (give --timeout or a longer --time)", script)
	if got := res.Dropped(); len(got) != 1 || got[0] != want {
		t.Errorf("Dropped() = %q, want [%q]", got, want)
	}
}

func TestIgnoreFailure(t *testing.T) {
	cfg := config(t, 3, h("-exit", "3"))
	cfg.IgnoreFailure = true
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(res.Run.Benchmarks[0].Metric(WallUnit).Samples); got != 3 {
		t.Errorf("%d samples, want 3", got)
	}
	notes := model.OfKind(res.Run.Benchmarks[0].Notes, model.NoteFailure)
	// How they ended, in words: it said "exited non-zero (3; -1 is a
	// signal)" (issue 23 item 8).
	if len(notes) != 1 || notes[0].Evidence["failed_runs"] != 3 || !strings.Contains(notes[0].Text, "failed in 3 of 3 runs (exit status 3 in 3)") {
		t.Errorf("notes %+v, want one saying 3 runs exited 3", notes)
	}
	exp := res.Hyperfine()
	if codes := exp.Results[0].ExitCodes; len(codes) != 3 || codes[0] == nil || *codes[0] != 3 {
		t.Errorf("exit codes %v, want three 3s", codes)
	}
}

func TestShellNote(t *testing.T) {
	cfg := config(t, 2, "printf x >/dev/null; "+h())
	cfg.Shell = []string{"sh"}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var shell *model.Note
	for i, n := range res.Run.Notes {
		if n.Kind == model.NoteProcess && n.Topic == "shell" {
			shell = &res.Run.Notes[i]
		}
	}
	if shell == nil || !(shell.Evidence["shell_wall_sec"] > 0) || !strings.Contains(shell.Text, "sh -c") || !strings.Contains(shell.Text, "subtracted") {
		t.Errorf("shell note %+v", shell)
	}
}

func TestResultsDirRefused(t *testing.T) {
	cfg := config(t, 2, h())
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg.Out, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "already holds keep") {
		t.Errorf("err = %v, want a refusal naming keep", err)
	}
}

func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := config(t, 0, h("-sleep", "1h"), h())
	cfg.MinRounds, cfg.MaxRounds, cfg.Warmup = 2, 0, 0
	time.AfterFunc(300*time.Millisecond, cancel)
	res, err := Run(ctx, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Cancelled in the first timed run: measuring had begun.
	if res == nil || len(model.OfKind(res.Run.Notes, model.NoteInterrupted)) != 1 {
		t.Fatalf("result %+v, want the partial run with an interruption note", res)
	}
}

// TestPeakRSS: a command that touches 64 MiB has a recorded peak of at
// least that; one that touches nothing stays below rigor's own resident
// set, and the note says so. Not under -short: it allocates.
func TestPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("touches 64 MiB per run")
	}
	res, err := Run(context.Background(), config(t, 3, h("-alloc", "64"), h()))
	if err != nil {
		t.Fatal(err)
	}
	m := res.Run.Benchmarks[0].Metric(RSSUnit)
	if m == nil {
		t.Fatal("no peak RSS recorded")
	}
	big := m.Values(res.Run.Sides[0].Label)
	if len(big) != 3 || big[0] < 64<<20 {
		t.Errorf("peak RSS of a 64 MiB command: %v", big)
	}
	if len(m.Values(res.Run.Sides[1].Label)) != 0 {
		t.Errorf("the small command's peak is rigor's, and was recorded: %v", m.Values(res.Run.Sides[1].Label))
	}
	if !slices.ContainsFunc(res.Run.Notes, func(n model.Note) bool { return n.Topic == "rss" }) {
		t.Errorf("no note on the unrecorded peak: %q", model.Texts(res.Run.Notes))
	}
}

// TestSleepVerdict: sleep 0.01 against sleep 0.03 is regressed, by about
// +200% less the start-up. Timing: not under -short.
func TestSleepVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("a timing check")
	}
	cfg := config(t, 0, h("-sleep", "10ms"), h("-sleep", "30ms"))
	cfg.MinRounds, cfg.MaxRounds, cfg.Time = 10, 0, 20*time.Second
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.Analyze(res.Run, analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Benchmarks[0].Metrics[0]
	if m.Unit != WallUnit {
		t.Fatalf("first metric %s, want %s", m.Unit, WallUnit)
	}
	c := m.Changes[0] // the second command against the first
	if c.Verdict != analysis.Regressed || c.Estimate < 0.5 {
		t.Errorf("verdict %s %+.1f%%, want regressed by more than 50%%", c.Verdict, 100*c.Estimate)
	}
}

// fakeObserver counts what it is told.
type fakeObserver struct {
	marks, procs, stops int
	pids                map[int]bool // of the processes added
}

func (f *fakeObserver) Mark(string, string, int) { f.marks++ }
func (f *fakeObserver) Pause()                   {}
func (f *fakeObserver) AddProcess(ps *model.ProcessStats) {
	f.procs++
	if f.pids == nil {
		f.pids = map[int]bool{}
	}
	f.pids[ps.PID] = true
}
func (f *fakeObserver) Observations() []model.Observation { return nil }
func (f *fakeObserver) Stop() []model.Observation         { f.stops++; return nil }

// TestObserver: every timed run is marked and its usage attached; the
// observer is stopped once, whether the run measures or fails first.
func TestObserver(t *testing.T) {
	obs := &fakeObserver{}
	cfg := config(t, 3, h(), h())
	cfg.Observer, cfg.ProcessStats = obs, true
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if obs.marks != 6 || obs.procs != 6 || obs.stops != 1 {
		t.Errorf("marks %d, processes %d, stops %d; want 6, 6, 1", obs.marks, obs.procs, obs.stops)
	}
	// Each run's own usage: six processes, none of them this one.
	if len(obs.pids) != 6 || obs.pids[0] || obs.pids[os.Getpid()] {
		t.Errorf("the processes added had pids %v, want 6 commands' own", obs.pids)
	}
	for _, lines := range [][]string{{""}, {h("-exit", "1")}} {
		obs = &fakeObserver{}
		cfg = config(t, 2, lines...)
		cfg.Observer = obs
		if _, err := Run(context.Background(), cfg); err == nil || obs.stops != 1 {
			t.Errorf("%q: err %v, %d stops; want an error and 1 stop", lines, err, obs.stops)
		}
	}
}

// TestIgnoreExitCodes: --ignore-failure=3 measures runs that exit 3, and
// still refuses a command that exits 4.
func TestIgnoreExitCodes(t *testing.T) {
	for _, tc := range []struct {
		exit    string
		codes   []int
		refused bool
	}{
		{"3", []int{3}, false},
		{"3", []int{1, 3}, false},
		{"4", []int{1, 3}, true},
		{"4", nil, false}, // every non-zero code
	} {
		cfg := config(t, 2, h("-exit", tc.exit))
		cfg.IgnoreFailure, cfg.IgnoreExitCodes = true, tc.codes
		_, err := Run(context.Background(), cfg)
		var ce *CommandError
		if refused := errors.As(err, &ce); refused != tc.refused || !refused && err != nil {
			t.Errorf("exit %s, ignoring %v: error %v, want refused %v", tc.exit, tc.codes, err, tc.refused)
		}
	}
}

// TestLeftovers: a command that leaves a process running in the
// background is timed to its own end, each run (warm-up included) counted
// in a note naming what it left; with KillLeftovers nothing it started
// outlives the run, and without, the note says how many were still
// running (issue 23 item 5: the warm-up waited for sleep 1000 until the
// budget ran out, and three sleep 30 outlived rigor).
func TestLeftovers(t *testing.T) {
	for _, kill := range []bool{true, false} {
		t.Run(fmt.Sprint("kill=", kill), func(t *testing.T) {
			sleep := "30"
			if !kill {
				sleep = "3" // not killed: gone on its own soon after the test
			}
			cfg := config(t, 3, "sh -c 'sleep "+sleep+" & echo started'")
			cfg.Warmup, cfg.KillLeftovers = 1, kill
			var log bytes.Buffer
			cfg.Log = &log
			res, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			var note *model.Note
			for i, n := range res.Run.Benchmarks[0].Notes {
				if n.Topic == "leftover" {
					note = &res.Run.Benchmarks[0].Notes[i]
				}
			}
			if note == nil {
				t.Fatalf("no leftover note: %+v", res.Run.Benchmarks[0].Notes)
			}
			if !strings.Contains(note.Text, "in 4 of 4 runs (sleep "+sleep+" (pid ") || note.Evidence["leftover_runs"] != 4 {
				t.Errorf("note %q, evidence %v; want 4 of 4 runs naming sleep %s", note.Text, note.Evidence, sleep)
			}
			if _, ok := note.Evidence["still_running_groups"]; ok == kill {
				t.Errorf("kill %v: evidence %v", kill, note.Evidence)
			}
			if !strings.Contains(log.String(), "left processes running in its process group (sleep "+sleep) || strings.Count(log.String(), "left processes") != 1 {
				t.Errorf("log %q, want one line naming the sleep", log.String())
			}
		})
	}
}

// TestFailureTailEscaped: the last line a failing command printed, quoted
// in the error, shows escape sequences and NULs escaped and is cut to 200
// characters; an OSC title and a screen clear reached the terminal, and
// 300 MB of NULs gave 200 raw NUL bytes (issue 23 item 7).
func TestFailureTailEscaped(t *testing.T) {
	for _, tc := range []struct{ name, print, want string }{
		{"osc", `printf '\033]0;pwned\007\033[2J boom'`, `\x1b]0;pwned\x07\x1b[2J boom`},
		{"nul", "head -c 100000 /dev/zero", `\x00\x00`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := filepath.Join(t.TempDir(), "fail.sh")
			if err := os.WriteFile(script, []byte("#!/bin/sh\n"+tc.print+" >&2\nexit 1\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			cfg := config(t, 2, script)
			cfg.Warmup = 1
			_, err := Run(context.Background(), cfg)
			if err == nil {
				t.Fatal("a failing command measured")
			}
			msg := err.Error()
			if strings.ContainsAny(msg, "\x00\x1b\x07") || !strings.Contains(msg, tc.want) {
				t.Errorf("error %q, want it escaped, with %q", msg, tc.want)
			}
			if len(msg) > 500 {
				t.Errorf("error of %d bytes", len(msg))
			}
		})
	}
}

// TestInterruptedRunNotCounted: the run an interrupt cuts short is not a
// timed run: the budget note's count matches the samples kept (a SIGINT
// run said "152 timed runs" and kept 151 samples; issue 23 item 8).
func TestInterruptedRunNotCounted(t *testing.T) {
	dir := t.TempDir()
	counter, mark := filepath.Join(dir, "n"), filepath.Join(dir, "hanging")
	script := filepath.Join(dir, "hang.sh")
	body := fmt.Sprintf("#!/bin/sh\n%s\n[ $(cat %s) -ge 3 ] && touch %s && exec sleep 100\nexit 0\n", h("-counter", counter), counter, mark)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := config(t, 10, script)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if _, err := os.Stat(mark); err == nil {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	res, err := Run(ctx, cfg)
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("Run = %v, %v; want the partial result and context.Canceled", res, err)
	}
	kept := len(res.Run.Benchmarks[0].Metric(WallUnit).Samples)
	var budget string
	for _, n := range model.OfKind(res.Run.Notes, model.NoteBudget) {
		budget = n.Text
	}
	if kept != 2 || !strings.Contains(budget, "; 2 timed runs.") {
		t.Errorf("%d samples kept, budget note %q; want 2 and 2 timed runs", kept, budget)
	}
}

// TestInterruptKeepsEverySample: a run interrupted between checkpoints
// (here, well within checkpointEvery of its start) still has every
// sample it measured in run.json on disk, not only those of the last
// checkpoint.
func TestInterruptKeepsEverySample(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := config(t, 0, h(), h())
	cfg.MinRounds, cfg.MaxRounds, cfg.Warmup = 1000, 1000, 0
	cfg.Progress = func(p Progress) {
		if p.Phase == PhaseMeasure && p.Round == 8 {
			cancel()
		}
	}
	res, err := Run(ctx, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	f, err := os.Open(filepath.Join(cfg.Out, experiment.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	disk, err := model.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Run.Benchmarks[0].Metric(WallUnit)
	if m == nil || len(m.Samples) < 14 {
		t.Fatalf("measured %v, want 7 rounds of two commands or more", m)
	}
	dm := disk.Benchmarks[0].Metric(WallUnit)
	if dm == nil || len(dm.Samples) != len(m.Samples) {
		t.Fatalf("run.json holds %v wall-time samples, the run measured %d", dm, len(m.Samples))
	}
	if len(model.OfKind(disk.Notes, model.NoteInterrupted)) != 1 {
		t.Errorf("run.json has no interruption note: %q", model.Texts(disk.Notes))
	}
}
