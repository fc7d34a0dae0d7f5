package stats

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"testing"
)

// atom is one value of an exact bootstrap distribution with its probability.
type atom struct{ v, p float64 }

// exactBootstrap enumerates every resample of n positions as a vector of
// counts (c[0]+...+c[n-1] = n; C(2n-1, n) vectors, 92378 for n = 10), each
// with its multinomial probability n!/(c[0]!...c[n-1]!)/n^n, and returns the
// distribution of stat(counts) sorted by value. It shares no code with
// Bootstrap: no random numbers, no kernels.
func exactBootstrap(n int, stat func(c []int) float64) []atom {
	lf := func(k int) float64 { v, _ := math.Lgamma(float64(k + 1)); return v }
	var atoms []atom
	c := make([]int, n)
	var rec func(i, left int)
	rec = func(i, left int) {
		if i == n-1 {
			c[i] = left
			lp := lf(n) - float64(n)*math.Log(float64(n))
			for _, k := range c {
				lp -= lf(k)
			}
			atoms = append(atoms, atom{stat(c), math.Exp(lp)})
			return
		}
		for k := 0; k <= left; k++ {
			c[i] = k
			rec(i+1, left-k)
		}
	}
	rec(0, n)
	sort.Slice(atoms, func(i, j int) bool { return atoms[i].v < atoms[j].v })
	return atoms
}

// quantileOf returns the smallest value whose cumulative probability reaches p.
func quantileOf(atoms []atom, p float64) float64 {
	cum := 0.0
	for _, a := range atoms {
		cum += a.p
		if cum >= p {
			return a.v
		}
	}
	return atoms[len(atoms)-1].v
}

// expand turns counts over x into the resample they describe.
func expand(x []float64, c []int) []float64 {
	var r []float64
	for i, k := range c {
		for range k {
			r = append(r, x[i])
		}
	}
	return r
}

// checkAgainstExact asserts that each bound of a Monte Carlo interval lies
// between the exact bootstrap quantiles at p-δ and p+δ, δ = 5 standard
// errors of an empirical quantile from B draws, sqrt(p(1-p)/B). This holds
// whatever the shape of the distribution, including the lumpy ones of
// medians and MADs of ten values.
func checkAgainstExact(t *testing.T, name string, got Interval, atoms []atom, estimate float64, b Bootstrap) {
	t.Helper()
	c := b.confidence()
	for _, bound := range []struct {
		v, p float64
	}{{got.Lo, (1 - c) / 2}, {got.Hi, (1 + c) / 2}} {
		d := 5 * math.Sqrt(bound.p*(1-bound.p)/float64(b.resamples()))
		lo, hi := quantileOf(atoms, bound.p-d), quantileOf(atoms, bound.p+d)
		if !(bound.v >= lo-1e-9*math.Abs(lo) && bound.v <= hi+1e-9*math.Abs(hi)) {
			t.Errorf("%s: bound %v at p=%v outside the exact quantiles [%v, %v] at p±%.4f", name, bound.v, bound.p, lo, hi, d)
		}
	}
	if math.Abs(got.Estimate-estimate) > 1e-9*math.Abs(estimate) {
		t.Errorf("%s: estimate %v, want %v", name, got.Estimate, estimate)
	}
}

