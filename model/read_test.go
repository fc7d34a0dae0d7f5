package model

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/stats"
)

// The seed 003 measurements (shared/seeds/003_*.txt), as go test printed
// them: iterations, ns/op, MB/s, B/op, allocs/op.
var (
	seedBase = [][5]float64{
		{14857, 7856, 81.47, 43208, 127}, {13351, 9175, 69.75, 43208, 127},
		{13530, 8065, 79.35, 43208, 127}, {15705, 7246, 88.32, 43208, 127},
		{15253, 7704, 83.08, 43208, 127}, {13712, 8505, 75.25, 43208, 127},
		{14859, 7800, 82.05, 43208, 127}, {15031, 8150, 78.52, 43208, 127},
		{13634, 8646, 74.02, 43208, 127}, {15294, 7598, 84.23, 43208, 127},
		{12559, 9156, 69.90, 43208, 127}, {12865, 8419, 76.01, 43208, 127},
	}
	seedOptimized = [][5]float64{
		{149546, 799.2, 800.78, 1912, 8}, {153391, 798.8, 801.18, 1912, 8},
		{156236, 760.9, 841.12, 1912, 8}, {135510, 836.0, 765.58, 1912, 8},
		{137412, 801.5, 798.52, 1912, 8}, {158506, 757.1, 845.36, 1912, 8},
		{127860, 822.0, 778.56, 1912, 8}, {160852, 743.4, 860.89, 1912, 8},
		{130710, 904.0, 708.00, 1912, 8}, {151222, 781.7, 818.75, 1912, 8},
		{107434, 982.6, 651.31, 1912, 8}, {122094, 939.9, 680.92, 1912, 8},
	}
)

func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

func TestReadSeed003(t *testing.T) {
	tests := []struct {
		file  string
		data  [][5]float64
		label string
		// medians as benchstat printed them in the seed, in tidied units
		medianSec, medianB, medianAllocs float64
	}{
		{"base.txt", seedBase, "base", 8107.5e-9, 42.195 * 1024, 127},
		{"optimized.txt", seedOptimized, "optimized", 800.4e-9, 1.867 * 1024, 8},
		{"test.json", seedBase, "", 8107.5e-9, 42.195 * 1024, 127},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("..", "testdata", "seed003", tt.file)
			run, err := ReadFile(path, tt.label)
			if err != nil {
				t.Fatal(err)
			}
			label := tt.label
			if label == "" {
				label = path
			}
			if want := []Side{{Label: label, Source: path}}; !reflect.DeepEqual(run.Sides, want) {
				t.Errorf("sides = %+v, want %+v", run.Sides, want)
			}
			if run.Kind != KindFiles || run.Paired || run.SchemaVersion != SchemaVersion {
				t.Errorf("kind, paired, version = %q, %v, %d", run.Kind, run.Paired, run.SchemaVersion)
			}
			if len(run.Notes) != 0 {
				t.Errorf("notes = %q, want none", run.Notes)
			}
			if len(run.Benchmarks) != 1 {
				t.Fatalf("got %d benchmarks, want 1", len(run.Benchmarks))
			}
			b := run.Benchmarks[0]
			wantConfig := map[string]string{"goos": "linux", "goarch": "amd64", "cpu": "AMD EPYC 9V74 80-Core Processor"}
			if b.Name != "Build" || b.Procs != 0 || b.Pkg != "example.com/benchlab" || !reflect.DeepEqual(b.Config, wantConfig) {
				t.Errorf("benchmark = %q procs %d pkg %q config %v", b.Name, b.Procs, b.Pkg, b.Config)
			}
			if b.Key() != "example.com/benchlab.Build" {
				t.Errorf("key = %q", b.Key())
			}
			units := []struct {
				unit   string
				better int
				scale  float64 // tidied value per printed value
			}{
				{"sec/op", LowerIsBetter, 1e-9},
				{"B/s", HigherIsBetter, 1e6},
				{"B/op", LowerIsBetter, 1},
				{"allocs/op", LowerIsBetter, 1},
			}
			if len(b.Metrics) != len(units) {
				t.Fatalf("got %d metrics, want %d", len(b.Metrics), len(units))
			}
			for i, u := range units {
				m := b.Metrics[i]
				if m.Unit != u.unit || m.Better != u.better || m.Assume != "" {
					t.Errorf("metric %d = %s better %d assume %q, want %s better %d", i, m.Unit, m.Better, m.Assume, u.unit, u.better)
				}
				if len(m.Samples) != len(tt.data) {
					t.Fatalf("%s: %d samples, want %d", m.Unit, len(m.Samples), len(tt.data))
				}
				for r, s := range m.Samples {
					want := Sample{Side: label, Round: r, Iters: int64(tt.data[r][0])}
					got := s
					got.Value = 0
					if got != want || !near(s.Value, tt.data[r][i+1]*u.scale) {
						t.Errorf("%s sample %d = %+v, want %+v value %g", m.Unit, r, s, want, tt.data[r][i+1]*u.scale)
					}
				}
			}
			for _, c := range []struct {
				unit string
				want float64
			}{{"sec/op", tt.medianSec}, {"B/op", tt.medianB}, {"allocs/op", tt.medianAllocs}} {
				got := stats.Median(b.Metric(c.unit).Values(label))
				if math.Abs(got-c.want) > 0.0005*c.want { // benchstat prints 4-5 digits
					t.Errorf("median %s = %g, seed's benchstat says %g", c.unit, got, c.want)
				}
			}
		})
	}
}

