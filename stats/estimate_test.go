package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// exactSE is the standard deviation of an exact bootstrap distribution.
func exactSE(atoms []atom) float64 {
	var m, v float64
	for _, a := range atoms {
		m += a.p * a.v
	}
	for _, a := range atoms {
		v += a.p * (a.v - m) * (a.v - m)
	}
	return math.Sqrt(v)
}

// TestEstimatesMatchExactBootstrap checks the studentized intervals and
// the standard errors on the seed's fib(20) samples against the exact
// bootstrap distributions, every one of the 92378 resamples of ten values
// enumerated with its probability (exactBootstrap shares no code with
// Bootstrap): each bound must come from a t quantile within five Monte
// Carlo standard errors of the exact one, and each standard error within
// 2% of the exact one (the standard error of a standard deviation from B
// draws is about 1/√(2B), 0.2% at B = 100,000).
func TestEstimatesMatchExactBootstrap(t *testing.T) {
	x := fibPerIter()
	n := len(x)
	b := Bootstrap{Seed: 5, Resamples: 100_000}
	nf := float64(n)
	cases := []struct {
		name  string
		got   Estimate
		est   float64
		se    float64 // on the working scale
		toW   func(float64) float64
		tstat func(c []int) float64 // t of the resample
		theta func(c []int) float64 // the estimate of the resample
	}{
		{
			name: "mean", got: b.MeanEstimate(x), est: Mean(x), se: StdDev(x) / math.Sqrt(nf), toW: ident,
			tstat: func(c []int) float64 {
				r := expand(x, c)
				return studentize(Mean(r)-Mean(x), StdDev(r)/math.Sqrt(nf))
			},
			theta: func(c []int) float64 { return Mean(expand(x, c)) },
		},
		{
			name: "slope", got: b.SlopeEstimate(fibIters, fibTimes), est: Slope(fibIters, fibTimes),
			se: slopeHC3(fibIters, fibTimes, Slope(fibIters, fibTimes)), toW: ident,
			tstat: func(c []int) float64 {
				bx, by := expand(fibIters, c), expand(fibTimes, c)
				s := Slope(bx, by)
				return studentize(s-Slope(fibIters, fibTimes), slopeHC3(bx, by, s))
			},
			theta: func(c []int) float64 { return Slope(expand(fibIters, c), expand(fibTimes, c)) },
		},
	}
	for _, c := range cases {
		ts := exactBootstrap(n, c.tstat)
		d := 5 * math.Sqrt(0.025*0.975/float64(b.resamples()))
		// Lo = est - t(97.5%)·se and Hi = est - t(2.5%)·se on the
		// working scale, so Lo's t is (est - W(Lo))/se.
		for _, bd := range []struct {
			v, p float64
		}{{c.got.Lo, 0.975}, {c.got.Hi, 0.025}} {
			tv := (c.est - c.toW(bd.v)) / c.se
			lo, hi := quantileOf(ts, bd.p-d), quantileOf(ts, bd.p+d)
			if !(tv >= lo-1e-9 && tv <= hi+1e-9) {
				t.Errorf("%s: bound %v has t = %v, outside the exact t quantiles [%v, %v] at p=%v±%.4f", c.name, bd.v, tv, lo, hi, bd.p, d)
			}
		}
		if got, want := c.got.StdErr, exactSE(exactBootstrap(n, c.theta)); math.Abs(got/want-1) > 0.02 {
			t.Errorf("%s: standard error %v, exact bootstrap %v", c.name, got, want)
		}
	}
	// The MAD's percentile interval is checked against the exact
	// distribution by TestBootstrapMatchesExactDistribution, the standard
	// deviation's interval by TestStdDevBonett; here their standard
	// errors, and the median's.
	for _, c := range []struct {
		name string
		got  Estimate
		stat func([]float64) float64
	}{{"MAD", b.MADEstimate(x), MAD}, {"median", b.MedianEstimate(x), Median}, {"std dev", b.StdDevEstimate(x), StdDev}} {
		want := exactSE(exactBootstrap(n, func(cn []int) float64 { return c.stat(expand(x, cn)) }))
		if math.Abs(c.got.StdErr/want-1) > 0.02 {
			t.Errorf("%s: standard error %v, exact bootstrap %v", c.name, c.got.StdErr, want)
		}
	}
	med, _ := MedianCI(x, 0.95)
	if got := b.MedianEstimate(x); got.Interval != med {
		t.Errorf("median interval %+v, want MedianCI's %+v", got.Interval, med)
	}
}

