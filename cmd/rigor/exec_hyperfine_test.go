package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// TestExecHyperfineBadFlags: hyperfine flags that cannot mean what they
// mean in hyperfine, or values they do not take: exit 2 and one line
// that says why, before anything runs.
func TestExecHyperfineBadFlags(t *testing.T) {
	dir := t.TempDir()
	nodir := filepath.Join(dir, "no", "such", "dir", "f")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--min-benchmarking-time", "3", "true"}, "--min-rounds sets a floor"},
		{[]string{"--debug-mode", "sleep 1"}, "only measures real runs"},
		{[]string{"-u", "minute", "true"}, "unknown time unit"},
		{[]string{"--time-unit", "ms", "true"}, "want second, millisecond, microsecond, nanosecond"},
		{[]string{"--sort", "reference", "true"}, "unknown --sort"},
		{[]string{"--reference-name", "old", "true"}, "there is no --reference"},
		{[]string{"--export-csv", nodir, "true"}, "--export-csv"},
		{[]string{"--export-markdown", dir, "true"}, "is a directory"},
		{[]string{"--export-asciidoc", nodir, "true"}, "--export-asciidoc"},
		{[]string{"--export-orgmode", nodir, "true"}, "--export-orgmode"},
		{[]string{"--ignore-failure=1,x", "true"}, "exit codes from 1 to 255"},
		{[]string{"-i=0", "true"}, "exit codes from 1 to 255"},
		{[]string{"-n", "a", "-n", "b", "true"}, "2 --name values for 1 commands"},
		// hyperfine: once, or once per benchmark (2 commands x 2 values).
		{[]string{"-L", "x", "1,2", "-n", "a", "-n", "b", "-n", "c", "true {x}", "true x{x}"}, "one per benchmark (4, in hyperfine's order)"},
		{[]string{"-r", "1", "true"}, "at least 2"},
		{[]string{"-r", "5", "-m", "3", "true"}, "give one or the others"},
	} {
		stdout, stderr, code := rigorIn(t, dir, append([]string{"exec"}, tc.args...)...)
		if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 ||
			!strings.HasPrefix(stderr, "rigor: ") || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("rigor exec %s: exit %d, stdout %.80q, stderr %q; want exit 2 and one line with %q",
				strings.Join(tc.args, " "), code, stdout, stderr, tc.want)
		}
	}
}

// TestCommandNames: --name once per command, or with parameters once per
// benchmark in hyperfine's order (the commands varying fastest).
func TestCommandNames(t *testing.T) {
	for _, tc := range []struct {
		names           []string
		commands, combs int
		labels          []string
		each            [][]string
		bad             bool
	}{
		{nil, 2, 1, nil, nil, false},
		{[]string{"a"}, 2, 3, []string{"a"}, nil, false},
		{[]string{"a", "b"}, 2, 3, []string{"a", "b"}, nil, false},
		{[]string{"A", "B", "C", "D"}, 2, 2, nil, [][]string{{"A", "C"}, {"B", "D"}}, false},
		{[]string{"x1", "x2", "x3"}, 1, 3, nil, [][]string{{"x1", "x2", "x3"}}, false},
		{[]string{"a", "b", "c"}, 2, 2, nil, nil, true},
		{[]string{"a", "b", "c"}, 2, 1, nil, nil, true},
	} {
		labels, each, err := commandNames(tc.names, tc.commands, tc.combs)
		if (err != nil) != tc.bad || !slices.Equal(labels, tc.labels) || !slices.EqualFunc(each, tc.each, slices.Equal) {
			t.Errorf("commandNames(%q, %d, %d) = %q, %q, %v; want %q, %q, error %v", tc.names, tc.commands, tc.combs, labels, each, err, tc.labels, tc.each, tc.bad)
		}
	}
}

func TestParseIgnoreFailure(t *testing.T) {
	for _, tc := range []struct {
		in    string
		codes []int
		set   bool
		bad   bool
	}{
		{"all-non-zero", nil, true, false},
		{"true", nil, true, false},
		{"false", nil, false, false},
		{"1", []int{1}, true, false},
		{"1,2, 3,2", []int{1, 2, 3}, true, false},
		{"255", []int{255}, true, false},
		{"0", nil, false, true},
		{"256", nil, false, true},
		{"-1", nil, false, true},
		{"1,", nil, false, true},
		{"", nil, false, true},
		{"all", nil, false, true},
	} {
		codes, set, err := parseIgnoreFailure(tc.in)
		if (err != nil) != tc.bad || set != tc.set || !slices.Equal(codes, tc.codes) {
			t.Errorf("parseIgnoreFailure(%q) = %v, %v, %v; want %v, %v, error %v", tc.in, codes, set, err, tc.codes, tc.set, tc.bad)
		}
	}
}

