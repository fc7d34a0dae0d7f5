package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
)

func near(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if got == want {
		return true
	}
	return math.Abs(got-want) <= tol
}

// TestQuantileType7 checks hand-computed type-7 quantiles (R's default:
// quantile(c(1, 3, 7, 15), c(0, .25, .5, .9, 1)) is 1, 2.5, 5, 12.6, 15).
// With h = 3p: p=.25 gives 1 + .75*(3-1) = 2.5; p=.5 gives 3 + .5*(7-3) = 5;
// p=.9 gives h = 2.7, 7 + .7*(15-7) = 12.6.
func TestQuantileType7(t *testing.T) {
	x := []float64{15, 1, 7, 3} // unsorted on purpose
	orig := slices.Clone(x)
	for _, c := range []struct{ p, want float64 }{
		{0, 1}, {0.25, 2.5}, {0.5, 5}, {0.9, 12.6}, {1, 15},
		{-0.1, math.NaN()}, {1.1, math.NaN()}, {math.NaN(), math.NaN()},
	} {
		if got := Quantile(x, c.p); !near(got, c.want, 1e-12) {
			t.Errorf("Quantile(%v, %v) = %v, want %v", x, c.p, got, c.want)
		}
	}
	if !slices.Equal(x, orig) {
		t.Errorf("Quantile modified its input: %v", x)
	}
	if got := Quantile([]float64{4}, 0.3); got != 4 {
		t.Errorf("Quantile of one value = %v", got)
	}
}

// TestDescriptive checks the summaries on small samples derived by hand.
func TestDescriptive(t *testing.T) {
	nan := math.NaN()
	x := []float64{2, 4, 4, 4, 5, 5, 7, 9} // mean 5, sum of squares 32
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"mean", Mean(x), 5},
		{"median", Median(x), 4.5},
		// sqrt(32/7)
		{"stddev", StdDev(x), math.Sqrt(32.0 / 7)},
		// |x-4.5| = 2.5 .5 .5 .5 .5 .5 2.5 4.5 -> median .5
		{"mad", MAD(x), 1.4826 * 0.5},
		{"cv", CV(x), math.Sqrt(32.0/7) / 5},
		{"min", Min(x), 2},
		{"max", Max(x), 9},
		// (1*2*4*8)^(1/4) = 64^(1/4)
		{"geomean", GeoMean([]float64{1, 2, 4, 8}), math.Sqrt(8)},
		{"geomean with zero", GeoMean([]float64{1, 0}), nan},
		{"geomean negative", GeoMean([]float64{-1, 4}), nan},
		{"median odd", Median([]float64{3, 1, 2}), 2},
		{"mean empty", Mean(nil), nan},
		{"median empty", Median(nil), nan},
		{"stddev one", StdDev([]float64{1}), nan},
		{"min NaN", Min([]float64{1, nan}), nan},
		{"max NaN", Max([]float64{nan, 1}), nan},
		{"median NaN", Median([]float64{1, nan, 2}), nan},
		{"mad empty", MAD(nil), nan},
		{"median of infinities", Median([]float64{math.Inf(1), math.Inf(1)}), math.Inf(1)},
		{"median across infinities", Median([]float64{math.Inf(-1), math.Inf(1)}), nan},
		// points (1,2), (2,4.5), (3,5.5): sum xy = 2+9+16.5 = 27.5, sum xx = 14
		{"slope", Slope([]float64{1, 2, 3}, []float64{2, 4.5, 5.5}), 27.5 / 14},
		{"slope length mismatch", Slope([]float64{1}, []float64{1, 2}), nan},
		{"slope zero iters", Slope([]float64{0, 0}, []float64{1, 2}), nan},
	} {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestTukeyHand checks fences and classification on a sample derived by
// hand: 1..8 plus 20 and -12. Sorted: -12 1 2 3 4 5 6 7 8 20 (n = 10,
// h = 9p). Q1 at h = 2.25: 2 + .25 = 2.25; Q3 at h = 6.75: 6 + .75 = 6.75;
// IQR 4.5. Fences: 2.25-13.5 = -11.25, 2.25-6.75 = -4.5, 6.75+6.75 = 13.5,
// 6.75+13.5 = 20.25. So -12 is low severe and 20 high mild.
func TestTukeyHand(t *testing.T) {
	o := Tukey([]float64{5, 20, 1, 2, 3, -12, 4, 6, 7, 8})
	want := Outliers{LowSevere: 1, HighMild: 1,
		LowSevereFence: -11.25, LowMildFence: -4.5, HighMildFence: 13.5, HighSevereFence: 20.25}
	if o != want {
		t.Errorf("Tukey = %+v, want %+v", o, want)
	}
	if o.Total() != 2 {
		t.Errorf("Total = %d", o.Total())
	}
	if o := Tukey(nil); o.Total() != 0 || !math.IsNaN(o.LowMildFence) {
		t.Errorf("Tukey(nil) = %+v", o)
	}
}

// TestMannWhitneyUPublished uses the example of R's ?wilcox.test, from
// Hollander & Wolfe (1973, p. 69): x <- c(0.80, 0.83, 1.89, 1.04, 1.45,
// 1.38, 1.91, 1.64, 0.73, 1.46); y <- c(1.15, 0.88, 0.90, 0.74, 1.21);
// wilcox.test(x, y, alternative = "g") gives W = 35, p-value = 0.1272. The
// two-sided exact p is twice that: 382 of the C(15,5) = 3003 arrangements
// have U >= 35 (counted by enumeration), so p = 764/3003 = 0.254412.
func TestMannWhitneyUPublished(t *testing.T) {
	x := []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}
	y := []float64{1.15, 0.88, 0.90, 0.74, 1.21}
	u, p, err := MannWhitneyU(x, y)
	if err != nil || u != 35 || !near(p, 764.0/3003, 1e-12) {
		t.Errorf("MannWhitneyU = %v, %v, %v; want 35, 0.254412", u, p, err)
	}
	// Swapping the samples mirrors U and keeps p.
	u, p, _ = MannWhitneyU(y, x)
	if u != 50-35 || !near(p, 764.0/3003, 1e-12) {
		t.Errorf("swapped: U = %v, p = %v", u, p)
	}
}