// TestStdDevBonett checks Bonett's interval against values worked by
// hand from the paper's formula (a separate script, in floating point):
//
//   - x = 1..10: s = 3.027650, the mean trimmed by int(10/(2√6)) = 2 at
//     each end m = 5.5, k = 10·Σ(x-5.5)⁴/(Σ(x-5.5)²)² = 10·1466.5/825.25²·...
//     = 1.775758, c = 10/(10-1.959964) = 1.243780, se =
//     c·√((1.775758-0.7)/9) = 0.430032; the interval of s is
//     √exp(ln(c·9.166667) ∓ 1.959964·se) = [2.215462, 5.146228];
//   - the seed's fib(20) per-iteration times: s = 182.334303, m =
//     10875.558814, k = 6.547884: [76.127137, 543.174373].
func TestStdDevBonett(t *testing.T) {
	b := Bootstrap{Seed: 1, Resamples: 1000}
	one := make([]float64, 10)
	for i := range one {
		one[i] = float64(i + 1)
	}
	for _, c := range []struct {
		name      string
		x         []float64
		s, lo, hi float64
	}{
		{"1..10", one, 3.027650, 2.215462, 5.146228},
		{"fib", fibPerIter(), 182.334303, 76.127137, 543.174373},
	} {
		e := b.StdDevEstimate(c.x)
		if math.Abs(e.Estimate-c.s) > 1e-5*c.s || math.Abs(e.Lo-c.lo) > 1e-5*c.lo || math.Abs(e.Hi-c.hi) > 1e-5*c.hi {
			t.Errorf("%s: %.6f [%.6f, %.6f], want %.6f [%.6f, %.6f]", c.name, e.Estimate, e.Lo, e.Hi, c.s, c.lo, c.hi)
		}
	}
	if e := b.StdDevEstimate([]float64{1, 2, 3, 4}); !math.IsNaN(e.Lo) {
		t.Errorf("4 values: %+v, want no interval (Bonett's trimming needs 5)", e)
	}
	if e := b.StdDevEstimate([]float64{7, 7, 7, 7, 7, 7}); e.Estimate != 0 || e.Lo != 0 || e.Hi != 0 {
		t.Errorf("constant values: %+v, want 0 [0, 0]", e)
	}
}

// TestFibEstimates sets rigor's estimates of the seed's fib(20) samples
// beside Criterion.rs's estimates.json (nresamples 1000). The slope's
// point estimate is the same number (10862.83). The intervals are not:
// Criterion's percentile interval [10823.71, 10896.63] is what
// Bootstrap.Slope reproduces (TestFibBootstrapSlope); rigor's studentized
// interval is wider, because at ten samples the percentile interval
// covers about 86% instead of 95% (TestEstimateCoverage). The mean,
// median, MAD and standard deviation are computed from these samples;
// the seed's own figures for them (10870.03, 10855.82, 45.71, 139.21)
// come from another run (see TestFibPointEstimates), so they are logged,
// not compared.
func TestFibEstimates(t *testing.T) {
	x := fibPerIter()
	b := Bootstrap{Seed: 1}
	for _, c := range []struct {
		name                   string
		got                    Estimate
		criterion              [4]float64 // point, lo, hi, se in estimates.json
		wantPoint, wantSE      float64
		comparable, wantBounds bool
	}{
		{"slope", b.SlopeEstimate(fibIters, fibTimes), [4]float64{10862.83, 10823.71, 10896.63, 18.59}, 10862.83, 18.59, true, true},
		{"mean", b.MeanEstimate(x), [4]float64{10870.03, 10823.12, 10918.47, 24.36}, 10937.3528, 0, false, false},
		{"median", b.MedianEstimate(x), [4]float64{10855.82, 10815.62, 10896.40, 20.64}, 10888.5379, 0, false, false},
		{"std dev", b.StdDevEstimate(x), [4]float64{139.21, 46.59, 257.37, 55.13}, 182.3343, 0, false, false},
		{"MAD", b.MADEstimate(x), [4]float64{45.71, 0, 130.72, 33.39}, 81.4621, 0, false, false},
	} {
		t.Logf("%-7s rigor %9.2f [%9.2f, %9.2f] se %6.2f | Criterion %9.2f [%9.2f, %9.2f] se %6.2f",
			c.name, c.got.Estimate, c.got.Lo, c.got.Hi, c.got.StdErr, c.criterion[0], c.criterion[1], c.criterion[2], c.criterion[3])
		if math.Abs(c.got.Estimate-c.wantPoint) > 5e-3 {
			t.Errorf("%s = %.4f, want %.4f", c.name, c.got.Estimate, c.wantPoint)
		}
		if !(c.got.Lo < c.got.Estimate && c.got.Estimate < c.got.Hi) {
			t.Errorf("%s: interval [%v, %v] does not hold the estimate %v", c.name, c.got.Lo, c.got.Hi, c.got.Estimate)
		}
		if !c.comparable {
			continue
		}
		// The same bootstrap standard error as Criterion's, within the
		// Monte Carlo error of its 1000 resamples (about 1/√2000 = 2.2%
		// of it; 10% allowed).
		if math.Abs(c.got.StdErr/c.wantSE-1) > 0.10 {
			t.Errorf("%s: standard error %.2f, Criterion.rs %.2f", c.name, c.got.StdErr, c.wantSE)
		}
		// Studentized, so at least as wide as the percentile interval.
		if c.wantBounds && !(c.got.Lo < c.criterion[1] && c.got.Hi > c.criterion[2]) {
			t.Errorf("%s: interval [%.2f, %.2f] is not wider than Criterion's percentile [%.2f, %.2f]", c.name, c.got.Lo, c.got.Hi, c.criterion[1], c.criterion[2])
		}
	}
}

