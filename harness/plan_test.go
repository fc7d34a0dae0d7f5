package harness

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/model"
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

// TestWarmUpNegative: a negative WarmUp runs each variant once, one
// iteration, for the estimate only, and every variant gets its estimate:
// per iteration, above 0, and no longer than the warm-up itself took (the
// samples ran one after the other inside it), rather than an absolute
// bound a starved machine could break.
func TestWarmUpNegative(t *testing.T) {
	g := rigor.NewGroup("warm")
	g.Config = quick()
	calls, iters := map[string]int{}, map[string]int{}
	for _, v := range []string{"a", "b", "c"} {
		g.Bench(v, func(b *rigor.B) {
			calls[v]++
			rigor.Iter(b, func() int { iters[v]++; return 1 })
		})
	}
	s, err := rigor.NewSampler(g, g.Config)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	wall, timed, loops, err := newRunner(s, 1).warmUp(context.Background(), sets(g.Name, s)[0])
	elapsed := time.Since(start).Seconds()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for i, v := range []string{"a", "b", "c"} {
		if calls[v] != 1 || iters[v] != 1 {
			t.Errorf("%s: %d warm-up samples of %d iterations in all, want 1 of 1", v, calls[v], iters[v])
		}
		if !(wall[i] > 0 && timed[i] >= 0 && timed[i] <= wall[i] && loops[i] > 0) {
			t.Errorf("%s: estimates %v s (call) and %v s (timed) per iteration, loop %d; want the call's above 0 and at least the timed", v, wall[i], timed[i], loops[i])
		}
		sum += wall[i]
	}
	if !(sum <= elapsed) {
		t.Errorf("the estimates add up to %v s, more than the %v s the warm-up took", sum, elapsed)
	}
}

// The plan check: a budget that cannot give the minimum rounds says which
// would, worked by hand from the warm-up estimates.
func TestShortBudget(t *testing.T) {
	for _, tt := range []struct {
		name      string
		cfg       rigor.Config
		wall      []float64
		want      time.Duration
		wantLines string
	}{
		// Flat: n = 50ms / 100 rounds / 10ms < 1, so 1 iteration a
		// round; 10 rounds × 10 ms = 100 ms.
		{"flat", rigor.Config{Budget: 50 * time.Millisecond, MinRounds: 10, MaxRounds: 100, Sampling: rigor.Flat}, []float64{10e-3}, 100 * time.Millisecond,
			"unable to complete the minimum of 10 rounds in the 50ms budget (the warm-up's estimates put them at 100ms, so they run over it); increase the budget to 100ms (Config.Budget, -rigor.budget)"},
		// Two variants: 5 × (3.33 + 4.51) ms = 39.2 ms, up to 40 ms.
		{"two variants", rigor.Config{Budget: 20 * time.Millisecond, MinRounds: 5, MaxRounds: 100, Sampling: rigor.Flat}, []float64{3.33e-3, 4.51e-3}, 40 * time.Millisecond, ""},
		// Linear, d = 1: N = 10 multipliers, 10 rounds of 1..10
		// iterations at 1 ms, 55 ms in a 20 ms budget.
		{"linear", rigor.Config{Budget: 20 * time.Millisecond, MinRounds: 10, MaxRounds: 10, Sampling: rigor.Linear}, []float64{1e-3}, 55 * time.Millisecond, ""},
		// Criterion.rs's fib(20) plan runs 55 · 324 · 11225 ns =
		// 200.03 ms in 200 ms: whole iterations, not a short budget.
		{"criterion fib20", rigor.Config{Budget: 200 * time.Millisecond, MinRounds: 10, MaxRounds: 10, Sampling: rigor.Linear}, []float64{11225e-9}, 0, ""},
		// 1 µs a call fits 100 rounds in 10 ms easily.
		{"enough", rigor.Config{Budget: 10 * time.Millisecond, MinRounds: 10, MaxRounds: 100}, []float64{1e-6}, 0, ""},
	} {
		r := testRunner(tt.cfg, 50*time.Nanosecond)
		p := r.makePlan(tt.wall, tt.wall)
		if got := r.shortBudget(&p); got != tt.want {
			t.Errorf("%s: plan %+v needs a budget of %v, want %v", tt.name, p, got, tt.want)
		}
		if tt.wantLines != "" {
			if got := r.shortBudgetText(tt.want); got != tt.wantLines {
				t.Errorf("%s: %q, want %q", tt.name, got, tt.wantLines)
			}
		}
	}
	for _, tt := range []struct{ d, want time.Duration }{
		{1234 * time.Millisecond, 1300 * time.Millisecond},
		{100 * time.Millisecond, 100 * time.Millisecond},
		{999, 1000},
		{1, 1},
		{39200001, 40 * time.Millisecond},
	} {
		if got := roundUp2(tt.d); got != tt.want {
			t.Errorf("roundUp2(%v) = %v, want %v", tt.d, got, tt.want)
		}
	}
}

// A measured group whose variant is slower than its budget allows for
// the minimum rounds carries the plan's note, with what budget would do.
func TestShortBudgetNote(t *testing.T) {
	g := rigor.NewGroup("short")
	g.Config = quick()
	g.Config.MinRounds, g.Config.MaxRounds = 3, 3
	g.Bench("sleep", func(b *rigor.B) { b.Iter(func() { time.Sleep(2 * time.Millisecond) }) })
	run, err := Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range run.Benchmarks[0].Notes {
		if n.Topic == "plan" {
			// 3 rounds of at least one 2 ms iteration: at least 6 ms.
			if n.Kind != model.NoteBudget || n.Evidence["needed_sec"] < 6e-3 || n.Evidence["budget_sec"] != 1e-3 || !strings.Contains(n.Text, "increase the budget to") {
				t.Errorf("plan note %+v", n)
			}
			return
		}
	}
	t.Errorf("no plan note in %+v", run.Benchmarks[0].Notes)
}
