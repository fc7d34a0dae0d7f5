package rigor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// pass builds a one-benchmark run whose variants a and b took the given
// sec/op in each of their rounds.
func pass(a, b []float64) *model.Run {
	m := model.Metric{Unit: unitTime, Better: model.LowerIsBetter}
	for i := range a {
		m.Samples = append(m.Samples,
			model.Sample{Side: "a", Round: i + 1, Iters: 10, Value: a[i]},
			model.Sample{Side: "b", Round: i + 1, Iters: 10, Value: b[i]})
	}
	return &model.Run{
		Kind: model.KindHarness, Paired: true,
		Sides:      []model.Side{{Label: "a"}, {Label: "b"}},
		Benchmarks: []model.Benchmark{{Name: "g", Group: "g", Metrics: []model.Metric{m}}},
		Notes:      []string{"timer"},
	}
}

func TestCombine(t *testing.T) {
	passes := []*model.Run{
		pass([]float64{3, 3, 3}, []float64{6, 6, 6}), // score log 18
		pass([]float64{1, 1, 1}, []float64{2, 2, 2}), // the fastest
		pass([]float64{2, 2, 2}, []float64{4, 4, 4}), // the median
	}
	for _, tt := range []struct {
		policy Policy
		want   float64 // a's values in the kept pass
		note   string
	}{
		{Best, 1, "best of 3 passes: kept number 2"},
		{Median, 2, "median of 3 passes: kept number 3"},
	} {
		run := combine(passes, tt.policy, false)
		bm := run.Benchmarks[0]
		for _, v := range bm.Metric(unitTime).Values("a") {
			if v != tt.want {
				t.Errorf("%s: a's values %v, want all %v", tt.policy, bm.Metric(unitTime).Values("a"), tt.want)
				break
			}
		}
		if !hasPrefix(bm.Notes, tt.note) {
			t.Errorf("%s: notes %q, want one starting %q", tt.policy, bm.Notes, tt.note)
		}
		if len(run.Notes) != 1 {
			t.Errorf("%s: run notes %q, want the shared one once", tt.policy, run.Notes)
		}
	}
	// Mean pools every pass, rounds renumbered 1..9, pairs kept.
	run := combine(passes, Mean, true)
	m := run.Benchmarks[0].Metric(unitTime)
	if len(m.Samples) != 18 {
		t.Fatalf("mean: %d samples, want 18", len(m.Samples))
	}
	rounds := map[int]map[string]float64{}
	for _, s := range m.Samples {
		if rounds[s.Round] == nil {
			rounds[s.Round] = map[string]float64{}
		}
		rounds[s.Round][s.Side] = s.Value
	}
	if len(rounds) != 9 {
		t.Errorf("mean: %d distinct rounds, want 9", len(rounds))
	}
	for k, r := range rounds {
		if r["b"] != 2*r["a"] {
			t.Errorf("mean: round %d pairs a=%v with b=%v, want b = 2a", k, r["a"], r["b"])
		}
	}
	if !hasPrefix(run.Benchmarks[0].Notes, "mean of 3 processes") {
		t.Errorf("mean: notes %q", run.Benchmarks[0].Notes)
	}
}

func hasPrefix(notes []string, prefix string) bool {
	for _, n := range notes {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

func TestPasses(t *testing.T) {
	g := NewGroup("passes")
	g.Config = quick()
	g.Config.Passes, g.Config.Policy = 3, Median
	g.Bench("a", func(b *B) { Iter(b, func() int { return 1 }) })
	g.Bench("b", func(b *B) { Iter(b, func() int { return 2 }) })
	run, err := g.Measure(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !hasPrefix(run.Benchmarks[0].Notes, "median of 3 passes") {
		t.Errorf("notes %q do not say which pass was kept", run.Benchmarks[0].Notes)
	}
}

// TestProcesses re-executes this test binary twice: each child runs this
// test, sees it is a child, measures, streams its rounds into the results
// directory and writes its passes; the parent keeps the best process and
// writes run.json.
func TestProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two processes")
	}
	// The children inherit the parent's environment, so they find the
	// parent's results directory there.
	const envDir = "RIGOR_TEST_PROCESSES_OUT"
	dir := os.Getenv(envDir)
	if dir == "" {
		dir = t.TempDir()
		t.Setenv(envDir, dir)
	}
	g := NewGroup("procs")
	g.Config = quick()
	g.Config.Processes, g.Config.Policy = 2, Best
	g.Bench("a", func(b *B) { Iter(b, func() int { return 1 }) })
	m, err := g.measure(context.Background(), g.Config, []string{"-test.run=^TestProcesses$", "-test.count=1"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.child {
		return // the child's part ends here
	}
	// Both children appended their 2 rounds to the file the parent
	// started; run.json combines them.
	f, err := model.ReadFile(filepath.Join(dir, "a.txt"), "a")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.Benchmarks[0].Metric(unitTime).Values("a")); n != 4 {
		t.Errorf("a.txt holds %d rounds, want the 2 of each process", n)
	}
	if js, err := model.ReadFile(filepath.Join(dir, runFile), ""); err != nil || !hasPrefix(js.Benchmarks[0].Notes, "best of 2 processes") {
		t.Errorf("run.json after the processes: %v, want the best of the two", err)
	}
	run := m.run
	if len(m.passes) != 2 {
		t.Errorf("%d passes, want one from each process", len(m.passes))
	}
	if !hasPrefix(run.Benchmarks[0].Notes, "best of 2 processes") {
		t.Errorf("notes %q do not say which process was kept", run.Benchmarks[0].Notes)
	}
	if len(run.Benchmarks[0].Metric(unitTime).Values("a")) != 2 {
		t.Errorf("kept %d rounds, want the 2 of one process", len(run.Benchmarks[0].Metric(unitTime).Values("a")))
	}
}

func TestChildArgs(t *testing.T) {
	args := childTestArgs("BenchmarkX/a+b")
	tail := strings.Join(args[len(args)-5:], " ")
	for _, want := range []string{"-test.run=^$", `-test.bench=^BenchmarkX$/^a\+b$`, "-test.benchtime=1x", "-test.count=1", "-test.cpu="} {
		if !strings.Contains(tail, want) {
			t.Errorf("child args %q lack %q", tail, want)
		}
	}
}

// TestRunKeepsConfig: the -rigor.* flags change how a group is measured,
// not the caller's Group: its Config is the same after the run.
func TestRunKeepsConfig(t *testing.T) {
	saved := opts
	opts = &options{maxRegression: -1, format: "text", budget: 2 * time.Millisecond, passes: 2, policy: "best"}
	defer func() { opts = saved }()
	g := NewGroup("keep")
	g.Config = quick()
	g.Bench("a", func(b *B) { Iter(b, func() int { return 1 }) })
	want := g.Config
	if _, err := mainGroup(context.Background(), &bytes.Buffer{}, g); err != nil {
		t.Fatal(err)
	}
	if g.Config != want {
		t.Errorf("the run changed the group's Config:\n got %+v\nwant %+v", g.Config, want)
	}
}