func TestMannWhitneyUErrors(t *testing.T) {
	for _, c := range []struct {
		x, y []float64
		err  error
	}{
		{nil, []float64{1}, ErrTooFew},
		{[]float64{1, 1}, []float64{1, 1, 1}, ErrAllEqual},
		{[]float64{1, math.NaN()}, []float64{2}, ErrNaN},
	} {
		_, p, err := MannWhitneyU(c.x, c.y)
		if !errors.Is(err, c.err) || p != 1 {
			t.Errorf("MannWhitneyU(%v, %v) p = %v err = %v, want p = 1 and %v", c.x, c.y, p, err, c.err)
		}
	}
}

// TestWilcoxonSignedRankPublished uses the paired example of R's
// ?wilcox.test (Hollander & Wolfe 1973, p. 29: depression scale before x
// and after y). R computes d = x - y; wilcox.test(x, y, paired = TRUE,
// alternative = "greater") gives V = 40, p-value = 0.01953, so the
// two-sided p is 0.03906. Our d is second minus first, so the call is
// WilcoxonSignedRank(y, x). By hand: d = .952 -.147 1.022 .43 .62 .59 .49
// -.08 .01; the negative |d| have ranks 2 and 3, so V = 45 - 5 = 40, and
// P(V >= 40) = P(V <= 5) = 10/512 (subsets of 1..9 summing to at most 5).
func TestWilcoxonSignedRankPublished(t *testing.T) {
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	w, p, err := WilcoxonSignedRank(y, x)
	if err != nil || w != 40 || !near(p, 20.0/512, 1e-15) {
		t.Errorf("WilcoxonSignedRank = %v, %v, %v; want 40, 0.0390625", w, p, err)
	}
	w, p, _ = WilcoxonSignedRank(x, y)
	if w != 5 || !near(p, 20.0/512, 1e-15) {
		t.Errorf("reversed: %v, %v; want 5, 0.0390625", w, p)
	}
}

