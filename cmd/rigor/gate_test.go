package main

import (
	"encoding/json"
	"fmt"
	"github.com/rigorbench/rigor/model"
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

// TestGateLostBenchmark (issue 11 item 2): with --max-regression, a
// benchmark that the baseline has and the new side lacks fails the gate,
// one line each, whether it is absent from the new file or recorded as
// failed by the source that measured it (a run whose new side panicked);
// --allow-missing accepts both. Without --max-regression there is no
// gate. Before, both exited 0.
func TestGateLostBenchmark(t *testing.T) {
	dir := t.TempDir()
	old := benchFile(t, dir, "old.txt", 6, "BenchmarkX 1000 100 ns/op", "BenchmarkY 1000 200 ns/op")
	new := benchFile(t, dir, "new.txt", 6, "BenchmarkX 1000 100 ns/op")
	crashed := filepath.Join(dir, "run.json")
	err := os.WriteFile(crashed, []byte(`{"schema_version": 1, "kind": "ab", "paired": true,
  "sides": [{"label": "old"}, {"label": "new"}],
  "benchmarks": [{"name": "Z", "pkg": "example.com/lab",
    "missing": {"new": {"kind": "failed", "reason": "panicked (exit status 2) in round 2"}},
    "metrics": [{"unit": "sec/op", "better": -1, "samples": [
      {"side": "old", "round": 1, "iters": 1000, "value": 1e-7},
      {"side": "new", "round": 1, "iters": 1000, "value": 1e-7},
      {"side": "old", "round": 2, "iters": 1000, "value": 1e-7}]}]}]}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string // the gate's line on stderr
	}{
		{"absent from the new file", []string{"--max-regression", "5", "old=" + old, "new=" + new}, 1,
			"rigor: gate: example.com/lab.Y is missing on new where old has it (--allow-missing accepts this)\n"},
		{"absent, allowed", []string{"--max-regression", "5", "--allow-missing", "old=" + old, "new=" + new}, 0, ""},
		{"absent, no gate", []string{"old=" + old, "new=" + new}, 0, ""},
		{"panicked on new", []string{"--max-regression", "5", crashed}, 1,
			"rigor: gate: example.com/lab.Z failed on new where old has it: panicked (exit status 2) in round 2 (--allow-missing accepts this)\n"},
		{"panicked, allowed", []string{"--max-regression", "5", "--allow-missing", crashed}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := rigor(t, append([]string{"compare"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, errOut)
			}
			if errOut != tt.want {
				t.Errorf("stderr %q, want %q", errOut, tt.want)
			}
			if !strings.Contains(out, "missing on new") && !strings.Contains(out, "failed on new") {
				t.Errorf("the report does not say what is missing:\n%s", out)
			}
		})
	}
}

// TestCompareCountsDerivedOnce (issue 10 item 5): ten benchmarks that
// report sec/op and MB/s (SetBytes), printed as go test prints them
// (ns/op whole, MB/s with two decimals, so B/s × sec/op varies by the
// rounding), are ten comparisons for the Holm correction, not twenty; B/s
// is marked derived from sec/op in the JSON, and the note says so.
func TestCompareCountsDerivedOnce(t *testing.T) {
	dir := t.TempDir()
	var oldLines, newLines []string
	for i := range 10 {
		bytes := float64(int(8) << i)
		for j := range 6 {
			ns := 1000 + 37*j + 11*i
			oldLines = append(oldLines, fmt.Sprintf("BenchmarkSum64/n=%d 100000 %d ns/op %.2f MB/s", 8<<i, ns, bytes/float64(ns)*1e3))
			ns = ns * 11 / 10
			newLines = append(newLines, fmt.Sprintf("BenchmarkSum64/n=%d 100000 %d ns/op %.2f MB/s", 8<<i, ns, bytes/float64(ns)*1e3))
		}
	}
	old := benchFile(t, dir, "old.txt", 1, oldLines...)
	new := benchFile(t, dir, "new.txt", 1, newLines...)
	out, errOut, code := rigor(t, "compare", "--format", "json", old, new)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Comparisons int
		Notes       []model.Note
		Benchmarks  []struct {
			Metrics []struct {
				Unit        string
				DerivedFrom string `json:"derived_from"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Comparisons != 10 || !strings.Contains(strings.Join(model.Texts(doc.Notes), "\n"), "10 comparisons") {
		t.Errorf("comparisons = %d, notes %q; want 10", doc.Comparisons, doc.Notes)
	}
	for _, b := range doc.Benchmarks {
		for _, m := range b.Metrics {
			if want := map[string]string{"B/s": "sec/op"}[m.Unit]; m.DerivedFrom != want {
				t.Errorf("%s derived from %q, want %q", m.Unit, m.DerivedFrom, want)
			}
		}
	}
}