func TestBootstrapMatchesExactDistribution(t *testing.T) {
	x := fibPerIter()
	b := Bootstrap{Seed: 7, Resamples: 100_000}
	n := len(x)
	checkAgainstExact(t, "mean", b.Mean(x), exactBootstrap(n, func(c []int) float64 { return Mean(expand(x, c)) }), Mean(x), b)
	checkAgainstExact(t, "median", b.Median(x), exactBootstrap(n, func(c []int) float64 { return Median(expand(x, c)) }), Median(x), b)
	checkAgainstExact(t, "std dev", b.StdDev(x), exactBootstrap(n, func(c []int) float64 { return StdDev(expand(x, c)) }), StdDev(x), b)
	checkAgainstExact(t, "MAD", b.MAD(x), exactBootstrap(n, func(c []int) float64 { return MAD(expand(x, c)) }), MAD(x), b)
	checkAgainstExact(t, "statistic(max)", b.Statistic(x, Max), exactBootstrap(n, func(c []int) float64 { return Max(expand(x, c)) }), Max(x), b)
	checkAgainstExact(t, "slope", b.Slope(fibIters, fibTimes), exactBootstrap(n, func(c []int) float64 {
		return Slope(expand(fibIters, c), expand(fibTimes, c))
	}), Slope(fibIters, fibTimes), b)

	// An odd size with ties, where medians and MADs are lumpier still.
	y := []float64{3, 1, 4, 1, 5, 9, 2, 6, 5}
	b9 := Bootstrap{Seed: 3, Resamples: 50_000, Confidence: 0.9}
	checkAgainstExact(t, "median/9", b9.Median(y), exactBootstrap(len(y), func(c []int) float64 { return Median(expand(y, c)) }), Median(y), b9)
	checkAgainstExact(t, "MAD/9", b9.MAD(y), exactBootstrap(len(y), func(c []int) float64 { return MAD(expand(y, c)) }), MAD(y), b9)
	checkAgainstExact(t, "mean/9", b9.Mean(y), exactBootstrap(len(y), func(c []int) float64 { return Mean(expand(y, c)) }), Mean(y), b9)

	// Paired geometric-mean ratio: the mean of log ratios, mapped by exp.
	px := []float64{100, 102, 98, 101, 99, 103, 100}
	py := []float64{90, 93, 91, 88, 92, 95, 89}
	lr := make([]float64, len(px))
	for i := range px {
		lr[i] = math.Log(py[i] / px[i])
	}
	gm := exactBootstrap(len(lr), func(c []int) float64 { return math.Exp(Mean(expand(lr, c))) })
	checkAgainstExact(t, "paired geomean ratio", b.PairedGeoMeanRatio(px, py), gm, math.Exp(Mean(lr)), b)
}

// TestBootstrapRatioMatchesExact checks the unpaired ratio against the exact
// distribution of median(y*)/median(x*) over both samples' resamples.
func TestBootstrapRatioMatchesExact(t *testing.T) {
	x := []float64{10, 12, 11, 13, 9, 10.5}
	y := []float64{8, 9.5, 8.7, 9, 8.1}
	ax := exactBootstrap(len(x), func(c []int) float64 { return Median(expand(x, c)) })
	ay := exactBootstrap(len(y), func(c []int) float64 { return Median(expand(y, c)) })
	var atoms []atom
	for _, a := range ax {
		for _, b := range ay {
			atoms = append(atoms, atom{b.v / a.v, a.p * b.p})
		}
	}
	sort.Slice(atoms, func(i, j int) bool { return atoms[i].v < atoms[j].v })
	b := Bootstrap{Seed: 11, Resamples: 50_000}
	checkAgainstExact(t, "ratio of medians", b.Ratio(x, y, Median), atoms, Median(y)/Median(x), b)
}

// TestBootstrapReproducible checks the promise that a seed fixes the result
// whatever the parallelism, and that different seeds differ.
func TestBootstrapReproducible(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	x := make([]float64, 37)
	for i := range x {
		x[i] = r.ExpFloat64()
	}
	y := make([]float64, len(x))
	for i := range y {
		y[i] = x[i] * (3 + r.Float64())
	}
	one := Bootstrap{Seed: 42, Resamples: 20_000, Workers: 1}
	many := one
	many.Workers = 7
	auto := one
	auto.Workers = 0
	old := runtime.GOMAXPROCS(3)
	defer runtime.GOMAXPROCS(old)
	for name, f := range map[string]func(Bootstrap) Interval{
		"mean":      func(b Bootstrap) Interval { return b.Mean(x) },
		"median":    func(b Bootstrap) Interval { return b.Median(x) },
		"mad":       func(b Bootstrap) Interval { return b.MAD(x) },
		"stddev":    func(b Bootstrap) Interval { return b.StdDev(x) },
		"statistic": func(b Bootstrap) Interval { return b.Statistic(x, GeoMean) },
		"ratio":     func(b Bootstrap) Interval { return b.Ratio(x, x[:20], Mean) },
		"slope":     func(b Bootstrap) Interval { return b.Slope(x, y) },
	} {
		a, m, g := f(one), f(many), f(auto)
		if a != m || a != g {
			t.Errorf("%s: Workers 1 %+v, 7 %+v, auto %+v", name, a, m, g)
		}
		other := one
		other.Seed = 43
		// Medians and MADs of resamples take few distinct values, so
		// their bounds may coincide across seeds; the others may not.
		if name != "median" && name != "mad" && f(other) == a {
			t.Errorf("%s: seeds 42 and 43 gave the same interval %+v", name, a)
		}
	}
}

