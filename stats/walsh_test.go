package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// walshInputs are differences that stress the selection: random, tied,
// constant, ranks, mixed signs, huge (sums overflow to +Inf), subnormal.
func walshInputs(n int, rng *rand.Rand) map[string][]float64 {
	in := map[string][]float64{}
	add := func(name string, f func(i int) float64) {
		d := make([]float64, n)
		for i := range d {
			d[i] = f(i)
		}
		in[name] = d
	}
	add("normal", func(int) float64 { return rng.NormFloat64()*0.01 + 0.003 })
	add("ties", func(int) float64 { return float64(rng.IntN(7)-3) / 4 })
	add("two values", func(int) float64 { return float64(rng.IntN(2)) })
	add("constant", func(int) float64 { return 0.25 })
	add("ranks", func(i int) float64 { return float64(n - i) })
	add("huge", func(int) float64 { return math.MaxFloat64 * (0.5 + rng.Float64()/2) })
	add("subnormal", func(int) float64 { return float64(rng.IntN(9)-4) * 5e-324 })
	add("heavy tail", func(int) float64 { return math.Exp(rng.NormFloat64()*5) - 1 })
	return in
}

// same reports whether a and b are the same number (NaN equals NaN; -0
// equals 0, as sorting leaves their order among equals unspecified).
func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// TestWalshSelectorEveryRank: the selector's value at every rank is the
// sorted list's, by the definition (bruteWalsh), for sizes below and
// above walshListMax's n(n+1)/2, so that the pivoting runs (at 150,
// 11325 averages; with -short, every 17th rank and the 50 at each end
// beyond 2000 averages).
func TestWalshSelectorEveryRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 10, 90, 91, 150} {
		for name, d := range walshInputs(n, rng) {
			want := bruteWalsh(d)
			x := slices.Clone(d)
			slices.Sort(x)
			w := newWalshSelector(x)
			for k := range want {
				if m := len(want); testing.Short() && m > 2000 && k%17 != 0 && k > 50 && k < m-50 {
					continue // every 17th rank, and the ends
				}
				if got := w.kth(k); !same(got, want[k]) {
					t.Fatalf("n=%d %s: rank %d is %v, want %v", n, name, k, got, want[k])
				}
			}
		}
	}
}

// TestWalshSelectorLarge: at n = 1500 (1.1 million averages; 800 with
// -short) ranks near those PairedShift reads (its bounds, the median)
// and a few others match the sorted list.
func TestWalshSelectorLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 1500
	if testing.Short() {
		n = 800
	}
	for name, d := range walshInputs(n, rng) {
		want := bruteWalsh(d)
		m := len(want)
		x := slices.Clone(d)
		slices.Sort(x)
		w := newWalshSelector(x)
		for _, k := range []int{0, 1, m / 40, m/2 - 1, m / 2, m - m/40, m - 1000, m - 2, m - 1, rng.IntN(m)} {
			if got := w.kth(k); !same(got, want[k]) {
				t.Fatalf("%s: rank %d of %d is %v, want %v", name, k, m, got, want[k])
			}
		}
	}
}

// TestPairedShiftMatchesSortedWalsh: the estimate and bounds are the
// median and the k-th smallest and largest of the sorted Walsh averages,
// k the signed-rank critical value computed by the recurrence, on every
// kind of input, in both the exact (n <= 50) and the normal branch.
func TestPairedShiftMatchesSortedWalsh(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{6, 20, 50, 51, 200, 700} {
		for name, d := range walshInputs(n, rng) {
			for _, conf := range []float64{0.95, 0.999} {
				iv, err := PairedShift(d, conf)
				w := bruteWalsh(d)
				if want := quantileSorted(w, 0.5); !same(iv.Estimate, want) {
					t.Errorf("n=%d %s: estimate %v, median of Walsh averages %v", n, name, iv.Estimate, want)
				}
				k := criticalRank(n, conf)
				if k <= 0 {
					if err == nil {
						t.Errorf("n=%d %s conf %v: no interval exists, got %+v", n, name, conf, iv)
					}
					continue
				}
				if err != nil || !same(iv.Lo, w[k-1]) || !same(iv.Hi, w[len(w)-k]) {
					t.Errorf("n=%d %s conf %v: [%v, %v] (%v), want Walsh averages %d and %d: [%v, %v]", n, name, conf, iv.Lo, iv.Hi, err, k, len(w)-k+1, w[k-1], w[len(w)-k])
				}
			}
		}
	}
}