// TestWilcoxonSignedRankTiesAndZeros checks the normal approximation with
// tie and continuity corrections (R's wilcox.test with its default
// correct = TRUE falls back to it with ties or zeros), derived by hand:
// d = 1 -2 2 3 0 4 4. The zero is dropped, n = 6. |d| ranks: 1 -> 1,
// 2 2 -> 2.5, 3 -> 4, 4 4 -> 5.5. V = 1 + 2.5 + 4 + 5.5 + 5.5 = 18.5.
// E[V] = 6*7/4 = 10.5; Var = 6*7*13/24 - (6+6)/48 = 22.5;
// z = (18.5 - 10.5 - 0.5)/sqrt(22.5) = 1.581139; p = 2(1 - Φ(z)) = 0.113846.
func TestWilcoxonSignedRankTiesAndZeros(t *testing.T) {
	x := make([]float64, 7)
	y := []float64{1, -2, 2, 3, 0, 4, 4}
	w, p, err := WilcoxonSignedRank(x, y)
	if err != nil || w != 18.5 || !near(p, 0.113846298, 1e-8) {
		t.Errorf("WilcoxonSignedRank = %v, %v, %v; want 18.5, 0.113846", w, p, err)
	}
	if _, p, err := WilcoxonSignedRank([]float64{1, 2}, []float64{1, 2}); !errors.Is(err, ErrTooFew) || p != 1 {
		t.Errorf("all zero differences: p = %v, err = %v", p, err)
	}
	if _, _, err := WilcoxonSignedRank([]float64{1}, []float64{1, 2}); !errors.Is(err, ErrTooFew) {
		t.Errorf("unequal lengths: err = %v", err)
	}
}

// TestWelchT checks t, df and p on examples derived by hand. With df = 1
// and df = 2 the t distribution has closed forms: P(|T| > t) is
// 1 - (2/π) atan(t) and 1 - t/sqrt(2 + t²).
//
//   - x = {0, 2}, y = {3, 5}: means 1 and 4, variances 2 and 2,
//     se = sqrt(2/2 + 2/2) = sqrt 2, t = 3/sqrt 2, df = (1+1)²/(1/1 + 1/1) = 2,
//     p = 1 - 3/sqrt 13 = 0.167950.
//   - x = {0, 2}, y = {5, 5}: variances 2 and 0, se = 1, t = 4,
//     df = 1²/(1²/1) = 1, p = 1 - (2/π) atan 4 = 0.155958.
//   - x = {1..5}, y = {2, 4, 6, 8}: a = 2.5/5 = 0.5, b = (20/3)/4 = 5/3,
//     t = 2/sqrt(13/6) = 1.358732, df = (13/6)²/(0.25/4 + (25/9)/3) =
//     4.749415; p = 0.235194 by numerical integration of the t density
//     (mpmath quad, 30 digits; it agrees with the regularized incomplete
//     beta I(df/(df+t²); df/2, 1/2)).
func TestWelchT(t *testing.T) {
	for _, c := range []struct {
		x, y     []float64
		t, df, p float64
	}{
		{[]float64{0, 2}, []float64{3, 5}, 3 / math.Sqrt2, 2, 1 - 3/math.Sqrt(13)},
		{[]float64{0, 2}, []float64{5, 5}, 4, 1, 1 - 2/math.Pi*math.Atan(4)},
		{[]float64{1, 2, 3, 4, 5}, []float64{2, 4, 6, 8}, 1.3587324409735149, 4.7494145199063232, 0.23519411138940563},
	} {
		tt, df, p, err := WelchT(c.x, c.y)
		if err != nil || !near(tt, c.t, 1e-12) || !near(df, c.df, 1e-12) || !near(p, c.p, 1e-9) {
			t.Errorf("WelchT(%v, %v) = %v, %v, %v, %v; want %v, %v, %v", c.x, c.y, tt, df, p, err, c.t, c.df, c.p)
		}
		// Swapping flips the sign of t only.
		tt2, df2, p2, _ := WelchT(c.y, c.x)
		if tt2 != -tt || df2 != df || p2 != p {
			t.Errorf("swapped: %v %v %v", tt2, df2, p2)
		}
	}
	if _, _, p, err := WelchT([]float64{1}, []float64{1, 2}); !errors.Is(err, ErrTooFew) || p != 1 {
		t.Errorf("one value: p = %v err = %v", p, err)
	}
	if _, _, _, err := WelchT([]float64{1, 1}, []float64{2, 2}); !errors.Is(err, ErrZeroVariance) {
		t.Errorf("constant samples: err = %v", err)
	}
}