// TestBootstrapEdgeCases: degenerate inputs give NaN or point intervals,
// never a panic.
func TestBootstrapEdgeCases(t *testing.T) {
	b := Bootstrap{Resamples: 2000}
	isNaN := func(iv Interval) bool { return math.IsNaN(iv.Lo) && math.IsNaN(iv.Hi) }
	if iv := b.Mean(nil); !isNaN(iv) || !math.IsNaN(iv.Estimate) {
		t.Errorf("Mean(nil) = %+v", iv)
	}
	if iv := b.Median([]float64{1, math.NaN()}); !isNaN(iv) {
		t.Errorf("Median with NaN = %+v", iv)
	}
	if iv := b.Mean([]float64{4}); iv.Lo != 4 || iv.Hi != 4 || iv.Estimate != 4 {
		t.Errorf("Mean of one value = %+v", iv)
	}
	if iv := b.Median([]float64{2, 2, 2}); iv.Lo != 2 || iv.Hi != 2 {
		t.Errorf("Median of constant = %+v", iv)
	}
	if iv := b.MAD([]float64{2, 2, 2}); iv.Lo != 0 || iv.Hi != 0 {
		t.Errorf("MAD of constant = %+v", iv)
	}
	if iv := b.StdDev([]float64{1}); !isNaN(iv) {
		t.Errorf("StdDev of one value = %+v", iv)
	}
	if iv := b.PairedGeoMeanRatio([]float64{1, 2}, []float64{1}); !isNaN(iv) {
		t.Errorf("PairedGeoMeanRatio of unequal lengths = %+v", iv)
	}
	if iv := b.PairedGeoMeanRatio([]float64{1, 0}, []float64{1, 1}); !isNaN(iv) {
		t.Errorf("PairedGeoMeanRatio with zero = %+v", iv)
	}
	if iv := b.Slope([]float64{1, 2}, []float64{1}); !isNaN(iv) {
		t.Errorf("Slope of unequal lengths = %+v", iv)
	}
	if iv := (Bootstrap{Confidence: 1.5}).Mean([]float64{1, 2}); !isNaN(iv) {
		t.Errorf("confidence 1.5 = %+v", iv)
	}
}

// TestSelectQuantiles checks the selection against sorting on data with
// many repeats.
func TestSelectQuantiles(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{1, 2, 3, 10, 1000, 4097, 1 << 14, 100_000} {
		for _, levels := range []int{1, 3, 1000, 1 << 30} {
			d := make([]float64, n)
			for i := range d {
				d[i] = float64(r.IntN(levels))
			}
			// Orders that a systematic subsample could misjudge.
			switch levels {
			case 1000:
				slices.Sort(d)
			case 3:
				slices.Reverse(slices.Sorted(slices.Values(d)))
			}
			s := slices.Sorted(slices.Values(d))
			for _, p := range [][2]float64{{0.025, 0.975}, {0, 1}, {0.5, 0.5}, {0.1, 0.9}} {
				q1, q2 := selectQuantiles(slices.Clone(d), p[0], p[1])
				if w1, w2 := quantileSorted(s, p[0]), quantileSorted(s, p[1]); q1 != w1 || q2 != w2 {
					t.Errorf("n=%d levels=%d p=%v: %v %v, sorted %v %v", n, levels, p, q1, q2, w1, w2)
				}
			}
		}
	}
}

