package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchFile writes go test -bench output to a file in dir: lines of
// "BenchmarkName iters value unit...", repeated n times each.
func benchFile(t *testing.T, dir, name string, n int, lines ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/lab\n")
	for range n {
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCompareAllocationFromZero (issue 11 item 3): 0 -> 1 allocs/op and
// 0 -> 8 B/op, exact on both sides, are regressions shown as absolute
// changes (a relative change from zero is undefined: the JSON's estimate
// is null), and a gate at any percentage fails on them. The time is the
// same on both sides (100 ns/op): unchanged, exactly.
func TestCompareAllocationFromZero(t *testing.T) {
	dir := t.TempDir()
	old := benchFile(t, dir, "old.txt", 6, "BenchmarkX 1000 100 ns/op 0 B/op 0 allocs/op")
	new := benchFile(t, dir, "new.txt", 6, "BenchmarkX 1000 100 ns/op 8 B/op 1 allocs/op")

	out, errOut, code := rigor(t, "compare", "--format", "json", old, new)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Benchmarks []struct {
			Metrics []struct {
				Unit   string
				Change struct {
					Estimate *float64
					Delta    *float64
					Verdict  string
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	want := map[string]float64{"B/op": 8, "allocs/op": 1}
	for _, m := range doc.Benchmarks[0].Metrics {
		d, ok := want[m.Unit]
		if !ok {
			continue
		}
		delete(want, m.Unit)
		if c := m.Change; c.Estimate != nil || c.Delta == nil || *c.Delta != d || c.Verdict != "regressed" {
			t.Errorf("%s: change %+v, want estimate null, delta %v, regressed", m.Unit, c, d)
		}
	}
	if len(want) > 0 {
		t.Errorf("no metric for %v in\n%s", want, out)
	}

	out, _, _ = rigor(t, "compare", old, new)
	for _, w := range []string{"+1 allocs/op", "+8 B/op", "regressed"} {
		if !strings.Contains(out, w) {
			t.Errorf("text output lacks %q:\n%s", w, out)
		}
	}

	_, errOut, code = rigor(t, "compare", "--max-regression", "1000000", "old="+old, "new="+new)
	if code != 1 {
		t.Fatalf("--max-regression 1000000: exit %d, want 1; stderr %s", code, errOut)
	}
	if !strings.Contains(errOut, "rigor: gate: example.com/lab.X allocs/op regressed on new: +1 allocs/op from 0, beyond any percentage limit") {
		t.Errorf("gate message:\n%s", errOut)
	}
}
