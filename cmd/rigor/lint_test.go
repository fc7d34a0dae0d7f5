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
	writeFiles(t, dir, files)
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := runLint(context.Background(), lintOptions{Packages: []string{"./..."}, Format: "text", Tests: true}, &stdout, &stderr)
	if code != exitOK || !strings.HasPrefix(stdout.String(), "rigor lint: 0 findings in 1 package with benchmarks") || stderr.Len() != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 and a summary of 0 findings", code, stdout.String(), stderr.String())
	}
}

// writeFiles writes files, by path relative to dir, making directories.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
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
	writeFiles(t, dir, files)
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

// TestLintCompileErrors: a test file that does not compile, and a
// dependency that does not, are shown with the compiler's errors (file,
// line, message), as go vet shows them, and exit 2. rigor lint printed
// only "rigor: lint: # fn4 [fn4.test]" (issue 23), and for the broken
// dependency "could not import ... (no export data ...)".
func TestLintCompileErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  []string // lines of stderr, in order
	}{{
		name: "test file",
		files: map[string]string{
			"fn4.go":      "package fn4\n\nfunc Add(a, b int) int { return a + b }\n",
			"fn4_test.go": "package fn4\n\nimport \"testing\"\n\nfunc BenchmarkAdd(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tAdd(1, \"x\")\n\t}\n\tundefinedThing()\n}\n",
		},
		want: []string{
			"rigor: lint: example.com/fn4 [example.com/fn4.test] does not compile:",
			`./fn4_test.go:7:10: cannot use "x" (untyped string constant) as int value in argument to Add`,
			"./fn4_test.go:9:2: undefined: undefinedThing",
		},
	}, {
		name: "dependency",
		files: map[string]string{
			"dep/dep.go":  "package dep\n\nfunc F() int { return \"s\" }\n",
			"fn4.go":      "package fn4\n\nimport \"example.com/fn4/dep\"\n\nfunc G() int { return dep.F() }\n",
			"fn4_test.go": "package fn4\n\nimport \"testing\"\n\nfunc BenchmarkG(b *testing.B) {\n\tfor b.Loop() {\n\t\tG()\n\t}\n}\n",
		},
		want: []string{
			"rigor: lint: example.com/fn4/dep does not compile:",
			`dep/dep.go:3:23: cannot use "s" (untyped string constant) as int value in return statement`,
		},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.files["go.mod"] = "module example.com/fn4\n\ngo 1.26\n"
			writeFiles(t, dir, tt.files)
			t.Chdir(dir)
			var stdout, stderr bytes.Buffer
			code := runLint(context.Background(), lintOptions{Packages: []string{"./..."}, Format: "text", Tests: true}, &stdout, &stderr)
			got := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if code != exitUsage || stdout.Len() != 0 || strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit %d and stderr:\n%s", code, stdout.String(), stderr.String(), exitUsage, strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestLintOtherPackage: a benchmark that drops the result of a pure
// function of another package of its module, one with no benchmark of
// its own, is reported: rigor lint type-checks the imported packages of
// the module for the purity pass (Loaded.Deps), as go vet -vettool sees
// them through facts. It was missed (issue 23).
func TestLintOtherPackage(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":         "module example.com/dep\n\ngo 1.26\n",
		"other/other.go": "package other\n\nfunc Mix(x uint64) uint64 {\n\tx ^= x >> 33\n\tx *= 0xff51afd7ed558ccd\n\treturn x ^ x>>33\n}\n",
		"bench/bench_test.go": `package bench

import (
	"testing"

	"example.com/dep/other"
)

var sink uint64

func BenchmarkMix(b *testing.B) {
	for i := 0; i < b.N; i++ {
		other.Mix(uint64(i))
	}
}

func BenchmarkMixUsed(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += other.Mix(uint64(i))
	}
}
`,
	}
	writeFiles(t, dir, files)
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := runLint(context.Background(), lintOptions{Packages: []string{"./..."}, Format: "json", Tests: true}, &stdout, &stderr)
	var got []lintFinding
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || code != exitGateFail {
		t.Fatalf("exit %d, stderr %q, output %q (%v)", code, stderr.String(), stdout.String(), err)
	}
	if len(got) != 1 || got[0].Check != "elided" || !strings.HasPrefix(got[0].Pos, filepath.Join("bench", "bench_test.go")+":13:") ||
		!strings.Contains(got[0].Message, "result of other.Mix discarded: the compiler deletes this pure call and the loop is left empty") {
		t.Fatalf("findings %+v; want one elided finding at bench/bench_test.go:13 for other.Mix, the loop left empty", got)
	}
}
