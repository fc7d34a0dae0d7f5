package harness

import (
	"math/rand/v2"
	"testing"

	"github.com/rigorbench/rigor"
)

func samples(nets ...float64) []result {
	var rs []result
	for _, n := range nets {
		rs = append(rs, result{Sample: rigor.Sample{Iters: 1, Goroutines: 1, Timed: n}, net: n})
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