func FuzzParseIgnoreFailure(f *testing.F) {
	for _, s := range []string{"all-non-zero", "1,2", "255", "0", " 7 ,8", "1,,2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		codes, set, err := parseIgnoreFailure(in)
		if err != nil {
			if set || codes != nil || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: error %q with set %v codes %v", in, err, set, codes)
			}
			return
		}
		for _, c := range codes {
			if c < 1 || c > 255 {
				t.Fatalf("%q: code %d", in, c)
			}
		}
		if len(slices.Compact(slices.Sorted(slices.Values(codes)))) != len(codes) {
			t.Fatalf("%q: repeated codes %v", in, codes)
		}
	})
}

// TestExecHyperfineFlagsTable: each hyperfine flag, as a migrating user
// types it, does what hyperfine's does (no timing is checked: the
// commands are 'true').
func TestExecHyperfineFlagsTable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, dir, stdout, stderr string)
	}{
		// The stop reason is a note for -v (issue 24).
		{"runs fixed, rule off", []string{"-r", "3", "-v", "true", "true x"}, func(t *testing.T, dir, stdout, stderr string) {
			run := readRunJSON(t, dir)
			if n := len(run.Benchmarks[0].Metric("sec/op").BySide("true")); n != 3 {
				t.Errorf("%d rounds, want 3", n)
			}
			if !strings.Contains(stdout, "Ran the 3 rounds --runs asked for: the stopping rule was off") {
				t.Errorf("the report does not say the rule was off:\n%s", stdout)
			}
		}},
		{"min-runs and max-runs", []string{"-m", "2", "-M", "2", "true", "true x"}, func(t *testing.T, dir, stdout, stderr string) {
			if n := len(readRunJSON(t, dir).Benchmarks[0].Metric("sec/op").BySide("true")); n != 2 {
				t.Errorf("%d rounds, want 2", n)
			}
		}},
		{"command-name", []string{"-r", "2", "--command-name", "first", "-n", "second", "true", "true x"}, func(t *testing.T, dir, stdout, stderr string) {
			if run := readRunJSON(t, dir); run.Sides[0].Label != "first" || run.Sides[1].Label != "second" {
				t.Errorf("sides %+v", run.Sides)
			}
		}},
		{"command-name per benchmark", []string{"-r", "2", "-L", "x", "1,2", "-n", "A", "-n", "B {x}", "-n", "C", "-n", "D {x}", "--export-json", "hf.json", "true a{x}", "true b{x}"},
			func(t *testing.T, dir, stdout, stderr string) {
				if got := exportCommands(t, filepath.Join(dir, "hf.json")); !slices.Equal(got, []string{"A", "B 1", "C", "D 2"}) {
					t.Errorf("export names %q", got)
				}
			}},
		{"reference-name", []string{"-r", "2", "--reference", "true r", "--reference-name", "base", "true"}, func(t *testing.T, dir, stdout, stderr string) {
			if run := readRunJSON(t, dir); run.Sides[0].Label != "base" || run.Sides[0].Source != "true r" {
				t.Errorf("sides %+v", run.Sides)
			}
		}},
		{"conclude -C", []string{"-r", "2", "-w", "0", "-C", "echo c >> log", "true"}, func(t *testing.T, dir, stdout, stderr string) {
			if b, _ := os.ReadFile(filepath.Join(dir, "log")); string(b) != "c\nc\n" {
				t.Errorf("log %q, want two conclusions", b)
			}
		}},
		{"ignore-failure codes", []string{"-r", "2", "--ignore-failure=3", "sh -c 'exit 3'"}, func(t *testing.T, dir, stdout, stderr string) {
			if !strings.Contains(stdout, "sec/op") {
				t.Errorf("not measured:\n%s\n%s", stdout, stderr)
			}
		}},
		{"ignore-failure -i", []string{"-r", "2", "-i", "false"}, func(t *testing.T, dir, stdout, stderr string) {
			if !strings.Contains(stdout, "sec/op") {
				t.Errorf("not measured:\n%s\n%s", stdout, stderr)
			}
		}},
		{"style none", []string{"-r", "2", "--style", "none", "--export-csv", "t.csv", "true"}, func(t *testing.T, dir, stdout, stderr string) {
			if stdout != "" || stderr != "" {
				t.Errorf("output with --style none: %q %q", stdout, stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "t.csv")); err != nil {
				t.Errorf("no export: %v", err)
			}
		}},
		{"style basic", []string{"-r", "2", "--style", "basic", "true", "true x"}, func(t *testing.T, dir, stdout, stderr string) {
			if strings.Contains(stdout, "\x1b[") || !strings.Contains(stdout, "ran ") || !strings.Contains(stdout, "vs true") {
				t.Errorf("colour or no report with --style basic:\n%q", stdout)
			}
		}},
		{"exports", []string{"-r", "3", "-P", "n", "1", "2", "--sort", "mean-time", "-u", "nanosecond",
			"--export-csv", "t.csv", "--export-markdown", "t.md", "--export-asciidoc", "t.adoc", "--export-orgmode", "t.org", "true {n}", "true x{n}"},
			func(t *testing.T, dir, stdout, stderr string) {
				f, err := os.Open(filepath.Join(dir, "t.csv"))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				recs, err := csv.NewReader(f).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				var cmds []string
				for _, r := range recs[1:] {
					cmds = append(cmds, r[0])
				}
				// CSV keeps hyperfine's order whatever --sort says.
				if want := []string{"true 1", "true x1", "true 2", "true x2"}; len(recs) != 5 || !slices.Equal(cmds, want) || recs[0][8] != "parameter_n" {
					t.Errorf("CSV %q, want rows %q and parameter_n", recs, want)
				}
				for _, tc := range []struct{ file, header string }{
					{"t.md", "| Command | Mean [ns] | Median [ns] | 95% CI [ns] |"},
					{"t.adoc", "| Mean [ns] \n| Median [ns] \n"},
					{"t.org", "| Command  |  Mean [ns] |  Median [ns] |"},
				} {
					b, err := os.ReadFile(filepath.Join(dir, tc.file))
					if err != nil || !strings.Contains(string(b), tc.header) || strings.Count(string(b), "reference") != 2 {
						t.Errorf("%s: %v\n%s", tc.file, err, b)
					}
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"exec", "--out", filepath.Join(dir, "out")}, tc.args...)
			stdout, stderr, code := rigorIn(t, dir, args...)
			if code != 0 {
				t.Fatalf("rigor %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
			}
			tc.check(t, dir, stdout, stderr)
		})
	}
}

