package gotest

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// A test binary's output as go test prints it, with the seed 003 values,
// a sub-benchmark, a custom metric and noise around the results.
const sampleOutput = `goos: linux
goarch: amd64
pkg: example.com/benchlab
cpu: AMD EPYC 9V74 80-Core Processor
BenchmarkBuild 	   14857	      7856 ns/op	  81.47 MB/s	   43208 B/op	     127 allocs/op
some log line the benchmark printed
BenchmarkSort/n=10/algo=quick-8   	  500000	       2.5 ns/op	     12.0 items/op
BenchmarkLatency-8  100  5.0 ns/op  3.5 hits/op
Unit hits/op better=higher assume=exact
--- FAIL: BenchmarkBroken
PASS
`

func TestParseResults(t *testing.T) {
	rs, warnings := ParseResults(sampleOutput)
	if len(rs) != 3 {
		t.Fatalf("%d results, want 3", len(rs))
	}
	if len(warnings) > 0 {
		t.Errorf("warnings %q for good metadata", warnings)
	}
	b := rs[0]
	if b.Name != "Build" || b.Procs != 0 || b.Iters != 14857 || b.FullName() != "Build" {
		t.Errorf("first result: name %q procs %d iters %d", b.Name, b.Procs, b.Iters)
	}
	if b.Line != "BenchmarkBuild 	   14857	      7856 ns/op	  81.47 MB/s	   43208 B/op	     127 allocs/op" {
		t.Errorf("line not kept as printed: %q", b.Line)
	}
	if got := b.config("pkg"); got != "example.com/benchlab" {
		t.Errorf("pkg = %q", got)
	}
	if got := b.config("cpu"); got != "AMD EPYC 9V74 80-Core Processor" {
		t.Errorf("cpu = %q", got)
	}
	// Units tidied as benchstat does: ns/op -> sec/op, MB/s -> B/s.
	want := []Value{
		{"sec/op", 7856e-9, model.LowerIsBetter, model.AssumeNothing},
		{"B/s", 81.47e6, model.HigherIsBetter, model.AssumeNothing},
		{"B/op", 43208, model.LowerIsBetter, model.AssumeNothing},
		{"allocs/op", 127, model.LowerIsBetter, model.AssumeNothing},
	}
	if len(b.Values) != len(want) {
		t.Fatalf("values %v, want %v", b.Values, want)
	}
	for i, v := range b.Values {
		w := want[i]
		if v.Unit != w.Unit || v.Better != w.Better || v.Assume != w.Assume || !close(v.Value, w.Value) {
			t.Errorf("value %d = %+v, want %+v", i, v, w)
		}
	}
	s := rs[1]
	if s.Name != "Sort/n=10/algo=quick" || s.Procs != 8 || s.FullName() != "Sort/n=10/algo=quick-8" {
		t.Errorf("sub-benchmark: name %q procs %d", s.Name, s.Procs)
	}
	// Unit metadata after the result still applies.
	h := rs[2].Values[1]
	if h.Unit != "hits/op" || h.Better != model.HigherIsBetter || h.Assume != model.AssumeExact {
		t.Errorf("hits/op = %+v, want better higher, assume exact", h)
	}
}

func TestParseSeedFile(t *testing.T) {
	data, err := os.ReadFile("../testdata/seed003/base.txt")
	if err != nil {
		t.Skip(err)
	}
	rs, _ := ParseResults(string(data))
	if len(rs) != 12 {
		t.Fatalf("%d results, want the seed's 12", len(rs))
	}
	// The seed's first and last base lines.
	if rs[0].Iters != 14857 || !close(rs[0].Values[0].Value, 7856e-9) ||
		rs[11].Iters != 12865 || !close(rs[11].Values[0].Value, 8419e-9) {
		t.Errorf("first %d %v, last %d %v", rs[0].Iters, rs[0].Values[0], rs[11].Iters, rs[11].Values[0])
	}
}

