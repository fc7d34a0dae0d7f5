package model

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The v1.15 files were written by Debian's hyperfine 1.15.0 (hyperfine -N
// --runs 3 --export-json 'true' 'sleep 0.01'; and -L x 1,2 --runs 2
// 'sleep 0.00{x}'). The v1.19 file is written by hand in the shape of
// hyperfine 1.19's BenchmarkResult (memory_usage_byte, a null exit code
// for a run a signal ended, a null stddev after one run).
const hyperfineDir = "testdata/hyperfine"

func TestReadHyperfine(t *testing.T) {
	run, err := ReadFile(filepath.Join(hyperfineDir, "v1.15-two-commands.json"), "hf")
	if err != nil {
		t.Fatal(err)
	}
	if run.Kind != KindFiles || run.Paired || len(run.Sides) != 1 || run.Sides[0].Label != "hf" {
		t.Fatalf("kind %q paired %v sides %+v; want one unpaired side hf", run.Kind, run.Paired, run.Sides)
	}
	var names []string
	for _, b := range run.Benchmarks {
		names = append(names, b.Name)
	}
	if !slices.Equal(names, []string{"true", "sleep 0.01"}) {
		t.Fatalf("benchmarks %q, want [true, sleep 0.01]", names)
	}
	// The samples are hyperfine's times, in order; their median is the
	// median hyperfine computed and exported.
	m := run.Benchmarks[1].Metric("sec/op")
	want := []float64{0.011560679, 0.011670755000000001, 0.04675242}
	if m == nil || !slices.Equal(m.Values("hf"), want) {
		t.Fatalf("sleep 0.01 samples %v, want %v", m, want)
	}
	for _, s := range m.Samples {
		if s.Iters != 1 {
			t.Errorf("sample %+v: iters %d, want 1 (one run)", s, s.Iters)
		}
	}
	if m.Better != LowerIsBetter {
		t.Errorf("sec/op better = %d", m.Better)
	}
	if got := run.Benchmarks[1].Metric(MaxRSSUnit); got != nil {
		t.Errorf("hyperfine 1.15 exports no memory, got %+v", got)
	}
	if !slices.ContainsFunc(run.Notes, func(n Note) bool {
		return n.Kind == NoteInput && strings.Contains(n.Text, "means, not per run")
	}) {
		t.Errorf("no note that user and system times are not read: %q", Texts(run.Notes))
	}
}

