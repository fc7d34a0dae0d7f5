package lint

import (
	"bufio"
	"context"
	"fmt"
	"go/ast"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/checker"
)

// TestStripKeepsFindings: stripBodies changes no finding. The analyzers'
// test packages (testdata/src) and the cases of testdata/strip, one for
// each rule that keeps a body, are linted in a scratch module with and
// without stripping; the findings must be the same, every finding the
// cases mark must be there, and a body must have been dropped.
func TestStripKeepsFindings(t *testing.T) {
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases")
	copyTree(t, filepath.Join("testdata", "src", "github.com", "rigorbench", "rigor"), filepath.Join(dir, "rigor"), nil)
	writeFile(t, filepath.Join(dir, "rigor", "go.mod"), "module github.com/rigorbench/rigor\n\ngo 1.26\n")
	writeFile(t, filepath.Join(cases, "go.mod"), "module example.com/cases\n\ngo 1.26\n\nrequire github.com/rigorbench/rigor v0.0.0\n\nreplace github.com/rigorbench/rigor => ../rigor\n")
	entries, err := os.ReadDir(filepath.Join("testdata", "src"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "github.com" {
			copyTree(t, filepath.Join("testdata", "src", e.Name()), filepath.Join(cases, e.Name()),
				strings.NewReplacer(`"purelib"`, `"example.com/cases/purelib"`))
		}
	}
	copyTree(t, filepath.Join("testdata", "strip"), cases, nil)
	marked := markedFindings(t, cases)
	t.Chdir(cases)
	t.Setenv("GOWORK", "off")

	stripped, dropped := lintAll(t, false)
	kept, _ := lintAll(t, true)
	if !slices.Equal(stripped, kept) {
		t.Errorf("findings with bodies stripped:\n%s\nwith every body:\n%s", strings.Join(stripped, "\n"), strings.Join(kept, "\n"))
	}
	for _, m := range marked {
		if !slices.ContainsFunc(stripped, func(f string) bool { return strings.HasPrefix(f, m) }) {
			t.Errorf("no finding %s...", m)
		}
	}
	if !slices.Contains(dropped, "TestDropped") {
		t.Errorf("bodies dropped: %v; want TestDropped's among them", dropped)
	}
}

// lintAll lints ./... with every check and returns the findings, as
// "file:line: check: message", and the functions whose body was dropped.
func lintAll(t *testing.T, keep bool) (findings, dropped []string) {
	t.Helper()
	keepBodies = keep
	defer func() { keepBodies = false }()
	loaded, err := Load(context.Background(), []string{"./..."}, true)
	if err != nil {
		t.Fatal(err)
	}
	prime, checks := RootAnalyzers()
	if err := loaded.Prime(prime); err != nil {
		t.Fatal(err)
	}
	graph, err := checker.Analyze(checks, loaded.Packages, nil)
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	for _, act := range graph.Roots {
		if act.Err != nil {
			t.Fatalf("%s on %s: %v", act.Analyzer.Name, act.Package.PkgPath, act.Err)
		}
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			rel, _ := filepath.Rel(wd, pos.Filename)
			findings = append(findings, fmt.Sprintf("%s:%d: %s: %s", filepath.ToSlash(rel), pos.Line, act.Analyzer.Name, d.Message))
		}
	}
	for _, p := range loaded.Packages {
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Body == nil {
					dropped = append(dropped, fd.Name.Name)
				}
			}
		}
	}
	slices.Sort(findings)
	return slices.Compact(findings), dropped
}

var findingMark = regexp.MustCompile(`// finding: (\w+)`)

// markedFindings returns "file:line: check:" for each line of the .go
// files under dir marked `// finding: check`.
func markedFindings(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rel, _ := filepath.Rel(dir, path)
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			if m := findingMark.FindStringSubmatch(sc.Text()); m != nil {
				out = append(out, fmt.Sprintf("%s:%d: %s:", filepath.ToSlash(rel), n, m[1]))
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// copyTree copies the .go files under from to to, through r when not nil.
func copyTree(t *testing.T, from, to string, r *strings.Replacer) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		s := string(b)
		if r != nil {
			s = r.Replace(s)
		}
		writeFile(t, filepath.Join(to, rel), s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoadCandidates: Load lists every package the patterns match and
// loads those with a file that mentions testing.B or rigor, reading the
// test files only with tests and honouring build constraints (a file
// go list leaves out is not read).
func TestLoadCandidates(t *testing.T) {
	dir := t.TempDir()
	bench := "package %s\n\nimport \"testing\"\n\nfunc BenchmarkX(b *testing.B) {\n\tfor b.Loop() {\n\t}\n}\n"
	files := map[string]string{
		"go.mod":             "module example.com/m\n\ngo 1.26\n",
		"plain/plain.go":     "package plain\n",
		"intest/x.go":        "package intest\n",
		"intest/x_test.go":   fmt.Sprintf(bench, "intest"),
		"xtest/x.go":         "package xtest\n",
		"xtest/x_test.go":    fmt.Sprintf(bench, "xtest_test"),
		"onlytest/x_test.go": fmt.Sprintf(bench, "onlytest"),
		"helper/helper.go":   "package helper\n\nimport \"testing\"\n\nfunc Run(b *testing.B) {}\n",
		"ignored/x.go":       "package ignored\n",
		"ignored/x_test.go":  "//go:build ignore\n\n" + fmt.Sprintf(bench, "ignored"),
	}
	for name, body := range files {
		writeFile(t, filepath.Join(dir, name), body)
	}
	t.Chdir(dir)
	t.Setenv("GOWORK", "off")
	// Analyzed are p's test variant instead of p, and p_test; never the
	// test main.
	for _, tt := range []struct {
		tests          bool
		want, analyzed []string
	}{
		{true, []string{"example.com/m/helper", "example.com/m/intest", "example.com/m/onlytest", "example.com/m/xtest"},
			[]string{"example.com/m/helper", "example.com/m/intest [example.com/m/intest.test]", "example.com/m/onlytest [example.com/m/onlytest.test]",
				"example.com/m/xtest", "example.com/m/xtest_test [example.com/m/xtest.test]"}},
		{false, []string{"example.com/m/helper"}, []string{"example.com/m/helper"}},
	} {
		loaded, err := Load(context.Background(), []string{"./..."}, tt.tests)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(loaded.Candidates, tt.want) || loaded.Listed != 6 {
			t.Errorf("tests %v: candidates %v of %d listed; want %v of 6", tt.tests, loaded.Candidates, loaded.Listed, tt.want)
		}
		var analyzed []string
		for _, p := range loaded.Packages {
			analyzed = append(analyzed, p.ID)
		}
		slices.Sort(analyzed)
		if !slices.Equal(analyzed, tt.analyzed) {
			t.Errorf("tests %v: analyzed %v; want %v", tt.tests, analyzed, tt.analyzed)
		}
	}
}