// TestMixedBootstrapT checks Criterion.rs's test. Its t is the Welch
// statistic (checked against TestWelchT's hand-derived value), and under
// the null hypothesis its bootstrap p approximates the Welch p: for samples
// of 30 the t distribution of the pooled resamples is close to Student's.
// The reference p values come from WelchT, which is itself checked against
// closed forms above.
func TestMixedBootstrapT(t *testing.T) {
	tt, p := MixedBootstrapT([]float64{1, 2, 3, 4, 5}, []float64{2, 4, 6, 8}, 20_000, 1)
	if !near(tt, 1.3587324409735149, 1e-12) || !(p > 0 && p < 1) {
		t.Errorf("MixedBootstrapT t = %v p = %v, want t = 1.358732", tt, p)
	}
	// Two samples of 30 from the same shape, shifted by 0.3 and 0.6 sd.
	base := make([]float64, 30)
	for i := range base {
		base[i] = 100 + 10*math.Sin(float64(i)*2.1) // deterministic spread
	}
	for _, shift := range []float64{1.5, 4, 6} {
		y := make([]float64, len(base))
		for i := range y {
			y[i] = base[(i*7)%len(base)] + shift
		}
		_, _, want, _ := WelchT(base, y)
		_, got := MixedBootstrapT(base, y, 50_000, 3)
		if math.Abs(got-want) > 0.02 {
			t.Errorf("shift %v: mixed bootstrap p = %v, Welch p = %v", shift, got, want)
		}
	}
	// Fully separated samples: no resample is as extreme, p = 0.
	if _, p := MixedBootstrapT([]float64{1, 2, 3, 4, 5, 6}, []float64{50, 51, 52, 53, 54, 55}, 10_000, 1); p != 0 {
		t.Errorf("separated samples: p = %v, want 0", p)
	}
	if tt, p := MixedBootstrapT([]float64{1}, []float64{1, 2}, 100, 1); !math.IsNaN(tt) || !math.IsNaN(p) {
		t.Errorf("one value: %v %v", tt, p)
	}
	a, pa := MixedBootstrapT(base, base[:20], 5000, 9)
	b, pb := MixedBootstrapT(base, base[:20], 5000, 9)
	if a != b || pa != pb {
		t.Errorf("same seed, different results: %v %v / %v %v", a, pa, b, pb)
	}
}

