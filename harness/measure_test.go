package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// quick is a configuration for tests: no warm-up to speak of, two rounds.
func quick() rigor.Config {
	return rigor.Config{WarmUp: -1, Budget: time.Millisecond, MinRounds: 2, MaxRounds: 2, Precision: -1}
}

func TestCanceled(t *testing.T) {
	g := rigor.NewGroup("cancel")
	g.Config = quick()
	g.Bench("a", func(b *rigor.B) { b.Iter(func() {}) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Measure(ctx, g); !errors.Is(err, context.Canceled) {
		t.Errorf("Measure on a canceled context: %v, want context.Canceled", err)
	}
}

func TestAllocationCounts(t *testing.T) {
	g := rigor.NewGroup("alloc")
	g.Config = quick()
	g.Bench("none", func(b *rigor.B) { rigor.Iter(b, func() int { return 1 }) })
	g.Bench("one", func(b *rigor.B) { rigor.Iter(b, func() *[4]int64 { return new([4]int64) }) })
	g.Bench("setup", func(b *rigor.B) {
		// setup allocates, routine does not: only routine counts.
		rigor.IterWithSetup(b, func() []int { return make([]int, 64) }, func(v []int) int { return len(v) })
	})
	run, err := Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	bm := run.Benchmarks[0]
	check := func(unit, side string, want float64) {
		t.Helper()
		v := bm.Metric(unit).Values(side)
		if len(v) != allocRounds {
			t.Errorf("%s %s: %d samples, want %d", side, unit, len(v), allocRounds)
			return
		}
		// Other goroutines may allocate during a window, as in
		// testing.B; the median is robust to a stray one.
		if m := stats.Median(v); m != want {
			t.Errorf("%s %s: median %v (samples %v), want %v", side, unit, m, v, want)
		}
	}
	check(unitAllocs, "none", 0)
	check(unitBytes, "none", 0)
	check(unitAllocs, "one", 1)
	check(unitBytes, "one", 32)
	check(unitAllocs, "setup", 0)
	check(unitBytes, "setup", 0)
}

func TestMeasureStructure(t *testing.T) {
	g := rigor.NewGroup("shape")
	g.Config = quick()
	g.Config.MinRounds, g.Config.MaxRounds = 4, 4
	for _, size := range []string{"8", "64"} {
		// a does work enough to stay clear of the loop overhead, so its
		// throughput has samples: a sample at or below the overhead has none.
		g.Bench("a/size="+size, func(b *rigor.B) { b.SetBytes(8); rigor.Iter(b, func() int { return work(rigor.Opaque(100)) }) })
		g.Subgroup("slow ones")
		g.Bench("b/size="+size, func(b *rigor.B) { rigor.Iter(b, func() int { return 2 }) })
		g.Subgroup("")
	}
	g.Baseline("b")
	run, err := Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	if run.Kind != model.KindHarness || !run.Paired {
		t.Errorf("kind %q paired %v, want harness, true", run.Kind, run.Paired)
	}
	if len(run.Sides) != 2 || run.Sides[0].Label != "b" || run.Sides[1].Label != "a" {
		t.Errorf("sides %v, want b (the baseline) then a", run.Sides)
	}
	if len(run.Benchmarks) != 2 || run.Benchmarks[0].Name != "shape/size=8" || run.Benchmarks[1].Name != "shape/size=64" {
		t.Fatalf("benchmarks %v, want shape/size=8 and shape/size=64", names(run))
	}
	if run.Sides[0].Subgroup != "slow ones" || run.Sides[1].Subgroup != "" {
		t.Errorf("sides %+v: want b, and b only, in subgroup \"slow ones\"", run.Sides)
	}
	for _, bm := range run.Benchmarks {
		if bm.Group != "shape" {
			t.Errorf("%s: group %q", bm.Name, bm.Group)
		}
		sec := bm.Metric(unitTime)
		// Every round has one sample of each variant.
		rounds := map[int][]string{}
		for _, s := range sec.Samples {
			rounds[s.Round] = append(rounds[s.Round], s.Side)
			if s.Value < 0 {
				t.Errorf("%s: negative time %v", bm.Name, s.Value)
			}
		}
		if len(rounds) != 4 {
			t.Errorf("%s: %d rounds, want 4", bm.Name, len(rounds))
		}
		for k, sides := range rounds {
			if len(sides) != 2 {
				t.Errorf("%s round %d: sides %v, want one sample of each", bm.Name, k, sides)
			}
		}
		tp := bm.Metric("B/s")
		if tp == nil || tp.Better != model.HigherIsBetter {
			t.Fatalf("%s: no B/s metric (a calls SetBytes)", bm.Name)
		}
		for _, s := range tp.Samples {
			if s.Side != "a" {
				t.Errorf("%s: B/s sample for %s, which set no throughput", bm.Name, s.Side)
			}
		}
	}
}

func names(run *model.Run) []string {
	var n []string
	for _, b := range run.Benchmarks {
		n = append(n, b.Name)
	}
	return n
}

// Throughput of a parallel variant counts every goroutine: each sample's
// B/s is bytes per call × goroutines × iterations / time.
func TestParallelThroughput(t *testing.T) {
	g := rigor.NewGroup("tp")
	g.Config = quick()
	g.Bytes(100)
	g.BenchParallel("p", 2, func(b *rigor.B) { rigor.Iter(b, func() int { return 1 }) })
	run, err := Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	bm := run.Benchmarks[0]
	sec, tp := bm.Metric(unitTime), bm.Metric("B/s")
	if tp == nil {
		t.Fatal("no B/s metric")
	}
	rate := map[int]float64{}
	for _, s := range tp.Samples {
		rate[s.Round] = s.Value
	}
	for _, s := range sec.Samples {
		if s.Value == 0 {
			continue
		}
		want := 100 * 2 / s.Value
		if got := rate[s.Round]; got < want*0.999 || got > want*1.001 {
			t.Errorf("round %d: %v B/s, want 100 B × 2 goroutines / %v s = %v", s.Round, got, s.Value, want)
		}
	}
}

func TestPasses(t *testing.T) {
	g := rigor.NewGroup("passes")
	g.Config = quick()
	g.Config.Passes, g.Config.Policy = 3, rigor.Median
	g.Bench("a", func(b *rigor.B) { rigor.Iter(b, func() int { return 1 }) })
	g.Bench("b", func(b *rigor.B) { rigor.Iter(b, func() int { return 2 }) })
	run, err := Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	if !hasPrefix(model.Texts(run.Benchmarks[0].Notes), "median of 3 passes") {
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
	g := rigor.NewGroup("procs")
	g.Config = quick()
	g.Config.Processes, g.Config.Policy = 2, rigor.Best
	g.Bench("a", func(b *rigor.B) { rigor.Iter(b, func() int { return 1 }) })
	m, err := measure(context.Background(), g, g.Config, []string{"-test.run=^TestProcesses$", "-test.count=1"}, dir, newFileRegistry())
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
	if js, err := model.ReadFile(filepath.Join(dir, experiment.RunFile), ""); err != nil || !hasPrefix(model.Texts(js.Benchmarks[0].Notes), "best of 2 processes") {
		t.Errorf("run.json after the processes: %v, want the best of the two", err)
	}
	run := m.run
	if len(m.passes) != 2 {
		t.Errorf("%d passes, want one from each process", len(m.passes))
	}
	if !hasPrefix(model.Texts(run.Benchmarks[0].Notes), "best of 2 processes") {
		t.Errorf("notes %q do not say which process was kept", run.Benchmarks[0].Notes)
	}
	if len(run.Benchmarks[0].Metric(unitTime).Values("a")) != 2 {
		t.Errorf("kept %d rounds, want the 2 of one process", len(run.Benchmarks[0].Metric(unitTime).Values("a")))
	}
}

// TestCPUClock: every timed sample carries the process's CPU time beside
// its wall time; a variant that sleeps spends little of its wall time on
// the CPU, one that computes nearly all of it.
func TestCPUClock(t *testing.T) {
	g := rigor.NewGroup("clock")
	g.Config.WarmUp, g.Config.Budget, g.Config.MinRounds, g.Config.MaxRounds = -1, 0, 6, 6
	g.Bench("spin", func(b *rigor.B) {
		rigor.Iter(b, func() int {
			x := 0
			for i := range 20000 {
				x += i * i
			}
			return x
		})
	})
	g.Bench("sleep", func(b *rigor.B) { b.Iter(func() { time.Sleep(50 * time.Microsecond) }) })
	run, err := Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	bm := run.Benchmarks[0]
	wall, cpu := bm.Metric(unitTime), bm.Metric(unitCPU)
	if cpu == nil {
		t.Fatalf("no %s among %d metrics", unitCPU, len(bm.Metrics))
	}
	if len(cpu.Samples) != len(wall.Samples) {
		t.Fatalf("%d CPU samples for %d wall samples", len(cpu.Samples), len(wall.Samples))
	}
	for _, s := range cpu.Samples {
		if !(s.Value >= 0) {
			t.Errorf("negative or NaN CPU time %v", s.Value)
		}
	}
	if testing.Short() {
		return // the shares below time the live machine
	}
	share := func(side string) float64 {
		return stats.Median(cpu.Values(side)) / stats.Median(wall.Values(side))
	}
	// A sleep of 50 µs costs a few µs of CPU: well under half; the loop
	// keeps the CPU busy, less what other processes take from it.
	if s := share("sleep"); s > 0.5 {
		t.Errorf("sleep: CPU time %.0f%% of wall time, want under 50%%", 100*s)
	}
	if s := share("spin"); s < 0.5 {
		t.Errorf("spin: CPU time %.0f%% of wall time, want over 50%%", 100*s)
	}
}

// work is some tens of nanoseconds of arithmetic for n = 100.
func work(n int) int {
	x := 0
	for i := range n {
		x += i * i
	}
	return x
}
