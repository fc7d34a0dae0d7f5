package history

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rigorbench/rigor/stats"
)

// A burst is a run of results off those around it: points[from:to].
type burst struct {
	from, to int
	// ratio is the median of the run over the median of its context.
	ratio float64
	// p is the run's p-value, corrected for every run searched.
	p float64
}

// bursts finds the runs of 1 to maxLen results of v that lie off the
// results on both sides of them (up to context on each side, at least
// minSide), strongest first, while their corrected p-value is below
// alpha. It returns them in order, and the indexes of the other points.
//
// A run B is compared with the results just before it, C1, and just
// after it, C2, by two pooled two-sample t-tests; it is off both when
// both differences have the same sign, and its p-value is the larger of
// the two (an intersection-union test: a step, off one side only, is not
// a burst). The strongest run, of the smallest such p-value, is kept when
// that p-value times the number of runs searched (Bonferroni) is below
// alpha; it is then left out and the search starts again. So a series
// without bursts shows one with probability at most alpha, for normal
// results.
func bursts(v []float64, maxLen, context int, alpha float64) ([]burst, []int) {
	kept := make([]int, len(v))
	for i := range kept {
		kept[i] = i
	}
	if maxLen < 1 || context < minSide {
		return nil, kept
	}
	var out []burst
	for len(kept) >= 1+2*minSide {
		lo, hi, p, ratio := strongestBurst(v, kept, maxLen, context, alpha)
		if !(p < alpha) {
			break
		}
		out = append(out, burst{from: kept[lo], to: kept[hi-1] + 1, ratio: ratio, p: p})
		kept = slices.Delete(kept, lo, hi)
	}
	slices.SortFunc(out, func(a, b burst) int { return cmp.Compare(a.from, b.from) })
	return out, kept
}

// strongestBurst returns the run kept[lo:hi] of v most off its context,
// its corrected p-value and its ratio (see bursts), when that p-value is
// below alpha; otherwise p is 1.
func strongestBurst(v []float64, kept []int, maxLen, context int, alpha float64) (lo, hi int, p, ratio float64) {
	n := len(kept)
	u := make([]float64, n)
	for i, k := range kept {
		u[i] = v[k]
	}
	// Relative values, so that the sums of squares keep their digits.
	w := slices.Clone(u)
	if med := stats.Median(u); med != 0 && !math.IsNaN(med) {
		for i := range w {
			w[i] = w[i]/med - 1
		}
	}
	sum, sq := make([]float64, n+1), make([]float64, n+1)
	for i, x := range w {
		sum[i+1], sq[i+1] = sum[i]+x, sq[i]+x*x
	}
	part := func(a, b int) moments {
		k := float64(b - a)
		s := sum[b] - sum[a]
		return moments{n: k, mean: s / k, ss: max(0, sq[b]-sq[a]-s*s/k)}
	}
	// The runs searched, i..i+l with enough context on both sides.
	valid := func(i, l int) (c1, c2 int, ok bool) {
		c1, c2 = max(0, i-context), min(n, i+l+context)
		return c1, c2, i-c1 >= minSide && c2-(i+l) >= minSide
	}
	searched := 0
	for l := 1; l <= maxLen; l++ {
		for i := 0; i+l <= n; i++ {
			if _, _, ok := valid(i, l); ok {
				searched++
			}
		}
	}
	if searched == 0 {
		return 0, 0, 1, math.NaN()
	}
	// Only a run whose t statistics both pass the Bonferroni level can
	// be kept. Student's t has heavier tails than the normal, so a t
	// below the normal quantile cannot pass: its p-value is not needed.
	level := alpha / float64(searched)
	z := distuv.UnitNormal.Quantile(1 - level/2)
	passes := func(t, df float64) bool { return math.Abs(t) > z && twoSided(t, df) < level }
	best, bestStat := 1.0, -1.0
	for l := 1; l <= maxLen; l++ {
		for i := 0; i+l <= n; i++ {
			c1, c2, ok := valid(i, l)
			if !ok {
				continue
			}
			b := part(i, i+l)
			t1, df1 := pooledT(b, part(c1, i))
			t2, df2 := pooledT(b, part(i+l, c2))
			if !(t1*t2 > 0) || !passes(t1, df1) || !passes(t2, df2) {
				continue
			}
			q, stat := max(twoSided(t1, df1), twoSided(t2, df2)), min(math.Abs(t1), math.Abs(t2))
			if q < best || q == best && stat > bestStat {
				best, bestStat, lo, hi = q, stat, i, i+l
			}
		}
	}
	if bestStat < 0 {
		return 0, 0, 1, math.NaN()
	}
	around := append(slices.Clone(u[max(0, lo-context):lo]), u[hi:min(n, hi+context)]...)
	return lo, hi, min(1, best*float64(searched)), stats.Median(u[lo:hi]) / stats.Median(around)
}

// moments are a run's count, mean and sum of squared deviations.
type moments struct{ n, mean, ss float64 }

// momentsOf returns the moments of x.
func momentsOf(x []float64) moments {
	m := moments{n: float64(len(x)), mean: stats.Mean(x)}
	for _, v := range x {
		m.ss += (v - m.mean) * (v - m.mean)
	}
	return m
}

// pooledT is the two-sample t statistic of a against b with pooled
// variance, and its degrees of freedom: infinite when neither varies and
// their means differ, 0 when they do not differ.
func pooledT(a, b moments) (t, df float64) {
	df = a.n + b.n - 2
	d := a.mean - b.mean
	sp2 := (a.ss + b.ss) / df
	switch {
	case d == 0 || df < 1:
		return 0, df
	case sp2 == 0:
		return math.Copysign(math.Inf(1), d), df
	}
	return d / math.Sqrt(sp2*(1/a.n+1/b.n)), df
}

// twoSided is the two-sided p-value of t with df degrees of freedom.
func twoSided(t, df float64) float64 {
	if math.IsInf(t, 0) {
		return 0
	}
	return min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t)))
}
