package main

import (
	"fmt"
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

// The expected values are read off the fixtures with python's json module,
// not computed by the code under test.
func TestParseRigorExecFixtures(t *testing.T) {
	type side struct {
		label       string
		med, lo, hi float64
		n           int
		cpuMean     float64
	}
	for _, tc := range []struct {
		file    string
		sides   []side
		change  float64 // sec/op change of the second side; NaN with one
		verdict string
	}{
		{"rigor-sleep.json", []side{
			{"sleep 0.01", 0.011911937, 0.011784277, 0.01200962, 13, 0.001569076923076923},
			{"sleep 0.012", 0.013877526, 0.013844444, 0.013962124, 13, 0.0015653846153846152}},
			0.16808802853758104, "regressed"},
		{"rigor-aa-sleep.json", []side{
			{"sleep 0.02", 0.021950426000000002, 0.021694418, 0.022148056, 40, 0.0013852999999999997},
			{"sleep 0.02 (2)", 0.021894988499999997, 0.021782623, 0.022111448, 40, 0.0013896250000000002}},
			-0.0004905858400245238, "inconclusive"},
		{"rigor-true-one.json", []side{{"true", 0.000730828, 0.000677929, 0.000757869, 100, 0.00059798}}, math.NaN(), ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			x, err := parseRigorExec(readFixture(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if x.VerdictMetric != "sec/op" || len(x.Sides) != len(tc.sides) {
				t.Fatalf("verdict metric %q, sides %q", x.VerdictMetric, x.Sides)
			}
			wall, _ := x.metric("sec/op")
			cpu, ok := x.metric("cpu-sec/op")
			if !ok {
				t.Fatal("no cpu-sec/op")
			}
			for i, w := range tc.sides {
				if x.Sides[i] != w.label {
					t.Errorf("side %d = %q, want %q", i, x.Sides[i], w.label)
				}
				s, _ := wall.side(w.label)
				if s.Median != w.med || s.Lo != w.lo || s.Hi != w.hi || s.N != w.n {
					t.Errorf("%s: %+v, want %+v", w.label, s, w)
				}
				if c, _ := cpu.side(w.label); c.Mean != w.cpuMean {
					t.Errorf("%s: CPU mean %v, want %v", w.label, c.Mean, w.cpuMean)
				}
			}
			if len(tc.sides) < 2 {
				if len(wall.Changes) != 0 {
					t.Errorf("changes of one command: %+v", wall.Changes)
				}
				return
			}
			c, ok := wall.change(tc.sides[1].label)
			if !ok || c.Estimate != tc.change || c.Verdict != tc.verdict {
				t.Errorf("change %+v (found %v), want %v %s", c, ok, tc.change, tc.verdict)
			}
			if !strings.Contains(strings.Join(x.Notes, "\n"), "Stopped") {
				t.Errorf("the run's notes did not come through: %q", x.Notes)
			}
		})
	}
}

// TestParseRigorExecCPUVerdict: when rigor takes its verdict from CPU time,
// the verdict metric names it (a fixture edited by hand from
// rigor-aa-sleep.json: verdict_metric cpu-sec/op).
func TestParseRigorExecCPUVerdict(t *testing.T) {
	doc := strings.Replace(string(readFixture(t, "rigor-aa-sleep.json")), `"verdict_metric": "sec/op"`, `"verdict_metric": "cpu-sec/op"`, 1)
	if !strings.Contains(doc, `"cpu-sec/op"`) {
		t.Fatal("fixture changed: the replacement did not apply")
	}
	x, err := parseRigorExec([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var r record
	if err := r.fromRigor(x, []string{"sleep 0.02", "sleep 0.02"}); err != nil {
		t.Fatal(err)
	}
	// cpu-sec/op's change is -0.0003806572069661852, inconclusive; the
	// wall change stays sec/op's.
	if r.VerdictMetric != "cpu-sec/op" || r.Verdict != "inconclusive" || float64(r.WallChange) != -0.0004905858400245238 {
		t.Errorf("record %+v", r)
	}
}

func TestParseRigorExecRejects(t *testing.T) {
	good := string(readFixture(t, "rigor-sleep.json"))
	for _, tc := range []struct{ name, doc, want string }{
		{"not JSON", "rigor: bad flag", "reading rigor's JSON"},
		{"no version", `{"kind": "exec"}`, "no schema_version"},
		{"newer version", `{"schema_version": 99, "kind": "exec"}`, "schema_version 99"},
		{"ab document", strings.Replace(good, `"kind": "exec"`, `"kind": "ab"`, 1), `kind "ab"`},
		{"no sides", `{"schema_version": 2, "kind": "exec", "benchmarks": []}`, "names no commands"},
		{"no benchmark", `{"schema_version": 2, "kind": "exec", "sides": ["a"], "benchmarks": []}`, "0 benchmarks"},
		{"side twice", `{"schema_version": 2, "kind": "exec", "sides": ["a", "a"], "benchmarks": [{}]}`, "twice"},
		{"no wall time", `{"schema_version": 2, "kind": "exec", "sides": ["a"], "benchmarks": [{"metrics": []}]}`, "no wall time"},
		{"unknown side", strings.ReplaceAll(good, `"side": "sleep 0.012"`, `"side": "sleep 9"`), "not one of the commands"},
		{"unknown verdict", strings.Replace(good, `"verdict": "regressed",
              "reason"`, `"verdict": "maybe",
              "reason"`, 1), "no known verdict"},
		{"median outside its CI", strings.ReplaceAll(good, `"center": 0.011911937`, `"center": 0.5`), "outside its interval"},
		{"negative median", strings.ReplaceAll(good, `"center": 0.011911937`, `"center": -1`), "not a time"},
		{"one bound", strings.ReplaceAll(good, `"lo": 0.011784277`, `"lo": null`), "one bound"},
		{"no runs", `{"schema_version": 2, "kind": "exec", "sides": ["a"], "benchmarks": [{"metrics": [
			{"unit": "sec/op", "sides": [{"side": "a", "center": 1, "n": 0}]}]}]}`, "0 runs"},
		{"change below -100%", `{"schema_version": 2, "kind": "exec", "sides": ["a", "b"], "benchmarks": [{"metrics": [
			{"unit": "sec/op", "sides": [{"side": "a", "center": 1, "n": 1}, {"side": "b", "center": 1, "n": 1}],
			 "changes": [{"side": "b", "estimate": -1, "verdict": "improved"}]}]}]}`, "not a change"},
		{"verdict metric missing", strings.Replace(good, `"verdict_metric": "sec/op"`, `"verdict_metric": "joules"`, 1), "not a metric"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.doc == good {
				t.Fatal("fixture changed: the replacement did not apply")
			}
			_, err := parseRigorExec([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseHyperfineFixtures(t *testing.T) {
	type res struct {
		cmd                      string
		mean, sd, med, user, sys float64
		n                        int
	}
	for _, tc := range []struct {
		file string
		want []res
	}{
		{"hyperfine-sleep.json", []res{
			{"sleep 0.01", 0.0118751910625, 0.0001649369243003595, 0.011926925000000001, 0.0012738125, 0.000295375, 16},
			{"sleep 0.012", 0.013931345812500003, 9.315379963209153e-05, 0.0139408195, 0.0012138124999999998, 0.0004090625, 16}}},
		{"hyperfine-true-one.json", []res{
			{"true", 0.0008059179299999997, 0.00012446897065657844, 0.0008352985, 0.0005892100000000001, 9.656999999999999e-05, 100}}},
		{"hyperfine-aa-sleep.json", []res{
			{"sleep 0.02", 0.022623810795454554, 0.0019000267811358524, 0.0216189965, 0.0011160681818181818, 0.0002458636363636363, 44},
			{"sleep 0.02", 0.023233183431818186, 0.0034474135090067056, 0.022091600500000003, 0.0011580227272727272, 0.00038763636363636366, 44}}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := parseHyperfine(readFixture(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d results, want %d", len(got), len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Command != w.cmd || g.Mean != w.mean || g.Stddev != w.sd || g.Median != w.med || g.MedianFromTimes ||
					g.User != w.user || g.System != w.sys || len(g.Times) != w.n {
					t.Errorf("result %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func TestParseHyperfineForms(t *testing.T) {
	// One run: hyperfine writes a null stddev. No median: older versions.
	got, err := parseHyperfine([]byte(`{"results": [
		{"command": "a", "mean": 2, "stddev": null, "median": 2, "user": 0, "system": 0, "times": [2]},
		{"command": "b", "mean": 2, "stddev": 1, "user": 0.5, "system": 0.25, "times": [3, 1, 4, 1]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(got[0].Stddev) || got[0].MedianFromTimes {
		t.Errorf("a: %+v, want a NaN stddev and the file's median", got[0])
	}
	// The median of 1, 1, 3, 4 is (1+3)/2.
	if got[1].Median != 2 || !got[1].MedianFromTimes {
		t.Errorf("b: %+v, want median 2 taken from the times", got[1])
	}
}

func TestParseHyperfineRejects(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"not JSON", "error: ...", "reading hyperfine's JSON"},
		{"no results", `{"results": []}`, "no results"},
		{"no command", `{"results": [{"mean": 1, "median": 1, "user": 0, "system": 0, "times": [1]}]}`, "no command"},
		{"no times", `{"results": [{"command": "a", "mean": 1, "median": 1, "user": 0, "system": 0, "times": []}]}`, "no times"},
		{"negative time", `{"results": [{"command": "a", "mean": 1, "median": 1, "user": 0, "system": 0, "times": [-1]}]}`, "not a duration"},
		{"no mean", `{"results": [{"command": "a", "median": 1, "user": 0, "system": 0, "times": [1]}]}`, "mean"},
		{"no user", `{"results": [{"command": "a", "mean": 1, "median": 1, "system": 0, "times": [1]}]}`, "user"},
		{"negative stddev", `{"results": [{"command": "a", "mean": 1, "stddev": -1, "median": 1, "user": 0, "system": 0, "times": [1]}]}`, "stddev"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseHyperfine([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseProcStat(t *testing.T) {
	// proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt
	// cminflt majflt cmajflt utime stime cutime cstime priority ...
	rest := " S 1 2 3 0 -1 4194304 100 200 0 0 41 7 130 12 20 0 9 0 77 1000 50"
	for _, tc := range []struct {
		name, line string
		want       procTimes
	}{
		{"plain", "1234 (rigor)" + rest, procTimes{41, 7, 130, 12}},
		{"name with spaces and parentheses", "99 (a (b) c)" + rest, procTimes{41, 7, 130, 12}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseProcStat([]byte(tc.line + "\n"))
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
			if got.own() != 0.48 || got.children() != 1.42 {
				t.Errorf("own %v children %v, want 0.48 and 1.42 s at 100 ticks a second", got.own(), got.children())
			}
		})
	}
	for _, bad := range []string{"", "1234 rigor S 1", "1234 (rigor) S 1 2 3", "1234 (rigor) S 1 2 3 0 -1 4194304 100 200 0 0 x 7 130 12", "1 (r) S 1 2 3 0 -1 4 1 2 0 0 -5 7 130 12"} {
		if got, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("%q: got %+v, want an error", bad, got)
		}
	}
}

// FuzzParseRigorExec checks that any input gives a reading that keeps the
// parser's promises, or an error, never a panic.
func FuzzParseRigorExec(f *testing.F) {
	// Small seeds only: the real documents (12 KB) make the fuzzer spend
	// its time minimizing each new input (0 execs a second for minutes).
	f.Add(readFixture(f, "rigor-sleep-min.json"))
	f.Add([]byte(`{"schema_version": 2, "kind": "exec", "sides": ["true"], "benchmarks": [{"metrics": [
		{"unit": "sec/op", "sides": [{"side": "true", "center": 0.0007, "lo": null, "hi": null, "n": 5}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := parseRigorExec(data)
		if err != nil {
			return
		}
		wall, ok := x.metric("sec/op")
		if !ok || len(wall.Sides) != len(x.Sides) {
			t.Fatalf("no wall time of every command: %+v", x)
		}
		if _, ok := x.metric(x.VerdictMetric); !ok {
			t.Errorf("verdict metric %q is no metric", x.VerdictMetric)
		}
		for _, m := range x.Metrics {
			for _, s := range m.Sides {
				if s.N == 0 && math.IsNaN(s.Median) && math.IsNaN(s.Lo) && m.Unit != "sec/op" {
					continue // no samples of this metric
				}
				if !(s.Median >= 0) || s.N < 1 || math.IsNaN(s.Lo) != math.IsNaN(s.Hi) || (!math.IsNaN(s.Lo) && !(s.Lo <= s.Median && s.Median <= s.Hi)) {
					t.Errorf("side breaks a promise: %+v", s)
				}
			}
			for _, c := range m.Changes {
				if !verdicts[c.Verdict] || !(c.Estimate > -1) {
					t.Errorf("change breaks a promise: %+v", c)
				}
			}
		}
	})
}

// FuzzParseHyperfine checks the promises of parseHyperfine's results.
func FuzzParseHyperfine(f *testing.F) {
	f.Add(readFixture(f, "hyperfine-sleep-min.json"))
	f.Add([]byte(`{"results": [{"command": "a", "mean": 2, "stddev": null, "user": 0, "system": 0, "times": [2]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := parseHyperfine(data)
		if err != nil {
			return
		}
		for _, r := range rs {
			if len(r.Times) == 0 || !(r.Mean >= 0) || !(r.Median >= 0) || math.IsInf(r.Median, 0) || r.Stddev < 0 {
				t.Errorf("result breaks a promise: %+v", r)
			}
			iv := medianCI(r.Times)
			if !math.IsNaN(iv.Lo) && !(iv.Lo <= iv.Hi) {
				t.Errorf("interval [%v, %v] of %v", iv.Lo, iv.Hi, r.Times)
			}
		}
	})
}

// FuzzParseProcStat checks that any line gives non-negative tick counts
// or an error.
func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte("1234 (rigor) S 1 2 3 0 -1 4194304 100 200 0 0 41 7 130 12 20 0 9 0 77 1000 50\n"))
	f.Add([]byte("99 (a (b) c) S 1 2 3 0 -1 4 1 2 0 0 1 2 3 4"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseProcStat(data)
		if err == nil && (p.Utime < 0 || p.Stime < 0 || p.Cutime < 0 || p.Cstime < 0) {
			t.Errorf("negative ticks: %+v", p)
		}
	})
}

// TestMinFixtures: the fuzz seeds cut down from real outputs still read
// as the real ones do.
func TestMinFixtures(t *testing.T) {
	full, err1 := parseRigorExec(readFixture(t, "rigor-sleep.json"))
	min, err2 := parseRigorExec(readFixture(t, "rigor-sleep-min.json"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if fmt.Sprint(full.Metrics) != fmt.Sprint(min.Metrics) || fmt.Sprint(full.Sides) != fmt.Sprint(min.Sides) {
		t.Errorf("%+v\n%+v", full, min)
	}
	hf, err := parseHyperfine(readFixture(t, "hyperfine-sleep-min.json"))
	if err != nil || len(hf) != 2 || len(hf[0].Times) != 6 {
		t.Errorf("%+v, %v", hf, err)
	}
}

// TestParseRigorExecEmptySides: rigor writes a metric a command has no
// samples of (peak RSS below rigor's own) as a side with n 0 and a null
// median, and its change as null; the document is still good, and the
// wall and CPU times come through. Real output of `rigor exec 'true'
// 'true'` (part 3), whose verdict came from CPU time; values read with
// python.
func TestParseRigorExecEmptySides(t *testing.T) {
	x, err := parseRigorExec(readFixture(t, "rigor-aa-true.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r record
	if err := r.fromRigor(x, []string{"true", "true"}); err != nil {
		t.Fatal(err)
	}
	if r.VerdictMetric != "cpu-sec/op" || r.Verdict != "unchanged" || float64(r.WallChange) != 0.001458218689531516 ||
		r.Runs != 2522 || float64(r.Commands[1].Median) != 0.000750424 {
		t.Errorf("record %+v", r)
	}
	rss, ok := x.metric("max-rss-B")
	if s, _ := rss.side("true"); !ok || s.N != 0 || !math.IsNaN(s.Median) {
		t.Errorf("max-rss-B of true: %+v, want no samples", s)
	}
	if len(rss.Changes) != 0 {
		t.Errorf("max-rss-B changes %+v, want the null one left out", rss.Changes)
	}
	// Wall time with no samples of a command is not a result.
	bad := `{"schema_version": 2, "kind": "exec", "sides": ["a"], "benchmarks": [{"metrics": [
		{"unit": "sec/op", "sides": [{"side": "a", "center": null, "lo": null, "hi": null, "n": 0}]}]}]}`
	if _, err := parseRigorExec([]byte(bad)); err == nil || !strings.Contains(err.Error(), "no wall time") {
		t.Errorf("error %v, want one about the missing wall time", err)
	}
}
