package history

import (
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// This file is Apache Otava's change-point detection (formerly Hunter;
// Fleming et al., "Hunter: Using Change Point Detection to Hunt for
// Performance Regressions", ICPE 2023), itself E-divisive means (Matteson
// and James 2014, as MongoDB used it: Daly et al., ICPE 2020) with the
// permutation test replaced by Student's t-test, applied in sliding
// windows. It follows otava/analysis.py and otava/change_point_divisive/
// step by step, so that, with Options.OtavaMerge, it finds the same change
// points at the same indices; testdata/otava holds Otava's own test series
// and expectations. By default it departs from Otava in one place, the
// merge step's recomputation (see merge and TestMergeKeepsStep).

// Options are the parameters of the detection, with Otava's defaults.
type Options struct {
	// WindowLen is the length of the sliding windows (default 50).
	WindowLen int
	// MaxPValue is the significance level of the t-test (default 0.001).
	// The split step uses a relaxed level (10x when below 0.05) to find
	// candidates; the merge step keeps those below MaxPValue.
	MaxPValue float64
	// MinMagnitude is the smallest relative change kept (default 0).
	MinMagnitude float64
	// OtavaMerge makes the merge step recompute, after removing a
	// change point, only the points to its right, as otava/analysis.py
	// does (see merge): the same change points as Otava, on its test
	// series as elsewhere. By default both neighbours are recomputed, as
	// the Hunter paper describes; Otava's way can lose a step (a stale
	// left neighbour is removed on a p-value it no longer has). Analyze
	// then reports Otava's change points exactly, with its p-values, not
	// corrected for the search, and looks for no outliers or transients.
	OtavaMerge bool
	// Transient is the longest run of results that Analyze reports as a
	// transient (off the results on either side, which agree) rather
	// than as two changes; a run of one result is an outlier. Runs up to
	// this long are left out of the change-point analysis. Detect
	// ignores it. The default is DefaultTransient; -1 means none: no
	// outliers or transients are looked for.
	Transient int
}

// Otava's defaults (otava/series.py, AnalysisOptions).
const (
	DefaultWindowLen = 50
	DefaultMaxPValue = 0.001
)

// DefaultTransient is Options.Transient's default: up to ten results
// off the series and back are a transient, not two changes.
const DefaultTransient = 10

func (o Options) withDefaults() Options {
	if o.WindowLen == 0 {
		o.WindowLen = DefaultWindowLen
	}
	if o.MaxPValue == 0 {
		o.MaxPValue = DefaultMaxPValue
	}
	switch {
	case o.Transient == 0:
		o.Transient = DefaultTransient
	case o.Transient < 0:
		o.Transient = 0
	}
	return o
}

// A ChangePoint is an index i of a series where series[i:] (up to the
// next change point) differs from the segment before it.
type ChangePoint struct {
	Index int
	// QHat is the E-divisive statistic that proposed the point.
	QHat  float64
	Stats TTest
}

// TTest compares the segments on either side of a change point as Otava
// does: Student's two-sample t-test (pooled variance) on their means,
// with the standard deviations computed with divisor n, as numpy.std.
type TTest struct {
	MeanBefore, MeanAfter float64
	StdBefore, StdAfter   float64
	// T is the t statistic, (MeanBefore - MeanAfter) over its standard
	// error, with len(before)+len(after)-2 degrees of freedom (0 when
	// there are none; infinite when both segments are constant and
	// differ).
	T float64
	P float64
}

// Forward is the relative change from before to after: after/before - 1
// (0 when before is 0).
func (t TTest) Forward() float64 {
	if t.MeanBefore == 0 {
		return 0
	}
	return t.MeanAfter/t.MeanBefore - 1
}

// Backward is the relative change from after to before.
func (t TTest) Backward() float64 {
	if t.MeanAfter == 0 {
		return 0
	}
	return t.MeanBefore/t.MeanAfter - 1
}

// Magnitude is the larger of |Forward| and |Backward|.
func (t TTest) Magnitude() float64 {
	return max(math.Abs(t.Forward()), math.Abs(t.Backward()))
}

// ttest is otava.analysis.TTestSignificanceTester.compare. Where scipy's
// statistic is 0/0 (both segments constant and equal) the p-value is 1;
// Otava gets NaN there, which is never significant either.
func ttest(left, right []float64) TTest {
	s := TTest{MeanBefore: mean(left), MeanAfter: mean(right), P: 1}
	if len(left) >= 2 {
		s.StdBefore = popStd(left, s.MeanBefore)
	}
	if len(right) >= 2 {
		s.StdAfter = popStd(right, s.MeanAfter)
	}
	n1, n2 := float64(len(left)), float64(len(right))
	if len(left)+len(right) <= 2 {
		return s
	}
	df := n1 + n2 - 2
	svar := ((n1-1)*s.StdBefore*s.StdBefore + (n2-1)*s.StdAfter*s.StdAfter) / df
	denom := math.Sqrt(svar * (1/n1 + 1/n2))
	d := s.MeanBefore - s.MeanAfter
	switch {
	case denom == 0 && d == 0:
		s.P = 1
	case denom == 0:
		s.P, s.T = 0, math.Copysign(math.Inf(1), d)
	default:
		s.T = d / denom
		s.P = min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(s.T)))
	}
	return s
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func popStd(x []float64, m float64) float64 {
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return math.Sqrt(s / float64(len(x)))
}

