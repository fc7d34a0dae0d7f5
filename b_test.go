package rigor

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// quick is a configuration for tests: no warm-up to speak of, two rounds.
func quick() Config {
	return Config{WarmUp: -1, Budget: time.Millisecond, MinRounds: 2, MaxRounds: 2, Precision: -1}
}

func TestIterRunsEveryIteration(t *testing.T) {
	r := newRunner(quick().withDefaults(), 1)
	calls := 0
	b := &B{r: r, iters: 37}
	Iter(b, func() int { calls++; return calls })
	if calls != 37 || b.windows != 1 || b.loops != 1 || b.err != nil {
		t.Errorf("calls %d, windows %d, loops %d, err %v; want 37, 1, 1, nil", calls, b.windows, b.loops, b.err)
	}
	if b.shape == nil || b.shape.name != "func() int" {
		t.Errorf("shape = %v, want func() int", b.shape)
	}
	calls = 0
	b = &B{r: r, iters: 5}
	b.Iter(func() { calls++ })
	if calls != 5 {
		t.Errorf("B.Iter: %d calls, want 5", calls)
	}
}

func TestIterWithSetup(t *testing.T) {
	r := newRunner(quick().withDefaults(), 1)
	for _, tt := range []struct {
		size    BatchSize
		iters   int
		windows int
	}{
		{SmallInput, 95, 10}, // 10 per batch: 9 full batches and one of 5
		{PerIteration, 7, 7},
		{NumIterations(50), 120, 3},
		{NumBatches(4), 10, 4}, // 3, 3, 3, 1
	} {
		setups, routines := 0, 0
		seen := map[int]bool{}
		b := &B{r: r, iters: tt.iters}
		b.SetBatchSize(tt.size)
		IterWithSetup(b, func() int { setups++; return setups }, func(in int) int {
			routines++
			if seen[in] {
				t.Errorf("input %d given to routine twice", in)
			}
			seen[in] = true
			return in
		})
		if setups != tt.iters || routines != tt.iters || b.windows != tt.windows {
			t.Errorf("batch %d, %d iters: %d setups, %d routines, %d windows; want %d, %d, %d",
				tt.size, tt.iters, setups, routines, b.windows, tt.iters, tt.iters, tt.windows)
		}
	}
}

func TestIterCustom(t *testing.T) {
	r := newRunner(quick().withDefaults(), 1)
	b := &B{r: r, iters: 12}
	got := 0
	b.IterCustom(func(n int) time.Duration { got = n; return 3 * time.Millisecond })
	if got != 12 || b.timed != 3*time.Millisecond || !b.custom || b.shape != nil {
		t.Errorf("IterCustom: saw %d iters, timed %v, custom %v; want 12, 3ms, true", got, b.timed, b.custom)
	}
	b = &B{r: r, iters: 1}
	b.IterCustom(func(int) time.Duration { return -1 })
	if b.err == nil {
		t.Error("a negative duration was accepted")
	}
}

