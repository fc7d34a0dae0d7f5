package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The expected values are read off the hand-written fixtures (issue 37's
// shape, docs/schema.md: decisions[].by and time_verdict, the
// instructions/op metric's changes[]), not computed by the code under test.
func TestParseRigorInstructions(t *testing.T) {
	for _, tc := range []struct {
		file                      string
		decision, by, unit, timeV string
		dEst, dLo, dHi            float64
		instr                     string // the instructions/op metric's verdict
		iEst, iLo, iHi            float64
		headline                  string
	}{
		{"rigor-plus1-instructions-handmade.json", "regressed", "instructions", "instructions/op", "inconclusive",
			0.0101, 0.0097, 0.0105, "regressed", 0.0101, 0.0097, 0.0105, "cpu-sec/op"},
		// Op's instructions/op has changes[] only (no change, no verdict of
		// its own): its first change is read; the benchmark Other before it
		// (regressed, +20% instructions) must not leak.
		{"rigor-aa-instructions-handmade.json", "unchanged", "instructions", "instructions/op", "inconclusive",
			0.0001, -0.0002, 0.0004, "unchanged", 0.0001, -0.0002, 0.0004, "sec/op"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rd, err := parseRigor(readFixture(t, tc.file), "Op")
			if err != nil {
				t.Fatal(err)
			}
			d := rd.Decision
			if d == nil {
				t.Fatal("no decision read")
			}
			if d.Verdict != tc.decision || d.By != tc.by || d.Unit != tc.unit || d.TimeVerdict != tc.timeV ||
				d.Estimate != tc.dEst || d.Lo != tc.dLo || d.Hi != tc.dHi {
				t.Errorf("decision %+v, want %s by %s (%s), time %s, %v [%v, %v]", *d, tc.decision, tc.by, tc.unit, tc.timeV, tc.dEst, tc.dLo, tc.dHi)
			}
			m, ok := rd.metric(instructionsUnit)
			if !ok || m.Verdict != tc.instr || m.Change != tc.iEst || m.Lo != tc.iLo || m.Hi != tc.iHi {
				t.Errorf("instructions/op %+v (found %v), want %s %v [%v, %v]", m, ok, tc.instr, tc.iEst, tc.iLo, tc.iHi)
			}
			if rd.HeadlineUnit != tc.headline {
				t.Errorf("headline %q, want %q", rd.HeadlineUnit, tc.headline)
			}
			if sec, ok := rd.metric("sec/op"); !ok || sec.Verdict != "inconclusive" {
				t.Errorf("sec/op %+v (found %v), want inconclusive", sec, ok)
			}
		})
	}
}