// A coverageDist is a distribution of per-op times for the coverage
// simulation, with its true mean, median, standard deviation and MAD.
type coverageDist struct {
	name               string
	draw               func(r *rand.Rand) float64
	mean, med, sd, mad float64
	skewed, heavy      bool
}

// coverageDists are the shapes of per-op times the intervals are checked
// on, with their true values, exact or by bisection on the exact CDF:
//
//   - normal(1, 0.02): mean and median 1, sd 0.02, MAD 1.4826·0.02·Φ⁻¹(3/4);
//   - log-normal(0, σ), σ = 0.1 and 0.3: mean e^{σ²/2}, sd
//     mean·√(e^{σ²}-1), median 1, MAD where Φ(ln(1+d)/σ) - Φ(ln(1-d)/σ)
//     = 1/2;
//   - 1 + 0.01·gamma(4): mean 1.04, sd 0.02, the gamma(4) CDF
//     1 - e^{-u}(1 + u + u²/2 + u³/6);
//   - 1 + Exp(mean 0.05), a floor plus random delays (skewness 2): mean
//     1.05, sd 0.05, median 1 + 0.05 ln 2.
func coverageDists() []coverageDist {
	mad := func(cdf func(float64) float64, med float64) float64 {
		return madScale * bisect(func(d float64) float64 { return cdf(med+d) - cdf(med-d) - 0.5 }, 0, 1)
	}
	ln := func(s float64) coverageDist {
		m := math.Exp(s * s / 2)
		cdf := func(v float64) float64 {
			if v <= 0 {
				return 0
			}
			return normCDF(math.Log(v) / s)
		}
		return coverageDist{
			name: fmt.Sprintf("lognormal(σ=%g)", s), draw: func(r *rand.Rand) float64 { return math.Exp(s * r.NormFloat64()) },
			mean: m, med: 1, sd: m * math.Sqrt(math.Expm1(s*s)), mad: mad(cdf, 1), skewed: s > 0.2,
		}
	}
	g4 := func(u float64) float64 {
		if u <= 0 {
			return 0
		}
		return 1 - math.Exp(-u)*(1+u+u*u/2+u*u*u/6)
	}
	gcdf := func(v float64) float64 { return g4((v - 1) / 0.01) }
	gmed := 1 + 0.01*bisect(func(u float64) float64 { return g4(u) - 0.5 }, 0, 20)
	const rate = 0.05
	ecdf := func(v float64) float64 { return 1 - math.Exp(-max(v-1, 0)/rate) }
	emed := 1 + rate*math.Ln2
	return []coverageDist{
		{name: "normal", draw: func(r *rand.Rand) float64 { return 1 + 0.02*r.NormFloat64() },
			mean: 1, med: 1, sd: 0.02, mad: madScale * 0.02 * 0.6744897501960817},
		ln(0.1),
		ln(0.3),
		{name: "gamma(4)", draw: func(r *rand.Rand) float64 {
			return 1 + 0.01*(r.ExpFloat64()+r.ExpFloat64()+r.ExpFloat64()+r.ExpFloat64())
		}, mean: 1.04, med: gmed, sd: 0.02, mad: mad(gcdf, gmed), skewed: true},
		{name: "shifted exponential", draw: func(r *rand.Rand) float64 { return 1 + rate*r.ExpFloat64() },
			mean: 1 + rate, med: emed, sd: rate, mad: mad(ecdf, emed), skewed: true, heavy: true},
	}
}

