package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The expected values are read off the fixtures by eye (and with python's
// json module), not computed by the code under test.
func TestParseRigorFixtures(t *testing.T) {
	for _, tc := range []struct {
		file           string
		sec, cpu       string // verdicts; cpu "" when absent
		secChange      float64
		rounds         int
		headline, from string
		note, clock    string // text in a note, in clock.reason
	}{
		{"rigor-aa.json", "inconclusive", "", 0.0003781928258468987, 7, "", "", "after 7 rounds", ""},
		{"rigor-plus3.json", "regressed", "", 0.031824766803494386, 7, "", "", "after 7 rounds", ""},
		{"rigor-plus3-cpu-handmade.json", "inconclusive", "regressed", 0.031824766803494386, 7, "cpu-sec/op", "verdict_metric", "after 7 rounds", ""},
		{"rigor-plus3-clock.json", "inconclusive", "regressed", 0.01968538930569363, 52, "sec/op", "verdict_metric", "after 52 rounds", "so the verdict stays on wall time"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rd, err := parseRigor(readFixture(t, tc.file), "Op")
			if err != nil {
				t.Fatal(err)
			}
			sec, ok := rd.metric("sec/op")
			if !ok || sec.Verdict != tc.sec || sec.Change != tc.secChange || sec.Rounds != tc.rounds {
				t.Errorf("sec/op = %+v (found %v), want verdict %s change %v rounds %d", sec, ok, tc.sec, tc.secChange, tc.rounds)
			}
			if u := rd.cpuUnit(); (u != "") != (tc.cpu != "") {
				t.Errorf("cpu unit %q, want one: %v", u, tc.cpu != "")
			} else if u != "" {
				if m, _ := rd.metric(u); m.Verdict != tc.cpu {
					t.Errorf("%s verdict %s, want %s", u, m.Verdict, tc.cpu)
				}
			}
			if rd.HeadlineUnit != tc.headline || rd.HeadlineField != tc.from {
				t.Errorf("headline %q from %q, want %q from %q", rd.HeadlineUnit, rd.HeadlineField, tc.headline, tc.from)
			}
			// The run notes say why rounds were few; they must come through.
			if !strings.Contains(strings.Join(rd.Notes, "\n"), tc.note) {
				t.Errorf("notes lack %q: %q", tc.note, rd.Notes)
			}
			if (tc.clock == "") != (rd.ClockReason == "") || !strings.Contains(rd.ClockReason, tc.clock) {
				t.Errorf("clock reason %q, want one containing %q", rd.ClockReason, tc.clock)
			}
		})
	}
}

