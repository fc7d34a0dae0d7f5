package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintSeed003: on seed 003's benchlab, rigor lint reports
// BenchmarkElided's discarded square and nothing else (BenchmarkKept and
// BenchmarkBuild are right), and exits 1.
func TestLintSeed003(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "benchlab")
	want := lineOf(t, filepath.Join(dir, "build_test.go"), "_ = square(uint64(i))")
	var stdout, stderr bytes.Buffer
	code := runLint(context.Background(), lintOptions{Packages: []string{dir}, Format: "json", Tests: true}, &stdout, &stderr)
	if code != exitGateFail {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitGateFail, stderr.String())
	}
	var got []lintFinding
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	if len(got) != 1 || got[0].Check != "elided" || !strings.Contains(got[0].Pos, fmt.Sprintf("build_test.go:%d:", want)) {
		t.Fatalf("findings %+v; want one elided finding at build_test.go:%d", got, want)
	}
}

// TestLintClean: a package with correct benchmarks exits 0 and says so.
func TestLintClean(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/clean\n\ngo 1.26\n",
		"clean_test.go": `package clean

import "testing"

func square(x int) int { return x * x }

func BenchmarkSquare(b *testing.B) {
	x := 3
	for b.Loop() {
		x = square(x)
	}
}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := runLint(context.Background(), lintOptions{Packages: []string{"./..."}, Format: "text", Tests: true}, &stdout, &stderr)
	if code != exitOK || !strings.HasPrefix(stdout.String(), "rigor lint: 0 findings in 1 package with benchmarks") || stderr.Len() != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 and a summary of 0 findings", code, stdout.String(), stderr.String())
	}
}

// lineOf returns the line number of the first line of file containing s.
func lineOf(t *testing.T, file, s string) int {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.Contains(sc.Text(), s) {
			return n
		}
	}
	t.Fatalf("%s has no line with %q", file, s)
	return 0
}

// TestLintExternalTest: a benchmark in an external test package (p_test)
// that drops the result of the package's own pure function is reported:
// rigor lint loads no facts, so it must carry what it learned of p to
// p_test itself (lint.RootAnalyzers' first pass).
func TestLintExternalTest(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/ext\n\ngo 1.26\n",
		"ext.go": "package ext\n\nfunc Square(x int) int { return x * x }\n",
		"ext_test.go": `package ext_test

import (
	"testing"

	"example.com/ext"
)

func BenchmarkSquare(b *testing.B) {
	for i := 0; i < b.N; i++ {
		ext.Square(i)
	}
}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := runLint(context.Background(), lintOptions{Packages: []string{"./..."}, Format: "json", Tests: true}, &stdout, &stderr)
	var got []lintFinding
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || code != exitGateFail {
		t.Fatalf("exit %d, stderr %q, output %q (%v)", code, stderr.String(), stdout.String(), err)
	}
	if len(got) != 1 || got[0].Check != "elided" || !strings.HasPrefix(got[0].Pos, "ext_test.go:11:") {
		t.Fatalf("findings %+v; want one elided finding at ext_test.go:11", got)
	}
}
