package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// rigor runs rigor in process in the test's directory and returns
// stdout, stderr and the exit code.
func rigor(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return rigorIn(t, "", args...)
}

var (
	seedBase = filepath.Join("..", "..", "testdata", "seed003", "base.txt")
	seedOpt  = filepath.Join("..", "..", "testdata", "seed003", "optimized.txt")
)

// TestCompareSeed003 checks the text table against benchstat's numbers on
// the same files (8107.5n -> 800.4n, -90.13%; 42.195Ki -> 1.867Ki,
// -95.57%; 127 -> 8, -93.70%; B/s +913.05%). Exact values are shown
// without benchstat's "± 0%", and B/s, derived from sec/op, is context
// shown with -v (issue 24).
func TestCompareSeed003(t *testing.T) {
	out, errOut, code := rigor(t, "compare", seedBase, seedOpt)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"8107.5n ± 7%", "800.4n ± 13%", "-90.13%", "42.195Ki ", "1.867Ki ", "-95.57%", " 127 ", " 8 ", "-93.70%", "improved"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "B/s") {
		t.Errorf("B/s, derived from sec/op, shown without -v:\n%s", out)
	}
	verbose, _, _ := rigor(t, "compare", "-v", seedBase, seedOpt)
	if !strings.Contains(verbose, "+913.05%") {
		t.Errorf("-v lacks B/s's +913.05%%:\n%s", verbose)
	}
	for _, bad := range []string{"regressed", "inconclusive"} {
		if strings.Contains(out, bad) {
			t.Errorf("output says %q:\n%s", bad, out)
		}
	}
}

func TestCompareGate(t *testing.T) {
	_, errOut, code := rigor(t, "compare", "--max-regression", "5", seedOpt, seedBase)
	if code != 1 {
		t.Fatalf("swapped files with --max-regression 5: exit %d, want 1; stderr %s", code, errOut)
	}
	if !strings.Contains(errOut, "gate:") {
		t.Errorf("stderr does not say which gate failed: %s", errOut)
	}
	if _, _, code := rigor(t, "compare", "--max-regression", "5", seedBase, seedOpt); code != 0 {
		t.Errorf("improvement with --max-regression 5: exit %d, want 0", code)
	}
	if _, _, code := rigor(t, "compare", seedOpt, seedBase); code != 0 {
		t.Errorf("regression without a gate: exit %d, want 0", code)
	}
}

// TestCompareJSONContract decodes the JSON scripts rely on.
func TestCompareJSONContract(t *testing.T) {
	out, errOut, code := rigor(t, "compare", "--format", "json", "old="+seedBase, "new="+seedOpt)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Benchmarks []struct {
			Name    string
			Metrics []struct {
				Unit     string
				Old, New struct {
					Center, Lo, Hi *float64
					N              int
				}
				Change  struct{ Estimate, Lo, Hi float64 }
				P       float64
				Verdict string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(doc.Benchmarks) != 1 || doc.Benchmarks[0].Name != "Build" {
		t.Fatalf("benchmarks = %+v", doc.Benchmarks)
	}
	seen := 0
	for _, m := range doc.Benchmarks[0].Metrics {
		if m.Old.N != 12 || m.New.N != 12 || m.Old.Center == nil || m.Verdict != "improved" || !(m.P < 0.001) {
			t.Errorf("%s: %+v", m.Unit, m)
		}
		if m.Unit == "sec/op" {
			seen++
			if got := m.Change.Estimate; got > -0.9012 || got < -0.9014 {
				t.Errorf("sec/op change = %v, want -0.9013", got)
			}
			if !(m.Change.Lo <= m.Change.Estimate && m.Change.Estimate <= m.Change.Hi) {
				t.Errorf("sec/op change CI %+v does not hold its estimate", m.Change)
			}
		}
	}
	if seen != 1 {
		t.Errorf("no sec/op metric")
	}
}

func TestCompareFormats(t *testing.T) {
	for _, tt := range []struct{ format, want string }{
		{"csv", "pkg,benchmark,unit,better"},
		{"md", "| sec/op |"},
	} {
		out, errOut, code := rigor(t, "compare", "--format", tt.format, seedBase, seedOpt)
		if code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("--format %s: exit %d, stderr %q, output lacks %q:\n%s", tt.format, code, errOut, tt.want, out)
		}
	}
}

// TestCompareBadInput: every bad input is one line on stderr and exit 2,
// never a panic or a stack trace.
func TestCompareBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.txt", "")
	garbage := write("garbage.bin", "\x00\x01\x02\xff\xfe not a benchmark\n")
	noBench := write("nobench.txt", "goos: linux\nPASS\nok  \tx\t0.1s\n")
	other := write("other.txt", "BenchmarkOther 100 5 ns/op\n")
	badJSON := write("bad.json", `{"schema_version": 1, "benchmarks": [`)
	future := write("future.json", `{"schema_version": 99, "kind": "files", "sides": [], "benchmarks": []}`)
	tests := []struct {
		name string
		args []string
	}{
		{"missing file", []string{"compare", filepath.Join(dir, "nope.txt"), seedOpt}},
		{"empty file", []string{"compare", empty, seedOpt}},
		{"garbage", []string{"compare", seedBase, garbage}},
		{"no benchmarks", []string{"compare", seedBase, noBench}},
		{"nothing in common", []string{"compare", seedBase, other}},
		{"truncated json", []string{"compare", seedBase, badJSON}},
		{"future schema", []string{"compare", seedBase, future}},
		{"no args", []string{"compare"}},
		{"bad format", []string{"compare", "--format", "xml", seedBase, seedOpt}},
		{"bad noise", []string{"compare", "--noise", "-3", seedBase, seedOpt}},
		{"bad alpha", []string{"compare", "--alpha", "2", seedBase, seedOpt}},
		{"bad test", []string{"compare", "--test", "ttest", seedBase, seedOpt}},
		{"bad gate", []string{"compare", "--gate", "cycles", seedBase, seedOpt}},
		{"bad instructions tolerance", []string{"compare", "--instructions-tolerance", "-0.5", seedBase, seedOpt}},
		{"NaN instructions tolerance", []string{"compare", "--instructions-tolerance", "NaN", seedBase, seedOpt}},
		{"bad flag", []string{"compare", "--bogus", seedBase, seedOpt}},
		{"duplicate labels", []string{"compare", "a=" + seedBase, "a=" + seedOpt}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := rigor(t, tt.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr %q", code, errOut)
			}
			lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "rigor: ") || strings.Contains(errOut, "goroutine") {
				t.Errorf("stderr is not one rigor line: %q", errOut)
			}
		})
	}
}

