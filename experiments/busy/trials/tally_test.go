package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFromBenchstat(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  bsRow
		want string
	}{
		{"found", bsRow{"sec/op", "Op", 0.0408, 0, 10}, "regressed"},
		{"faster", bsRow{"sec/op", "Op", -0.02, 0.01, 10}, "improved"},
		{"not significant", bsRow{"sec/op", "Op", math.NaN(), 0.065, 10}, "~"},
		{"at alpha counts", bsRow{"sec/op", "Op", 0.01, 0.05, 10}, "regressed"},
		// A printed change with p above alpha cannot come from benchstat at
		// its default alpha; it is not counted.
		{"above alpha", bsRow{"sec/op", "Op", 0.01, 0.051, 10}, "~"},
		{"zero change", bsRow{"sec/op", "Op", 0, 0.001, 10}, "~"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r record
			if err := r.fromBenchstat([]bsRow{{"B/op", "Op", math.NaN(), 1, 10}, tc.row}); err != nil {
				t.Fatal(err)
			}
			if got := r.Verdicts["sec/op"]; got != tc.want {
				t.Errorf("verdict %s, want %s", got, tc.want)
			}
			if r.Rounds != tc.row.N {
				t.Errorf("rounds %d, want %d", r.Rounds, tc.row.N)
			}
		})
	}
	var r record
	if err := r.fromBenchstat([]bsRow{{"B/op", "Op", math.NaN(), 1, 10}}); err == nil {
		t.Error("no sec/op row: want an error")
	}
	if err := r.fromBenchstat([]bsRow{{"sec/op", "A", 0, 1, 10}, {"sec/op", "B", 0, 1, 10}}); err == nil {
		t.Error("two sec/op rows: want an error")
	}
}

func TestFromRigor(t *testing.T) {
	rd, err := parseRigor(readFixture(t, "rigor-plus3-cpu-handmade.json"), "Op")
	if err != nil {
		t.Fatal(err)
	}
	var r record
	if err := r.fromRigor(rd); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"sec/op": "inconclusive", "cpu-sec/op": "regressed", methodHeadline: "regressed"}
	for m, v := range want {
		if r.Verdicts[m] != v {
			t.Errorf("%s: %q, want %q", m, r.Verdicts[m], v)
		}
	}
	if len(r.Verdicts) != len(want) || r.HeadlineUnit != "cpu-sec/op" || r.Rounds != 7 || r.Changes["cpu-sec/op"] != 0.029 {
		t.Errorf("record %+v", r)
	}
}

// TestTally counts a hand-made set of records; every expected number is
// counted by hand from the list.
func TestTally(t *testing.T) {
	rec := func(env string, trial int, cond, tool, secV, cpuV string, wall float64, rounds int) record {
		r := record{Env: env, Trial: trial, Cond: cond, Tool: tool, WallSec: wall, Rounds: rounds, Verdicts: map[string]string{}, Load1: float64(trial)}
		if secV == "" {
			r.Error = "failed"
			r.Verdicts = nil
			return r
		}
		r.Verdicts["sec/op"] = secV
		if cpuV != "" {
			r.Verdicts["cpu-sec/op"] = cpuV
		}
		return r
	}
	gated := func(r record, change float64) record {
		r.Exit = 1
		r.Changes = map[string]float64{"sec/op": change}
		return r
	}
	recs := []record{
		rec("quiet", 1, condAA, "rigor", "unchanged", "unchanged", 3, 7),
		rec("quiet", 1, condPlus3, "rigor", "regressed", "regressed", 4, 8),
		rec("quiet", 1, condAA, "benchstat", "regressed", "", 2.5, 10), // false alarm
		rec("quiet", 1, condPlus3, "benchstat", "~", "", 2.7, 10),
		rec("quiet", 2, condAA, "rigor", "improved", "unchanged", 5, 9), // sec/op false alarm
		rec("quiet", 2, condPlus3, "rigor", "improved", "", 6, 10),      // wrong sign; no cpu: an error for cpu
		rec("quiet", 2, condAA, "benchstat", "~", "", 2.6, 10),
		rec("quiet", 2, condPlus3, "benchstat", "", "", 9, 0), // failed: in no median
		rec("neighbour", 1, condAA, "rigor", "inconclusive", "", 3, 5),
		rec("neighbour", 1, condPlus3, "rigor", "regressed", "", 3, 5),
		gated(rec("neighbour", 1, "plus10", "rigor", "regressed", "", 3, 8), 0.12), // the gate failed
		rec("neighbour", 2, "plus10", "rigor", "regressed", "", 5, 8),
		gated(rec("neighbour", 3, "plus10", "rigor", "regressed", "", 4, 8), 0.08),
		rec("neighbour", 1, "plus10", toolSamples, "regressed", "", 0, 8),
	}
	got := tally(recs)
	type want struct {
		env, cond, tool, method               string
		runs, regressed, improved, gate, errs int
		alarms                                int
		change, wall, rounds, load1           float64
	}
	nan := math.NaN()
	wants := []want{
		{"quiet", condAA, "rigor", "sec/op", 2, 0, 1, 0, 0, 1, nan, 4, 8, 1.5},
		{"quiet", condAA, "rigor", "cpu-sec/op", 2, 0, 0, 0, 0, 0, nan, 4, 8, 1.5},
		{"quiet", condAA, "benchstat", "sec/op", 2, 1, 0, 0, 0, 1, nan, 2.55, 10, 1.5},
		{"quiet", condPlus3, "rigor", "sec/op", 2, 1, 1, 0, 0, 0, nan, 5, 9, 1.5},
		{"quiet", condPlus3, "rigor", "cpu-sec/op", 2, 1, 0, 0, 1, 0, nan, 5, 9, 1.5},
		{"quiet", condPlus3, "benchstat", "sec/op", 2, 0, 0, 0, 1, 0, nan, 2.7, 10, 1.5},
		{"neighbour", condAA, "rigor", "sec/op", 1, 0, 0, 0, 0, 0, nan, 3, 5, 1},
		{"neighbour", condPlus3, "rigor", "sec/op", 1, 1, 0, 0, 0, 0, nan, 3, 5, 1},
		{"neighbour", "plus10", "rigor", "sec/op", 3, 3, 0, 2, 0, 0, 0.10, 4, 8, 2},
		{"neighbour", "plus10", toolSamples, "sec/op", 1, 1, 0, 0, 0, 0, nan, 0, 8, 1},
	}
	if len(got) != len(wants) {
		t.Fatalf("%d rows, want %d: %+v", len(got), len(wants), got)
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-12 }
	for i, w := range wants {
		g := got[i]
		if g.Env != w.env || g.Cond != w.cond || g.Tool != w.tool || g.Method != w.method || g.Runs != w.runs ||
			g.Regressed != w.regressed || g.Improved != w.improved || g.Gate != w.gate || g.Errors != w.errs ||
			g.FalseAlarms() != w.alarms || !same(g.Change, w.change) || !same(g.Wall, w.wall) || g.Rounds != w.rounds || g.Load1 != w.load1 {
			t.Errorf("row %d = %+v\nwant %+v", i, g, w)
		}
	}
	var sb strings.Builder
	if err := writeTable(&sb, got); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"quiet      A/A", "rigor sec/op ", "1/2", "neighbour", "+10%", "2/3", "+10.00%",
		"benchstat (rigor's samples) sec/op", "median rounds", "gate exit 1"} {
		if !strings.Contains(sb.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, sb.String())
		}
	}
}