// interval is series[start:end].
type interval struct{ start, end int }

// intervals are the segments between change points (sorted by index) of
// a series of n values, empty ones left out (get_intervals).
func intervals(cps []ChangePoint, n int) []interval {
	out := make([]interval, 0, len(cps)+1)
	prev := 0
	for _, c := range cps {
		if c.Index != prev {
			out = append(out, interval{prev, c.Index})
		}
		prev = c.Index
	}
	if prev != n {
		out = append(out, interval{prev, n})
	}
	return out
}

// changePoint computes the t-test of a candidate at index (change_point):
// a new candidate splits the interval it falls in; an existing change
// point compares the two intervals it separates.
func changePoint(index int, qhat float64, series []float64, ivs []interval) (ChangePoint, bool) {
	for i, iv := range ivs {
		if iv.end == index {
			if i+1 >= len(ivs) {
				return ChangePoint{}, false
			}
			return ChangePoint{Index: index, QHat: qhat, Stats: ttest(series[iv.start:iv.end], series[ivs[i+1].start:ivs[i+1].end])}, true
		}
		if iv.start < index && index < iv.end {
			return ChangePoint{Index: index, QHat: qhat, Stats: ttest(series[iv.start:index], series[index:iv.end])}, true
		}
	}
	return ChangePoint{}, false
}

// calculator finds E-divisive candidates in one series
// (PairDistanceCalculator, power 1).
type calculator struct {
	x []float64
	// within[p*stride+q] is the sum of |x[i]-x[k]| over p <= i < k < q.
	within []float64
	stride int
	col    []float64
}

// calculators keeps calculators' arrays between windows: a window of
// 50 results takes 21 kB, and rigor serve's index searches thousands.
var calculators sync.Pool

func newCalculator(x []float64) *calculator {
	n := len(x)
	c, _ := calculators.Get().(*calculator)
	if c == nil {
		c = &calculator{}
	}
	c.x, c.stride = x, n+1
	c.within = slices.Grow(c.within[:0], c.stride*c.stride)[:c.stride*c.stride]
	clear(c.within)
	// col[p] is the sum of |x[i]-x[q-1]| over p <= i < q-1.
	col := slices.Grow(c.col[:0], n+1)[:n+1]
	clear(col)
	c.col = col
	for q := 2; q <= n; q++ {
		col[q-1] = 0
		for p := q - 2; p >= 0; p-- {
			col[p] = col[p+1] + math.Abs(x[p]-x[q-1])
		}
		for p := 0; p <= q-2; p++ {
			c.within[p*c.stride+q] = c.within[p*c.stride+q-1] + col[p]
		}
	}
	return c
}

// free gives c's arrays back for the next window.
func (c *calculator) free() {
	c.x = nil
	calculators.Put(c)
}

// candidate returns the τ in (start, end) that, with some κ in (τ, end],
// maximizes Q(τ, κ) = QQ(x[start:τ], x[τ:κ]), and that maximum: the first
// maximum in the order (τ, κ) ascending, as numpy.argmax over Otava's
// matrix, whose first entry, Q(start+1, start+2) = |x[start]-x[start+1]|,
// is never negative.
func (c *calculator) candidate(iv interval) (index int, qhat float64) {
	s := iv.start
	best, bestTau := math.Inf(-1), -1
	for tau := s + 1; tau < iv.end; tau++ {
		n := float64(tau - s)
		wx := c.within[s*c.stride+tau]
		for kappa := tau + 1; kappa <= iv.end; kappa++ {
			m := float64(kappa - tau)
			wy := c.within[tau*c.stride+kappa]
			cross := c.within[s*c.stride+kappa] - wx - wy
			q := 2 / (m + n) * cross
			if n > 1 {
				q -= 2 * m / (m + n) / (n - 1) * wx
			}
			if m > 1 {
				q -= 2 * n / (m + n) / (m - 1) * wy
			}
			if q > best {
				best, bestTau = q, tau
			}
		}
	}
	return bestTau, best
}

// nextCandidate is the best candidate over the intervals of length 2 or
// more (get_next_candidate); ok is false when there is none.
func (c *calculator) nextCandidate(ivs []interval) (index int, qhat float64, ok bool) {
	for _, iv := range ivs {
		if iv.end-iv.start < 2 {
			continue
		}
		i, q := c.candidate(iv)
		if !ok || q > qhat {
			index, qhat, ok = i, q, true
		}
	}
	return index, qhat, ok
}

