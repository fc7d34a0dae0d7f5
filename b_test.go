package rigor

import (
	"math"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// quick is a configuration for tests: no warm-up to speak of, two rounds.
func quick() Config {
	return Config{WarmUp: -1, Budget: time.Millisecond, MinRounds: 2, MaxRounds: 2, Precision: -1}
}

// testSampler returns a sampler of no group, for B's loops alone, with a
// clock of 50ns resolution.
func testSampler() *Sampler {
	s := &Sampler{cfg: quick().withDefaults(), ms: newMetricSamples()}
	s.Reset(Clock{Resolution: 50 * time.Nanosecond, Window: 50 * time.Nanosecond})
	return s
}

// sampler returns a sampler of g, with the clock measured.
func sampler(t *testing.T, g *Group) *Sampler {
	t.Helper()
	s, err := NewSampler(g, g.Config)
	if err != nil {
		t.Fatal(err)
	}
	s.Reset(MeasureClock())
	return s
}

func TestIterRunsEveryIteration(t *testing.T) {
	s := testSampler()
	calls := 0
	b := &B{s: s, iters: 37}
	Iter(b, func() int { calls++; return calls })
	if calls != 37 || b.windows != 1 || b.loops != 1 || b.err != nil {
		t.Errorf("calls %d, windows %d, loops %d, err %v; want 37, 1, 1, nil", calls, b.windows, b.loops, b.err)
	}
	if b.shape == nil || b.shape.name != "func() int" {
		t.Errorf("shape = %v, want func() int", b.shape)
	}
	calls = 0
	b = &B{s: s, iters: 5}
	b.Iter(func() { calls++ })
	if calls != 5 {
		t.Errorf("B.Iter: %d calls, want 5", calls)
	}
}

func TestIterWithSetup(t *testing.T) {
	s := testSampler()
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
		b := &B{s: s, iters: tt.iters}
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
	s := testSampler()
	b := &B{s: s, iters: 12}
	got := 0
	b.IterCustom(func(n int) time.Duration { got = n; return 3 * time.Millisecond })
	if got != 12 || b.timed != 3*time.Millisecond || !b.custom || b.shape != nil {
		t.Errorf("IterCustom: saw %d iters, timed %v, custom %v; want 12, 3ms, true", got, b.timed, b.custom)
	}
	b = &B{s: s, iters: 1}
	b.IterCustom(func(int) time.Duration { return -1 })
	if b.err == nil {
		t.Error("a negative duration was accepted")
	}
}

// TestMisuse: a group that cannot be measured is refused by NewSampler,
// and a variant that misuses B fails its sample, each with an error that
// says what is wrong.
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
		{"negative custom time", func(g *Group) {
			g.Bench("a", func(b *B) { b.IterCustom(func(int) time.Duration { return -1 }) })
		}, "negative duration"},
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
		{"two subgroups", func(g *Group) {
			g.Bench("a/n=1", func(b *B) { Iter(b, func() int { return 1 }) })
			g.Subgroup("s")
			g.Bench("a/n=2", func(b *B) { Iter(b, func() int { return 1 }) })
		}, "subgroup"},
		{"bad config", func(g *Group) {
			g.Bench("a", func(b *B) { b.Iter(func() {}) })
			g.Config.MinRounds = 1
		}, "min rounds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGroup("misuse")
			g.Config = quick()
			tt.add(g)
			s, err := NewSampler(g, g.Config)
			if err == nil {
				s.Reset(Clock{})
				for i := range s.Cells() {
					if _, err = s.Sample(i, 3, false); err != nil {
						break
					}
				}
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

// TestParallelStartsTogether: a parallel sample's goroutines start their
// loops together. Each goroutine counts itself in before its timing loop,
// the last one late; every call of the loop's function then sees a whole
// number of samples' worth of goroutines counted in, since the loops of a
// sample start only when all of its goroutines have arrived, and the next
// sample starts only when all of them have finished.
func TestParallelStartsTogether(t *testing.T) {
	const goroutines, iters = 3, 50
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
	s := sampler(t, g)
	const samples = 5
	for k := range samples {
		x, err := s.Sample(0, iters, k == samples-1)
		if err != nil {
			t.Fatal(err)
		}
		if x.Goroutines != goroutines || x.Iters != iters || x.Windows != 1 {
			t.Errorf("sample %d: %d goroutines, %d iterations, %d windows; want %d, %d, 1", k, x.Goroutines, x.Iters, x.Windows, goroutines, iters)
		}
	}
	if n := early.Load(); n > 0 {
		t.Errorf("%d calls ran before every goroutine of their sample reached its loop", n)
	}
	if len(ids) != goroutines {
		t.Errorf("goroutine indexes %v, want 0..%d", ids, goroutines-1)
	}
	for id, n := range ids {
		if n != samples {
			t.Errorf("goroutine %d ran %d samples, want %d", id, n, samples)
		}
	}
	if got, want := calls.Load(), int64(samples*goroutines*iters); got != want {
		t.Errorf("%d calls, want %d samples × %d goroutines × %d iterations = %d", got, samples, goroutines, iters, want)
	}
}

// TestSample: what one sample reports, for each kind of loop.
func TestSample(t *testing.T) {
	g := NewGroup("sample")
	g.Config = quick()
	g.Bytes(100)
	g.Bench("iter", func(b *B) { Iter(b, func() int { return 1 }) })
	g.Bench("elems", func(b *B) { b.SetElements(3); b.Iter(func() {}) })
	g.Bench("custom", func(b *B) {
		b.IterCustom(func(n int) time.Duration { return time.Duration(n) * time.Microsecond })
	})
	g.Bench("iter2", func(b *B) { Iter(b, func() int { return 2 }) })
	s := sampler(t, g)
	var loops []int
	for i := range s.Cells() {
		x, err := s.Sample(i, 40, false)
		if err != nil {
			t.Fatal(err)
		}
		loops = append(loops, x.Loop)
		if x.Iters != 40 || x.Goroutines != 1 || x.Windows != 1 || !(x.Timed >= 0) || (!x.Custom && x.Wall < x.Timed) {
			t.Errorf("cell %d: %+v", i, x)
		}
		if math.IsNaN(x.CPU) != (x.Custom || !cpuReported()) {
			t.Errorf("cell %d: CPU %v with custom %v", i, x.CPU, x.Custom)
		}
	}
	// Iter's two variants share a loop shape, B.Iter has its own;
	// IterCustom has none.
	if loops[0] < 1 || loops[1] < 1 || loops[1] == loops[0] || loops[2] != 0 || loops[3] != loops[0] {
		t.Errorf("loops %v, want [a b 0 a] with a ≠ b both above 0", loops)
	}
	x, _ := s.Sample(2, 40, false)
	if !x.Custom || x.Timed != 40e-6 {
		t.Errorf("custom sample: custom %v, timed %v; want true, 40µs", x.Custom, x.Timed)
	}
	x, _ = s.Sample(0, 40, false)
	if x.Throughput != 100 || x.ThroughputUnit != "B/s" {
		t.Errorf("the group's throughput: %v %q, want 100 B/s", x.Throughput, x.ThroughputUnit)
	}
	x, _ = s.Sample(1, 40, false)
	if x.Throughput != 3 || x.ThroughputUnit != "elems/s" {
		t.Errorf("SetElements: %v %q, want 3 elems/s", x.Throughput, x.ThroughputUnit)
	}
	if ov := s.FirstLoopOverhead(loops[0]); !(ov >= 0) {
		t.Errorf("first loop overhead %v", ov)
	}
	if ov := s.LoopOverhead(loops[0], 1000); !(ov >= 0) {
		t.Errorf("loop overhead %v", ov)
	}
}

func cpuReported() bool {
	_, ok := processCPU()
	return ok
}

// TestSampleCountsAllocations: a counting sample's allocations are those
// of the timed windows, exactly (the least of three samples, since other
// goroutines may allocate meanwhile).
func TestSampleCountsAllocations(t *testing.T) {
	g := NewGroup("alloc")
	g.Config = quick()
	g.Bench("none", func(b *B) { Iter(b, func() int { return 1 }) })
	g.Bench("one", func(b *B) { Iter(b, func() *[4]int64 { return new([4]int64) }) })
	g.Bench("setup", func(b *B) {
		// setup allocates, routine does not: only routine counts.
		IterWithSetup(b, func() []int { return make([]int, 64) }, func(v []int) int { return len(v) })
	})
	g.BenchParallel("par", 2, func(b *B) { Iter(b, func() *[4]int64 { return new([4]int64) }) })
	const n = 100
	s := sampler(t, g)
	for i, want := range []struct{ objects, bytes uint64 }{{0, 0}, {n, 32 * n}, {0, 0}, {2 * n, 2 * 32 * n}} {
		least := Sample{Objects: math.MaxUint64}
		for range 3 {
			x, err := s.Sample(i, n, true)
			if err != nil {
				t.Fatal(err)
			}
			if x.Objects < least.Objects {
				least = x
			}
		}
		if least.Objects != want.objects || least.Bytes != want.bytes {
			v, _, _ := s.Cell(i)
			t.Errorf("%s: %d objects, %d bytes over %d iterations; want %d, %d", v, least.Objects, least.Bytes, n, want.objects, want.bytes)
		}
	}
}

// TestReset: each pass measures its loop overheads afresh.
func TestReset(t *testing.T) {
	g := NewGroup("reset")
	g.Config = quick()
	g.Bench("a", func(b *B) { b.Iter(func() {}) })
	s := sampler(t, g)
	x, _ := s.Sample(0, 10, false)
	s.Reset(MeasureClock())
	if len(s.shapes) != 0 {
		t.Errorf("%d loop shapes kept after Reset", len(s.shapes))
	}
	y, _ := s.Sample(0, 10, false)
	if x.Loop != 1 || y.Loop != 1 {
		t.Errorf("loops %d and %d, want 1 in each pass", x.Loop, y.Loop)
	}
}

func TestSides(t *testing.T) {
	g := NewGroup("g")
	g.Bench("a/n=1", func(b *B) { b.Iter(func() {}) })
	g.Subgroup("slow")
	g.Bench("b/n=1", func(b *B) { b.Iter(func() {}) })
	g.Subgroup("")
	g.BenchParallel("c/n=2", 2, func(b *B) { b.Iter(func() {}) })
	g.Baseline("b")
	s, err := NewSampler(g, g.Config)
	if err != nil {
		t.Fatal(err)
	}
	var sides []string
	for _, sd := range s.Sides() {
		sides = append(sides, sd.Label+":"+sd.Subgroup)
	}
	if want := []string{"b:slow", "a:", "c:"}; !reflect.DeepEqual(sides, want) {
		t.Errorf("sides %q, want %q (the baseline first)", sides, want)
	}
	if v, p, n := s.Cell(2); v != "c" || p != "n=2" || n != 2 || s.Cells() != 3 {
		t.Errorf("cell 2 is %q %q %d of %d, want c n=2 2 of 3", v, p, n, s.Cells())
	}
}

func TestScalingCounts(t *testing.T) {
	tests := map[int][]int{1: {1}, 2: {1, 2}, 3: {1, 2, 3}, 6: {1, 2, 4, 6}, 8: {1, 2, 4, 8}}
	for procs, want := range tests {
		if got := scalingCounts(procs); !reflect.DeepEqual(got, want) {
			t.Errorf("scalingCounts(%d) = %v, want %v", procs, got, want)
		}
	}
}

// ReportMetric's values reach the sample as given (a per-operation unit is
// the caller's division, as in testing.B), the last call for a unit wins,
// a parallel sample's value is the mean of its goroutines', and the
// harness's own units are refused.
func TestReportMetric(t *testing.T) {
	g := NewGroup("report")
	g.Config = quick()
	g.Bench("custom", func(b *B) {
		// A custom measurement: IterCustom's function counts on its
		// own clock (here 3 ticks and 2 µs an iteration).
		ticks := 0
		b.IterCustom(func(n int) time.Duration {
			ticks = 3 * n
			return time.Duration(n) * 2 * time.Microsecond
		})
		b.ReportMetric(float64(ticks)/float64(b.Iters()), "ticks/op")
		b.ReportMetric(float64(ticks), "ticks")
		b.ReportMetric(1, "files")
		b.ReportMetric(2, "files")
	})
	g.BenchParallel("parallel", 4, func(b *B) {
		b.Iter(func() {})
		b.ReportMetric(float64(b.Goroutine()), "goroutine")
		if b.Goroutine() == 3 {
			b.ReportMetric(7, "last")
		}
	})
	g.Bench("none", func(b *B) { b.Iter(func() {}) })
	s := sampler(t, g)
	x, err := s.Sample(0, 40, false)
	if err != nil {
		t.Fatal(err)
	}
	// 3 ticks × 40 iterations = 120 ticks, 3 per operation.
	want := map[string]float64{"ticks/op": 3, "ticks": 120, "files": 2}
	if !reflect.DeepEqual(x.Metrics, want) || x.Timed != 80e-6 {
		t.Errorf("custom: metrics %v, timed %v; want %v, 80µs", x.Metrics, x.Timed, want)
	}
	x, err = s.Sample(1, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	// (0+1+2+3)/4 = 1.5; "last" was reported by one goroutine only.
	if want := map[string]float64{"goroutine": 1.5, "last": 7}; !reflect.DeepEqual(x.Metrics, want) {
		t.Errorf("parallel: metrics %v, want %v", x.Metrics, want)
	}
	if x, _ := s.Sample(2, 10, false); x.Metrics != nil {
		t.Errorf("none: metrics %v, want nil", x.Metrics)
	}

	for _, tt := range []struct {
		name string
		fn   func(*B)
		want string
	}{
		{"time", func(b *B) { b.Iter(func() {}); b.ReportMetric(1, "ns/op") }, `unit "ns/op" is one the harness measures itself`},
		{"allocs", func(b *B) { b.Iter(func() {}); b.ReportMetric(1, "allocs/op") }, `unit "allocs/op" is one the harness measures itself`},
		{"space", func(b *B) { b.Iter(func() {}); b.ReportMetric(1, "a b") }, `unit "a b" is empty or holds white space`},
		{"empty", func(b *B) { b.Iter(func() {}); b.ReportMetric(1, "") }, `unit "" is empty`},
		{"nan", func(b *B) { b.Iter(func() {}); b.ReportMetric(math.NaN(), "x") }, `x is NaN`},
		{"throughput", func(b *B) { b.SetBytes(8); b.Iter(func() {}); b.ReportMetric(1, "B/s") }, `unit "B/s" is the variant's throughput`},
	} {
		g := NewGroup("bad")
		g.Config = quick()
		g.Bench(tt.name, tt.fn)
		_, err := sampler(t, g).Sample(0, 5, false)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}
