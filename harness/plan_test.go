package harness

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rigorbench/rigor"
)

// testRunner returns a runner of cfg (defaults filled in) with a clock of
// resolution res, for planning without sampling.
func testRunner(cfg rigor.Config, res time.Duration) *runner {
	cfg = withDefaults(cfg)
	return &runner{
		cfg:   cfg,
		clock: rigor.Clock{Resolution: res, Tick: res, ReadCost: res, Window: res},
		rng:   rand.New(rand.NewPCG(cfg.Seed, 1)),
	}
}

// withDefaults returns cfg with defaults filled in, as a sampler sees it.
func withDefaults(cfg rigor.Config) rigor.Config {
	g := rigor.NewGroup("defaults")
	g.Bench("a", func(b *rigor.B) { b.Iter(func() {}) })
	s, err := rigor.NewSampler(g, cfg)
	if err != nil {
		panic(err)
	}
	return s.Config()
}

// Criterion.rs's linear step (its user guide, "Analysis Process":
// d = ceil(budget / (met · N(N+1)/2)) for N samples), worked by hand for
// fib(20) with a warm-up estimate of 11225 ns per iteration and 10 samples
// in 200 ms: d = ceil(200e6 / (11225 · 55)) = ceil(323.95) = 324, and the
// samples run 324, 648, ..., 3240 iterations.
func TestPlanLinearCriterionFib20(t *testing.T) {
	r := testRunner(rigor.Config{Budget: 200 * time.Millisecond, MinRounds: 10, MaxRounds: 10}, 50*time.Nanosecond)
	p := r.makePlan([]float64{11225e-9}, []float64{11225e-9})
	if p.mode != rigor.Linear {
		t.Fatalf("mode = %v, want linear (55·324·11225ns = 200ms is within twice the budget)", p.mode)
	}
	if p.n != 324 {
		t.Errorf("d = %d, want 324", p.n)
	}
	if p.scale[0] != 1 {
		t.Errorf("scale = %d, want 1", p.scale[0])
	}
	seen := map[int]bool{}
	for k := 1; k <= 10; k++ {
		n := r.iters(&p, k)
		if n%324 != 0 || n < 324 || n > 3240 || seen[n] {
			t.Errorf("round %d: %d iterations, want a fresh multiple of 324 in [324, 3240]", k, n)
		}
		seen[n] = true
	}
}

func TestPlanAutoFallsBackToFlat(t *testing.T) {
	// 10 ms per iteration, 100 rounds: linear would need
	// 5050·10ms = 50s, over twice the 3s budget (Criterion.rs's rule).
	r := testRunner(rigor.Config{}, 50*time.Nanosecond)
	p := r.makePlan([]float64{10e-3}, []float64{10e-3})
	if p.mode != rigor.Flat {
		t.Fatalf("mode = %v, want flat", p.mode)
	}
	if p.n != 3 {
		t.Errorf("n = %d, want 3 (30ms a round)", p.n)
	}
	// Explicit linear keeps linear.
	r = testRunner(rigor.Config{Sampling: rigor.Linear}, 50*time.Nanosecond)
	if p := r.makePlan([]float64{10e-3}, []float64{10e-3}); p.mode != rigor.Linear || p.n != 1 {
		t.Errorf("explicit linear: mode %v, d %d; want linear, 1", p.mode, p.n)
	}
}

func TestPlanFlat(t *testing.T) {
	// Two variants of 1µs and 3µs: a round of n iterations takes 4n µs;
	// 3s over 100 rounds is 30ms a round, so n = 7500.
	r := testRunner(rigor.Config{Sampling: rigor.Flat}, 50*time.Nanosecond)
	p := r.makePlan([]float64{1e-6, 3e-6}, []float64{1e-6, 3e-6})
	if p.mode != rigor.Flat || p.n != 7500 {
		t.Fatalf("plan = %v n=%d, want flat n=7500", p.mode, p.n)
	}
	for k := 1; k <= 200; k++ {
		n := r.iters(&p, k)
		if n < 6000 || n > 9000 {
			t.Fatalf("round %d: %d iterations, outside 7500 ±20%%", k, n)
		}
	}
}

func TestPlanScalesFastVariants(t *testing.T) {
	// A 1 ns variant next to a 100 µs one: the shared count (299 at 3s
	// over 100 rounds, jittered down to 240) gives the fast one 240 ns
	// samples, under 1000 x 50 ns = 50 µs; it runs ceil(50µs/239.2ns) =
	// 210 times as many iterations instead.
	r := testRunner(rigor.Config{Sampling: rigor.Flat}, 50*time.Nanosecond)
	p := r.makePlan([]float64{100e-6, 1e-9}, []float64{100e-6, 1e-9})
	if p.n != 299 {
		t.Fatalf("n = %d, want 299 (30ms / 100.001µs)", p.n)
	}
	want := int(math.Ceil(50e-6 / (0.8 * 299 * 1e-9)))
	if p.scale[0] != 1 || p.scale[1] != want {
		t.Errorf("scale = %v, want [1 %d]", p.scale, want)
	}
	for k := 1; k <= 50; k++ {
		n := r.iters(&p, k)
		if got := float64(n*p.scale[1]) * 1e-9; got < 50e-6 {
			t.Fatalf("fast variant's sample lasts %v s, under the floor", got)
		}
	}
}

// TestWarmUpNegative: a negative WarmUp runs each variant once, for the
// estimate only, and every variant gets its estimate.
func TestWarmUpNegative(t *testing.T) {
	g := rigor.NewGroup("warm")
	g.Config = quick()
	calls := map[string]int{}
	for _, v := range []string{"a", "b", "c"} {
		g.Bench(v, func(b *rigor.B) { calls[v]++; rigor.Iter(b, func() int { return 1 }) })
	}
	s, err := rigor.NewSampler(g, g.Config)
	if err != nil {
		t.Fatal(err)
	}
	wall, timed, loops, err := newRunner(s, 1).warmUp(context.Background(), sets(g.Name, s)[0])
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []string{"a", "b", "c"} {
		if calls[v] != 1 {
			t.Errorf("%s: %d warm-up samples, want 1", v, calls[v])
		}
		if !(wall[i] > 0 && timed[i] >= 0 && wall[i] < 1 && loops[i] > 0) {
			t.Errorf("%s: estimates %v s (call) and %v s (timed) per iteration, loop %d; want finite, the call's above 0", v, wall[i], timed[i], loops[i])
		}
	}
}