// TestHodgesLehmann checks estimates and Moses intervals derived by hand.
//
// x = {1..5}, y = {3, 5, 7, 9, 11}: the 25 differences y-x sorted are
// -2 -1 0 0 1 1 2 2 2 3 3 4 4 4 5 5 6 6 6 7 7 8 8 9 10, median (13th) 4.
// For n = m = 5 the null distribution of U has P(U=0..3) = 1, 1, 2, 3 /252,
// so P(U <= 2) = 4/252 < 0.025 <= P(U <= 3) = 7/252: k = 3 (the classic
// table's critical value 2, plus one), the interval is the 3rd smallest and
// 3rd largest difference, [0, 8], and the achieved level is
// 1 - 2*4/252 = 0.968254.
//
// x = {1, 2, 3}, y = {4, 6, 9} at 80%: differences 1 2 3 3 4 5 6 7 8,
// median 4; P(U <= 0) = 1/20 < 0.1 <= P(U <= 1) = 2/20, k = 1: [1, 8],
// achieved 1 - 2/20 = 0.9. At 95% even [1, 8] covers only 90%, so the
// interval comes with a TooFewSamplesError (4 per side are needed:
// 1 - 2/C(8,4) = 0.971).
func TestHodgesLehmann(t *testing.T) {
	iv, err := HodgesLehmann([]float64{1, 2, 3, 4, 5}, []float64{3, 5, 7, 9, 11}, 0.95)
	if err != nil || iv != (Interval{Estimate: 4, Lo: 0, Hi: 8, Confidence: 244.0 / 252}) {
		t.Errorf("HodgesLehmann = %+v, %v; want 4 [0, 8] at 0.968254", iv, err)
	}
	iv, err = HodgesLehmann([]float64{1, 2, 3}, []float64{4, 6, 9}, 0.8)
	if err != nil || iv.Estimate != 4 || iv.Lo != 1 || iv.Hi != 8 || !near(iv.Confidence, 0.9, 1e-12) {
		t.Errorf("HodgesLehmann 3x3 = %+v, %v", iv, err)
	}
	iv, err = HodgesLehmann([]float64{1, 2, 3}, []float64{4, 6, 9}, 0.95)
	var tf *TooFewSamplesError
	if !errors.As(err, &tf) || tf.Need != 4 || iv.Lo != 1 || iv.Hi != 8 {
		t.Errorf("HodgesLehmann 3x3 at 95%% = %+v, %v; want [1, 8] and need 4", iv, err)
	}
	if _, err := HodgesLehmann(nil, []float64{1}, 0.95); !errors.Is(err, ErrTooFew) {
		t.Errorf("empty: %v", err)
	}
	// Large samples use the normal approximation; a pure shift of 10 must
	// be estimated exactly, and the interval must be a valid one around it.
	x := make([]float64, 60)
	y := make([]float64, 70)
	for i := range x {
		x[i] = float64(i)
	}
	for i := range y {
		y[i] = float64(i)*60/70 + 10
	}
	iv, err = HodgesLehmann(x, y, 0.95)
	if err != nil || !(iv.Lo < iv.Estimate && iv.Estimate < iv.Hi) || iv.Confidence < 0.95 {
		t.Errorf("large samples: %+v, %v", iv, err)
	}
}

