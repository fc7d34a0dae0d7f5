package model

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

func readString(t *testing.T, text, label string) *Run {
	t.Helper()
	r, err := Read(strings.NewReader(text), label+".txt", label)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func writeString(t *testing.T, run *Run, side string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, run, side); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestWriteBenchfmt(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "go test output",
			in: "goos: linux\ngoarch: amd64\npkg: example.com/benchlab\ncpu: AMD EPYC 9V74 80-Core Processor\n" +
				"BenchmarkBuild \t   14857\t      7856 ns/op\t  81.47 MB/s\t   43208 B/op\t     127 allocs/op\n" +
				"BenchmarkBuild \t  135510\t       836.0 ns/op\t 765.58 MB/s\t    1912 B/op\t       8 allocs/op\n" +
				"PASS\nok  \texample.com/benchlab\t3.4s\n",
			want: "goos: linux\ngoarch: amd64\npkg: example.com/benchlab\ncpu: AMD EPYC 9V74 80-Core Processor\n\n" +
				"BenchmarkBuild 14857 7856 ns/op 81.47 MB/s 43208 B/op 127 allocs/op\n" +
				"BenchmarkBuild 135510 836 ns/op 765.58 MB/s 1912 B/op 8 allocs/op\n",
		},
		{
			name: "packages, procs, custom units and metadata",
			in: "Unit items/op better=higher assume=exact\nUnit hits/s better=lower\n" +
				"goos: linux\nzone: b\npkg: a\n" +
				"BenchmarkSort/n=10-8 5 3 ns/op 2 items/op 9 hits/s 4 ns/item\n" +
				"pkg: b\n" +
				"BenchmarkSort/n=10-8 5 4 ns/op\n",
			want: "Unit items/op better=higher\nUnit items/op assume=exact\nUnit hits/s better=lower\nUnit ns/item better=lower\n" +
				"goos: linux\npkg: a\nzone: b\n\n" +
				"BenchmarkSort/n=10-8 5 3 ns/op 2 items/op 9 hits/s 4 ns/item\n" +
				"\npkg: b\n\n" +
				"BenchmarkSort/n=10-8 5 4 ns/op\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := writeString(t, readString(t, tt.in, "s"), "s"); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestBenchfmtRoundTrip checks benchfmt -> Run -> benchfmt -> Run.
func TestBenchfmtRoundTrip(t *testing.T) {
	var inputs []string
	for _, f := range []string{"base.txt", "optimized.txt", "test.json"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "seed003", f))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(b))
	}
	inputs = append(inputs,
		"Unit items/op better=higher assume=exact\nUnit hits/s better=lower\nUnit ns/op assume=exact\n"+
			"goos: linux\nzone: b\npkg: a\n"+
			"BenchmarkSort/n=10/alg=pdq-8 5 3 ns/op 2 items/op 9 hits/s 4 ns/item 0.3017 ns/op-extra\n"+
			"BenchmarkSort/n=10/alg=pdq-8 6 3.5 ns/op 2 items/op 9.5 hits/s 4.25 ns/item\n"+
			"pkg: b\nzone:\n"+
			"BenchmarkSort/n=10/alg=pdq-8 5 4 ns/op\n"+
			"BenchmarkTiny 1000000000 0.2945 ns/op 1.5e+300 MB/s\n"+
			"BenchmarkOdd-08 3 1e-300 ns/op\n",
	)
	for i, in := range inputs {
		first := readString(t, in, "s")
		out := writeString(t, first, "s")
		second := readString(t, out, "s")
		if !reflect.DeepEqual(first.Benchmarks, second.Benchmarks) {
			t.Errorf("input %d: round trip changed the benchmarks\nfirst  %+v\nsecond %+v\nwritten:\n%s", i, first.Benchmarks, second.Benchmarks, out)
		}
		if len(second.Notes) != 0 {
			t.Errorf("input %d: reading the written text gave notes %q", i, second.Notes)
		}
	}
}

// valueFallingBack returns a sec/op value that no decimal number of ns/op
// tidies to exactly, so that it must be written as sec/op.
func valueFallingBack(t *testing.T) float64 {
	v := 1.85e-6
	for range 1000 {
		if _, d := untidyValue(v, 1e-9); d == 0 {
			return v
		}
		v = math.Nextafter(v, 1)
	}
	t.Fatal("no value needing the sec/op fallback")
	return 0
}