// TestCompareNeutralisesEscapes: a benchmark name and a side label with
// terminal escape sequences reach neither standard output (any text
// style, Markdown) nor the gate's lines on standard error; they show
// escaped. Before, such a name could retitle the terminal or clear it.
func TestCompareNeutralisesEscapes(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, ns int) string {
		var b strings.Builder
		for range 8 {
			b.WriteString("BenchmarkX\x1b]0;pwned\x07-2 \t1000\t" + strconv.Itoa(ns) + " ns/op\n")
			ns++
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old, new := write("old.txt", 100), write("new.txt", 900)
	for _, args := range [][]string{
		{"compare", "--max-regression", "5", "old=" + old, "new\x1b[2J=" + new},
		{"compare", "--max-regression", "5", "--style", "tree", old, new},
		{"compare", "--max-regression", "5", "--style", "table", old, new},
		{"compare", "--max-regression", "5", "--format", "md", old, new},
	} {
		stdout, stderr, code := rigor(t, args...)
		if code != exitGateFail {
			t.Errorf("%q: exit %d, want 1 (stderr %q)", args, code, stderr)
		}
		if strings.ContainsAny(stdout+stderr, "\x1b\x07") {
			t.Errorf("%q: output holds escape sequences:\n%q\n%q", args, stdout, stderr)
		}
		if !strings.Contains(stderr, `X\x1b]0;pwned\x07`) {
			t.Errorf("%q: gate line does not show the name escaped: %q", args, stderr)
		}
	}
}

// TestCompareVerbose: routine notes are counted by default and shown with
// -v (issue 13 item 3).
func TestCompareVerbose(t *testing.T) {
	const exact = "values never vary within a side: compared exactly"
	stdout, _, code := rigorIn(t, "", "compare", seedBase, seedOpt)
	if code != exitOK || strings.Contains(stdout, exact) || !strings.Contains(stdout, "-v shows") {
		t.Errorf("default: exit %d, want the exact note counted, not shown:\n%s", code, stdout)
	}
	stdout, _, code = rigorIn(t, "", "compare", "-v", seedBase, seedOpt)
	if code != exitOK || !strings.Contains(stdout, exact) || strings.Contains(stdout, "-v shows") {
		t.Errorf("-v: exit %d, want the exact note shown:\n%s", code, stdout)
	}
}

// TestCompareGCPercent: compare runs with compareGCPercent and gives the
// process its collector's setting back (tests run compare in process),
// and leaves a GOGC the user set alone.
func TestCompareGCPercent(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	var during int
	o := &compareOptions{inputs: []string{seedBase, seedOpt}}
	o.verdict = verdictDefaults(t)
	o.record.noRecord = true
	if err := runCompare(context.Background(), o, stdio{out: gcProbe{&during}, err: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if during != compareGCPercent {
		t.Errorf("GOGC while compare wrote its report: %d, want %d", during, compareGCPercent)
	}
	if got := debug.SetGCPercent(123); got != 123 {
		t.Errorf("GOGC after compare: %d, want 123 as before", got)
	}
	t.Setenv("GOGC", "123")
	if err := runCompare(context.Background(), o, stdio{out: gcProbe{&during}, err: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if during != 123 {
		t.Errorf("GOGC=123 set: %d while compare wrote its report", during)
	}
}

// gcProbe is a writer that notes the collector's GOGC when written to.
type gcProbe struct{ gogc *int }

func (p gcProbe) Write(b []byte) (int, error) {
	*p.gogc = debug.SetGCPercent(-1)
	debug.SetGCPercent(*p.gogc)
	return len(b), nil
}