// TestReadTestJSONMatchesText checks that go test -json output yields the
// same samples as the text it carries, though test2json split its lines.
func TestReadTestJSONMatchesText(t *testing.T) {
	text, err := ReadFile("../testdata/seed003/base.txt", "base")
	if err != nil {
		t.Fatal(err)
	}
	js, err := ReadFile("../testdata/seed003/test.json", "base")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(text.Benchmarks, js.Benchmarks) {
		t.Errorf("go test -json benchmarks differ from text:\n%+v\n%+v", js.Benchmarks, text.Benchmarks)
	}
}

func TestRead(t *testing.T) {
	type metric struct {
		unit   string
		better int
		assume string
		values []float64
	}
	type bench struct {
		name    string
		procs   int
		pkg     string
		metrics []metric
	}
	tests := []struct {
		name  string
		input string
		want  []bench
		notes []string // substrings, in order
	}{
		{
			name: "sub-benchmarks and GOMAXPROCS",
			input: "pkg: example.com/sort\n" +
				"BenchmarkSort/size=1024/alg=pdq-8   100   5120 ns/op\n" +
				"BenchmarkSort/size=1024/alg=pdq-8   100   5130 ns/op\n" +
				"BenchmarkSort/size=64-8   1000   310 ns/op\n" +
				"BenchmarkSort/size=64   1000   320 ns/op\n" +
				"BenchmarkOdd-08   10   1 ns/op\n" +
				"BenchmarkZero-0   10   1 ns/op\n" +
				"BenchmarkDash/a-b   10   1 ns/op\n",
			want: []bench{
				{"Sort/size=1024/alg=pdq", 8, "example.com/sort", []metric{{"sec/op", -1, "", []float64{5120e-9, 5130e-9}}}},
				{"Sort/size=64", 8, "example.com/sort", []metric{{"sec/op", -1, "", []float64{310e-9}}}},
				{"Sort/size=64", 0, "example.com/sort", []metric{{"sec/op", -1, "", []float64{320e-9}}}},
				{"Odd-08", 0, "example.com/sort", []metric{{"sec/op", -1, "", []float64{1e-9}}}},
				{"Zero-0", 0, "example.com/sort", []metric{{"sec/op", -1, "", []float64{1e-9}}}},
				{"Dash/a-b", 0, "example.com/sort", []metric{{"sec/op", -1, "", []float64{1e-9}}}},
			},
		},
		{
			name: "custom ReportMetric units and tidying",
			input: "BenchmarkQ-2  50  2000 ns/op  3.5 items/op  2.5 MB/s  120000 ops/s  7 ns/item\n" +
				"BenchmarkQ-2  60  1000 ns/op  4.5 items/op  5 MB/s  240000 ops/s  9 ns/item\n",
			want: []bench{{"Q", 2, "", []metric{
				{"sec/op", -1, "", []float64{2000e-9, 1000e-9}},
				{"items/op", -1, "", []float64{3.5, 4.5}},
				{"B/s", 1, "", []float64{2.5e6, 5e6}},
				{"ops/s", 1, "", []float64{120000, 240000}},
				{"sec/item", -1, "", []float64{7e-9, 9e-9}},
			}}},
		},
		{
			name: "unit metadata",
			input: "Unit items/op better=higher assume=exact\n" +
				"Unit ns/op assume=exact\n" +
				"Unit hits/s better=lower\n" +
				"BenchmarkQ  50  2000 ns/op  3 items/op  4 hits/s  5 B/op\n" +
				"Unit B/op assume=nothing better=lower\n",
			want: []bench{{"Q", 0, "", []metric{
				{"sec/op", -1, "exact", []float64{2000e-9}},
				{"items/op", 1, "exact", []float64{3}},
				{"hits/s", -1, "", []float64{4}},
				{"B/op", -1, "", []float64{5}},
			}}},
		},
		{
			name: "bad unit metadata",
			input: "Unit items/op better=sideways assume=gaussian\n" +
				"Unit x/op novalue\n" +
				"BenchmarkQ  50  3 items/op\n",
			want: []bench{{"Q", 0, "", []metric{{"items/op", -1, "", []float64{3}}}}},
			notes: []string{
				"input:2: expected key=value; line skipped",
				"input:1: unit items/op: better=sideways is neither higher nor lower",
				"input:1: unit items/op: assume=gaussian is neither nothing nor exact",
			},
		},
		{
			name: "malformed lines are skipped and noted",
			input: "BenchmarkA  10  5 ns/op\n" +
				"BenchmarkA  x  5 ns/op\n" +
				"BenchmarkA  10  5\n" +
				"BenchmarkA  10\n" +
				"BenchmarkA  10  NaN ns/op\n" +
				"BenchmarkA  10  1e400 ns/op\n" +
				"BenchmarkA  0  5 ns/op\n" +
				"BenchmarkA  -3  5 ns/op\n" +
				"BenchmarkA  10  0 ns/op 6 ns/op\n" +
				"BenchmarkA\n" +
				"--- FAIL: BenchmarkB\n" +
				"BenchmarkA  10  7 ns/op\n",
			want: []bench{{"A", 0, "", []metric{{"sec/op", -1, "", []float64{5e-9, 7e-9}}}}},
			notes: []string{
				"input:2: parsing iteration count: invalid syntax; line skipped",
				"input:3: missing units; line skipped",
				"input:4: missing measurements; line skipped",
				"input:5: value NaN ns/op is not a finite number; line skipped",
				"input:6: parsing measurement: value out of range; line skipped",
				"input:7: iteration count 0 is not positive; line skipped",
				"input:8: iteration count -3 is not positive; line skipped",
				"input:9: unit sec/op appears twice; line skipped",
			},
		},
		{
			name: "configuration changes",
			input: "goos: linux\npkg: a\n" +
				"BenchmarkX  1  1 ns/op\n" +
				"pkg: b\n" +
				"BenchmarkX  1  2 ns/op\n" +
				"cpu: other\npkg: a\n" +
				"BenchmarkX  1  3 ns/op\n",
			want: []bench{
				{"X", 0, "a", []metric{{"sec/op", -1, "", []float64{1e-9, 3e-9}}}},
				{"X", 0, "b", []metric{{"sec/op", -1, "", []float64{2e-9}}}},
			},
			notes: []string{`input:8: configuration of X changed within the file (cpu: "" -> "other")`},
		},
		{
			name: "go test -json with several packages",
			input: `go: downloading example.com/dep v1.0.0
{"Action":"start","Package":"example.com/a"}
{"Action":"output","Package":"example.com/a","Output":"pkg: example.com/a\n"}
{"Action":"output","Package":"example.com/b","Output":"BenchmarkY-4 \t"}
{"Action":"output","Package":"example.com/a","Output":"BenchmarkY-4 \t"}
{"Action":"output","Package":"example.com/b","Output":"   10\t  20 ns/op\n"}
{"Action":"output","Package":"example.com/a","Output":"   10\t  30 ns/op\t 4 B/op\n"}
{"Action":"output","Package":"example.com/a","Test":"BenchmarkY","Output":"--- FAIL: BenchmarkZ\n"}
{"Action":"fail","Package":"example.com/a","Test":"BenchmarkZ"}
{"Action":"output","Package":"example.com/a","Output":"BenchmarkY-4 \t   10\t  31 ns/op\t 4 B/op\n"}
{"Action":"output","Package":
`,
			want: []bench{
				{"Y", 4, "example.com/a", []metric{{"sec/op", -1, "", []float64{30e-9, 31e-9}}, {"B/op", -1, "", []float64{4, 4}}}},
				{"Y", 4, "example.com/b", []metric{{"sec/op", -1, "", []float64{20e-9}}}},
			},
			notes: []string{
				"input:1: not a go test -json event; line skipped",
				"input:11: not a go test -json event (unexpected end of JSON input); line skipped",
				"input: go test reported a failure: example.com/a BenchmarkZ",
			},
		},
		{
			// An elided benchmark prints 0.00 ns/op; benchfmt alone
			// would leave that zero in ns/op rather than sec/op.
			name: "go test -json with benchmark logs and a zero time",
			input: `{"Action":"start"}
{"Action":"output","Output":"goos: linux\n"}
{"Action":"output","Output":"BenchmarkElided-8   \t1000000000\t         0.00 ns/op\n"}
{"Action":"output","Test":"BenchmarkElided-8","Output":"--- BENCH: BenchmarkElided-8\n"}
{"Action":"output","Test":"BenchmarkElided-8","Output":"    x_test.go:8: a log line\n"}
{"Action":"bench","Test":"BenchmarkElided-8"}
{"Action":"output","Output":"BenchmarkElided-8   \t1000000000\t         0.3017 ns/op\n"}
{"Action":"output","Output":"PASS\n"}
{"Action":"pass"}
`,
			want: []bench{{"Elided", 8, "", []metric{{"sec/op", -1, "", []float64{0, 0.3017e-9}}}}},
		},
		{
			name:  "UTF-8 byte order mark",
			input: "\xef\xbb\xbfpkg: p\nBenchmarkA 1 2 ns/op\n",
			want:  []bench{{"A", 0, "p", []metric{{"sec/op", -1, "", []float64{2e-9}}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, err := Read(strings.NewReader(tt.input), "", "s")
			if err != nil {
				t.Fatal(err)
			}
			var got []bench
			for _, b := range run.Benchmarks {
				gb := bench{b.Name, b.Procs, b.Pkg, nil}
				for _, m := range b.Metrics {
					gm := metric{m.Unit, m.Better, m.Assume, nil}
					for i, s := range m.Samples {
						if s.Side != "s" {
							t.Errorf("%s %s: sample side %q", b.Name, m.Unit, s.Side)
						}
						// Rounds count the benchmark's results in the input.
						if s.Round != i {
							t.Errorf("%s %s: sample %d has round %d", b.Name, m.Unit, i, s.Round)
						}
						gm.values = append(gm.values, s.Value)
					}
					gb.metrics = append(gb.metrics, gm)
				}
				got = append(got, gb)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d benchmarks %+v, want %+v", len(got), got, tt.want)
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				ok := g.name == w.name && g.procs == w.procs && g.pkg == w.pkg && len(g.metrics) == len(w.metrics)
				for j := 0; ok && j < len(g.metrics); j++ {
					gm, wm := g.metrics[j], w.metrics[j]
					ok = gm.unit == wm.unit && gm.better == wm.better && gm.assume == wm.assume && len(gm.values) == len(wm.values)
					for k := 0; ok && k < len(gm.values); k++ {
						ok = near(gm.values[k], wm.values[k])
					}
				}
				if !ok {
					t.Errorf("benchmark %d = %+v\nwant %+v", i, g, w)
				}
			}
			if len(run.Notes) != len(tt.notes) {
				t.Errorf("notes = %q, want %d notes", run.Notes, len(tt.notes))
			}
			for i, n := range run.Notes {
				if i < len(tt.notes) && !strings.Contains(n.Text, tt.notes[i]) {
					t.Errorf("note %d = %q, want it to contain %q", i, n, tt.notes[i])
				}
			}
		})
	}
}

func TestReadManyMalformedLines(t *testing.T) {
	var in strings.Builder
	for range 25 {
		in.WriteString("BenchmarkA x 1 ns/op\n")
	}
	in.WriteString("BenchmarkA 1 1 ns/op\n")
	run, err := Read(strings.NewReader(in.String()), "many.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Notes) != maxParseNotes+1 {
		t.Fatalf("got %d notes, want %d: %q", len(run.Notes), maxParseNotes+1, run.Notes)
	}
	if last := run.Notes[maxParseNotes].Text; last != "many.txt: 15 more malformed lines skipped" {
		t.Errorf("last note = %q", last)
	}
}

func TestReadErrors(t *testing.T) {
	long := "BenchmarkA 1 " + strings.Repeat("1", 70000) + " ns/op\n"
	tests := []struct {
		name, input, want string
	}{
		{"empty", "", "in.txt: empty input"},
		{"blank", " \n\t\r\n", "in.txt: empty input"},
		{"text", "hello\nworld\n", "in.txt: no benchmark results"},
		{"only bad lines", "BenchmarkA x 1 ns/op\nBenchmarkA 1 1\n", "in.txt: no benchmark results (2 malformed lines, the first: in.txt:1: parsing iteration count: invalid syntax; line skipped)"},
		{"utf-16", "\xff\xfeB\x00e\x00", "in.txt: input is UTF-16"},
		{"long line", long, "in.txt:1: line is longer than 64 KiB; too long for Go benchmark format"},
		{"json without version", `{"kind":"files"}`, "in.txt: not a rigor result file: no schema_version"},
		{"json newer", `{"schema_version": 3}`, "in.txt: schema_version 3 is newer than this rigor reads (2); upgrade rigor"},
		{"json truncated", "{\n\"schema_version\": 1,\n\"sides\": [", "in.txt: invalid rigor JSON at line 3: unexpected end of JSON input"},
		{"test json without results", `{"Action":"output","Package":"p","Output":"PASS\n"}`, "in.txt: no benchmark results"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.input), "in.txt", "")
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); !strings.HasPrefix(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("error = %q, want one line starting %q", msg, tt.want)
			}
		})
	}
}

