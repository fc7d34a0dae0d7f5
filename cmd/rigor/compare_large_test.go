package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/internal/genlarge"
)

var updateGolden = flag.Bool("update", false, "rewrite cmd/rigor's golden files in testdata/ with the current output")

// writeLarge writes genlarge's old.txt and new.txt of n benchmarks into
// dir.
func writeLarge(tb testing.TB, dir string, n int) {
	tb.Helper()
	old, err := os.Create(filepath.Join(dir, "old.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	new, err := os.Create(filepath.Join(dir, "new.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := genlarge.Write(old, new, n); err != nil {
		tb.Fatal(err)
	}
	for _, f := range []*os.File{old, new} {
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
	}
}

// compareLargeFormats are the formats whose output TestCompareLargeGolden
// keeps, each by its SHA-256 (text also in full, to show where it changed).
var compareLargeFormats = []string{"text", "table", "tree", "md", "csv", "json", "html", "benchfmt", "llm"}

// TestCompareLargeGolden: rigor compare of testdata/genlarge's 1,000
// benchmarks (issue 28's speed target) prints the same bytes in every
// format as when the golden files were written. It guards the work on
// compare's cost: parsing and analysis may get faster, never different.
// The text output is kept in full (testdata/compare-large.text.golden);
// every format's SHA-256 in testdata/compare-large.sha256. Under -short
// only text and json (each run is a full analysis of 1,000 benchmarks).
// To accept an intended change:
//
//	go test ./cmd/rigor -run CompareLargeGolden -update
func TestCompareLargeGolden(t *testing.T) {
	dir := t.TempDir()
	writeLarge(t, dir, 1000)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	textPath := filepath.Join(wd, "testdata", "compare-large.text.golden")
	sumPath := filepath.Join(wd, "testdata", "compare-large.sha256")
	formats := compareLargeFormats
	if testing.Short() && !*updateGolden {
		formats = []string{"text", "json"}
	}
	sums := map[string]string{}
	var sumFile strings.Builder
	var text string
	for _, format := range formats {
		out, errOut, code := rigorIn(t, dir, "compare", "--no-record", "--format", format, "old.txt", "new.txt")
		if code != 0 {
			t.Fatalf("--format %s: exit %d: %s", format, code, errOut)
		}
		sums[format] = fmt.Sprintf("%x", sha256.Sum256([]byte(out)))
		fmt.Fprintf(&sumFile, "%s  %s\n", sums[format], format)
		if format == "text" {
			text = out
		}
	}
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(textPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(textPath, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(sumPath, []byte(sumFile.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(textPath)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/rigor -run CompareLargeGolden -update creates it)", err)
	}
	if got, want := strings.Split(text, "\n"), strings.Split(string(want), "\n"); !slices.Equal(got, want) {
		for i := range max(len(got), len(want)) {
			var g, w string
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Fatalf("text differs at line %d:\n got: %q\nwant: %q", i+1, g, w)
			}
		}
	}
	wantSums, err := os.ReadFile(sumPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(wantSums)), "\n") {
		sum, format, _ := strings.Cut(line, "  ")
		if got, ok := sums[format]; ok && got != sum {
			t.Errorf("--format %s: output's SHA-256 is %s, golden %s", format, got, sum)
		}
		delete(sums, format)
	}
	for format := range sums {
		t.Errorf("--format %s has no golden digest", format)
	}
}

// BenchmarkCompareLarge is rigor compare of testdata/genlarge's files, the
// whole command in process (read, merge, analyse, render text), output
// discarded: issue 28's rows against benchstat on the same files.
//
//	go test -run XXX -bench CompareLarge -benchmem ./cmd/rigor
func BenchmarkCompareLarge(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			writeLarge(b, dir, n)
			args := []string{"compare", "--no-record", filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")}
			b.ReportAllocs()
			for b.Loop() {
				if code := execute(b.Context(), args, stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard}); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
