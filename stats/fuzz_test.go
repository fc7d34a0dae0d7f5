package stats

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// floats decodes fuzz bytes into float64s (8 bytes each, any bit pattern:
// NaN, ±Inf, subnormals and negative zero included), at most max of them.
func floats(b []byte, max int) []float64 {
	var x []float64
	for len(b) >= 8 && len(x) < max {
		x = append(x, math.Float64frombits(binary.LittleEndian.Uint64(b)))
		b = b[8:]
	}
	return x
}

// smallFloats decodes each byte as a small value, so that ties and exact
// code paths are common.
func smallFloats(b []byte) []float64 {
	x := make([]float64, len(b))
	for i, v := range b {
		x[i] = float64(v%16) - 4
	}
	return x
}

func bytesOf(x ...float64) []byte {
	b := make([]byte, 8*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return b
}

// FuzzMannWhitneyU checks, on arbitrary input, that the test never panics,
// that p is in [0, 1] and U in [0, nx*ny], and that swapping the samples
// mirrors U and keeps p.
func FuzzMannWhitneyU(f *testing.F) {
	f.Add(bytesOf(1, 2, 3), bytesOf(4, 5, 6), false)
	f.Add(bytesOf(1, 1, 1), bytesOf(1, 1), false)
	f.Add(bytesOf(math.NaN(), 1), bytesOf(math.Inf(1)), false)
	f.Add(bytesOf(math.Inf(-1), math.Inf(1)), bytesOf(math.Inf(1), 0), false)
	f.Add([]byte{1, 2, 3, 3, 4}, []byte{3, 3, 9, 9}, true)
	f.Fuzz(func(t *testing.T, a, b []byte, small bool) {
		var x, y []float64
		if small {
			x, y = smallFloats(a), smallFloats(b)
		} else {
			x, y = floats(a, 80), floats(b, 80)
		}
		u, p, err := MannWhitneyU(x, y)
		if !(p >= 0 && p <= 1) {
			t.Fatalf("p = %v for %v vs %v", p, x, y)
		}
		if err != nil {
			return
		}
		if !(u >= 0 && u <= float64(len(x)*len(y))) {
			t.Fatalf("U = %v outside [0, %d]", u, len(x)*len(y))
		}
		// Swapping mirrors U. It keeps p too, unless there are ties
		// and the exact distribution is used: conditional on an
		// asymmetric tie pattern the null distribution of U is not
		// symmetric, and p (benchstat's too) depends on the order.
		u2, p2, err := MannWhitneyU(y, x)
		if err != nil || u2 != float64(len(x)*len(y))-u {
			t.Fatalf("swapped: U %v err %v; U %v", u2, err, u)
		}
		distinct := map[float64]bool{}
		for _, v := range append(slices.Clone(x), y...) {
			distinct[v] = true
		}
		if len(distinct) == len(x)+len(y) && math.Abs(p2-p) > 1e-9 {
			t.Fatalf("swapped without ties: p %v, %v", p2, p)
		}
	})
}

// FuzzMedianCI checks that the interval never panics and, when it succeeds,
// satisfies Lo <= Estimate <= Hi with Lo and Hi values of the sample.
func FuzzMedianCI(f *testing.F) {
	f.Add(bytesOf(1, 2, 3, 4, 5, 6), uint8(95))
	f.Add(bytesOf(math.NaN(), 1, 2), uint8(95))
	f.Add(bytesOf(math.Inf(1), math.Inf(-1), 0, 0, 0, 0, 0), uint8(50))
	f.Add(bytesOf(), uint8(99))
	f.Add(bytesOf(math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)), uint8(95))
	f.Add(bytesOf(math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1), math.Inf(1)), uint8(95))
	f.Fuzz(func(t *testing.T, a []byte, c uint8) {
		x := floats(a, 400)
		conf := float64(c) / 100
		iv, err := MedianCI(x, conf)
		if err != nil {
			return
		}
		if math.IsNaN(iv.Estimate) && slices.Contains(x, math.Inf(1)) && slices.Contains(x, math.Inf(-1)) {
			return // the middle values are -Inf and +Inf: no median
		}
		if !(iv.Lo <= iv.Estimate && iv.Estimate <= iv.Hi) {
			t.Fatalf("interval %+v for %v at %v", iv, x, conf)
		}
		if !(iv.Confidence >= conf) {
			t.Fatalf("achieved %v below %v", iv.Confidence, conf)
		}
		found := 0
		for _, v := range x {
			if v == iv.Lo {
				found |= 1
			}
			if v == iv.Hi {
				found |= 2
			}
		}
		if found != 3 {
			t.Fatalf("bounds %v %v are not sample values of %v", iv.Lo, iv.Hi, x)
		}
	})
}

// FuzzRankTests runs the other tests and intervals on arbitrary input:
// no panics, p-values in [0, 1], intervals ordered when defined.
func FuzzRankTests(f *testing.F) {
	f.Add([]byte{1, 2, 3, 3, 4}, []byte{3, 3, 9, 9, 0}, uint64(1))
	f.Add([]byte{0, 0}, []byte{0, 0}, uint64(2))
	f.Fuzz(func(t *testing.T, a, b []byte, seed uint64) {
		x, y := smallFloats(a), smallFloats(b)
		if len(x) > 60 || len(y) > 60 {
			return
		}
		n := min(len(x), len(y))
		if _, p, _ := WilcoxonSignedRank(x[:n], y[:n]); !(p >= 0 && p <= 1) {
			t.Fatalf("Wilcoxon p = %v", p)
		}
		if _, _, p, _ := WelchT(x, y); !(p >= 0 && p <= 1) {
			t.Fatalf("Welch p = %v", p)
		}
		if _, p := MixedBootstrapT(x, y, 300, seed); !(math.IsNaN(p) || p >= 0 && p <= 1) {
			t.Fatalf("mixed bootstrap p = %v", p)
		}
		if iv, err := HodgesLehmann(x, y, 0.9); err == nil && !(iv.Lo <= iv.Estimate && iv.Estimate <= iv.Hi) {
			t.Fatalf("Hodges-Lehmann %+v", iv)
		}
		bs := Bootstrap{Resamples: 300, Seed: seed, Workers: 1}
		for _, iv := range []Interval{bs.Mean(x), bs.Median(x), bs.MAD(x), bs.StdDev(x)} {
			if !math.IsNaN(iv.Lo) && !(iv.Lo <= iv.Hi) {
				t.Fatalf("bootstrap %+v for %v", iv, x)
			}
		}
		for _, adj := range [][]float64{Holm(x), BenjaminiHochberg(x)} {
			if len(adj) != len(x) {
				t.Fatalf("adjusted %d p-values for %d", len(adj), len(x))
			}
		}
		_ = Tukey(x)
		_ = Spearman(x[:n], y[:n])
		_ = CohenD(x, y)
		_ = CohenDz(x[:n], y[:n])
	})
}