// TestReadMalformedFiles checks that every file in testdata/malformed is an
// error of one line naming the file.
func TestReadMalformedFiles(t *testing.T) {
	files, err := filepath.Glob("../testdata/malformed/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no malformed files: %v", err)
	}
	want := map[string]string{
		"empty.txt":      "empty input",
		"garbage.bin":    "no benchmark results",
		"impossible.txt": "no benchmark results (3 malformed lines, the first: ../testdata/malformed/impossible.txt:2: value -5 ns/op is negative",
		"nobench.txt":    "no benchmark results (3 malformed lines",
		"schema99.json":  "schema_version 99 is newer than this rigor reads",
		"truncated.json": "invalid rigor JSON at line",
	}
	for _, f := range files {
		_, err := ReadFile(f, "")
		if err == nil {
			t.Errorf("%s: no error", f)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, f+":") || strings.Contains(msg, "\n") || !strings.Contains(msg, want[filepath.Base(f)]) {
			t.Errorf("%s: error %q, want one line naming the file and saying %q", f, msg, want[filepath.Base(f)])
		}
	}
	if _, err := ReadFile("../testdata/malformed/does-not-exist", ""); err == nil || !os.IsNotExist(err) {
		t.Errorf("missing file: error %v", err)
	}
}

func TestReadRelabelsJSON(t *testing.T) {
	run := &Run{
		Kind:  KindRun,
		Sides: []Side{{Label: "main"}},
		Benchmarks: []Benchmark{{Name: "A", Metrics: []Metric{{Unit: "sec/op", Better: -1,
			Samples: []Sample{{Side: "main", Iters: 1, Value: 1}}}}}},
		Observations: []Observation{{Side: "main"}, {}},
	}
	var buf bytes.Buffer
	if err := run.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(buf.Bytes()), "base.json", "old")
	if err != nil {
		t.Fatal(err)
	}
	if got.Sides[0].Label != "old" || got.Benchmarks[0].Metrics[0].Samples[0].Side != "old" ||
		got.Observations[0].Side != "old" || got.Observations[1].Side != "" {
		t.Errorf("not relabelled: %+v", got)
	}
	if got.Kind != KindRun {
		t.Errorf("kind = %q, want %q", got.Kind, KindRun)
	}
	got, err = Read(bytes.NewReader(buf.Bytes()), "base.json", "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Sides[0].Label != "main" {
		t.Errorf("label = %q without a label given, want the run's own", got.Sides[0].Label)
	}
}