func TestSplitProcs(t *testing.T) {
	for _, tc := range []struct {
		out   string
		name  string
		procs int
	}{
		{"BenchmarkA-8 1 1 ns/op", "A", 8},
		{"BenchmarkA 1 1 ns/op", "A", 0},
		{"BenchmarkA/x-y-2 1 1 ns/op", "A/x-y", 2},
		// Ambiguous: read as benchstat and package model read it.
		{"BenchmarkA/n=-1 1 1 ns/op", "A/n=", 1},
		{"BenchmarkA-08 1 1 ns/op", "A-08", 0},
		{"BenchmarkA-0 1 1 ns/op", "A-0", 0},
	} {
		rs, _ := ParseResults(tc.out)
		if len(rs) != 1 || rs[0].Name != tc.name || rs[0].Procs != tc.procs {
			t.Errorf("%q: got %+v, want name %q procs %d", tc.out, rs, tc.name, tc.procs)
		}
	}
}

// Unit metadata that is neither higher/lower nor nothing/exact is ignored,
// as package model ignores it, and said, in model's words, not dropped
// silently.
// TestParseResultsImplausible: a value that cannot be a measurement (a
// NaN from b.ReportMetric) is left out with a warning, and a result left
// with no value is no result. The NaN used to reach run.json, whose
// writer refused it, and the run lost its results directory.
func TestParseResultsImplausible(t *testing.T) {
	out := "BenchmarkNaN-2 100 5.0 ns/op NaN ratio/op\nBenchmarkAll-2 1 NaN ns/op\nBenchmarkNeg-2 1 -3 ns/op 2 x/op\n"
	rs, warnings := ParseResults(out)
	if len(rs) != 2 || rs[0].FullName() != "NaN-2" || rs[1].FullName() != "Neg-2" {
		t.Fatalf("results %+v, want NaN-2 and Neg-2", rs)
	}
	if len(rs[0].Values) != 1 || rs[0].Values[0].Unit != "sec/op" || rs[0].Values[0].Value != 5e-9 {
		t.Errorf("NaN-2: values %+v, want only 5e-9 sec/op", rs[0].Values)
	}
	if len(rs[1].Values) != 1 || rs[1].Values[0].Unit != "x/op" {
		t.Errorf("Neg-2: values %+v, want only 2 x/op", rs[1].Values)
	}
	want := []string{
		"NaN-2: value NaN ratio/op is not a finite number; left out",
		"All-2: value NaN ns/op is not a finite number; left out",
		"Neg-2: value -3 ns/op is negative, which a time cannot be; left out",
	}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseResultsBadMetadata(t *testing.T) {
	const out = "BenchmarkX 10 5 ns/op 3 hits/op 2 misses/op\n" +
		"Unit hits/op better=sideways\n" +
		"Unit misses/op assume=roughly\n" +
		"BenchmarkY 10 5 ns/op 4 hits/op 1 misses/op\n" +
		"Unit hits/op better=sideways\n"
	rs, warnings := ParseResults(out)
	want := []string{
		"unit hits/op: better=sideways is neither higher nor lower; using the default",
		"unit misses/op: assume=roughly is neither nothing nor exact; assuming nothing",
	}
	if !slices.Equal(warnings, want) {
		t.Errorf("warnings = %q, want %q", warnings, want)
	}
	run, err := model.Read(strings.NewReader(out), "out.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !slices.ContainsFunc(run.Notes, func(n model.Note) bool { return strings.HasSuffix(n.Text, w) }) {
			t.Errorf("model's notes %q lack %q: the two readers disagree", model.Texts(run.Notes), w)
		}
	}
	if len(rs) != 2 {
		t.Fatalf("%d results, want 2", len(rs))
	}
	for _, r := range rs {
		for _, v := range r.Values {
			m := run.Benchmarks[0].Metric(v.Unit)
			if v.Better != model.LowerIsBetter || v.Assume != model.AssumeNothing || m.Better != v.Better {
				t.Errorf("%s %s: better %d assume %q, model's better %d; want the defaults", r.Name, v.Unit, v.Better, v.Assume, m.Better)
			}
		}
	}
}