// TestReadRecords reads back what the trials write, and refuses a record
// of a condition it does not know.
func TestReadRecords(t *testing.T) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	in := []record{
		{Env: "quiet", Trial: 21, Cond: "plus5", Tool: "rigor", Exit: 1, Verdicts: map[string]string{"sec/op": "regressed"}},
		{Env: "neighbour", Trial: 22, Cond: condAA, Tool: toolSamples, Verdicts: map[string]string{"sec/op": "~"}},
	}
	for _, r := range in {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := readRecords(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Exit != 1 || got[0].Cond != "plus5" || got[1].Tool != toolSamples || got[1].Trial != 22 {
		t.Errorf("read back %+v", got)
	}
	if _, err := readRecords(strings.NewReader(`{"env":"quiet","condition":"plus7"}`)); err == nil {
		t.Error("unknown condition: want an error")
	}
	if _, err := readRecords(strings.NewReader(`{"env":`)); err == nil {
		t.Error("truncated record: want an error")
	}
}

// TestRunRigorGateExit runs a stand-in rigor that prints a real comparison
// and exits 1, as rigor does when --max-regression fails: the run is a
// verdict, recorded with its exit, not an error. Any other failing status
// is an error.
func TestRunRigorGateExit(t *testing.T) {
	dir := t.TempDir()
	fixture, err := filepath.Abs(filepath.Join("testdata", "rigor-plus10-ci.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		status int
		exit   int
		failed bool
	}{{0, 0, false}, {1, 1, false}, {2, 0, true}} {
		fake := filepath.Join(dir, fmt.Sprintf("rigor-%d", tc.status))
		script := fmt.Sprintf("#!/bin/sh\ncat %q\nexit %d\n", fixture, tc.status)
		if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, fmt.Sprintf("out-%d", tc.status))
		r := record{Env: "quiet", Trial: 1, Cond: "plus10", Tool: "rigor", Dir: "t"}
		if err := os.MkdirAll(filepath.Join(out, r.Dir), 0o755); err != nil {
			t.Fatal(err)
		}
		runRigor(context.Background(), config{out: out, repo: dir, budget: time.Second}, bins{rigor: fake}, &r)
		if r.Exit != tc.exit || (r.Error != "") != tc.failed {
			t.Errorf("status %d: exit %d error %q, want exit %d, failed %v", tc.status, r.Exit, r.Error, tc.exit, tc.failed)
		}
		if !tc.failed && r.Verdicts[methodHeadline] != "inconclusive" {
			t.Errorf("status %d: verdicts %v", tc.status, r.Verdicts)
		}
	}
}

// TestFromBenchstatSamples reads benchstat's comparison of a rigor run's
// own samples, which carry rigor's cpu-ns/op: both time units get a verdict.
func TestFromBenchstatSamples(t *testing.T) {
	rows, err := parseBenchstatCSV(bytes.NewReader(readFixture(t, "benchstat-samples-plus10.csv")))
	if err != nil {
		t.Fatal(err)
	}
	var r record
	if err := r.fromBenchstat(rows); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"sec/op": "~", "cpu-sec/op": "~"}
	if !maps.Equal(r.Verdicts, want) || r.Rounds != 8 || len(r.Changes) != 0 {
		t.Errorf("record %+v, want verdicts %v, 8 rounds, no change", r, want)
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{4, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing should be NaN")
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "0"},
		{"-time", "0s"},
		{"-neighbour=false", "-quiet=false"},
		{"-neighbour-threads", "-1"},
		{"-benchstat-count", "0"},
		{"-nosuch"},
		{"stray"},
		{"-conditions", "aa,plus7"},
		{"-conditions", "aa,aa"},
		{"-conditions", ""},
		{"-first", "0"},
		{"-tally"},
		{"-tally", "/nonexistent/dir"},
	} {
		var out, errOut strings.Builder
		if err := run(context.Background(), args, &out, &errOut); err == nil {
			t.Errorf("run(%q) succeeded, want an error", args)
		}
	}
}
