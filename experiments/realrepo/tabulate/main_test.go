package main

import (
	"math"
	"strings"
	"testing"
)

// Both of benchstat's table forms, as commit messages quote them (written
// by hand to their layout; the numbers are made up).
const newForm = `pkg: example.com/hash
cpu: Some CPU
              │    old      │              new                   │
              │   sec/op    │   sec/op     vs base               │
Perm-8           270.8n ± 0%   270.4n ± 0%       ~ (p=0.099 n=10)
Sum_MTU-8        5.762µ ± 0%   5.658µ ± 0%  -1.80% (p=0.000 n=10)
Sum_1MiB-8       4.204m ± 0%   4.219m ± 0%  +0.34% (p=0.000 n=10)
geomean          13.75µ        13.54µ       -1.55%

              │    old      │              new                   │
              │    B/s      │    B/s       vs base               │
Perm-8          704.3Mi ± 0%  705.4Mi ± 0%       ~ (p=0.105 n=10)
`

const oldForm = `name                   old time/op   new time/op   delta
BenchmarkPerm-4          398ns ± 0%    399ns ± 1%    ~     (p=0.508 n=9+10)
Sum_MTU-4               8.34µs ± 1%   8.30µs ± 1%  -0.47%  (p=0.000 n=8+10)

name                   old speed     new speed     delta
Perm-4                 502MB/s ± 0%  502MB/s ± 0%    ~     (p=0.497 n=9+10)
`

func TestParseAuthor(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     map[string]string
	}{
		{"new", newForm, map[string]string{"Perm": "~", "Sum_MTU": "-1.80%", "Sum_1MiB": "+0.34%"}},
		{"old", oldForm, map[string]string{"Perm": "~", "Sum_MTU": "-0.47%"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseAuthor(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s: %q, want %q", k, got[k], v)
				}
			}
		})
	}
	if _, err := parseAuthor(strings.NewReader("no table here\n")); err == nil {
		t.Error("no table: want an error")
	}
}

func TestParseRun(t *testing.T) {
	doc := `{"schema_version": 2, "benchmarks": [
	  {"name": "Perm", "verdict": "unchanged", "verdict_metric": "cpu-sec/op",
	   "decisions": [{"side": "new", "verdict": "unchanged", "unit": "instructions/op", "by": "instructions", "time_verdict": "inconclusive"}],
	   "metrics": [
	     {"unit": "sec/op", "changes": [{"estimate": 0.5, "lo": 0.4, "hi": 0.6, "verdict": "regressed"}]},
	     {"unit": "cpu-sec/op", "changes": [{"estimate": 0.001, "lo": -0.02, "hi": 0.02, "verdict": "inconclusive"}]},
	     {"unit": "instructions/op", "sides": [{"n": 2, "min": 1000, "max": 1001}, {"n": 3, "min": 1000, "max": 1002}],
	      "changes": [{"estimate": 0.0005, "lo": -0.001, "hi": 0.002, "verdict": "unchanged"}]}]},
	  {"name": "Sum", "verdict": "improved",
	   "decisions": [{"side": "new", "verdict": "improved", "unit": "sec/op", "by": "time"}],
	   "metrics": [{"unit": "sec/op", "changes": [{"estimate": -0.03, "lo": -0.04, "hi": -0.02, "verdict": "improved"}]}]}]}`
	r, err := parseRun([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	p, s := r.Benchmarks[0], r.Benchmarks[1]
	if p.Verdict != "unchanged" || p.By != "instructions" || p.TimeVerdict != "inconclusive" || p.TimeUnit != "cpu-sec/op" ||
		p.TimeEst != 0.001 || p.InstrVerdict != "unchanged" || p.InstrEst != 0.0005 || p.InstrN != 2 || math.Abs(p.InstrSpread-0.002) > 1e-12 {
		t.Errorf("Perm: %+v", p)
	}
	if s.Verdict != "improved" || s.By != "time" || s.TimeVerdict != "improved" || s.TimeEst != -0.03 || s.InstrN != 0 || !math.IsNaN(s.InstrEst) {
		t.Errorf("Sum: %+v", s)
	}
	var sb strings.Builder
	if err := writeTable(&sb, map[string]string{"Perm": "~", "Sum": "-1.80%"}, []runResult{{Label: "quiet", Benchmarks: r.Benchmarks}}, []string{"Perm"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Perm (untouched)", "unchanged (by instructions)", "no count", "-1.80%",
		"quiet: 2 benchmarks: 1 improved, 0 regressed, 1 unchanged, 0 inconclusive; 1 decided by instructions; the time alone decided 1; untouched unchanged: 1 of 1"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, sb.String())
		}
	}
}