// TestParseRigorDecisionForms: the decision's other forms, and what the
// parser refuses or tolerates in them.
func TestParseRigorDecisionForms(t *testing.T) {
	sec := `{"unit": "sec/op", "verdict": "regressed", "change": {"estimate": 0.031, "lo": 0.02, "hi": 0.04}}`
	doc := func(bench string) []byte {
		return []byte(`{"schema_version": 2, "benchmarks": [{"name": "Op", ` + bench + `}]}`)
	}
	// Decided by time; the instructions moved too.
	rd, err := parseRigor(doc(`"verdict": "regressed",
		"decisions": [{"side": "new", "verdict": "regressed", "unit": "sec/op", "by": "time", "estimate": 0.031, "lo": 0.02, "hi": 0.04}],
		"metrics": [`+sec+`, {"unit": "instructions/op", "verdict": "regressed", "change": {"estimate": 0.03, "lo": 0.0299, "hi": 0.0301}}]`), "Op")
	if err != nil {
		t.Fatal(err)
	}
	if d := rd.Decision; d == nil || d.Verdict != "regressed" || d.By != "time" || d.TimeVerdict != "" || d.Estimate != 0.031 {
		t.Errorf("decision %+v", d)
	}
	// Only the benchmark's verdict, no decisions (rigor before them).
	rd, err = parseRigor(doc(`"verdict": "regressed", "metrics": [`+sec+`]`), "Op")
	if err != nil {
		t.Fatal(err)
	}
	if d := rd.Decision; d == nil || d.Verdict != "regressed" || d.By != "" || !math.IsNaN(d.Estimate) {
		t.Errorf("decision from the verdict field %+v", d)
	}
	// Neither: no decision, as in every fixture before issue 37.
	rd, err = parseRigor(readFixture(t, "rigor-plus3.json"), "Op")
	if err != nil || rd.Decision != nil {
		t.Errorf("rigor-plus3.json: decision %+v, error %v; want none", rd.Decision, err)
	}
	// A count with no comparison (one side counted) is no verdict to read,
	// and no reason to refuse the document; a time without one is.
	rd, err = parseRigor(doc(`"metrics": [`+sec+`, {"unit": "instructions/op", "sides": [{"side": "old", "n": 3}, {"side": "new", "n": 0}]}]`), "Op")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rd.metric(instructionsUnit); ok {
		t.Error("an instructions/op metric without a verdict was read")
	}
	for _, tc := range []struct{ name, bench, want string }{
		{"unknown decision", `"decisions": [{"verdict": "maybe"}], "metrics": [` + sec + `]`, "no known verdict"},
		{"unknown time verdict", `"decisions": [{"verdict": "regressed", "by": "instructions", "time_verdict": "maybe"}], "metrics": [` + sec + `]`, "no known verdict"},
		{"unknown benchmark verdict", `"verdict": "maybe", "metrics": [` + sec + `]`, "no known verdict"},
		{"instructions twice", `"metrics": [` + sec + `, {"unit": "instructions/op"}, {"unit": "instructions/op"}]`, "appears twice"},
		{"bad instructions verdict", `"metrics": [` + sec + `, {"unit": "instructions/op", "verdict": "maybe"}]`, "no known verdict"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseRigor(doc(tc.bench), "Op")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestFromRigorInstructions: the record of a run the instructions decided
// keeps the decision, the time's verdict beside it and the count's change,
// and survives results.jsonl.
func TestFromRigorInstructions(t *testing.T) {
	for _, tc := range []struct {
		file  string
		want  map[string]string
		byIns bool
	}{
		{"rigor-plus1-instructions-handmade.json", map[string]string{
			"sec/op": "inconclusive", "cpu-sec/op": "inconclusive", methodHeadline: "inconclusive",
			instructionsUnit: "regressed", methodDecision: "regressed", methodByInstructions: "regressed", methodTime: "inconclusive"}, true},
		{"rigor-aa-instructions-handmade.json", map[string]string{
			"sec/op": "inconclusive", methodHeadline: "inconclusive",
			instructionsUnit: "unchanged", methodDecision: "unchanged", methodByInstructions: "unchanged", methodTime: "inconclusive"}, true},
		{"rigor-plus3-cpu-handmade.json", map[string]string{
			"sec/op": "inconclusive", "cpu-sec/op": "regressed", methodHeadline: "regressed"}, false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rd, err := parseRigor(readFixture(t, tc.file), "Op")
			if err != nil {
				t.Fatal(err)
			}
			var r record
			if err := r.fromRigor(rd); err != nil {
				t.Fatal(err)
			}
			if len(r.Verdicts) != len(tc.want) {
				t.Errorf("verdicts %v, want %v", r.Verdicts, tc.want)
			}
			for m, v := range tc.want {
				if r.Verdicts[m] != v {
					t.Errorf("%s: %q, want %q", m, r.Verdicts[m], v)
				}
			}
			var buf bytes.Buffer
			if err := json.NewEncoder(&buf).Encode(record{Env: "neighbour", Cond: "plus1", Tool: "rigor",
				Verdicts: r.Verdicts, Changes: r.Changes, Decision: r.Decision, Instructions: r.Instructions}); err != nil {
				t.Fatal(err)
			}
			back, err := readRecords(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.byIns {
				if back[0].Decision != nil || back[0].Instructions != nil {
					t.Errorf("decision %+v, instructions %+v: want none", back[0].Decision, back[0].Instructions)
				}
				return
			}
			d, in := back[0].Decision, back[0].Instructions
			if d == nil || in == nil || d.By != "instructions" || d.TimeVerdict != "inconclusive" || d.Unit != instructionsUnit ||
				d.Verdict != tc.want[methodDecision] || in.Verdict != tc.want[instructionsUnit] ||
				in.Estimate == nil || in.Lo == nil || in.Hi == nil || *in.Estimate != r.Changes[instructionsUnit] || !(*in.Lo < *in.Estimate && *in.Estimate < *in.Hi) {
				t.Errorf("read back decision %+v, instructions %+v", d, in)
			}
		})
	}
	// The time's verdict, where the time decided, is the decision's; its
	// change the decision's.
	rd := rigorReading{
		Metrics:  []metricReading{{Unit: "sec/op", Verdict: "regressed", Change: 0.031, Lo: 0.02, Hi: 0.04}},
		Decision: &decisionReading{Verdict: "regressed", By: "time", Unit: "sec/op", Estimate: 0.031, Lo: 0.02, Hi: 0.04},
	}
	var r record
	if err := r.fromRigor(rd); err != nil {
		t.Fatal(err)
	}
	if r.Verdicts[methodTime] != "regressed" || r.Changes[methodTime] != 0.031 || r.Verdicts[methodByInstructions] != "" || r.Instructions != nil {
		t.Errorf("decided by time: record %+v", r)
	}
}

// TestTallyInstructions counts hand-made records of the instructions
// experiment; every expected number is counted by hand from the list.
func TestTallyInstructions(t *testing.T) {
	rec := func(trial int, cond, decision, by, timeV, instr string, ichange float64) record {
		r := record{Env: "neighbour", Trial: trial, Cond: cond, Tool: "rigor", WallSec: 12, Rounds: 100,
			Verdicts: map[string]string{"sec/op": timeV, methodDecision: decision, methodTime: timeV},
			Changes:  map[string]float64{}}
		if by == "instructions" {
			r.Verdicts[methodByInstructions] = decision
		}
		if instr != "" {
			r.Verdicts[instructionsUnit] = instr
			r.Changes[instructionsUnit] = ichange
		}
		return r
	}
	recs := []record{
		rec(1, condAA, "unchanged", "instructions", "inconclusive", "unchanged", 0),
		rec(2, condAA, "inconclusive", "time", "inconclusive", "inconclusive", 0.002), // the count varied
		rec(3, condAA, "improved", "time", "improved", "unchanged", 0.0001),           // a time false alarm
		rec(1, "plus1", "regressed", "instructions", "inconclusive", "regressed", 0.0101),
		rec(2, "plus1", "regressed", "time", "regressed", "regressed", 0.0099),
		rec(3, "plus1", "inconclusive", "time", "inconclusive", "", 0), // no count
		{Env: "neighbour", Trial: 4, Cond: "plus1", Tool: "rigor", Error: "rigor ab: exit status 2"},
	}
	type want struct {
		cond, method                               string
		runs, regressed, improved, unchanged, errs int
		change                                     float64
	}
	nan := math.NaN()
	wants := []want{
		{condAA, methodDecision, 3, 0, 1, 1, 0, nan},
		{condAA, methodByInstructions, 3, 0, 0, 1, 0, nan},
		{condAA, methodTime, 3, 0, 1, 0, 0, nan},
		{condAA, instructionsUnit, 3, 0, 0, 2, 0, 0.0001},
		{condAA, "sec/op", 3, 0, 1, 0, 0, nan},
		{"plus1", methodDecision, 4, 2, 0, 0, 1, nan},
		{"plus1", methodByInstructions, 4, 1, 0, 0, 1, nan}, // only the failed run is an error
		{"plus1", methodTime, 4, 1, 0, 0, 1, nan},
		{"plus1", instructionsUnit, 4, 2, 0, 0, 2, 0.0100}, // no count is an error
		{"plus1", "sec/op", 4, 1, 0, 0, 1, nan},
	}
	got := tally(recs)
	if len(got) != len(wants) {
		t.Fatalf("%d rows, want %d: %+v", len(got), len(wants), got)
	}
	for i, w := range wants {
		g := got[i]
		sameChange := g.Change == w.change || math.IsNaN(g.Change) && math.IsNaN(w.change) || math.Abs(g.Change-w.change) < 1e-12
		if g.Cond != w.cond || g.Method != w.method || g.Runs != w.runs || g.Regressed != w.regressed ||
			g.Improved != w.improved || g.Unchanged != w.unchanged || g.Errors != w.errs || !sameChange {
			t.Errorf("row %d = %+v\nwant %+v", i, g, w)
		}
	}
	if got[0].FalseAlarms() != 1 || got[5].FalseAlarms() != 0 {
		t.Errorf("false alarms %d and %d, want 1 and 0", got[0].FalseAlarms(), got[5].FalseAlarms())
	}
	var sb strings.Builder
	if err := writeTable(&sb, got); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"rigor decision ", "rigor decision by instructions", "rigor time verdict", "rigor instructions/op",
		"+1%", "unchanged", "+1.00%"} {
		if !strings.Contains(sb.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, sb.String())
		}
	}
}