// A benchmark a single-side run lost (it failed there) stays lost under
// the label the reader gives the side: rigor compare old=run.json
// new=... must still fail the gate on it, and Merge keeps only the
// Missing entries of a run's own sides.
func TestReadRelabelsMissing(t *testing.T) {
	run := &Run{
		Kind:  KindRun,
		Sides: []Side{{Label: "main"}},
		Benchmarks: []Benchmark{
			{Name: "A", Metrics: []Metric{{Unit: "sec/op", Better: -1, Samples: []Sample{{Side: "main", Iters: 1, Value: 1}}}}},
			{Name: "Fails", Metrics: []Metric{}},
		},
	}
	run.Benchmarks[1].MarkMissing("main", MissingFailed, "panicked in round 2")
	var buf bytes.Buffer
	if err := run.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	old, err := Read(bytes.NewReader(buf.Bytes()), "base.json", "old")
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := old.Benchmarks[1].Missing["old"]; !ok || m.Kind != MissingFailed || len(old.Benchmarks[1].Missing) != 1 {
		t.Errorf("Missing = %+v, want one entry for side old", old.Benchmarks[1].Missing)
	}
	if _, ok := run.Benchmarks[1].Missing["main"]; !ok {
		t.Errorf("the run read from was changed: %+v", run.Benchmarks[1].Missing)
	}
	cur, err := Read(strings.NewReader("BenchmarkA 1 1 ns/op\nBenchmarkFails 1 1 ns/op\n"), "new.txt", "new")
	if err != nil {
		t.Fatal(err)
	}
	merged, err := Merge(old, cur)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range merged.Benchmarks {
		if b.Name == "Fails" {
			if _, ok := b.Missing["old"]; !ok {
				t.Errorf("merged Missing = %+v, want the entry for side old", b.Missing)
			}
		}
	}
}