// detect is ChangePointDetector.get_change_points with the t-test: it
// splits x at the best candidate while the split is significant at
// maxP, and returns the change points sorted by index.
func detect(x []float64, maxP float64) []ChangePoint {
	calc := newCalculator(x)
	defer calc.free()
	var cps []ChangePoint
	for {
		ivs := intervals(cps, len(x))
		index, qhat, ok := calc.nextCandidate(ivs)
		if !ok {
			break
		}
		cp, ok := changePoint(index, qhat, x, ivs)
		if !ok || !(cp.Stats.P <= maxP) {
			break
		}
		at, _ := slices.BinarySearchFunc(cps, cp.Index, func(c ChangePoint, i int) int { return c.Index - i })
		cps = slices.Insert(cps, at, cp)
	}
	return cps
}

// split is Otava's split step: E-divisive in windows of windowLen
// sliding by half a window (or to the last change point found), the
// union of what they find, with each point's t-test recomputed between
// its neighbours.
func split(series []float64, windowLen int, maxP float64, memo *windowMemo) []ChangePoint {
	var cps []ChangePoint
	seen := map[int]bool{}
	step := windowLen / 2
	for start := 0; start < len(series); {
		end := min(start+windowLen, len(series))
		found := memo.detect(series[start:end], maxP)
		last := 0
		for i := range found {
			found[i].Index += start
			last = found[i].Index
		}
		start = max(last, start+step)
		for _, cp := range found {
			if !seen[cp.Index] {
				seen[cp.Index] = true
				cps = append(cps, cp)
			}
		}
	}
	slices.SortStableFunc(cps, func(a, b ChangePoint) int { return a.Index - b.Index })
	ivs := intervals(cps, len(series))
	out := make([]ChangePoint, 0, len(cps))
	for _, cp := range cps {
		if c, ok := changePoint(cp.Index, cp.QHat, series, ivs); ok {
			out = append(out, c)
		}
	}
	return out
}

// merge is Otava's merge step: while some change point is not
// significant at maxP (or, when all are, while the smallest is below
// minMagnitude), remove the weakest and recompute its neighbours.
//
// With otava set it does as otava/analysis.py: after removing the point
// at position i it recomputes the points now at positions i and i+1,
// that is the right neighbour and the one after it; the left neighbour
// keeps the statistics it had with the removed point as its right
// boundary until something else recomputes it, and can be removed on
// them. Without it, the left and right neighbours are recomputed.
func merge(cps []ChangePoint, series []float64, maxP, minMagnitude float64, otava bool) []ChangePoint {
	for len(cps) > 0 {
		weakest := 0
		for i, c := range cps {
			if c.Stats.P > cps[weakest].Stats.P {
				weakest = i
			}
		}
		if cps[weakest].Stats.P < maxP {
			weakest = 0
			for i, c := range cps {
				if c.Stats.Magnitude() < cps[weakest].Stats.Magnitude() {
					weakest = i
				}
			}
			if cps[weakest].Stats.Magnitude() > minMagnitude {
				return cps
			}
		}
		cps = slices.Delete(cps, weakest, weakest+1)
		ivs := intervals(cps, len(series))
		recompute := []int{weakest - 1, weakest}
		if otava {
			recompute = []int{weakest, weakest + 1}
		}
		for _, i := range recompute {
			if i >= 0 && i < len(cps) {
				if c, ok := changePoint(cps[i].Index, cps[i].QHat, series, ivs); ok {
					cps[i] = c
				}
			}
		}
	}
	return cps
}

// Detect returns the change points of series, oldest first, as Otava's
// compute_change_points finds them: the split step at a relaxed level,
// then the merge step at opts.MaxPValue. With opts.OtavaMerge it finds
// exactly Otava's (testdata/otava); without it, the merge step also
// recomputes the left neighbour of a point it removes. It is
// deterministic.
func Detect(series []float64, opts Options) []ChangePoint {
	final, _ := detectAll(series, opts.withDefaults(), nil)
	return final
}

// A windowMemo keeps what detect found in windows of series, by the
// window's values (bit for bit) and level (a valuesHash of them).
type windowMemo struct {
	hash  valuesHash
	mu    sync.Mutex
	found map[[2]uint64][]ChangePoint
}

// maxWindows bounds the windows a windowMemo keeps (about 40 a series of
// 1,000 results, each some 100 bytes).
const maxWindows = 100_000

// detect is detect(x, maxP), kept; a nil memo keeps nothing.
func (m *windowMemo) detect(x []float64, maxP float64) []ChangePoint {
	if m == nil {
		return detect(x, maxP)
	}
	k := m.hash.key([]uint64{math.Float64bits(maxP)}, x)
	m.mu.Lock()
	found, ok := m.found[k]
	m.mu.Unlock()
	if !ok {
		found = detect(x, maxP)
		m.mu.Lock()
		if m.found == nil || len(m.found) >= maxWindows {
			m.found = map[[2]uint64][]ChangePoint{}
		}
		m.found[k] = found
		m.mu.Unlock()
	}
	// split moves the copy's indexes to the series'.
	return slices.Clone(found)
}
