package stats

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ErrZeroVariance means both samples are constant, so a t statistic is undefined.
var ErrZeroVariance = errors.New("stats: both samples have zero variance")

// WelchT performs Welch's two-sided t-test of the null hypothesis that x and
// y have equal means, without assuming equal variances:
//
//	t  = (mean(y) - mean(x)) / sqrt(sx²/nx + sy²/ny)
//	df = (sx²/nx + sy²/ny)² / ((sx²/nx)²/(nx-1) + (sy²/ny)²/(ny-1))
//
// (the Welch-Satterthwaite degrees of freedom), and p = 2 P(T_df > |t|).
// t is positive when y's mean is larger. Each side needs at least two values
// (ErrTooFew), and at least one side must vary (ErrZeroVariance); on error
// p is 1.
func WelchT(x, y []float64) (t, df, p float64, err error) {
	nx, ny := float64(len(x)), float64(len(y))
	if len(x) < 2 || len(y) < 2 {
		return math.NaN(), math.NaN(), 1, ErrTooFew
	}
	if hasNaN(x) || hasNaN(y) {
		return math.NaN(), math.NaN(), 1, ErrNaN
	}
	a, b := variance(x)/nx, variance(y)/ny
	se2 := a + b
	if se2 == 0 {
		return math.NaN(), math.NaN(), 1, ErrZeroVariance
	}
	t = (Mean(y) - Mean(x)) / math.Sqrt(se2)
	df = se2 * se2 / (a*a/(nx-1) + b*b/(ny-1))
	if math.IsNaN(t) || math.IsNaN(df) {
		return t, df, 1, ErrNaN
	}
	p = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
	return t, df, min(1, p), nil
}

// MixedBootstrapT is Criterion.rs's comparison test (src/analysis/compare.rs):
// the Welch t statistic of y against x, t = (mean(y) - mean(x)) /
// sqrt(sx²/nx + sy²/ny), with a p-value from a "mixed" bootstrap of the null
// hypothesis. The two samples are pooled; each resample draws nx+ny values
// from the pool with replacement, splits them into a pseudo-x (first nx) and
// a pseudo-y (last ny), and computes their t. With h the number of resampled
// t below the observed t, p = 2 min(h, B-h)/B.
//
// resamples <= 0 means 100,000. The result is reproducible for a seed. p is
// NaN if either side has fewer than two values.
func MixedBootstrapT(x, y []float64, resamples int, seed uint64) (t, p float64) {
	nx, ny := len(x), len(y)
	if nx < 2 || ny < 2 || hasNaN(x) || hasNaN(y) {
		return math.NaN(), math.NaN()
	}
	t = welchStatistic(Mean(x), variance(x), float64(nx), Mean(y), variance(y), float64(ny))

	// Center the pool so per-resample sums of squares stay precise.
	pool := make([]float64, 0, nx+ny)
	pool = append(pool, x...)
	pool = append(pool, y...)
	m := Mean(pool)
	for i := range pool {
		pool[i] -= m
	}
	n := uint64(len(pool))
	b := Bootstrap{Resamples: resamples, Seed: seed}
	dist := b.distribution(func() kernel {
		return func(r *rng, out []float64) {
			for i := range out {
				sx, ssx := sumsResample(r, pool, n, nx)
				sy, ssy := sumsResample(r, pool, n, ny)
				fx, fy := float64(nx), float64(ny)
				mx, my := sx/fx, sy/fy
				vx := (ssx - sx*mx) / (fx - 1)
				vy := (ssy - sy*my) / (fy - 1)
				out[i] = welchStatistic(mx, vx, fx, my, vy, fy)
			}
		}
	})
	hits := 0
	for _, v := range dist {
		if v < t {
			hits++
		}
	}
	return t, 2 * float64(min(hits, len(dist)-hits)) / float64(len(dist))
}

// welchStatistic is (my - mx) / sqrt(vx/nx + vy/ny).
func welchStatistic(mx, vx, nx, my, vy, ny float64) float64 {
	return (my - mx) / math.Sqrt(vx/nx+vy/ny)
}

// sumsResample draws k values from pool (len n) and returns their sum and
// sum of squares.
func sumsResample(r *rng, pool []float64, n uint64, k int) (s, ss float64) {
	for range k {
		v := pool[index(r.next(), n)]
		s += v
		ss += v * v
	}
	return s, ss
}