func TestMerge(t *testing.T) {
	read := func(name, label, text string) *Run {
		t.Helper()
		r, err := Read(strings.NewReader(text), name, label)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	old := read("old.txt", "old", "cpu: A\npkg: p\nBenchmarkA 1 1 ns/op 8 B/op\nBenchmarkA 1 2 ns/op 8 B/op\nBenchmarkOnlyOld 1 5 ns/op\n")
	new := read("new.txt", "new", "cpu: B\npkg: p\nBenchmarkOnlyNew 1 6 ns/op\nBenchmarkA 1 3 ns/op 4 B/op\nUnit B/op assume=exact\n")
	oldBefore := len(old.Benchmarks[0].Metrics[0].Samples)

	m, err := Merge(old, new)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{m.Sides[0].Label, m.Sides[1].Label}; !slices.Equal(got, []string{"old", "new"}) {
		t.Errorf("sides = %v", got)
	}
	var keys []string
	for _, b := range m.Benchmarks {
		keys = append(keys, b.Key())
	}
	if want := []string{"p.A", "p.OnlyOld", "p.OnlyNew"}; !slices.Equal(keys, want) {
		t.Errorf("benchmarks = %v, want %v", keys, want)
	}
	a := m.Benchmarks[0]
	sec := a.Metric("sec/op")
	if o, n := sec.Values("old"), sec.Values("new"); len(o) != 2 || len(n) != 1 || !near(o[0], 1e-9) || !near(o[1], 2e-9) || !near(n[0], 3e-9) {
		t.Errorf("sec/op samples = %+v", sec.Samples)
	}
	if got := a.Metric("B/op").BySide("new"); len(got) != 1 || got[0] != (Sample{Side: "new", Round: 0, Iters: 1, Value: 4}) {
		t.Errorf("B/op new = %+v", got)
	}
	if a.Config["cpu"] != "A" {
		t.Errorf("cpu = %q, want the first input's", a.Config["cpu"])
	}
	wantNotes := []string{
		`configuration cpu differs: "A" in old, "B" in new`,
		"unit B/op has a different direction or assumption in new than in old; using old's",
	}
	if !slices.Equal(Texts(m.Notes), wantNotes) {
		t.Errorf("notes = %q, want %q", m.Notes, wantNotes)
	}
	if m.Kind != KindFiles || m.Paired || m.SchemaVersion != SchemaVersion {
		t.Errorf("kind, paired, version = %q %v %d", m.Kind, m.Paired, m.SchemaVersion)
	}

	// The inputs are unchanged, and the result does not alias them.
	if n := len(old.Benchmarks[0].Metrics[0].Samples); n != oldBefore {
		t.Errorf("merge changed its input: %d samples, had %d", n, oldBefore)
	}
	sec.Samples[0].Value = 99
	if old.Benchmarks[0].Metrics[0].Samples[0].Value == 99 {
		t.Error("merged samples alias the input's")
	}

	if _, err := Merge(old, old); err == nil || err.Error() != `side label "old" is used by inputs 1 and 2; give each input its own label (label=path)` {
		t.Errorf("duplicate labels: error %v", err)
	}
	if _, err := Merge(); err == nil {
		t.Error("no runs: no error")
	}
	if _, err := Merge(old, nil); err == nil {
		t.Error("nil run: no error")
	}
}

func TestMergeKindAndPairing(t *testing.T) {
	ab := &Run{Kind: KindAB, Paired: true, ID: "x", Sides: []Side{{Label: "a"}, {Label: "b"}}}
	ab2 := &Run{Kind: KindAB, Paired: true, Sides: []Side{{Label: "c"}}}
	files := &Run{Kind: KindFiles, Sides: []Side{{Label: "d"}}}
	tests := []struct {
		runs   []*Run
		kind   string
		paired bool
		id     string
	}{
		{[]*Run{ab}, KindAB, true, "x"},
		{[]*Run{ab, ab2}, KindAB, false, ""},
		{[]*Run{ab, files}, KindFiles, false, ""},
		{[]*Run{files, ab}, KindFiles, false, ""},
	}
	for _, tt := range tests {
		m, err := Merge(tt.runs...)
		if err != nil {
			t.Fatal(err)
		}
		if m.Kind != tt.kind || m.Paired != tt.paired || m.ID != tt.id {
			t.Errorf("merge of %d runs: kind %q paired %v id %q, want %q %v %q", len(tt.runs), m.Kind, m.Paired, m.ID, tt.kind, tt.paired, tt.id)
		}
	}
}
