package history

import (
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
	"sync"

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
func bursts(v []float64, maxLen, context int, alpha float64, memo *burstMemo) ([]burst, []int) {
	kept := make([]int, len(v))
	for i := range kept {
		kept[i] = i
	}
	if maxLen < 1 || context < minSide {
		return nil, kept
	}
	var out []burst
	for len(kept) >= 1+2*minSide {
		lo, hi, p, ratio := strongestBurst(v, kept, maxLen, context, alpha, memo)
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
// below alpha; otherwise p is 1. The runs are searched in blocks of
// burstBlock starting points (see burstCandidates), kept in memo (when
// not nil) by their values.
func strongestBurst(v []float64, kept []int, maxLen, context int, alpha float64, memo *burstMemo) (lo, hi int, p, ratio float64) {
	n := len(kept)
	u := make([]float64, n)
	for i, k := range kept {
		u[i] = v[k]
	}
	searched := 0
	for l := 1; l <= maxLen; l++ {
		for i := 0; i+l <= n; i++ {
			if _, _, ok := burstContext(i, l, n, context); ok {
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
	var cands []burstRun
	for s := 0; s < n; s += burstBlock {
		cands = memo.candidates(u, s, min(n, s+burstBlock), maxLen, context, z, cands)
	}
	// In the order of a search by length, then start: the first of
	// equally strong runs is kept.
	slices.SortFunc(cands, func(a, b burstRun) int { return cmp.Or(cmp.Compare(a.l, b.l), cmp.Compare(a.i, b.i)) })
	passes := func(t, df float64) bool { return math.Abs(t) > z && twoSided(t, df) < level }
	best, bestStat := 1.0, -1.0
	for _, c := range cands {
		if !passes(c.t1, c.df1) || !passes(c.t2, c.df2) {
			continue
		}
		q, stat := max(twoSided(c.t1, c.df1), twoSided(c.t2, c.df2)), min(math.Abs(c.t1), math.Abs(c.t2))
		if q < best || q == best && stat > bestStat {
			best, bestStat, lo, hi = q, stat, c.i, c.i+c.l
		}
	}
	if bestStat < 0 {
		return 0, 0, 1, math.NaN()
	}
	around := append(slices.Clone(u[max(0, lo-context):lo]), u[hi:min(n, hi+context)]...)
	return lo, hi, min(1, best*float64(searched)), stats.Median(u[lo:hi]) / stats.Median(around)
}

// burstContext returns the context u[c1:i] and u[i+l:c2] of the run
// u[i:i+l] of n results, and whether the run is searched: at least
// minSide results on either side.
func burstContext(i, l, n, context int) (c1, c2 int, ok bool) {
	c1, c2 = max(0, i-context), min(n, i+l+context)
	return c1, c2, i-c1 >= minSide && c2-(i+l) >= minSide
}

// burstBlock is the number of starting points of the runs a block of
// strongestBurst's search holds: a result added to a series of a
// thousand changes the last block or two, of some 17.
const burstBlock = 64

// A burstRun is a run u[i:i+l] off its context in the same direction on
// both sides, with the t statistics of the two sides.
type burstRun struct {
	i, l    int
	t1, df1 float64
	t2, df2 float64
}

// burstCandidates appends to cands the runs of u starting at s..e-1
// whose t statistics on both sides have the same sign and pass z in
// absolute value. The statistics are of the values u[a:b] alone, the
// runs' contexts (a = max(0, s-context), b = min(len(u),
// e-1+maxLen+context)): relative to their median, so that the sums of
// squares keep their digits, the moments from sums over u[a:b]. So the
// block's runs, their statistics bit for bit, depend on those values
// and the block's place among them only.
func burstCandidates(u []float64, s, e, maxLen, context int, z float64, cands []burstRun) []burstRun {
	n := len(u)
	a, b := max(0, s-context), min(n, e-1+maxLen+context)
	w := slices.Clone(u[a:b])
	if med := stats.Median(w); med != 0 && !math.IsNaN(med) {
		for i := range w {
			w[i] = w[i]/med - 1
		}
	}
	sum, sq := make([]float64, len(w)+1), make([]float64, len(w)+1)
	for i, x := range w {
		sum[i+1], sq[i+1] = sum[i]+x, sq[i]+x*x
	}
	part := func(from, to int) moments {
		from, to = from-a, to-a
		k := float64(to - from)
		s := sum[to] - sum[from]
		return moments{n: k, mean: s / k, ss: max(0, sq[to]-sq[from]-s*s/k)}
	}
	for l := 1; l <= maxLen; l++ {
		for i := s; i < e && i+l <= n; i++ {
			c1, c2, ok := burstContext(i, l, n, context)
			if !ok {
				continue
			}
			r := part(i, i+l)
			t1, df1 := pooledT(r, part(c1, i))
			t2, df2 := pooledT(r, part(i+l, c2))
			if t1*t2 > 0 && math.Abs(t1) > z && math.Abs(t2) > z {
				cands = append(cands, burstRun{i: i, l: l, t1: t1, df1: df1, t2: t2, df2: df2})
			}
		}
	}
	return cands
}

// A burstMemo keeps the candidates of strongestBurst's blocks by their
// values, as a windowMemo keeps E-divisive's windows. A nil burstMemo
// keeps nothing.
type burstMemo struct {
	hash   valuesHash
	mu     sync.Mutex
	blocks map[[2]uint64]burstBlockFound
}

// A valuesHash hashes values, bit for bit, to the 128 bits a memo keeps
// a search's result by (two seeds of hash/maphash): two different
// inputs share a key with a chance of about 2^-128.
type valuesHash struct {
	once  sync.Once
	seeds [2]maphash.Seed
}

// key returns the hash of head, then values.
func (h *valuesHash) key(head []uint64, values []float64) [2]uint64 {
	h.once.Do(func() { h.seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()} })
	buf := make([]byte, 8*(len(head)+len(values)))
	for j, x := range head {
		binary.LittleEndian.PutUint64(buf[8*j:], x)
	}
	for j, x := range values {
		binary.LittleEndian.PutUint64(buf[8*(len(head)+j):], math.Float64bits(x))
	}
	return [2]uint64{maphash.Bytes(h.seeds[0], buf), maphash.Bytes(h.seeds[1], buf)}
}

// burstBlockFound is a block's candidates at the level z: the same at
// any larger z, once those below it are dropped.
type burstBlockFound struct {
	z    float64
	runs []burstRun // starting at offsets from the block's first point
}

// candidates is burstCandidates(u, s, e, maxLen, context, z, cands),
// kept.
func (m *burstMemo) candidates(u []float64, s, e, maxLen, context int, z float64, cands []burstRun) []burstRun {
	if m == nil {
		return burstCandidates(u, s, e, maxLen, context, z, cands)
	}
	n := len(u)
	a, b := max(0, s-context), min(n, e-1+maxLen+context)
	// The key: the block's place among the values, the search's
	// lengths, and the values (a run's context is clipped to them, as to
	// the series).
	key := m.hash.key([]uint64{uint64(s - a), uint64(e - s), uint64(maxLen), uint64(context)}, u[a:b])
	m.mu.Lock()
	found, ok := m.blocks[key]
	m.mu.Unlock()
	if !ok || found.z > z {
		found = burstBlockFound{z: z, runs: burstCandidates(u, s, e, maxLen, context, z, nil)}
		for i := range found.runs {
			found.runs[i].i -= s
		}
		m.mu.Lock()
		if m.blocks == nil || len(m.blocks) >= maxWindows {
			m.blocks = map[[2]uint64]burstBlockFound{}
		}
		m.blocks[key] = found
		m.mu.Unlock()
	}
	for _, r := range found.runs {
		if math.Abs(r.t1) > z && math.Abs(r.t2) > z {
			r.i += s
			cands = append(cands, r)
		}
	}
	return cands
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
