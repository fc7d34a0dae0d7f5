package main

import (
	"context"
	"math"
	"strings"
	"testing"
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
	}
	got := tally(recs)
	type want struct {
		env, tool, method                             string
		trials, aa, plus3, alarms, found, wrong, errs int
		wall, rounds, load1                           float64
	}
	wants := []want{
		{"quiet", "rigor", "sec/op", 2, 2, 2, 1, 1, 1, 0, 4.5, 8.5, 1.5},
		{"quiet", "rigor", "cpu-sec/op", 2, 2, 2, 0, 1, 0, 1, 4.5, 8.5, 1.5},
		{"quiet", "benchstat", "sec/op", 2, 2, 2, 1, 0, 0, 1, 2.6, 10, 1.5},
		{"neighbour", "rigor", "sec/op", 1, 1, 1, 0, 1, 0, 0, 3, 5, 1},
	}
	if len(got) != len(wants) {
		t.Fatalf("%d rows, want %d: %+v", len(got), len(wants), got)
	}
	for i, w := range wants {
		g := got[i]
		if g.Env != w.env || g.Tool != w.tool || g.Method != w.method || g.Trials != w.trials ||
			g.AA != w.aa || g.Plus3 != w.plus3 || g.FalseAlarms != w.alarms || g.Found != w.found ||
			g.WrongSign != w.wrong || g.Errors != w.errs || g.Wall != w.wall || g.Rounds != w.rounds || g.Load1 != w.load1 {
			t.Errorf("row %d = %+v\nwant %+v", i, g, w)
		}
	}
	var sb strings.Builder
	if err := writeTable(&sb, got); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"quiet      rigor sec/op ", "1/2", "neighbour", "4.50s", "median rounds"} {
		if !strings.Contains(sb.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, sb.String())
		}
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
	} {
		var out, errOut strings.Builder
		if err := run(context.Background(), args, &out, &errOut); err == nil {
			t.Errorf("run(%q) succeeded, want an error", args)
		}
	}
}