// criticalRank is PairedShift's k by its definition: from the exact
// distribution (the recurrence) up to exactSignedRankLimit, from the
// normal approximation above.
func criticalRank(n int, conf float64) int {
	if n <= exactSignedRankLimit {
		return dpSignedRankCritical(n, 1-conf)
	}
	mean := float64(n*(n+1)) / 4
	sd := math.Sqrt(float64(n*(n+1)*(2*n+1)) / 24)
	return int(math.Floor(mean - distuv.UnitNormal.Quantile(1-(1-conf)/2)*sd + 0.5))
}

// TestPairedShiftInfinite: a difference of ±Inf (the selector's
// precondition fails) is handled by sorting, as before.
func TestPairedShiftInfinite(t *testing.T) {
	d := []float64{math.Inf(-1), -1, 0, 0.5, 1, 2, 3, math.Inf(1)}
	iv, err := PairedShift(d, 0.9)
	w := bruteWalsh(d)
	if want := quantileSorted(w, 0.5); !same(iv.Estimate, want) {
		t.Errorf("estimate %v, want %v", iv.Estimate, want)
	}
	k := criticalRank(len(d), 0.9)
	if err != nil || !same(iv.Lo, w[k-1]) || !same(iv.Hi, w[len(w)-k]) {
		t.Errorf("[%v, %v] (%v), want [%v, %v]", iv.Lo, iv.Hi, err, w[k-1], w[len(w)-k])
	}
}

// FuzzPairedShift: on any differences (any bit pattern, or small values
// full of ties), PairedShift equals the sorted Walsh averages' median and
// bounds.
func FuzzPairedShift(f *testing.F) {
	f.Add([]byte{1, 2, 3, 3, 4, 9, 0, 0, 1, 2}, false)
	f.Add(bytesOf(1, 2, 3, 4, 5, 6, 7, math.Inf(1)), true)
	f.Add(bytesOf(math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64, 1, 2, 3, 4), true)
	f.Fuzz(func(t *testing.T, b []byte, raw bool) {
		d := smallFloats(b)
		if raw {
			d = floats(b, 200)
		}
		if len(d) > 200 {
			return
		}
		iv, err := PairedShift(d, 0.95)
		if len(d) == 0 || hasNaN(d) {
			if err == nil {
				t.Fatalf("no error for %v", d)
			}
			return
		}
		w := bruteWalsh(d)
		if want := quantileSorted(w, 0.5); !same(iv.Estimate, want) {
			t.Fatalf("estimate %v, want %v for %v", iv.Estimate, want, d)
		}
		if k := criticalRank(len(d), 0.95); k > 0 && (!same(iv.Lo, w[k-1]) || !same(iv.Hi, w[len(w)-k])) {
			t.Fatalf("[%v, %v], want [%v, %v] for %v", iv.Lo, iv.Hi, w[k-1], w[len(w)-k], d)
		}
	})
}

// BenchmarkPairedShift: the interval of n paired differences, as the
// stopping rule computes it at every look (sorting every Walsh average
// took about 0.2 s at n = 2000 and grew as n² log n).
func BenchmarkPairedShift(b *testing.B) {
	for _, n := range []int{100, 2000, 6000} {
		rng := rand.New(rand.NewPCG(9, 10))
		d := make([]float64, n)
		for i := range d {
			d[i] = rng.NormFloat64()*0.01 + 0.003
		}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := PairedShift(d, 0.95); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
