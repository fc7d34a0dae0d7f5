package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/rigorbench/rigor/model"
)

func TestJoinParamArgs(t *testing.T) {
	var o execOptions
	fs := pflag.NewFlagSet("exec", pflag.ContinueOnError)
	o.register(fs)
	const s = paramSep
	for _, tc := range []struct {
		in, want []string
	}{
		{[]string{"-P", "t", "1", "8", "make -j {t}"}, []string{"--parameter-scan=t" + s + "1" + s + "8", "make -j {t}"}},
		{[]string{"--parameter-scan", "t", "1", "8", "x"}, []string{"--parameter-scan=t" + s + "1" + s + "8", "x"}},
		{[]string{"--parameter-scan=t", "1", "8"}, []string{"--parameter-scan=t" + s + "1" + s + "8"}},
		{[]string{"-Pt", "-1", "8"}, []string{"--parameter-scan=t" + s + "-1" + s + "8"}},
		{[]string{"-NL", "cc", "gcc,clang", "{cc} x.c"}, []string{"-N", "--parameter-list=cc" + s + "gcc,clang", "{cc} x.c"}},
		// A flag's value is never taken for -P or -L.
		{[]string{"--prepare", "-P", "x"}, []string{"--prepare", "-P", "x"}},
		{[]string{"-p", "-L", "x"}, []string{"-p", "-L", "x"}},
		{[]string{"-w3", "-L", "a", "1,2"}, []string{"-w3", "--parameter-list=a" + s + "1,2"}},
		{[]string{"--", "-P", "x"}, []string{"--", "-P", "x"}},
	} {
		got, err := joinParamArgs(fs, tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("joinParamArgs(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range [][]string{{"-P", "t", "1"}, {"-L", "x"}, {"cmd", "--parameter-list"}} {
		if _, err := joinParamArgs(fs, in); err == nil {
			t.Errorf("joinParamArgs(%q): no error", in)
		}
	}
}

// execJSON runs rigor exec with args (and a fresh --out, --format json)
// and returns the report.
func execJSON(t *testing.T, args ...string) (rep struct {
	Kind       string   `json:"kind"`
	Paired     bool     `json:"paired"`
	Sides      []string `json:"sides"`
	Benchmarks []struct {
		Name string `json:"name"`
	} `json:"benchmarks"`
}, out string) {
	t.Helper()
	out = filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := rigor(t, append([]string{"exec", "--out", out, "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("rigor exec %q: exit %d\n%s", args, code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%.300s", err, stdout)
	}
	return rep, out
}

func TestExecJSON(t *testing.T) {
	export := filepath.Join(t.TempDir(), "hf.json")
	rep, out := execJSON(t, "--runs", "3", "-P", "n", "1", "2", "--export-json", export, "-n", "first", "true {n}", "true x{n}")
	if rep.Kind != "exec" || !rep.Paired || !slices.Equal(rep.Sides, []string{"first", "true x{n}"}) {
		t.Errorf("kind %q paired %v sides %q", rep.Kind, rep.Paired, rep.Sides)
	}
	if len(rep.Benchmarks) != 2 || rep.Benchmarks[0].Name != "n=1" || rep.Benchmarks[1].Name != "n=2" {
		t.Errorf("benchmarks %+v, want n=1 and n=2", rep.Benchmarks)
	}
	if _, err := model.ReadFile(filepath.Join(out, "run.json"), ""); err != nil {
		t.Errorf("run.json: %v", err)
	}
	// The export is hyperfine's shape, names and parameters substituted,
	// and compare reads it back.
	b, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	var hf model.HyperfineExport
	if err := json.Unmarshal(b, &hf); err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, r := range hf.Results {
		cmds = append(cmds, r.Command)
		if len(r.Times) != 3 || len(r.ExitCodes) != 3 || r.Parameters["n"] == "" || r.StdDev == nil {
			t.Errorf("result %+v: want 3 times and exit codes, a stddev and parameter n", r)
		}
	}
	// hyperfine's order: the commands within each value.
	if want := []string{"first", "true x1", "first", "true x2"}; !slices.Equal(cmds, want) {
		t.Errorf("commands %q, want %q", cmds, want)
	}
	if stdout, stderr, code := rigor(t, "compare", "a="+export, "b="+export); code != 0 || !strings.Contains(stdout, "true x2") {
		t.Errorf("compare of the export: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestCompareHyperfine: hyperfine's own export (Debian's 1.15) is read
// by compare and report.
func TestCompareHyperfine(t *testing.T) {
	hf := filepath.Join("..", "..", "model", "testdata", "hyperfine", "v1.15-two-commands.json")
	stdout, stderr, code := rigor(t, "compare", "old="+hf, "new="+hf)
	if code != 0 || !strings.Contains(stdout, "sleep 0.01") || !strings.Contains(stdout, "old") {
		t.Errorf("compare: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// rigor's summary of hyperfine's times is hyperfine's own: median,
	// mean, sample standard deviation, minimum and maximum as exported.
	stdout, stderr, code = rigor(t, "report", "--format", "json", hf)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	var rep struct {
		Benchmarks []struct {
			Name    string
			Metrics []struct {
				Unit  string
				Sides []struct{ Center, Mean, Stddev, Min, Max float64 }
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(hf)
	if err != nil {
		t.Fatal(err)
	}
	var exp model.HyperfineExport
	if err := json.Unmarshal(b, &exp); err != nil {
		t.Fatal(err)
	}
	if len(rep.Benchmarks) != len(exp.Results) {
		t.Fatalf("%d benchmarks for %d results", len(rep.Benchmarks), len(exp.Results))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }
	for i, r := range exp.Results {
		s := rep.Benchmarks[i].Metrics[0].Sides[0]
		if rep.Benchmarks[i].Name != r.Command || !near(s.Center, r.Median) || !near(s.Mean, r.Mean) ||
			!near(s.Stddev, *r.StdDev) || !near(s.Min, r.Min) || !near(s.Max, r.Max) {
			t.Errorf("%s: rigor %+v, hyperfine median %v mean %v stddev %v min %v max %v",
				r.Command, s, r.Median, r.Mean, *r.StdDev, r.Min, r.Max)
		}
	}
}

func TestExecReference(t *testing.T) {
	rep, _ := execJSON(t, "--runs", "2", "--reference", "false-name", "-n", "a", "-n", "false-name", "true a", "true b")
	if !slices.Equal(rep.Sides, []string{"false-name", "a"}) {
		t.Errorf("--reference naming the second command: sides %q", rep.Sides)
	}
	rep, _ = execJSON(t, "--runs", "2", "--reference", "true c", "true a", "true b")
	if !slices.Equal(rep.Sides, []string{"true c", "true a", "true b"}) {
		t.Errorf("--reference adding a command: sides %q", rep.Sides)
	}
}

// TestExecInjected runs the command through runExec with its writers, as
// the run function's contract says: the report on stdout, the rest on
// stderr.
func TestExecInjected(t *testing.T) {
	var o execOptions
	fs := pflag.NewFlagSet("exec", pflag.ContinueOnError)
	o.register(fs)
	out := filepath.Join(t.TempDir(), "out")
	if err := fs.Parse([]string{"--runs", "2", "--out", out, "--format", "csv", "true"}); err != nil {
		t.Fatal(err)
	}
	o.commands, o.runsSet = fs.Args(), true
	var stdout, stderr bytes.Buffer
	if err := runExec(context.Background(), &o, stdio{in: strings.NewReader(""), out: &stdout, err: &stderr}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "sec/op") || !strings.Contains(stderr.String(), "samples in "+out) {
		t.Errorf("stdout %q\nstderr %q", stdout.String(), stderr.String())
	}
}

// TestExecGate: a command 30 times slower than its reference fails the
// gate. Timing: not under -short.
func TestExecGate(t *testing.T) {
	if testing.Short() {
		t.Skip("times sleep 0.001 against sleep 0.03: a timing check")
	}
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := rigor(t, "exec", "--out", out, "--time", "20s", "--max-regression", "5", "sleep 0.001", "sleep 0.03")
	if code != 1 || !strings.Contains(stderr, "rigor: gate: exec sec/op regressed on sleep 0.03") {
		t.Errorf("exit %d, stderr %q; want the gate to fail on sec/op", code, stderr)
	}
}

// TestExecHyperfineFlags: a hyperfine command line runs as is.
func TestExecHyperfineFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := rigor(t, "exec", "--out", out, "--style", "basic", "--show-output", "-N", "-w", "1", "-r", "2",
		"-n", "say", "echo shown")
	if code != 0 || strings.Count(stdout, "shown\n") != 3 || !strings.Contains(stdout, "sec/op") {
		t.Errorf("exit %d\nstdout %q\nstderr %s", code, stdout, stderr)
	}
}

// afterScript writes a script that exits 0 for its first n-1 calls and
// then does last (exit 1, exec sleep 1000), counting its calls in a file
// beside it.
func afterScript(t *testing.T, n int, last string) string {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "after.sh")
	body := fmt.Sprintf("#!/bin/sh\nc=%q\nn=$(cat \"$c\" 2>/dev/null || echo 0)\nn=$((n+1))\necho $n > \"$c\"\n[ $n -ge %d ] && %s\nexit 0\n", filepath.Join(dir, "count"), n, last)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

// TestExecFailsMidRun: a command that fails, or hangs past --timeout,
// after it was measured makes the run exit 2 with a line saying which
// command, in which round, as hyperfine exits non-zero; the run is not
// recorded. --ignore-failure measures failing runs and exits 0 (issue 23
// item 3; both exited 0).
func TestExecFailsMidRun(t *testing.T) {
	db := filepath.Join(t.TempDir(), "h.db")
	for _, tc := range []struct {
		name, last string
		flags      []string
		want       []string
		code       int
	}{
		{"fails", "exit 1", nil, []string{"failed (exit status 1) in round 3, so it was dropped from later rounds", "the verdict above rests on the rounds before"}, exitUsage},
		{"hangs", "exec sleep 1000", []string{"--timeout", "3s"}, []string{"ran longer than the timeout of 3s and was stopped in round 3"}, exitUsage},
		{"ignored", "exit 1", []string{"-i"}, nil, exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := afterScript(t, 4, tc.last) // warm-up, rounds 1 and 2 succeed
			args := append([]string{"exec", "--out", filepath.Join(t.TempDir(), "out"), "--record", "--store", db, "-w", "1", "--runs", "6"}, tc.flags...)
			_, stderr, code := rigor(t, append(args, "true", script)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			last := strings.TrimSpace(stderr)
			last = last[strings.LastIndex(last, "\n")+1:]
			for _, w := range tc.want {
				if !strings.Contains(last, w) || !strings.Contains(last, script) {
					t.Errorf("last line %q does not name %s and say %q", last, script, w)
				}
			}
			if recorded := strings.Contains(stderr, "recorded run"); recorded != (tc.code == exitOK) {
				t.Errorf("recorded %v, want %v:\n%s", recorded, tc.code == exitOK, stderr)
			}
		})
	}
}

// TestExecSetupCleanupOrder: --setup and --cleanup run once per command
// (and parameter value), as hyperfine runs them, before the rounds and
// after; given twice, they are each command's own, and given more times
// than there are commands, refused. rigor ran an identical line once, and
// of two --setup only the second (issue 23 item 6).
func TestExecSetupCleanupOrder(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	run := func(args ...string) (string, int) {
		t.Helper()
		os.Remove(log)
		_, stderr, code := rigor(t, append([]string{"exec", "--out", filepath.Join(t.TempDir(), "out"), "-w", "0", "--runs", "2"}, args...)...)
		b, _ := os.ReadFile(log)
		if code != exitOK {
			return stderr, code
		}
		return strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", " "), code
	}
	got, code := run("--setup", "echo setup >> "+log, "--cleanup", "echo cleanup >> "+log,
		"-p", "echo prepare A >> "+log, "-p", "echo prepare B >> "+log, "true", "true x")
	// Two rounds in Thue-Morse order: A B, then B A.
	if want := "setup setup prepare A prepare B prepare B prepare A cleanup cleanup"; code != exitOK || got != want {
		t.Errorf("exit %d, log %q, want %q", code, got, want)
	}
	got, code = run("--setup", "echo 1 >> "+log, "--setup", "echo 2 >> "+log, "true", "true x")
	if code != exitOK || got != "1 2" {
		t.Errorf("two --setup for two commands: exit %d, log %q, want \"1 2\"", code, got)
	}
	got, code = run("--setup", "echo 1 >> "+log, "--setup", "echo 2 >> "+log, "true")
	if code != exitUsage || !strings.Contains(got, "--setup given 2 times for 1 command:") {
		t.Errorf("two --setup for one command: exit %d, stderr %q; want exit 2", code, got)
	}
}

// TestExecCheckOutput: --check-output refuses two commands whose outputs
// differ (rigor exec 'gzip -9 -c f' 'true' reported -99% improved), exit
// 2 in one line, and accepts two that print the same.
func TestExecCheckOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := rigor(t, "exec", "--out", out, "--check-output", "-r", "2", "echo a", "echo b")
	const want = `rigor: "echo b" and "echo a" wrote different standard output (2 bytes each, first different at byte 0), so no winner is called between them: make them compute the same, or leave out --check-output` + "\n"
	if code != exitUsage || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	_, stderr, code = rigor(t, "exec", "--out", filepath.Join(t.TempDir(), "out"), "--check-output", "-r", "2", "echo a", "printf 'a\\n'")
	if code != exitOK {
		t.Errorf("the same output: exit %d, stderr %q", code, stderr)
	}
}

// TestErrorLinesEscaped: rigor's error lines show what a terminal would
// act on escaped, whatever the command put in them (here a command name
// with a screen clear and a bidi control); line breaks in a message stay
// (issue 23 item 7).
func TestErrorLinesEscaped(t *testing.T) {
	_, stderr, code := rigor(t, "exec", "--out", filepath.Join(t.TempDir(), "out"), "no\x1b[2Jsuch\u202e")
	if code != exitUsage || strings.ContainsAny(stderr, "\x1b\u202e") || !strings.Contains(stderr, `no\x1b[2Jsuch\u202e`) {
		t.Errorf("exit %d, stderr %q; want exit 2 and the name escaped", code, stderr)
	}
	var b bytes.Buffer
	fmt.Fprintln(safeLines{&b}, "rigor: two\nlines\tand \x07 a bell")
	if got, want := b.String(), "rigor: two\nlines\tand \\x07 a bell\n"; got != want {
		t.Errorf("safeLines wrote %q, want %q", got, want)
	}
}
