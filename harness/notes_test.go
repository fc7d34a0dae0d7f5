package harness

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/stats"
)

// A few preempted samples on one side make a mean of log ratios lean;
// the Hodges-Lehmann center's interval does not stop on them.
func TestResolvedIgnoresPreemptions(t *testing.T) {
	cfg := withDefaults(rigor.Config{Precision: -1})
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
