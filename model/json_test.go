package model

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// fullRun sets every field of the schema, so that a round trip checks
// them all.
func fullRun() *Run {
	t0 := time.Date(2026, 3, 14, 9, 26, 53, 120000000, time.UTC)
	return &Run{
		SchemaVersion: SchemaVersion,
		ID:            "20260314T092653-abc",
		Kind:          KindAB,
		Paired:        true,
		Start:         t0,
		End:           t0.Add(90 * time.Second),
		Command:       []string{"rigor", "ab", "--old", "main", "./..."},
		Env: &Env{
			GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 2,
			CPUModel: "AMD EPYC 9V74 80-Core Processor", PhysicalCores: 1, LogicalCores: 2,
			Kernel: "6.18.44", Governor: "performance", Turbo: "off", ASLR: "2",
			Virtualization: "kvm", Container: "docker", MemTotalBytes: 8 << 30,
			Hostname: "bench1", CommandLine: []string{"rigor", "ab"},
		},
		Sides: []Side{
			{Label: "old", Source: "main", Rev: "0123456789abcdef0123456789abcdef01234567", Tags: "", GCFlags: "-l", Toolchain: "go1.26.8"},
			{Label: "new", Source: "HEAD", Rev: "89abcdef0123456789abcdef0123456789abcdef", Dirty: true, Tags: "optimized", BuildEnv: []string{"GOAMD64=v3"}},
		},
		Benchmarks: []Benchmark{{
			Name: "Build/size=128", Procs: 8, Pkg: "example.com/benchlab",
			Group: "build", Variant: "builder",
			Config: map[string]string{"goos": "linux", "cpu": "AMD EPYC 9V74 80-Core Processor"},
			Metrics: []Metric{
				{Unit: "sec/op", Better: LowerIsBetter, Samples: []Sample{
					{Side: "old", Round: 0, Iters: 14857, Value: 7.856e-6},
					{Side: "new", Round: 0, Iters: 14857, Value: 7.992e-7},
				}},
				{Unit: "allocs/op", Better: LowerIsBetter, Assume: AssumeExact, Samples: []Sample{
					{Side: "old", Round: 0, Iters: 14857, Value: 127},
					{Side: "new", Round: 0, Iters: 14857, Value: 8},
				}},
				{Unit: "B/s", Better: HigherIsBetter, Samples: []Sample{
					{Side: "old", Round: 0, Iters: 14857, Value: 8.147e7},
				}},
			},
			Notes:   []Note{{Kind: NoteDisassembly, Source: "observe", Side: "old", Evidence: map[string]float64{"instructions": 12}, Text: "disassembly shows the loop body"}},
			Missing: map[string]Missing{"new": {Kind: MissingFailed, Reason: "panicked (exit status 2) in round 1"}},
		}},
		Observations: []Observation{{
			Start: t0, Duration: 1500 * time.Millisecond, Benchmark: "example.com/benchlab.Build/size=128-8", Side: "old", Round: 0,
			System:  &SystemStats{User: 0.4, System: 0.1, Idle: 0.5, Load1: 1.25, Running: 2, CtxSwitches: 1200, FreqMHz: 2400, CPUPressure: 0.5},
			Process: &ProcessStats{PID: 4242, UserSec: 1.2, SystemSec: 0.1, VoluntaryCtx: 10, InvoluntaryCtx: 3, MaxRSSBytes: 1 << 24},
			Runtime: &RuntimeStats{GCCPUFraction: 0.02, GCCycles: 4, HeapAllocBytes: 1 << 20, HeapAllocObjects: 300, SchedLatencyP99: 20 * time.Microsecond, MutexWait: time.Millisecond},
		}},
		Notes: []Note{{Kind: NoteInterrupted, Text: "interrupted after 3 rounds"}},
		Ramp:  &Ramp{Target: "http://127.0.0.1:8080/", Mode: "closed", Steps: []RampStep{{Concurrency: 1}, {Concurrency: 2}}},
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, run := range []*Run{fullRun(), {Kind: KindRamp, Ramp: &Ramp{Mode: "open", Steps: []RampStep{{Rate: 100}}}}} {
		var buf bytes.Buffer
		if err := run.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		got, err := ReadJSON(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%v\n%s", err, buf.Bytes())
		}
		want := *run
		want.SchemaVersion = SchemaVersion
		// encoding/json reads absent slices as nil.
		if !reflect.DeepEqual(got, &want) {
			t.Errorf("round trip changed the run\n got %+v\nwant %+v\n%s", got, &want, buf.Bytes())
		}
	}
}

// TestJSONFieldNames pins the documented names (docs/schema.md) that
// scripts rely on.
func TestJSONFieldNames(t *testing.T) {
	var buf bytes.Buffer
	if err := fullRun().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "{\n  \"schema_version\": 2,\n") {
		t.Errorf("output does not start with an indented schema_version:\n%.80s", buf.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	keys := func(v any) []string {
		var k []string
		for key := range v.(map[string]any) {
			k = append(k, key)
		}
		slices.Sort(k)
		return k
	}
	bench := doc["benchmarks"].([]any)[0].(map[string]any)
	metric := bench["metrics"].([]any)[0].(map[string]any)
	obs := doc["observations"].([]any)[0].(map[string]any)
	tests := []struct {
		what string
		obj  any
		want []string
	}{
		{"run", doc, []string{"benchmarks", "command", "end", "env", "id", "kind", "notes", "observations", "paired", "ramp", "schema_version", "sides", "start"}},
		{"side", doc["sides"].([]any)[1], []string{"build_env", "dirty", "label", "rev", "source", "tags"}},
		{"benchmark", bench, []string{"config", "group", "metrics", "missing", "name", "notes", "pkg", "procs", "variant"}},
		{"missing", bench["missing"].(map[string]any)["new"], []string{"kind", "reason"}},
		{"metric", metric, []string{"better", "samples", "unit"}},
		{"sample", metric["samples"].([]any)[0], []string{"iters", "round", "side", "value"}},
		{"observation", obs, []string{"benchmark", "duration_ns", "process", "runtime", "side", "start", "system"}},
	}
	for _, tt := range tests {
		if got := keys(tt.obj); !slices.Equal(got, tt.want) {
			t.Errorf("%s keys = %v, want %v", tt.what, got, tt.want)
		}
	}
}

func TestReadJSONErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "empty input"},
		{"array", "[1]", "not a rigor result file: it is not a JSON object"},
		{"no version", `{"kind":"files"}`, "not a rigor result file: no schema_version"},
		{"newer", `{"schema_version": 99, "benchmarks": "changed shape"}`, "schema_version 99 is newer than this rigor reads (2); upgrade rigor"},
		{"zero", `{"schema_version": 0}`, "schema_version 0 is not a valid version"},
		{"string version", `{"schema_version": "1"}`, `schema_version "1" is not an integer`},
		{"truncated", "{\n \"schema_version\": 1,\n \"kind\": \"fi", "invalid rigor JSON at line 3: unexpected end of JSON input"},
		{"wrong type", "{\"schema_version\": 1,\n\"benchmarks\": [{\"name\": 5}]}", "invalid rigor JSON at line 2: json: cannot unmarshal number into Go struct field Benchmark.benchmarks.name of type string"},
		{"huge value", `{"schema_version": 1, "sides":[{"label":"a"}], "benchmarks":[{"name":"A","metrics":[{"unit":"x","better":-1,"samples":[{"side":"a","value":1e999}]}]}]}`, "invalid rigor JSON at line 1"},
		{"unlabelled side", `{"schema_version": 1, "sides":[{"source":"x"}]}`, "sides[0] has no label"},
		{"duplicate side", `{"schema_version": 1, "sides":[{"label":"a"},{"label":"a"}]}`, `side label "a" appears twice`},
		{"duplicate benchmark", `{"schema_version": 1, "benchmarks":[{"name":"A","pkg":"p"},{"name":"A","pkg":"p"}]}`, "benchmark p.A appears twice"},
		{"unknown side", `{"schema_version": 1, "sides":[{"label":"a"}], "benchmarks":[{"name":"A","metrics":[{"unit":"x","better":-1,"samples":[{"side":"b"}]}]}]}`, `benchmark A, unit "x": samples[0]: side "b" is not one of the run's sides`},
		{"untidied unit", `{"schema_version": 1, "benchmarks":[{"name":"A","metrics":[{"unit":"ns/op","better":-1}]}]}`, `unit is not tidied (want "sec/op")`},
		{"better", `{"schema_version": 1, "benchmarks":[{"name":"A","metrics":[{"unit":"x","better":2}]}]}`, "better is 2"},
		{"assume", `{"schema_version": 1, "benchmarks":[{"name":"A","metrics":[{"unit":"x","better":1,"assume":"normal"}]}]}`, `assume is "normal"`},
		{"duplicate unit", `{"schema_version": 1, "benchmarks":[{"name":"A","metrics":[{"unit":"x"},{"unit":"x"}]}]}`, "unit appears twice"},
		{"missing on unknown side", `{"schema_version": 1, "sides":[{"label":"a"}], "benchmarks":[{"name":"A","missing":{"b":{"kind":"failed"}}}]}`, `benchmark A: missing: side "b" is not one of the run's sides`},
		{"missing kind", `{"schema_version": 1, "sides":[{"label":"a"}], "benchmarks":[{"name":"A","missing":{"a":{"kind":"crashed"}}}]}`, `benchmark A: missing on a: kind is "crashed"`},
		{"negative iters", `{"schema_version": 1, "sides":[{"label":"a"}], "benchmarks":[{"name":"A","metrics":[{"unit":"x","samples":[{"side":"a","iters":-1}]}]}]}`, "iters -1 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadJSON(strings.NewReader(tt.in))
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("error = %q, want one line containing %q", msg, tt.want)
			}
		})
	}
}

