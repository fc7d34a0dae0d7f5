package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file in ns/op and one in us/op compare (issue 13 item 4): they said
// "no benchmark in common".
func TestCompareTimeUnits(t *testing.T) {
	dir := t.TempDir()
	var ns, us strings.Builder
	ns.WriteString("pkg: x\n")
	us.WriteString("pkg: x\n")
	for i := range 8 {
		ns.WriteString("BenchmarkA-2 1000 " + []string{"1500", "1510", "1490", "1505", "1495", "1502", "1498", "1500"}[i] + " ns/op\n")
		us.WriteString("BenchmarkA-2 1000 " + []string{"1.20", "1.21", "1.19", "1.205", "1.195", "1.202", "1.198", "1.20"}[i] + " us/op\n")
	}
	a, b := filepath.Join(dir, "ns.txt"), filepath.Join(dir, "us.txt")
	if err := os.WriteFile(a, []byte(ns.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(us.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := rigor(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// 1500ns -> 1.2µs is -20%.
	for _, want := range []string{"sec/op", "1.500µ", "1.200µ", "-20.00%", "improved"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// Written to a file (or a pipe), the report keeps every name whole,
// whatever $COLUMNS says.
func TestReportToFileKeepsNames(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.txt")
	t.Setenv("COLUMNS", "40")
	for _, args := range [][]string{{"-o", out}, {}} {
		stdout, errOut, code := rigor(t, append([]string{"report", filepath.Join("..", "..", "report", "testdata", "xxhash.json")}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		text := stdout
		if len(args) > 0 {
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
		}
		if strings.Contains(text, "…") || !strings.Contains(text, "Hashes/xxhash,digest,string,n=100B-2") {
			t.Errorf("%v: names shortened:\n%s", args, text)
		}
	}
}