// The benchmark of the speed target: 100,000 resamples of 100 values in at
// most 10 ms on one core. Run it as
//
//	GOMAXPROCS=1 go test -run='^$' -bench=Bootstrap -count=5 ./stats
func BenchmarkBootstrapMean100x100k(b *testing.B) {
	x := benchData(100)
	bs := Bootstrap{Resamples: 100_000, Workers: 1, Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		bs.Mean(x)
	}
}

func BenchmarkBootstrapMedian100x100k(b *testing.B) {
	x := benchData(100)
	bs := Bootstrap{Resamples: 100_000, Workers: 1, Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		bs.Median(x)
	}
}

func BenchmarkBootstrapSlope100x100k(b *testing.B) {
	x := benchData(100)
	it := make([]float64, len(x))
	for i := range it {
		it[i] = float64(i + 1)
		x[i] *= it[i]
	}
	bs := Bootstrap{Resamples: 100_000, Workers: 1, Seed: 1}
	for b.Loop() {
		bs.Slope(it, x)
	}
}

func BenchmarkBootstrapMAD100x100k(b *testing.B) {
	x := benchData(100)
	bs := Bootstrap{Resamples: 100_000, Workers: 1, Seed: 1}
	for b.Loop() {
		bs.MAD(x)
	}
}

func benchData(n int) []float64 {
	r := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, n)
	for i := range x {
		x[i] = 1000 + 50*r.NormFloat64()
	}
	return x
}

func BenchmarkSelectQuantiles100k(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	d := make([]float64, 100_000)
	for i := range d {
		d[i] = r.NormFloat64()
	}
	work := make([]float64, len(d))
	for b.Loop() {
		copy(work, d)
		selectQuantiles(work, 0.025, 0.975)
	}
}

// TestSelectQuantilesFallback builds data whose systematic subsample sees
// only zeros while most values are ones, so the upper bracket misses and
// the quickselect fallback must answer.
func TestSelectQuantilesFallback(t *testing.T) {
	const n, m = 100_000, 4096
	d := make([]float64, n)
	for i := range d {
		d[i] = 1
	}
	for i := range m {
		d[i*n/m] = 0
	}
	s := slices.Sorted(slices.Values(d))
	q1, q2 := selectQuantiles(slices.Clone(d), 0.025, 0.975)
	if w1, w2 := quantileSorted(s, 0.025), quantileSorted(s, 0.975); q1 != w1 || q2 != w2 {
		t.Errorf("got %v %v, sorted %v %v", q1, q2, w1, w2)
	}
	if _, ok := bracketSelect(slices.Clone(d), 2499, 97500); ok {
		t.Errorf("bracketSelect claimed success on data built to defeat it")
	}
}

// TestMedianRatioResampledMatchesExact checks the counting Monte Carlo
// ratio of medians against the exact distribution, like Ratio above.
func TestMedianRatioResampledMatchesExact(t *testing.T) {
	x := []float64{10, 12, 11, 13, 9, 10.5}
	y := []float64{8, 9.5, 8.7, 9, 8.1}
	ax := exactBootstrap(len(x), func(c []int) float64 { return Median(expand(x, c)) })
	ay := exactBootstrap(len(y), func(c []int) float64 { return Median(expand(y, c)) })
	var atoms []atom
	for _, a := range ax {
		for _, b := range ay {
			atoms = append(atoms, atom{b.v / a.v, a.p * b.p})
		}
	}
	sort.Slice(atoms, func(i, j int) bool { return atoms[i].v < atoms[j].v })
	b := Bootstrap{Seed: 12, Resamples: 50_000}
	checkAgainstExact(t, "resampled ratio of medians", b.medianRatioResampled(x, y), atoms, Median(y)/Median(x), b)
}
