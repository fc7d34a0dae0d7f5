package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTInterval: d = 1..5 has mean 3, SD 1.5811, SE 0.70711 and
// t(4, 0.975) = 2.776445 (tables), so the interval is [1.0368, 4.9632].
func TestTInterval(t *testing.T) {
	lo, hi := tInterval([]float64{1, 2, 3, 4, 5})
	if math.Abs(lo-1.0368) > 1e-4 || math.Abs(hi-4.9632) > 1e-4 {
		t.Errorf("t interval [%v, %v], want [1.0368, 4.9632]", lo, hi)
	}
}

// TestSettleRate: rounds that all agree settle every resample, as a change
// or as unchanged; rounds that swing ±5% around zero never fit the ±1%
// band and clear it only when a resample draws one sign at least 15 times
// in 20 (P = 2 x 0.0207 = 0.041 per resample; 0.15 allows for 50 draws).
func TestSettleRate(t *testing.T) {
	same := func(v float64) []float64 {
		d := make([]float64, 20)
		for i := range d {
			d[i] = v
		}
		return d
	}
	swing := make([]float64, 20)
	for i := range swing {
		swing[i] = math.Log(1.05)
		if i%2 == 1 {
			swing[i] = math.Log(0.95)
		}
	}
	for _, tc := range []struct {
		name      string
		d         []float64
		change    float64
		unchanged float64
	}{
		{"all +3%", same(math.Log(1.03)), 1, 0},
		{"all 0", same(0), 0, 1},
		{"all +0.5%", same(math.Log(1.005)), 0, 1},
		{"swing ±5%", swing, 0, 0},
	} {
		for name, in := range map[string]interval{"hl": hlInterval, "t": tInterval} {
			if name == "t" && tc.name != "swing ±5%" {
				continue // a t interval of identical values is undefined (0/0)
			}
			got := settleRate(tc.d, 20, 50, 0.01, in, rand.New(rand.NewPCG(1, 2)))
			if tc.name == "swing ±5%" {
				if got.change > 0.15 || got.unchanged != 0 {
					t.Errorf("%s, %s: %+v, want change at most 0.15 and never unchanged", tc.name, name, got)
				}
				continue
			}
			if got.change != tc.change || got.unchanged != tc.unchanged {
				t.Errorf("%s, %s: %+v, want change %v unchanged %v", tc.name, name, got, tc.change, tc.unchanged)
			}
		}
	}
}