func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// bisect finds a root of f in [lo, hi], f(lo) < 0 < f(hi).
func bisect(f func(float64) float64, lo, hi float64) float64 {
	for range 200 {
		m := (lo + hi) / 2
		if f(m) < 0 {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}

// coverageFloor is the coverage TestEstimateCoverage asserts: 94% but
// where simulation showed less. Measured with 1000-2000 trials per cell
// (binomial standard error 0.5-0.7 points) when the methods were chosen:
//
//   - the slope, 92.6-94.5% on normal, log-normal and gamma times, 91-92.5%
//     on the shifted exponential: a line through the origin weighs its
//     samples by iterations², so ten samples count as about six;
//   - the standard deviation (Bonett), 93.8-95.2% on normal times,
//     91.8-94.5% on skewed ones, 86.7-89.7% on the shifted exponential;
//   - the MAD at ten samples of the shifted exponential, 90.5-91.2%.
//
// The floors sit about two standard errors below the lowest figure, so
// that a change for the worse fails.
func coverageFloor(d coverageDist, name string, n int) float64 {
	switch {
	case name == "slope" && d.heavy:
		return 0.895
	case name == "slope":
		return 0.915
	case name == "std dev" && d.heavy:
		return 0.85
	case name == "std dev" && d.skewed:
		return 0.905
	case name == "std dev":
		return 0.925
	case name == "MAD" && d.heavy && n < 20:
		return 0.89
	}
	return 0.94
}

// TestEstimateCoverage checks by seeded simulation how often each 95%
// interval holds the true value: the mean, the median, the standard
// deviation, the MAD and the slope, at 10, 20, 50 and 100 samples, on
// the shapes of coverageDists. The slope's samples are linear (iters
// 100·(1..n)), each sample's total its iterations times one draw, so its
// true per-op time is the mean.
//
// Without -short: 2000 trials per cell (binomial standard error 0.49% at
// 95%), 1000 resamples each, asserting at least 94% but where
// coverageFloor says otherwise. With -short, 200 trials of 20 samples on
// normal times, with a floor of 90% (three standard errors below 95%).
func TestEstimateCoverage(t *testing.T) {
	trials, sizes, resamples := 2000, []int{10, 20, 50, 100}, 1000
	ds := coverageDists()
	if testing.Short() {
		trials, sizes, ds = 200, []int{20}, ds[:1]
	}
	names := []string{"mean", "median", "std dev", "MAD", "slope"}
	for _, d := range ds {
		for _, n := range sizes {
			r := rand.New(rand.NewPCG(uint64(n), 26))
			hits := make([]int, len(names))
			x, iters, totals := make([]float64, n), make([]float64, n), make([]float64, n)
			for tr := range trials {
				for i := range x {
					x[i] = d.draw(r)
					iters[i] = float64(100 * (i + 1))
					totals[i] = iters[i] * d.draw(r)
				}
				b := Bootstrap{Resamples: resamples, Seed: uint64(tr), Workers: 1}
				for k, c := range []struct {
					e Estimate
					v float64
				}{
					{b.MeanEstimate(x), d.mean},
					{b.MedianEstimate(x), d.med},
					{b.StdDevEstimate(x), d.sd},
					{b.MADEstimate(x), d.mad},
					{b.SlopeEstimate(iters, totals), d.mean},
				} {
					if c.e.Lo <= c.v && c.v <= c.e.Hi {
						hits[k]++
					}
				}
			}
			for k, name := range names {
				cov := float64(hits[k]) / float64(trials)
				floor := coverageFloor(d, name, n)
				if testing.Short() {
					floor = 0.90
				}
				t.Logf("%-20s n=%3d %-8s coverage %.3f (floor %.3f)", d.name, n, name, cov, floor)
				if cov < floor {
					t.Errorf("%s, n=%d: the %s's 95%% interval covered %.1f%% of %d trials, below %.1f%%", d.name, n, name, 100*cov, trials, 100*floor)
				}
			}
		}
	}
}