// TestWriteBenchfmtOracle reads WriteBenchfmt's output with benchfmt, as
// benchstat does, and checks that it sees exactly the run's samples,
// directions and assumptions.
func TestWriteBenchfmtOracle(t *testing.T) {
	odd := valueFallingBack(t)
	run := &Run{
		Kind:   KindAB,
		Paired: true,
		Sides:  []Side{{Label: "old"}, {Label: "new"}},
		Benchmarks: []Benchmark{
			{
				Name: "Parse/json", Procs: 4, Pkg: "example.com/p",
				Config: map[string]string{"goos": "linux", "cpu": "Some CPU @ 2.0GHz", "note": "a: b"},
				Metrics: []Metric{
					{Unit: "sec/op", Better: LowerIsBetter, Samples: []Sample{
						{Side: "old", Round: 1, Iters: 200, Value: 1.25e-6}, {Side: "new", Round: 1, Iters: 200, Value: odd}, {Side: "old", Round: 0, Iters: 100, Value: 1.5e-6}, {Side: "new", Round: 0, Iters: 100, Value: 1.0e-6},
						{Side: "new", Round: 2, Iters: 150, Value: 0.9e-6},
					}},
					{Unit: "B/s", Better: HigherIsBetter, Samples: []Sample{
						{Side: "new", Round: 0, Iters: 100, Value: 3.3e8}, {Side: "new", Round: 1, Iters: 200, Value: 1.0 / 3}, {Side: "old", Round: 0, Iters: 100, Value: 2e8},
					}},
					{Unit: "allocs/op", Better: LowerIsBetter, Assume: AssumeExact, Samples: []Sample{
						{Side: "new", Round: 0, Iters: 100, Value: 3}, {Side: "new", Round: 1, Iters: 200, Value: 3}, {Side: "new", Round: 2, Iters: 150, Value: 3},
					}},
					// A round whose metrics disagree on the iteration count
					// and a unit measured twice in one round.
					{Unit: "rows/op", Better: HigherIsBetter, Samples: []Sample{
						{Side: "new", Round: 0, Iters: 7, Value: 12}, {Side: "new", Round: 0, Iters: 8, Value: 13},
					}},
				},
			},
			{Name: "Idle", Metrics: []Metric{{Unit: "sec/op", Better: LowerIsBetter, Samples: []Sample{{Side: "old", Round: 0, Iters: 1, Value: 1}}}}},
			{Name: "Has space", Pkg: "example.com/q", Metrics: []Metric{{Unit: "sec/op", Better: LowerIsBetter, Samples: []Sample{{Side: "new", Round: 3, Iters: 1, Value: 2e-9}}}}},
		},
	}
	text := writeString(t, run, "new")

	type obs struct {
		iters int
		value float64
	}
	got := make(map[string][]obs) // "pkg name unit" -> observations in order
	br := benchfmt.NewReader(strings.NewReader(text), "new.txt")
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		case *benchfmt.Result:
			for _, v := range rec.Values {
				k := rec.GetConfig("pkg") + " " + rec.Name.String() + " " + v.Unit
				got[k] = append(got[k], obs{rec.Iters, v.Value})
			}
			if rec.Name.String() == "Parse/json-4" {
				for _, key := range []string{"goos", "cpu", "note"} {
					if rec.GetConfig(key) != run.Benchmarks[0].Config[key] {
						t.Errorf("config %s = %q", key, rec.GetConfig(key))
					}
				}
			}
		}
	}
	if err := br.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[string][]obs{
		"example.com/p Parse/json-4 sec/op":    {{100, 1.0e-6}, {200, odd}, {150, 0.9e-6}},
		"example.com/p Parse/json-4 B/s":       {{100, 3.3e8}, {200, 1.0 / 3}},
		"example.com/p Parse/json-4 allocs/op": {{100, 3}, {200, 3}, {150, 3}},
		"example.com/p Parse/json-4 rows/op":   {{7, 12}, {8, 13}},
		"example.com/q Has_space sec/op":       {{1, 2e-9}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("benchfmt read\n%v\nwant\n%v\nfrom\n%s", got, want, text)
	}
	if !strings.Contains(text, " sec/op") {
		t.Errorf("a sec/op value without an exact ns/op form was not written as sec/op:\n%s", text)
	}
	units := br.Units()
	for _, m := range run.Benchmarks[0].Metrics {
		if b := units.GetBetter(m.Unit); b != m.Better {
			t.Errorf("benchstat would take %s's direction as %d, want %d", m.Unit, b, m.Better)
		}
		var wantAssume benchmath.Assumption = benchmath.AssumeNothing
		if m.Assume == AssumeExact {
			wantAssume = benchmath.AssumeExact
		}
		if a := units.GetAssumption(m.Unit); a != wantAssume {
			t.Errorf("benchstat would assume %v for %s, want %v", a, m.Unit, wantAssume)
		}
	}
}

