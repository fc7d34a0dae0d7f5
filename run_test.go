package rigor

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/rigorbench/rigor/stats"
)

func testRunner(cfg Config, res time.Duration) *runner {
	cfg = cfg.withDefaults()
	return &runner{
		cfg:    cfg,
		clock:  Clock{Resolution: res, Tick: res, ReadCost: res, Window: res},
		rng:    rand.New(rand.NewPCG(cfg.Seed, 1)),
		ms:     newMetricSamples(),
		shapes: map[reflect.Type]*shape{},
	}
}

// Seed 000 derives Criterion.rs's linear step for fib(20): warm-up
// estimated 11225 ns per iteration, 10 samples in 200 ms, so
// d = ceil(200e6 / (11225 * 55)) = ceil(323.95) = 324, and the samples run
// 324, 648, ..., 3240 iterations.
func TestPlanLinearCriterionFib20(t *testing.T) {
	r := testRunner(Config{Budget: 200 * time.Millisecond, MinRounds: 10, MaxRounds: 10}, 50*time.Nanosecond)
	p := r.makePlan([]float64{11225e-9}, []float64{11225e-9})
	if p.mode != Linear {
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
	r := testRunner(Config{}, 50*time.Nanosecond)
	p := r.makePlan([]float64{10e-3}, []float64{10e-3})
	if p.mode != Flat {
		t.Fatalf("mode = %v, want flat", p.mode)
	}
	if p.n != 3 {
		t.Errorf("n = %d, want 3 (30ms a round)", p.n)
	}
	// Explicit linear keeps linear.
	r = testRunner(Config{Sampling: Linear}, 50*time.Nanosecond)
	if p := r.makePlan([]float64{10e-3}, []float64{10e-3}); p.mode != Linear || p.n != 1 {
		t.Errorf("explicit linear: mode %v, d %d; want linear, 1", p.mode, p.n)
	}
}

func TestPlanFlat(t *testing.T) {
	// Two variants of 1µs and 3µs: a round of n iterations takes 4n µs;
	// 3s over 100 rounds is 30ms a round, so n = 7500.
	r := testRunner(Config{Sampling: Flat}, 50*time.Nanosecond)
	p := r.makePlan([]float64{1e-6, 3e-6}, []float64{1e-6, 3e-6})
	if p.mode != Flat || p.n != 7500 {
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
	r := testRunner(Config{Sampling: Flat}, 50*time.Nanosecond)
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

func samples(nets ...float64) []result {
	var rs []result
	for _, n := range nets {
		rs = append(rs, result{iters: 1, goroutines: 1, net: n, raw: n})
	}
	return rs
}

// noisy returns n values around center with relative noise rel, seeded.
func noisy(center, rel float64, n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	v := make([]float64, n)
	for i := range v {
		v[i] = center * (1 + rel*rng.NormFloat64())
	}
	return v
}

// TestPrecise: the harness's precision target, the interval of every
// variant's median time within ±Precision.
func TestPrecise(t *testing.T) {
	// 30 values with a 20% CV: the median's 99.9% interval spans about
	// ±2.7 standard errors of the median (1.25 σ/√30 ≈ 4.6%), far beyond ±1%.
	s := &setResult{samples: [][]result{samples(noisy(1e-3, 0.2, 30, 8)...)}}
	if s.precise(0.01, 0.999) {
		t.Error("a 20% CV variant over 30 rounds reached ±1% precision")
	}
	// 0.1% CV: about ±0.06%.
	s = &setResult{samples: [][]result{samples(noisy(1e-3, 0.001, 30, 9)...)}}
	if !s.precise(0.01, 0.999) {
		t.Error("a 0.1% CV variant over 30 rounds did not reach ±1% precision")
	}
}

// A few preempted samples on one side make a mean of log ratios lean;
// the Hodges-Lehmann center's interval does not stop on them.
func TestResolvedIgnoresPreemptions(t *testing.T) {
	cfg := Config{Precision: -1}.withDefaults()
	a, b := noisy(1e-3, 0.01, 60, 11), noisy(1e-3, 0.01, 60, 12)
	for _, k := range []int{3, 17, 29, 41, 55} {
		a[k] *= 6 // a 5 ms preemption in a 1 ms sample
	}
	s := &setResult{samples: [][]result{samples(a...), samples(b...)}}
	lr := 0.0
	for k := range a {
		lr += math.Log(b[k] / a[k])
	}
	if mean := math.Expm1(lr / float64(len(a))); mean > -0.05 {
		t.Fatalf("the test data's geometric mean ratio is %+.1f%%; want it far below -1%%", 100*mean)
	}
	ci, err := stats.PairedShift(logRatios(s.samples[0], s.samples[1]), cfg.Confidence)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Hi < math.Log1p(-cfg.Noise) {
		t.Errorf("the interval [%+.2f%%, %+.2f%%] clears the band on 5 preempted samples", 100*math.Expm1(ci.Lo), 100*math.Expm1(ci.Hi))
	}
}

func TestTinyRealEffect(t *testing.T) {
	base := noisy(1e-3, 0.05, 1500, 21)
	shifted := make([]float64, len(base))
	big := make([]float64, len(base))
	rng := noisy(1, 0.05, 1500, 22)
	for k := range base {
		shifted[k] = base[k] * rng[k] * 1.005 // 0.5% shift under 5% noise
		big[k] = base[k] * rng[k] * 1.10
	}
	if _, ok := tinyRealEffect(samples(base...), samples(shifted...), "a", "b", 0.95); !ok {
		t.Error("a 0.5% shift under 5% noise over 1500 rounds is not a real but tiny effect")
	}
	if note, ok := tinyRealEffect(samples(base...), samples(big...), "a", "b", 0.95); ok {
		t.Errorf("a 10%% shift under 5%% noise called tiny: %s", note)
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

func TestBimodal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var normal, two, skewed, outlier []float64
	for i := range 200 {
		normal = append(normal, 100+rng.NormFloat64())
		c := 100.0
		if i%3 == 0 {
			c = 130
		}
		two = append(two, c+rng.NormFloat64())
		skewed = append(skewed, 100*math.Exp(0.3*rng.NormFloat64()))
		v := 100 + rng.NormFloat64()
		if i%25 == 0 {
			v = 200 // 4% far outliers: not a mode
		}
		outlier = append(outlier, v)
	}
	for _, tt := range []struct {
		name string
		x    []float64
		want bool
	}{
		{"normal", normal, false},
		{"two clusters, 2:1", two, true},
		{"lognormal", skewed, false},
		{"4% outliers", outlier, false},
		{"too few", two[:10], false},
		{"constant", make([]float64, 50), false},
	} {
		if got := bimodal(tt.x); got != tt.want {
			t.Errorf("bimodal(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFmtSeconds(t *testing.T) {
	for _, tt := range []struct {
		s    float64
		want string
	}{
		{0, "0s"}, {1.234e-9, "1.23ns"}, {45.6e-6, "45.6µs"}, {0.0015, "1.5ms"}, {2.5, "2.5s"},
	} {
		if got := fmtSeconds(tt.s); got != tt.want {
			t.Errorf("fmtSeconds(%v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
