package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// writeRun saves run as rigor JSON in a temporary file.
func writeRun(t *testing.T, run *model.Run) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "results.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := run.WriteJSON(f); err != nil {
		t.Fatal(err)
	}
	return path
}

// reportRun is a small paired run with a hostile sub-benchmark name.
func reportRun() *model.Run {
	run := &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindAB, Paired: true,
		Start: time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC), End: time.Date(2026, 3, 14, 9, 1, 0, 0, time.UTC),
		Sides: []model.Side{{Label: "old"}, {Label: "new"}}}
	b := model.Benchmark{Name: "Parse/<script>alert(1)</script>", Procs: 2, Pkg: "example.com/p"}
	m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
	for r := 1; r <= 10; r++ {
		jitter := float64(r%3) * 1e-9
		m.Samples = append(m.Samples,
			model.Sample{Side: "old", Round: r, Iters: 1000, Value: 100e-9 + jitter},
			model.Sample{Side: "new", Round: r, Iters: 1000, Value: 80e-9 + jitter})
	}
	b.Metrics = []model.Metric{m}
	run.Benchmarks = []model.Benchmark{b}
	return run
}

func TestReportHTML(t *testing.T) {
	in := writeRun(t, reportRun())
	out := filepath.Join(t.TempDir(), "report.html")
	stdout, stderr, code := rigor(t, "report", in, "--format", "html", "-o", out)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>rigor report: old vs new</title>", "Parse/&lt;script&gt;alert(1)&lt;/script&gt;-2", "improved", "Paired differences"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(string(page), "<script") {
		t.Error("report.html holds a script element")
	}
}

func TestReportFormatsAndGate(t *testing.T) {
	in := writeRun(t, reportRun())
	stdout, _, code := rigor(t, "report", in, "--format", "tree")
	// Per-round ratios (80+j)/(100+j) for j = 0, 1, 2 ns: about -19.8%.
	if code != 0 || !strings.Contains(stdout, "-19.8%") || !strings.Contains(stdout, "improved") {
		t.Errorf("tree: exit %d\n%s", code, stdout)
	}
	stdout, _, code = rigor(t, "report", in, "--format", "benchfmt")
	if code != 0 || !strings.Contains(stdout, "side: new") || !strings.Contains(stdout, "BenchmarkParse/<script>alert(1)</script>-2") {
		t.Errorf("benchfmt: exit %d\n%s", code, stdout)
	}
	// The gate is the shared verdict flags': an improvement passes, the
	// same run with the sides' roles swapped fails.
	if _, _, code = rigor(t, "report", in, "--format", "llm", "--max-regression", "5"); code != 0 {
		t.Errorf("gate on an improvement: exit %d, want 0", code)
	}
	swapped := reportRun()
	for i := range swapped.Benchmarks[0].Metrics[0].Samples {
		s := &swapped.Benchmarks[0].Metrics[0].Samples[i]
		s.Side = map[string]string{"old": "new", "new": "old"}[s.Side]
	}
	_, stderr, code := rigor(t, "report", writeRun(t, swapped), "--format", "llm", "--max-regression", "5")
	if code != 1 || !strings.Contains(stderr, "regressed") {
		t.Errorf("gate on a regression: exit %d, stderr %q, want exit 1", code, stderr)
	}
}

// TestReportCutShort: a run.json with a start and no end, as a killed
// run leaves it, is reported with a note that it was cut short and exit
// 2, as the interrupted run itself exits; the gate still exits 1 (issue
// 23 item 4: it said "improved", exit 0, with no word of it).
func TestReportCutShort(t *testing.T) {
	run := reportRun()
	run.End = time.Time{}
	in := writeRun(t, run)
	stdout, stderr, code := rigor(t, "report", in)
	if code != exitUsage || !strings.Contains(stdout, "it was cut short") || !strings.Contains(stderr, "partial results") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant exit 2 and the run said cut short", code, stderr, stdout)
	}
	for i := range run.Benchmarks[0].Metrics[0].Samples {
		s := &run.Benchmarks[0].Metrics[0].Samples[i]
		s.Side = map[string]string{"old": "new", "new": "old"}[s.Side]
	}
	if _, stderr, code := rigor(t, "report", writeRun(t, run), "--max-regression", "5"); code != exitGateFail {
		t.Errorf("cut short and regressed: exit %d, stderr %q; want the gate's 1", code, stderr)
	}
}

func TestReportRamp(t *testing.T) {
	ms := time.Millisecond
	run := &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindRamp, Sides: []model.Side{},
		Ramp: &model.Ramp{Target: "http://127.0.0.1:8080/", Protocol: "HTTP/1.1", Mode: model.RampClosed, CPUs: 2,
			Steps: []model.RampStep{
				{Index: 0, Concurrency: 1, Throughput: 100, Valid: true, Latency: model.Latency{P50: ms, P99: 2 * ms}},
				{Index: 1, Concurrency: 2, Throughput: 190, Valid: true, Latency: model.Latency{P50: ms, P99: 3 * ms}},
			}}}
	in := writeRun(t, run)
	stdout, stderr, code := rigor(t, "report", in, "--format", "html")
	if code != 0 || !strings.Contains(stdout, "<h2>Ramp</h2>") || !strings.Contains(stdout, "Throughput against load") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("{not json"), 0o644)
	for _, args := range [][]string{
		{"report"},
		{"report", filepath.Join(dir, "missing.json")},
		{"report", garbage},
		{"report", writeRun(t, reportRun()), "--format", "nope"},
	} {
		stdout, stderr, code := rigor(t, args...)
		if code != 2 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line", args, code, stdout, stderr)
		}
	}
}