// TestEffectSizes checks Cohen's d, d_z and Spearman's rho on values
// derived by hand.
func TestEffectSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		// variances 1 and 1, pooled sd 1, means 2 and 4.
		{"d equal", CohenD([]float64{1, 2, 3}, []float64{3, 4, 5}), 2},
		// x = {1,3}: mean 2, var 2; y = {4,6,8}: mean 6, var 4;
		// pooled sd = sqrt((1*2 + 2*4)/3) = 1.825742; d = 4/1.825742.
		{"d unequal", CohenD([]float64{1, 3}, []float64{4, 6, 8}), 2.1908902300206643},
		// d = {1,2,2,4}: mean 2.25, var 4.75/3, dz = 2.25/1.258306.
		{"dz", CohenDz([]float64{1, 2, 3, 4}, []float64{2, 4, 5, 8}), 1.7881186820378092},
		{"dz mismatch", CohenDz([]float64{1}, []float64{1, 2}), math.NaN()},
		// ranks x: 1 2.5 2.5 4, y: 1 3 2 4; deviations -1.5 0 0 1.5 and
		// -1.5 .5 -.5 1.5: rho = 4.5/sqrt(4.5*5) = 3/sqrt 10.
		{"spearman ties", Spearman([]float64{1, 2, 2, 3}, []float64{1, 3, 2, 4}), 3 / math.Sqrt(10)},
		{"spearman monotone", Spearman([]float64{1, 2, 3}, []float64{10, 100, 1000}), 1},
		{"spearman constant", Spearman([]float64{1, 1, 1}, []float64{1, 2, 3}), math.NaN()},
	} {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestSpearmanTextbook is the worked example of the Wikipedia article
// "Spearman's rank correlation coefficient" (IQ against hours of TV per
// week, ten people). Sorted by IQ: 86 97 99 100 101 103 106 110 112 113 with
// TV 2 20 28 27 50 29 7 17 6 12; TV ranks 1 6 8 7 10 9 3 5 2 4; d = rank IQ
// - rank TV = 0 -4 -5 -3 -5 -3 4 3 7 6; sum d² = 194 and
// rho = 1 - 6*194/(10*99) = -29/165 = -0.175758.
func TestSpearmanTextbook(t *testing.T) {
	iq := []float64{106, 100, 86, 101, 99, 103, 97, 113, 112, 110}
	tv := []float64{7, 27, 2, 50, 28, 29, 20, 12, 6, 17}
	if got := Spearman(iq, tv); !near(got, -29.0/165, 1e-12) {
		t.Errorf("Spearman = %v, want -29/165 = %v", got, -29.0/165)
	}
}

// TestHolmBH checks the adjustments derived by hand for
// p = 0.01, 0.04, 0.03, 0.005 (m = 4; sorted 0.005 0.01 0.03 0.04).
// Holm: 4*.005 = .02, 3*.01 = .03, 2*.03 = .06, 1*.04 = .04, running max
// .02 .03 .06 .06, back in input order .03 .06 .06 .02.
// BH: .005*4/1 = .02, .01*4/2 = .02, .03*4/3 = .04, .04*4/4 = .04, running
// min from the top .02 .02 .04 .04, in input order .02 .04 .04 .02.
func TestHolmBH(t *testing.T) {
	p := []float64{0.01, 0.04, 0.03, 0.005}
	for _, c := range []struct {
		name      string
		got, want []float64
	}{
		{"holm", Holm(p), []float64{0.03, 0.06, 0.06, 0.02}},
		{"bh", BenjaminiHochberg(p), []float64{0.02, 0.04, 0.04, 0.02}},
		// Capped at 1; NaN kept and not counted (m = 2).
		{"holm cap", Holm([]float64{0.6, math.NaN(), 0.7}), []float64{1, math.NaN(), 1}},
		{"bh nan", BenjaminiHochberg([]float64{0.02, math.NaN(), 0.04}), []float64{0.04, math.NaN(), 0.04}},
		{"empty", Holm(nil), []float64{}},
	} {
		if len(c.got) != len(c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
			continue
		}
		for i := range c.want {
			if !near(c.got[i], c.want[i], 1e-15) {
				t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
				break
			}
		}
	}
}

// TestSampleSize checks n = ceil(2 (z(1-α/2) + z(power))² (cv/rel)²) by hand
// with z(.975) = 1.959964, z(.8) = 0.841621, z(.995) = 2.575829,
// z(.9) = 1.281552:
//
//	rel 5%, cv 5%, α .05, power .8: 2*2.801585² = 15.698 -> 16 (Lehr's
//	    rule of thumb, n = 16/Δ² for Δ = 1 standard deviation)
//	rel 1%, cv 2%: 4 times that, 62.791 -> 63
//	rel 2%, cv 1%, α .01, power .9: 2*3.857381²/4 = 7.440 -> 8
func TestSampleSize(t *testing.T) {
	for _, c := range []struct {
		rel, cv, alpha, power float64
		want                  int
	}{
		{0.05, 0.05, 0.05, 0.8, 16},
		{0.01, 0.02, 0.05, 0.8, 63},
		{-0.01, 0.02, 0.05, 0.8, 63},
		{0.02, 0.01, 0.01, 0.9, 8},
		{0.5, 0.001, 0.05, 0.8, 2},
		{0, 0.01, 0.05, 0.8, 0},
		{0.01, -1, 0.05, 0.8, 0},
		{0.01, 0.01, 1, 0.8, 0},
		{0.01, 0.01, 0.05, 0, 0},
	} {
		if got := SampleSize(c.rel, c.cv, c.alpha, c.power); got != c.want {
			t.Errorf("SampleSize(%v, %v, %v, %v) = %d, want %d", c.rel, c.cv, c.alpha, c.power, got, c.want)
		}
	}
}

// TestMedianCIMessages checks benchstat's warning text and the error type.
func TestMedianCIMessages(t *testing.T) {
	_, err := MedianCI([]float64{1, 2, 3, 4, 5}, 0.95)
	var tf *TooFewSamplesError
	if !errors.As(err, &tf) || tf.Need != 6 || err.Error() != "need >= 6 samples for confidence interval at level 0.95" {
		t.Errorf("n=5: %v", err)
	}
	iv, err := MedianCI([]float64{1, 2, 3, 4, 5, 6}, 0.95)
	if err != nil || iv.Lo != 1 || iv.Hi != 6 || iv.Estimate != 3.5 {
		t.Errorf("n=6: %+v %v", iv, err)
	}
	if _, err := MedianCI([]float64{1, 2}, 0.9999999999999); err == nil || err.Error() != fmt.Sprintf("need > 50 samples for confidence interval at level %v", 0.9999999999999) {
		t.Errorf("unreachable level: %v", err)
	}
	if _, err := MedianCI([]float64{1, 2}, 0); err == nil {
		t.Errorf("confidence 0 accepted")
	}
}

// TestMedianDoesNotAllocate: Median is called once per resample by
// Bootstrap.Statistic and Ratio, so small samples must not allocate.
func TestMedianDoesNotAllocate(t *testing.T) {
	x := []float64{3, 1, 2, 5, 4, 9, 8, 7, 6, 0}
	if a := testing.AllocsPerRun(100, func() { Median(x) }); a != 0 {
		t.Errorf("Median allocates %v times", a)
	}
}

// TestMedianVariance: {1, 2, 3, 4, 5} has median 3, distances {2, 1, 0,
// 1, 2} of median 1, so MAD = 1.4826 and the variance of the median is
// (π/2) 1.4826² / 5 = 0.690554348 (worked by hand); fewer than 2 values
// or a NaN say nothing.
func TestMedianVariance(t *testing.T) {
	if v, ok := MedianVariance([]float64{5, 1, 4, 2, 3}); !ok || math.Abs(v-0.690554348) > 1e-9 {
		t.Errorf("MedianVariance = %.10g, %v; want 0.690554348", v, ok)
	}
	for _, x := range [][]float64{nil, {1}, {1, math.NaN()}} {
		if _, ok := MedianVariance(x); ok {
			t.Errorf("MedianVariance(%v): ok, want not", x)
		}
	}
}

// BenchmarkMannWhitneyU10 is rigor compare's U test of one metric: two
// sides of go test -count 10, no value repeated (as times are).
func BenchmarkMannWhitneyU10(b *testing.B) {
	x := []float64{100, 103, 98, 120, 101, 99, 102, 97, 110, 100.5}
	y := []float64{90, 93, 88, 108, 91, 89, 92, 87, 99.5, 90.5}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := MannWhitneyU(x, y); err != nil {
			b.Fatal(err)
		}
	}
}

// TInterval against a t table: t(0.975, 4) = 2.776445, and a t of 2 on 4
// degrees of freedom has a two-sided p of 0.116117.
func TestTInterval(t *testing.T) {
	lo, hi, p := TInterval(2, 1, 4, 0.95)
	if !near(lo, 2-2.776445, 1e-6) || !near(hi, 2+2.776445, 1e-6) || !near(p, 0.116117, 1e-6) {
		t.Errorf("TInterval(2, 1, 4, 0.95) = [%v, %v], p %v", lo, hi, p)
	}
	if lo, hi, p := TInterval(0, 0, 3, 0.95); lo != 0 || hi != 0 || p != 1 {
		t.Errorf("no spread, zero estimate: [%v, %v] p %v, want [0, 0] p 1", lo, hi, p)
	}
	if _, _, p := TInterval(0.5, 0, 3, 0.95); p != 0 {
		t.Errorf("no spread, nonzero estimate: p %v, want 0", p)
	}
}