func TestMisuse(t *testing.T) {
	tests := []struct {
		name string
		add  func(g *Group)
		want string
	}{
		{"no loop", func(g *Group) { g.Bench("a", func(b *B) {}) }, "did not call a timing loop"},
		{"two loops", func(g *Group) {
			g.Bench("a", func(b *B) { b.Iter(func() {}); b.Iter(func() {}) })
		}, "more than one timing loop"},
		{"parallel setup", func(g *Group) {
			g.BenchParallel("a", 2, func(b *B) { IterWithSetup(b, func() int { return 1 }, func(int) int { return 1 }) })
		}, "parallel variants must use Iter"},
		{"parallel no loop", func(g *Group) { g.BenchParallel("a", 3, func(b *B) {}) }, "did not call a timing loop"},
		{"zero goroutines", func(g *Group) { g.BenchParallel("a", 0, func(b *B) { b.Iter(func() {}) }) }, "goroutines"},
		{"duplicate", func(g *Group) {
			g.Bench("a", func(b *B) { b.Iter(func() {}) })
			g.Bench("a", func(b *B) { b.Iter(func() {}) })
		}, "added twice"},
		{"empty name", func(g *Group) { g.Bench("/size=1", func(b *B) { b.Iter(func() {}) }) }, "empty name"},
		{"nil func", func(g *Group) { g.Bench("a", nil) }, "nil function"},
		{"no variants", func(g *Group) {}, "no variants"},
		{"unknown baseline", func(g *Group) {
			g.Bench("a", func(b *B) { b.Iter(func() {}) })
			g.Baseline("b")
		}, "not a variant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGroup("misuse")
			g.Config = quick()
			tt.add(g)
			_, err := g.Measure(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Measure error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestCanceled(t *testing.T) {
	g := NewGroup("cancel")
	g.Config = quick()
	g.Bench("a", func(b *B) { b.Iter(func() {}) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Measure(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Measure on a canceled context: %v, want context.Canceled", err)
	}
}

// TestParallelStartsTogether: a parallel sample's goroutines start their
// loops together. Each goroutine counts itself in before its timing loop,
// the last one late; every call of the loop's function then sees a whole
// number of samples' worth of goroutines counted in, since the loops of a
// sample start only when all of its goroutines have arrived, and the next
// sample starts only when all of them have finished.
func TestParallelStartsTogether(t *testing.T) {
	const goroutines = 3
	var mu sync.Mutex
	ids := map[int]int{}
	var arrived, calls, early atomic.Int64
	g := NewGroup("par")
	g.Config = quick()
	g.BenchParallel("p", goroutines, func(b *B) {
		mu.Lock()
		ids[b.Goroutine()]++
		mu.Unlock()
		if b.Goroutine() == goroutines-1 {
			time.Sleep(time.Millisecond) // arrives last, well after the others
		}
		arrived.Add(1)
		b.Iter(func() {
			if arrived.Load()%goroutines != 0 {
				early.Add(1)
			}
			calls.Add(1)
		})
	})
	run, err := g.Measure(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := early.Load(); n > 0 {
		t.Errorf("%d calls ran before every goroutine of their sample reached its loop", n)
	}
	if len(ids) != goroutines {
		t.Errorf("goroutine indexes %v, want 0..%d", ids, goroutines-1)
	}
	for id, n := range ids {
		if n != ids[0] {
			t.Errorf("goroutine %d ran %d samples, goroutine 0 ran %d", id, n, ids[0])
		}
	}
	// Every sample runs iters iterations on each goroutine.
	want := int64(0)
	for _, s := range run.Benchmarks[0].Metric(unitTime).Samples {
		want += goroutines * s.Iters
	}
	if got := calls.Load(); got < want {
		t.Errorf("%d calls, want at least %d (the rounds' iterations times %d goroutines)", got, want, goroutines)
	}
	if parseVariantList(run.Benchmarks[0].Config[configGoroutines])["p"] != "3" {
		t.Errorf("config %v does not record the goroutines", run.Benchmarks[0].Config)
	}
}

func TestAllocationCounts(t *testing.T) {
	g := NewGroup("alloc")
	g.Config = quick()
	g.Bench("none", func(b *B) { Iter(b, func() int { return 1 }) })
	g.Bench("one", func(b *B) { Iter(b, func() *[4]int64 { return new([4]int64) }) })
	g.Bench("setup", func(b *B) {
		// setup allocates, routine does not: only routine counts.
		IterWithSetup(b, func() []int { return make([]int, 64) }, func(v []int) int { return len(v) })
	})
	run, err := g.Measure(context.Background())
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
	g := NewGroup("shape")
	g.Config = quick()
	g.Config.MinRounds, g.Config.MaxRounds = 4, 4
	for _, size := range []string{"8", "64"} {
		g.Bench("a/size="+size, func(b *B) { b.SetBytes(8); Iter(b, func() int { return 1 }) })
		g.Subgroup("slow ones")
		g.Bench("b/size="+size, func(b *B) { Iter(b, func() int { return 2 }) })
		g.Subgroup("")
	}
	g.Baseline("b")
	run, err := g.Measure(context.Background())
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
	g := NewGroup("tp")
	g.Config = quick()
	g.Bytes(100)
	g.BenchParallel("p", 2, func(b *B) { Iter(b, func() int { return 1 }) })
	run, err := g.Measure(context.Background())
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