func TestWriteBenchfmtErrors(t *testing.T) {
	metric := func(unit string, better int, v float64) Metric {
		return Metric{Unit: unit, Better: better, Samples: []Sample{{Side: "s", Iters: 1, Value: v}}}
	}
	tests := []struct {
		name  string
		side  string
		bench []Benchmark
		want  string
	}{
		{"unknown side", "t", nil, `no side "t"`},
		{"unit with space", "s", []Benchmark{{Name: "A", Metrics: []Metric{metric("a b", -1, 1)}}}, `unit "a b" cannot be written`},
		{"NaN", "s", []Benchmark{{Name: "A", Metrics: []Metric{metric("x", -1, math.NaN())}}}, "not a finite number"},
		{"conflicting direction", "s", []Benchmark{
			{Name: "A", Metrics: []Metric{metric("x", -1, 1)}},
			{Name: "B", Metrics: []Metric{metric("x", 1, 1)}},
		}, "unit x has different better/assume settings"},
		{"bad config key", "s", []Benchmark{{Name: "A", Config: map[string]string{"GOOS": "linux"}, Metrics: []Metric{metric("x", -1, 1)}}}, `configuration key "GOOS"`},
		{"bad config value", "s", []Benchmark{{Name: "A", Config: map[string]string{"k": "a\nb"}, Metrics: []Metric{metric("x", -1, 1)}}}, "configuration k: value"},
		{"zero iters", "s", []Benchmark{{Name: "A", Metrics: []Metric{{Unit: "x", Samples: []Sample{{Side: "s"}}}}}}, "iteration count 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := &Run{Sides: []Side{{Label: "s"}}, Benchmarks: tt.bench}
			err := WriteBenchfmt(&bytes.Buffer{}, run, tt.side)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestBenchstat runs the real benchstat on WriteBenchfmt's output of the
// seed 003 data and checks it prints the seed's published figures.
func TestBenchstat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds benchstat")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin := filepath.Join(dir, "benchstat")
	if out, err := exec.CommandContext(ctx, goTool, "build", "-o", bin, "golang.org/x/perf/cmd/benchstat").CombinedOutput(); err != nil {
		t.Skipf("cannot build benchstat: %v\n%s", err, out)
	}
	for _, name := range []string{"base", "optimized"} {
		run, err := ReadFile(filepath.Join("..", "testdata", "seed003", name+".txt"), name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(writeString(t, run, name)), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	benchstat := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("benchstat %v: %v\n%s", args, err, stderr.String())
		}
		return string(out)
	}

	out := benchstat("base", "optimized")
	// The figures seed 003 reports from benchstat on the original files.
	for _, want := range []string{
		"8107.5n ± 7%", "800.4n ± 13%", "-90.13% (p=0.000 n=12)",
		"42.195Ki ± 0%", "1.867Ki ± 0%", "-95.57% (p=0.000 n=12)",
		"127.000 ± 0%", "8.000 ± 0%", "-93.70% (p=0.000 n=12)",
		"pkg: example.com/benchlab", "cpu: AMD EPYC 9V74 80-Core Processor",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("benchstat output lacks %q:\n%s", want, out)
		}
	}

	// The written file and the original are the same data to benchstat.
	orig, err := filepath.Abs(filepath.Join("..", "testdata", "seed003", "base.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out = benchstat("orig="+orig, "base")
	if n := strings.Count(out, "~ (p=1.000 n=12)"); n != 4 {
		t.Errorf("benchstat found differences between the original and the written file:\n%s", out)
	}
}