func TestReadHyperfineParameters(t *testing.T) {
	run, err := ReadFile(filepath.Join(hyperfineDir, "v1.15-parameter-list.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Benchmarks) != 2 {
		t.Fatalf("%d benchmarks, want 2", len(run.Benchmarks))
	}
	for i, x := range []string{"1", "2"} {
		b := run.Benchmarks[i]
		if b.Name != "sleep 0.00"+x || b.Config["x"] != x {
			t.Errorf("benchmark %d: %q config %v, want sleep 0.00%s with x=%s", i, b.Name, b.Config, x, x)
		}
	}
}

func TestReadHyperfineMemoryAndFailures(t *testing.T) {
	run, err := ReadFile(filepath.Join(hyperfineDir, "v1.19-memory-signal.json"), "new")
	if err != nil {
		t.Fatal(err)
	}
	// The same command twice (an A/A run) makes two rows.
	if len(run.Benchmarks) != 2 || run.Benchmarks[0].Name != "./server --once" || run.Benchmarks[1].Name != "./server --once (2)" {
		t.Fatalf("benchmarks %+v", run.Benchmarks)
	}
	rss := run.Benchmarks[0].Metric(MaxRSSUnit)
	if rss == nil || !slices.Equal(rss.Values("new"), []float64{4206592}) {
		t.Fatalf("memory %+v, want one sample of 4206592 B", rss)
	}
	fails := OfKind(run.Benchmarks[0].Notes, NoteFailure)
	if len(fails) != 1 || fails[0].Evidence["failed_runs"] != 1 {
		t.Errorf("the run a signal ended is not noted: %+v", run.Benchmarks[0].Notes)
	}
	if len(OfKind(run.Benchmarks[1].Notes, NoteFailure)) != 0 {
		t.Errorf("a successful run noted as failed: %+v", run.Benchmarks[1].Notes)
	}
}

func TestReadHyperfineBad(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"no results", `{"results": []}`, "without a result"},
		{"means only", `{"results": [{"command": "a", "mean": 1, "median": 1}]}`, "without a result"},
		{"results not a list", `{"results": 3}`, "invalid hyperfine JSON"},
		{"times not numbers", `{"results": [{"command": "a", "times": ["x"]}]}`, "results[0]"},
	} {
		_, err := Read(strings.NewReader(tc.in), "hf.json", "")
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want one line containing %q", tc.name, err, tc.want)
		}
	}
	// Times that cannot be measurements are skipped and noted; the rest
	// are read.
	run, err := Read(strings.NewReader(`{"results": [{"command": "a", "times": [0.5, -1, 0.25]}]}`), "hf.json", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Benchmarks[0].Metrics[0].Values("hf.json"); !slices.Equal(got, []float64{0.5, 0.25}) {
		t.Errorf("values %v, want [0.5 0.25]", got)
	}
	if !slices.ContainsFunc(run.Notes, func(n Note) bool { return strings.Contains(n.Text, "times[1] -1") }) {
		t.Errorf("the negative time is not noted: %q", Texts(run.Notes))
	}
	// rigor JSON with a "results" key is still rigor JSON.
	var buf bytes.Buffer
	if err := fullRun().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if isHyperfineJSON(buf.Bytes()) {
		t.Error("rigor JSON taken for hyperfine's")
	}
}

// TestHyperfineWriteRead: what Write writes, Read reads back with the
// same times.
func TestHyperfineWriteRead(t *testing.T) {
	sd := 0.001
	zero := 0
	exp := HyperfineExport{Results: []HyperfineResult{{
		Command: "gzip -1 f", Mean: 0.02, StdDev: &sd, Median: 0.02, Min: 0.019, Max: 0.021,
		Times: []float64{0.019, 0.02, 0.021}, ExitCodes: []*int{&zero, &zero, &zero},
		Parameters: map[string]string{"level": "1"},
	}}}
	var buf bytes.Buffer
	if err := exp.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("{\n  \"results\": [\n    {\n      \"command\": \"gzip -1 f\",\n      \"mean\": 0.02,\n      \"stddev\": 0.001,")) {
		t.Errorf("not hyperfine's layout:\n%s", buf.Bytes())
	}
	run, err := Read(&buf, "x.json", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Benchmarks[0].Metrics[0].Values("x.json"); !slices.Equal(got, exp.Results[0].Times) {
		t.Errorf("times %v, want %v", got, exp.Results[0].Times)
	}
	exp.Results[0].Times[1] = math.NaN()
	if err := exp.Write(&buf); err == nil {
		t.Error("a NaN time was written")
	}
}

func FuzzReadHyperfine(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(hyperfineDir, "*.json"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"results":[{"command":"a","times":[1e-300,0,2],"memory_usage_byte":[18446744073709551615],"exit_codes":[null,1]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !isHyperfineJSON(data) {
			return
		}
		run, err := Read(bytes.NewReader(data), "hf.json", "")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		checkRun(t, run)
		for _, b := range run.Benchmarks {
			for _, m := range b.Metrics {
				for _, s := range m.Samples {
					if why := Implausible(s.Value, m.Unit); why != "" {
						t.Fatalf("%s: value %v %s %s, and was kept", b.Name, s.Value, m.Unit, why)
					}
				}
			}
		}
	})
}

func TestUniqueName(t *testing.T) {
	seen := map[string]int{}
	var got []string
	for _, n := range []string{"a", "a", "a (2)", "a", "b"} {
		got = append(got, uniqueName(seen, n))
	}
	if want := []string{"a", "a (2)", "a (2) (2)", "a (3)", "b"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
}