func TestReadJSONDefaults(t *testing.T) {
	// Better may be absent (0): it means the unit's default. Unknown
	// fields, as a newer writer of the same version may add, are ignored.
	in := `{"schema_version": 1, "future_field": {"x": 1}, "sides":[{"label":"a"}],
	  "benchmarks":[{"name":"A","metrics":[{"unit":"B/s","samples":[{"side":"a","iters":3,"value":2}]},{"unit":"B/op"}]}]}`
	run, err := ReadJSON(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if b := run.Benchmarks[0]; b.Metrics[0].Better != HigherIsBetter || b.Metrics[1].Better != LowerIsBetter {
		t.Errorf("better = %d, %d; want %d, %d", b.Metrics[0].Better, b.Metrics[1].Better, HigherIsBetter, LowerIsBetter)
	}
}

func TestWriteJSONRefusesInvalid(t *testing.T) {
	run := &Run{Sides: []Side{{Label: "a"}, {Label: "a"}}}
	if err := run.WriteJSON(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), `side label "a" appears twice`) {
		t.Errorf("error = %v", err)
	}
	if run.SchemaVersion != 0 {
		t.Error("WriteJSON changed its receiver")
	}
}

func TestDefaultBetter(t *testing.T) {
	tests := []struct {
		unit string
		want int
	}{
		{"sec/op", LowerIsBetter}, {"B/op", LowerIsBetter}, {"allocs/op", LowerIsBetter},
		{"B/s", HigherIsBetter}, {"ops/s", HigherIsBetter}, {"items/op", LowerIsBetter},
		{"sec/s", HigherIsBetter}, {"s", LowerIsBetter},
	}
	for _, tt := range tests {
		if got := DefaultBetter(tt.unit); got != tt.want {
			t.Errorf("DefaultBetter(%q) = %d, want %d", tt.unit, got, tt.want)
		}
	}
}

// TestSchemaDocExample checks that the example in docs/schema.md is what
// reading seed 003's files gives, abbreviated.
func TestSchemaDocExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/schema.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```json\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no JSON example in docs/schema.md")
	}
	got, err := ReadJSON(strings.NewReader(example))
	if err != nil {
		t.Fatalf("the documented example does not read: %v", err)
	}
	base, err := ReadFile("../testdata/seed003/base.txt", "base")
	if err != nil {
		t.Fatal(err)
	}
	opt, err := ReadFile("../testdata/seed003/optimized.txt", "optimized")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Merge(base, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Abbreviate as the document does: the first sample of each side.
	for i := range want.Benchmarks[0].Metrics {
		m := &want.Benchmarks[0].Metrics[i]
		m.Samples = []Sample{m.Samples[0], m.Samples[12]}
	}
	want.Sides[0].Source = "testdata/seed003/base.txt"
	want.Sides[1].Source = "testdata/seed003/optimized.txt"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("docs/schema.md example differs from the real run\n got %+v\nwant %+v", got, want)
	}
}
