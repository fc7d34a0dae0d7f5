package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run.json's instruction samples (the shape rigor writes: round-0
// samples of instructions/op per side), written by hand: old's two
// processes read 1000/1002 and 1001/1001, new's 1010/1030 and 1011/1012.
const runJSON = `{"benchmarks": [{"name": "Op", "metrics": [
  {"unit": "sec/op", "samples": [{"side": "old", "value": 1e-5}]},
  {"unit": "instructions/op", "samples": [
    {"side": "old", "round": 0, "value": 1000}, {"side": "old", "round": 0, "value": 1002},
    {"side": "old", "round": 0, "value": 1001}, {"side": "old", "round": 0, "value": 1001},
    {"side": "new", "round": 0, "value": 1010}, {"side": "new", "round": 0, "value": 1030},
    {"side": "new", "round": 0, "value": 1011}, {"side": "new", "round": 0, "value": 1012}]}]}]}`

const noCountJSON = `{"benchmarks": [{"name": "Op", "metrics": [{"unit": "sec/op"}],
  "notes": [{"text": "Op: the machine was busy"}, {"text": "no instructions per op: the 10s time budget was spent before its simulation (a --time of 21s fits it)"}]}]}`

func TestReadRun(t *testing.T) {
	rc, err := readRun([]byte(runJSON), "Op", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Old.Windows) != 4 || len(rc.New.Procs) != 2 || rc.Old.Procs[0] != 1001 || rc.New.Procs[0] != 1020 || rc.New.Procs[1] != 1011.5 {
		t.Fatalf("read %+v", rc)
	}
	if rc.Old.min() != 1000 || rc.New.max() != 1030 || rc.New.median() != 1011.5 {
		t.Errorf("old min %v, new max %v, new median %v", rc.Old.min(), rc.New.max(), rc.New.median())
	}
	// The medians' ratio +1.05%, range [1010/1002, 1030/1000] = [+0.80%,
	// +3.00%]: regressed at ±0.5%, inconclusive at ±1%; the least
	// windows' +1.0% is unchanged at ±2%, regressed at ±0.5%.
	if v := verdict(rc.New.min()/rc.Old.max()-1, rc.New.max()/rc.Old.min()-1, 0.005); v != "regressed" {
		t.Errorf("at 0.5%%: %s", v)
	}
	if v := verdict(rc.New.min()/rc.Old.max()-1, rc.New.max()/rc.Old.min()-1, 0.01); v != "inconclusive" {
		t.Errorf("at 1%%: %s", v)
	}
	if v := minVerdict(rc.New.min()/rc.Old.min()-1, 0.02); v != "unchanged" {
		t.Errorf("least at 2%%: %s", v)
	}
	if v := minVerdict(rc.New.min()/rc.Old.min()-1, 0.005); v != "regressed" {
		t.Errorf("least at 0.5%%: %s", v)
	}
	rc, err = readRun([]byte(noCountJSON), "Op", 2)
	if err != nil || rc.counted() || !strings.HasPrefix(rc.Why, "no instructions per op: the 10s") {
		t.Errorf("no count: %+v, %v", rc, err)
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []struct{ path, data string }{
		{"neighbour/trial-01/rigor-plus1-run/run.json", runJSON},
		{"neighbour/trial-01/rigor-aa-run/run.json", noCountJSON},
		{"neighbour/trial-01/rigor-plus1.json", `{"benchmarks": [{"name": "Op", "metrics": [{"unit": "instructions/op",
			"changes": [{"estimate": 0.01, "lo": 0.009, "hi": 0.011, "verdict": "regressed"}]}]}]}`},
	} {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var sb strings.Builder
	if err := run([]string{dir}, &sb); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{
		"neighbour aa: 1 runs, 0 with counts",
		"without a count: no instructions per op: the 10s time budget was spent before its simulation 1",
		"neighbour plus1: 1 runs, 1 with counts; rigor's verdict regressed 1; range rule regressed 1; least rule regressed 1",
		"+1.000% [+0.900%, +1.100%] regressed",
		"+1.049% [+0.798%, +3.000%]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "neighbour  aa") > strings.Index(out, "neighbour  plus1") {
		t.Errorf("A/A should come first:\n%s", out)
	}
}