// TestExecStyleColour: --style full and color colour the verdicts even
// off a terminal (here a regression: timed, so not under -short); basic,
// nocolor and none do not.
func TestExecStyleColour(t *testing.T) {
	for _, tc := range []struct {
		style       string
		colour, bar bool
	}{
		{"auto", false, true}, // not a terminal
		{"full", true, true},
		{"color", true, false},
		{"nocolor", false, true},
		{"basic", false, false},
		{"none", false, false},
	} {
		h := hyperfineFlags{style: tc.style}
		if c := h.colour(); (c != nil && *c) != tc.colour || h.progress() != tc.bar {
			t.Errorf("--style %s: colour %v, progress bar %v; want %v, %v", tc.style, c, h.progress(), tc.colour, tc.bar)
		}
	}
	if testing.Short() {
		t.Skip("a verdict in colour needs a regression: sleep 0.05 against true, timed")
	}
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := rigor(t, "exec", "--out", out, "-r", "8", "--style", "color", "true", "sleep 0.05")
	if code != 0 || !strings.Contains(stdout, "\x1b[") {
		t.Errorf("exit %d, no colour with --style color:\n%q\n%s", code, stdout, stderr)
	}
}

func readRunJSON(t *testing.T, dir string) *model.Run {
	t.Helper()
	run, err := model.ReadFile(filepath.Join(dir, "out", "run.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func exportCommands(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
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
	}
	return cmds
}

// TestExecExportsGuarded (issue 40 item 8): --export-csv guards a text
// cell (a command's name, a parameter's value) that a spreadsheet would
// read as a formula, as --format csv does, and --export-markdown fences a
// command holding backticks so that it stays one code span in its cell.
// Before, both wrote them as they were: =HYPERLINK(...) a live formula,
// and a backtick ending the code span early.
func TestExecExportsGuarded(t *testing.T) {
	dir := t.TempDir()
	csvPath, mdPath := filepath.Join(dir, "x.csv"), filepath.Join(dir, "x.md")
	_, stderr, code := rigorIn(t, dir, "exec", "--runs", "2", "--warmup", "0", "--no-record", "--out", filepath.Join(dir, "out"),
		"-L", "p", "=1+1,@SUM", "-n", `=HYPERLINK("http://evil","x") {p}`, "-n", "a`` `|`b {p}",
		"--export-csv", csvPath, "--export-markdown", mdPath, "-o", filepath.Join(dir, "report.txt"), "true {p}", "true {p} x")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) != 5 {
		t.Fatalf("%d rows, %v:\n%s", len(rows), err, b)
	}
	for _, r := range rows[1:] {
		for i, c := range r {
			if _, num := strconv.ParseFloat(c, 64); c != "" && strings.ContainsRune("=+-@", rune(c[0])) && num != nil {
				t.Errorf("csv: cell %d %q is a formula", i, c)
			}
		}
	}
	if !slices.Contains(rows[1], `'=HYPERLINK("http://evil","x") =1+1`) || !slices.Contains(rows[1], "'=1+1") || !slices.Contains(rows[3], "'@SUM") {
		t.Errorf("csv: the name and parameters are not there, quoted:\n%s", b)
	}
	md, err := os.ReadFile(mdPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| ``` a`` `\\|`b =1+1 ``` |") {
		t.Errorf("md: the command with backticks is not one code span:\n%s", md)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(md)), "\n") {
		if cells := strings.Split(strings.ReplaceAll(l, `\|`, ""), "|"); len(cells) != 11 {
			t.Errorf("md: row %q has %d cells, want 9", l, len(cells)-2)
		}
	}
}
