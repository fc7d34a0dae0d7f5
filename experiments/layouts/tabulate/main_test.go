package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const report = `{"schema_version": 2, "benchmarks": [
 {"name": "Sum64/4B", "full_name": "Sum64/4B-2", "verdict": "regressed",
  "decisions": [{"verdict": "regressed", "estimate": 0.03, "lo": 0.02, "hi": 0.04}],
  "metrics": [{"unit": "sec/op", "changes": [{"test": "layouts", "layouts": 6}]}]},
 {"name": "Sum64/16B", "full_name": "Sum64/16B-2", "verdict": "unchanged",
  "decisions": [{"verdict": "unchanged", "estimate": 0.001, "lo": -0.005, "hi": 0.006}],
  "metrics": [{"unit": "sec/op", "changes": [{"test": "layouts", "layouts": 6}]}],
  "notes": [{"topic": "layout-sensitive", "evidence": {"layout_lo": -0.02, "layout_hi": 0.03}}]}],
 "notes": [{"topic": "layout-sensitive", "benchmark": "Sum64/4B-2", "evidence": {"layout_lo": 0.01, "layout_hi": 0.05}}]}`

func TestParseReport(t *testing.T) {
	bs, err := parseReport([]byte(report))
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 {
		t.Fatalf("%d benchmarks, want 2", len(bs))
	}
	b := bs[0]
	if b.Name != "Sum64/4B" || b.Verdict != "regressed" || b.Est != 0.03 || b.Lo != 0.02 || b.Hi != 0.04 || b.Test != "layouts" || b.Layouts != 6 {
		t.Errorf("first: %+v", b)
	}
	if b.NoteLo != 0.01 || b.NoteHi != 0.05 {
		t.Errorf("first's note (top level, by full name): %v..%v", b.NoteLo, b.NoteHi)
	}
	if bs[1].NoteLo != -0.02 || bs[1].NoteHi != 0.03 {
		t.Errorf("second's note (the benchmark's own): %v..%v", bs[1].NoteLo, bs[1].NoteHi)
	}
	if _, err := parseReport([]byte(`{"benchmarks": []}`)); err == nil {
		t.Error("no schema_version: no error")
	}
}

// runJSON: two links; link 1's fastest old 100, fastest new 110; link 2's
// 100 and 99. An unpaired sample (round 0, a simulated count) is skipped.
const runJSON = `{"benchmarks": [{"name": "X", "metrics": [{"unit": "sec/op", "samples": [
 {"side": "old", "round": 1, "layout": 1, "value": 100}, {"side": "new", "round": 1, "layout": 1, "value": 110},
 {"side": "new", "round": 2, "layout": 2, "value": 99}, {"side": "old", "round": 2, "layout": 2, "value": 100},
 {"side": "old", "round": 3, "layout": 1, "value": 100}, {"side": "new", "round": 3, "layout": 1, "value": 112},
 {"side": "old", "round": 4, "layout": 2, "value": 100}, {"side": "new", "round": 4, "layout": 2, "value": 101},
 {"side": "old", "round": 0, "value": 1}]},
 {"unit": "instructions/op", "samples": [{"side": "old", "round": 1, "value": 5}]}]}]}`

func TestLinkCenters(t *testing.T) {
	c, err := linkCenters([]byte(runJSON))
	if err != nil {
		t.Fatal(err)
	}
	x := c["X"]["sec/op"]
	if len(x) != 2 {
		t.Fatalf("links %v, want 2", x)
	}
	want1 := 110.0/100 - 1 // the fastest new over the fastest old
	want2 := 99.0/100 - 1
	if math.Abs(x[1]-want1) > 1e-12 || math.Abs(x[2]-want2) > 1e-12 {
		t.Errorf("centers %v, want 1: %v, 2: %v", x, want1, want2)
	}
}

const author = `sha3: avoid buffer copy

name                  old time/op    new time/op    delta
Sum64String/4B-12       4.78ns ± 1%    3.57ns ± 4%  -25.27%  (p=0.000 n=8+10)
Sum64String/4KB-12       229ns ± 0%     229ns ± 1%     ~     (p=0.395 n=7+10)

name                  old speed      new speed
Sum64String/4B-12      837MB/s ± 1%  1124MB/s ± 2%  +34.42%  (p=0.000 n=10+9)
`

func TestParseAuthor(t *testing.T) {
	m, err := parseAuthor(strings.NewReader(author))
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || m["Sum64String/4B"] != "-25.27%" || m["Sum64String/4KB"] != "~" {
		t.Errorf("got %v", m)
	}
	if !opposite("-25.27%", "regressed") || opposite("-25.27%", "improved") || opposite("~", "regressed") {
		t.Error("opposite")
	}
}

func TestRun(t *testing.T) {
	out := t.TempDir()
	dir := filepath.Join(out, "aa", "xxhash")
	if err := os.MkdirAll(filepath.Join(dir, "default-1.run"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("default-1.json", report)
	write("default-1.wall", "70 0\n")
	write("single-1.json", strings.ReplaceAll(report, `"regressed"`, `"inconclusive"`))
	write("default-1.run/run.json", strings.ReplaceAll(runJSON, `"X"`, `"Sum64/4B"`))
	var b bytes.Buffer
	if err := run(out, &b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"xxhash  default       1            2            1     50.0", "11.0 pts (-1.00%..+10.00%)", "1/1 +1.00%..+5.00%"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%s", want, s)
		}
	}
}