// A time metric a benchmark reports itself (b.ReportMetric(x, "ms/op"))
// has the same unit and scale as when package model reads the line from a
// file, as rigor compare does with the side files rigor ab writes: us and
// ms in seconds, except beside go test's own ns/op, where it is another
// metric and keeps its unit. Before, ParseResults left "0.5 ms/op" as 0.5
// ms/op where model reads 0.0005 sec/op: one benchmark, two metrics that
// never met, depending on how the run was read.
func TestParseTimeUnits(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []Value // unit and value
	}{
		{"BenchmarkA-2 100 0.5 ms/op", []Value{{Unit: "sec/op", Value: 0.5e-3}}},
		{"BenchmarkA-2 100 7 us/op 64 B/op", []Value{{Unit: "sec/op", Value: 7e-6}, {Unit: "B/op", Value: 64}}},
		{"BenchmarkA-2 100 12345 ns/op 0.5 ms/op", []Value{{Unit: "sec/op", Value: 12345e-9}, {Unit: "ms/op", Value: 0.5}}},
		{"BenchmarkA-2 100 12345 ns/op 7 us/op", []Value{{Unit: "sec/op", Value: 12345e-9}, {Unit: "us/op", Value: 7}}},
		{"BenchmarkA-2 100 12345 ns/op 2 ms/item", []Value{{Unit: "sec/op", Value: 12345e-9}, {Unit: "sec/item", Value: 2e-3}}},
	} {
		rs, _ := ParseResults(tt.line + "\n")
		run, err := model.Read(strings.NewReader(tt.line+"\n"), "f", "side")
		if err != nil || len(rs) != 1 {
			t.Fatalf("%s: %d results, model: %v", tt.line, len(rs), err)
		}
		for i, w := range tt.want {
			if i >= len(rs[0].Values) {
				t.Errorf("%s: ParseResults gave %v, want %v", tt.line, rs[0].Values, tt.want)
				break
			}
			if v := rs[0].Values[i]; v.Unit != w.Unit || !close(v.Value, w.Value) {
				t.Errorf("%s: ParseResults value %d is %v %s, want %v %s", tt.line, i, v.Value, v.Unit, w.Value, w.Unit)
			}
			if m := run.Benchmarks[0].Metric(w.Unit); m == nil || !close(m.Samples[0].Value, w.Value) {
				t.Errorf("%s: model.Read has %v for %s, want %v", tt.line, m, w.Unit, w.Value)
			}
		}
		if len(rs[0].Values) != len(tt.want) || len(run.Benchmarks[0].Metrics) != len(tt.want) {
			t.Errorf("%s: %d values from ParseResults, %d metrics from model.Read, want %d", tt.line, len(rs[0].Values), len(run.Benchmarks[0].Metrics), len(tt.want))
		}
	}
}

func close(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-9*max(a, b, -a, -b)
}

func FuzzParseResults(f *testing.F) {
	f.Add(sampleOutput)
	f.Add("BenchmarkX-2 10 5 ns/op\n")
	f.Add("pkg: a\nBenchmarkY 1 NaN ns/op\nUnit x better=lower\n")
	f.Add("BenchmarkZ 3 12345 ns/op 0.5 ms/op 7 us/item\n")
	f.Fuzz(func(t *testing.T, s string) {
		rs, _ := ParseResults(s)
		for _, r := range rs {
			if !strings.HasPrefix(r.Line, "Benchmark") {
				t.Fatalf("result line %q does not start with Benchmark", r.Line)
			}
			// "Benchmark-2" is func Benchmark at GOMAXPROCS 2: an empty
			// name is legal.
			if r.Procs < 0 {
				t.Fatalf("bad name %q procs %d", r.Name, r.Procs)
			}
			// The line reads back as the same result.
			again, _ := ParseResults(r.Line)
			if len(again) != 1 || again[0].FullName() != r.FullName() || again[0].Iters != r.Iters {
				t.Fatalf("line %q reads back as %+v, not %s %d", r.Line, again, r.FullName(), r.Iters)
			}
			// Package model reads the line with the same units and
			// values, when it keeps it (it skips implausible values).
			run, err := model.Read(strings.NewReader(r.Line), "f", "s")
			if err != nil || len(run.Notes) > 0 || len(run.Benchmarks) != 1 {
				continue
			}
			ms := run.Benchmarks[0].Metrics
			if len(ms) != len(r.Values) {
				t.Fatalf("line %q: %d values, model reads %d metrics", r.Line, len(r.Values), len(ms))
			}
			for i, v := range r.Values {
				if ms[i].Unit != v.Unit || ms[i].Samples[0].Value != v.Value {
					t.Fatalf("line %q: value %d is %v %s, model reads %v %s", r.Line, i, v.Value, v.Unit, ms[i].Samples[0].Value, ms[i].Unit)
				}
			}
		}
	})
}