func TestParseRigorRejects(t *testing.T) {
	good := string(readFixture(t, "rigor-plus3.json"))
	for _, tc := range []struct{ name, doc, want string }{
		{"not JSON", "rigor: bad flag", "reading rigor's JSON"},
		{"no version", `{"benchmarks": []}`, "no schema_version"},
		{"newer version", `{"schema_version": 3, "benchmarks": []}`, "schema_version 3"},
		{"no such benchmark", strings.Replace(good, `"name": "Op"`, `"name": "Other"`, 1), `no benchmark "Op"`},
		{"reason of another benchmark", `{"schema_version": 1, "benchmarks": [{"name": "Other", "clock": {"reason": "x"}, "metrics": []}]}`, `no benchmark "Op"`},
		{"unknown verdict", strings.Replace(good, `"verdict": "regressed",
          "sides"`, `"verdict": "maybe",
          "sides"`, 1), "no known verdict"},
		{"missing verdict", `{"schema_version": 1, "benchmarks": [{"name": "Op", "metrics": [{"unit": "sec/op"}]}]}`, "no known verdict"},
		{"twice", `{"schema_version": 1, "benchmarks": [{"name": "Op", "metrics": []}, {"name": "Op", "metrics": []}]}`, "more than once"},
		{"unit twice", `{"schema_version": 1, "benchmarks": [{"name": "Op", "metrics": [
			{"unit": "sec/op", "verdict": "unchanged"}, {"unit": "sec/op", "verdict": "regressed"}]}]}`, "appears twice"},
		{"two headline fields", `{"schema_version": 1, "benchmarks": [{"name": "Op", "a": "sec/op", "b": "sec/op",
			"metrics": [{"unit": "sec/op", "verdict": "unchanged"}]}]}`, "both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "unknown verdict" && !strings.Contains(tc.doc, "maybe") {
				t.Fatal("fixture changed: the replacement did not apply")
			}
			_, err := parseRigor([]byte(tc.doc), "Op")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseBenchstatFixtures(t *testing.T) {
	nan := math.NaN()
	type row = bsRow
	for _, tc := range []struct {
		file string
		want []row
	}{
		{"benchstat-plus3.csv", []row{{"sec/op", "Op", 0.0408, 0, 10}}},
		{"benchstat-aa-same.csv", []row{{"sec/op", "Op", nan, 1, 10}}},
		{"benchstat-aa-alarm.csv", []row{{"sec/op", "Op", 0.0088, 0.002, 10}}},
		{"benchstat-benchmem.csv", []row{
			{"sec/op", "Op", nan, 0.065, 6}, {"B/op", "Op", nan, 1, 6}, {"allocs/op", "Op", nan, 1, 6}}},
		{"benchstat-handmade.csv", []row{
			{"sec/op", "Op", 0.0424, 0.002, 4}, {"sec/op", "Zero", 0.01, 0, 10},
			{"sec/op", "Unk", nan, 0.001, 10}, {"B/op", "Op", nan, 1, 10}}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := parseBenchstatCSV(bytes.NewReader(readFixture(t, tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d rows %+v, want %d", len(got), got, len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				sameDelta := math.IsNaN(g.Delta) && math.IsNaN(w.Delta) || math.Abs(g.Delta-w.Delta) < 1e-12
				if g.Unit != w.Unit || g.Name != w.Name || !sameDelta || g.P != w.P || g.N != w.N {
					t.Errorf("row %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func TestParseBenchstatRejects(t *testing.T) {
	head := ",a,,b,,,\n,sec/op,CI,sec/op,CI,vs base,P\n"
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "no comparison"},
		{"one input", "goos: linux\n,a,\n,sec/op,CI\nOp,1e-05,1%\n", "no comparison"},
		{"bad change", head + "Op,1,1%,1,1%,+x%,p=0.1 n=10\n", "not a percentage"},
		{"change without %", head + "Op,1,1%,1,1%,4.0,p=0.1 n=10\n", "not a percentage"},
		{"bad p", head + "Op,1,1%,1,1%,~,p=abc n=10\n", "P column"},
		{"p above 1", head + "Op,1,1%,1,1%,~,p=1.5 n=10\n", "P column"},
		{"bad n", head + "Op,1,1%,1,1%,~,p=0.5 n=ten\n", "P column"},
		{"no n", head + "Op,1,1%,1,1%,~,p=0.5\n", "P column"},
		{"short row", head + "Op,1,1%\n", "fields"},
		{"no P column", ",a,,b,,\n,sec/op,CI,sec/op,CI,vs base\nOp,1,1%,1,1%,~\n", "no P column"},
		{"bad quoting", head + "Op,\"1,1%\n", "line 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseBenchstatCSV(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// FuzzParseBenchstatCSV checks that any input gives rows that keep the
// parser's promises, or an error, never a panic.
func FuzzParseBenchstatCSV(f *testing.F) {
	for _, name := range []string{"benchstat-plus3.csv", "benchstat-aa-same.csv", "benchstat-benchmem.csv", "benchstat-handmade.csv"} {
		f.Add(readFixture(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := parseBenchstatCSV(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, r := range rows {
			if !(r.P >= 0 && r.P <= 1) || r.N < 0 || math.IsInf(r.Delta, 0) || r.Unit == "" || r.Name == "" || r.Name == "geomean" {
				t.Errorf("row breaks a promise: %+v", r)
			}
		}
	})
}

// FuzzParseRigor checks that any input gives known verdicts or an error.
func FuzzParseRigor(f *testing.F) {
	for _, name := range []string{"rigor-aa.json", "rigor-plus3-cpu-handmade.json", "rigor-plus3-clock.json",
		"rigor-plus1-instructions-handmade.json", "rigor-aa-instructions-handmade.json"} {
		f.Add(readFixture(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := parseRigor(data, "Op")
		if err != nil {
			return
		}
		for _, m := range rd.Metrics {
			if !verdicts[m.Verdict] {
				t.Errorf("unknown verdict %q came through", m.Verdict)
			}
		}
		if d := rd.Decision; d != nil && (!verdicts[d.Verdict] || d.TimeVerdict != "" && !verdicts[d.TimeVerdict]) {
			t.Errorf("unknown decision %q (time %q) came through", d.Verdict, d.TimeVerdict)
		}
		if _, ok := rd.metric(rd.HeadlineUnit); rd.HeadlineUnit != "" && !ok {
			t.Errorf("headline names %q, which is no metric", rd.HeadlineUnit)
		}
	})
}

// TestParseRigorOtherBenchmark checks that another benchmark's fields do
// not leak into the one asked for.
func TestParseRigorOtherBenchmark(t *testing.T) {
	doc := `{"schema_version": 1, "benchmarks": [
		{"name": "Other", "clock": {"reason": "other's"}, "verdict_metric": "sec/op", "notes": ["other's"],
		 "metrics": [{"unit": "sec/op", "verdict": "regressed"}, {"unit": "cpu-sec/op", "verdict": "regressed"}]},
		{"name": "Op", "metrics": [{"unit": "sec/op", "verdict": "unchanged"}]}]}`
	rd, err := parseRigor([]byte(doc), "Op")
	if err != nil {
		t.Fatal(err)
	}
	if rd.ClockReason != "" || rd.HeadlineUnit != "" || rd.cpuUnit() != "" || len(rd.Notes) != 0 || len(rd.Metrics) != 1 || rd.Metrics[0].Verdict != "unchanged" {
		t.Errorf("Op's reading took Other's fields: %+v", rd)
	}
}

// TestParseRigorTypedNotes: schema version 2 writes notes as objects;
// their words come through as version 1's strings did.
func TestParseRigorTypedNotes(t *testing.T) {
	doc := `{"schema_version": 2, "notes": [{"kind": "rounds", "text": "Stopped after 7 rounds."}],
		"benchmarks": [{"name": "Op", "metrics": [{"unit": "sec/op", "verdict": "unchanged"}],
		"notes": [{"kind": "clock", "text": "CPU time is used"}]}]}`
	rd, err := parseRigor([]byte(doc), "Op")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rd.Notes, "|"); got != "Stopped after 7 rounds.|CPU time is used" {
		t.Errorf("notes %q", got)
	}
}
