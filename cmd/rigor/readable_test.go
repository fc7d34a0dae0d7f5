package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// tinyModule is a module with one package whose one benchmark fails
// before its first sample.
func tinyModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":            "module example.com/tiny\n\ngo 1.26\n",
		"tiny/tiny_test.go": "package tiny\n\nimport \"testing\"\n\nfunc BenchmarkFails(b *testing.B) { b.Fatal(\"no\") }\n",
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A run that measures nothing, whether no benchmark matches or the only
// one fails at once, leaves no directory under .rigor/runs; the store
// ignores itself in git.
func TestRunThatMeasuredNothingLeavesNoDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := tinyModule(t)
	for _, bench := range []string{"NoSuchBenchmark", "Fails"} {
		_, stderr, code := rigorIn(t, dir, "run", "--bench", bench, "--profile", "off", "--benchtime", "5ms", "--min-rounds", "2", "--max-rounds", "2", "./...")
		if code != exitUsage {
			t.Errorf("--bench %s: exit %d, want 2; stderr %s", bench, code, stderr)
		}
		if runs, _ := os.ReadDir(filepath.Join(dir, ".rigor", "runs")); len(runs) != 0 {
			t.Errorf("--bench %s: %d run directories left under .rigor/runs (stderr %s)", bench, len(runs), stderr)
		}
		if strings.Contains(stderr, "samples in") {
			t.Errorf("--bench %s: names a results directory it removed: %s", bench, stderr)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".rigor", ".gitignore")); err != nil || string(b) != "*\n" {
		t.Errorf(".rigor/.gitignore: %q, %v", b, err)
	}
}

func TestGC(t *testing.T) {
	dir := tinyModule(t)
	runs := filepath.Join(dir, ".rigor", "runs")
	old := time.Now().Add(-time.Hour)
	var ids []string
	for i := range 4 {
		id := time.Now().AddDate(0, 0, -10*i).Format("20060102-150405")
		ids = append(ids, id)
		p := filepath.Join(runs, id)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "run.json"), make([]byte, 1024), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{filepath.Join(p, "run.json"), p} {
			if err := os.Chtimes(f, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	// ids: today, 10, 20 and 30 days ago.
	stdout, stderr, code := rigorIn(t, dir, "gc", "--keep", "1", "--older-than", "15d", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "would remove "+filepath.Join(".rigor", "runs", ids[2])+" (1.0KiB") ||
		!strings.Contains(stdout, ids[3]) || strings.Contains(stdout, ids[1]) || !strings.Contains(stdout, "would remove 2 runs (2.0KiB); 2 would be left") {
		t.Errorf("gc --dry-run: exit %d\n%s%s", code, stdout, stderr)
	}
	if left, _ := os.ReadDir(runs); len(left) != 4 {
		t.Errorf("--dry-run removed runs: %d left", len(left))
	}
	stdout, stderr, code = rigorIn(t, dir, "gc", "--keep", "2")
	if code != 0 || !strings.Contains(stdout, "removed 2 runs (2.0KiB); 2 left") {
		t.Errorf("gc --keep 2: exit %d\n%s%s", code, stdout, stderr)
	}
	if left, _ := os.ReadDir(runs); len(left) != 2 || left[1].Name() != ids[0] {
		t.Errorf("gc --keep 2 left %v", left)
	}
	for _, args := range [][]string{{"gc", "--keep", "-1"}, {"gc", "--older-than", "soon"}, {"gc", "--older-than", "-3d"}, {"gc", "x"}} {
		_, stderr, code := rigorIn(t, dir, args...)
		if code != exitUsage || !strings.HasPrefix(stderr, "rigor: ") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, stderr)
		}
	}
}

func TestParseAge(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{"720h", 720 * time.Hour}, {"30d", 30 * 24 * time.Hour}, {"2w", 14 * 24 * time.Hour}, {"1.5d", 36 * time.Hour}, {"90m", 90 * time.Minute},
		{"0d", 0}, {"-1h", 0}, {"d", 0}, {"NaNd", 0}, {"1e300w", 0}, {"", 0}, {"3 days", 0},
	} {
		got, err := parseAge(tt.in)
		if (err == nil) != (tt.want > 0) || got != tt.want {
			t.Errorf("parseAge(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"720h", "30d", "2w", "1.5d", "-3d", "1e300w", "NaNd", "+Infd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseAge(s)
		if err == nil && d <= 0 {
			t.Errorf("parseAge(%q) = %v with no error", s, d)
		}
	})
}
