package history

import (
	"math"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// A Point is one result of a series: one run's samples of a benchmark's
// metric, at a commit.
type Point struct {
	Commit  string    // full hash, "" when unknown
	Subject string    // the commit's subject
	Time    time.Time // the commit's time (or the run's, when unknown)
	RunID   int64
	// Samples are the run's raw per-operation values.
	Samples []float64
}

// Value is the point's value in the series: the median of its samples.
func (p Point) Value() float64 { return stats.Median(p.Samples) }

// A Series is one benchmark's metric on one machine and branch, oldest
// point first.
type Series struct {
	// Name identifies the series for people: package, benchmark, unit,
	// machine, branch.
	Name string
	// Project is the project the series' runs belong to (the module
	// path, normally).
	Project   string
	Pkg       string
	Benchmark string
	Unit      string
	Machine   string
	Branch    string
	// Better is model.LowerIsBetter or model.HigherIsBetter.
	Better int
	Points []Point
}

// Values returns the points' values.
func (s *Series) Values() []float64 {
	v := make([]float64, len(s.Points))
	for i, p := range s.Points {
		v[i] = p.Value()
	}
	return v
}

// A Change is a step in a series: the points from Index on (up to the
// next change) differ from those before (back to the previous change).
type Change struct {
	Series *Series
	// Index is the first point after the change.
	Index int
	// Outliers is the number of unusual results just before Index,
	// left out of the comparison (see Analyze): the step came in at one
	// of them or at Index.
	Outliers int
	// Before is the last point before the change (and before any
	// Outliers), After the first one after it: the change came in with a
	// commit after Before's, up to and including After's.
	Before, After Point
	// Ratio is the median of the segment after over the median of the
	// segment before, with a 95% bootstrap confidence interval
	// (stats.Bootstrap.MedianRatio, seeded; exact up to 200 points a
	// segment, 10,000 resamples beyond).
	Ratio stats.Interval
	// Test is Otava's t-test of the two segments' means.
	Test TTest
	// Q is the p-value adjusted by Benjamini-Hochberg across every
	// series analyzed together.
	Q float64
	// Regression is true when the change is for the worse in the
	// metric's direction.
	Regression bool
}

// Percent is the change of the median, in percent.
func (c *Change) Percent() float64 { return 100 * (c.Ratio.Estimate - 1) }

// An Analysis is the change points of a set of series.
type Analysis struct {
	// Changes are the significant steps of every series, in the order
	// of the series, oldest first within each.
	Changes []Change
	// Transients are short runs of unusual results (outliers: a noisy
	// neighbour, a bad runner) that Otava brackets with two change
	// points, after which the series returns to its level.
	Transients []Transient
	// Tests is the number of hypotheses the correction counted: every
	// candidate the split step proposed, and one for each series where
	// it proposed none.
	Tests int
	// Options are those used, defaults filled in.
	Options Options
}

// A Transient is a run of at most Options.Transient results, bracketed
// by change points, that the series leaves again without a step.
type Transient struct {
	Series *Series
	// From and To index the unusual points, series.Points[From:To].
	From, To int
}

// Analyze finds the change points of each series with Detect and keeps
// those whose p-value, adjusted by Benjamini-Hochberg across all the
// series, is below opts.MaxPValue: analyzing fifty benchmarks at once
// reports fewer chance steps than fifty separate analyses would.
//
// Change points closer than opts.Transient+1 points to each other
// bracket a few unusual results (Otava reports an outlier result as two
// change points, one on either side). Such a group is one candidate: the
// segments on either side of it, the unusual results left out, are
// compared with the t-test; when they differ, it is one step located
// anywhere from the group's first point to its last (Change.Outliers
// says how many results in between were left out); when they do not, it
// is a Transient and no step.
//
// The family the correction counts is every candidate that the split
// step proposed (Otava's weak change points), in every series, and one
// test for a series where it proposed none. The change points removed by
// the merge step had p-values of at least MaxPValue, so they enter as 1:
// they could not have changed which ones are kept. As in Otava, a
// p-value is that of the t-test between the segments E-divisive chose;
// it is not corrected for that choice.
func Analyze(series []*Series, opts Options) *Analysis {
	opts = opts.withDefaults()
	out := &Analysis{Options: opts}
	type candidate struct {
		s             *Series
		first, last   int // change point indexes: unusual points are [first, last)
		before, after interval
		test          TTest
	}
	var cands []candidate
	for _, s := range series {
		v := s.Values()
		final, weak := detectAll(v, opts)
		out.Tests += max(1, weak)
		// Statistics against the final segments (the merge step can
		// leave a left neighbour's stale).
		ivs := intervals(final, len(v))
		for lo := 0; lo < len(final); {
			hi := lo
			for hi+1 < len(final) && final[hi+1].Index-final[hi].Index <= opts.Transient {
				hi++
			}
			c := candidate{s: s, first: final[lo].Index, last: final[hi].Index, before: ivs[lo], after: ivs[hi+1]}
			c.test = ttest(v[c.before.start:c.before.end], v[c.after.start:c.after.end])
			cands = append(cands, c)
			lo = hi + 1
		}
	}
	ps := make([]float64, max(out.Tests, len(cands)))
	for i := range ps {
		ps[i] = 1
		if i < len(cands) {
			ps[i] = cands[i].test.P
		}
	}
	q := stats.BenjaminiHochberg(ps)
	boot := stats.Bootstrap{Seed: 1, Confidence: 0.95, Resamples: 10_000}
	for i, c := range cands {
		if !(q[i] < opts.MaxPValue) {
			if c.last > c.first {
				out.Transients = append(out.Transients, Transient{Series: c.s, From: c.first, To: c.last})
			}
			continue
		}
		v := c.s.Values()
		ch := Change{Series: c.s, Index: c.last, Outliers: c.last - c.first,
			Before: c.s.Points[c.first-1], After: c.s.Points[c.last], Test: c.test, Q: q[i],
			Ratio: boot.MedianRatio(v[c.before.start:c.before.end], v[c.after.start:c.after.end])}
		worse := ch.Ratio.Estimate > 1
		if c.s.Better == model.HigherIsBetter {
			worse = ch.Ratio.Estimate < 1
		}
		ch.Regression = worse && ch.Ratio.Estimate != 1
		out.Changes = append(out.Changes, ch)
	}
	return out
}

// detectAll is Detect that also returns the number of weak change points.
func detectAll(series []float64, opts Options) (final []ChangePoint, weak int) {
	if opts.WindowLen < 2 || len(series) < 2 {
		return nil, 0
	}
	first := opts.MaxPValue
	switch {
	case first < 0.05:
		first *= 10
	case first < 0.5:
		first *= 2
	}
	w := split(series, opts.WindowLen, first)
	weak = len(w)
	return merge(w, series, opts.MaxPValue, opts.MinMagnitude, opts.OtavaMerge), weak
}

// A Verdict is the online check of a new result: does it break from the
// segment since the last change point? See Check for the method.
type Verdict struct {
	// Since is the index of the first point of the segment the new
	// result was compared with: the last change point, or 0.
	Since int
	// Points is the number of points in the segment.
	Points int
	// SegmentMean is the mean of the segment's values (its runs'
	// medians), SegmentSD their standard deviation (divisor n-1).
	SegmentMean, SegmentSD float64
	// Value is the new run's median, ValueSE the standard error of that
	// median from the run's own samples (see Check).
	Value, ValueSE float64
	// BetweenSD is the run-to-run standard deviation of the segment's
	// values beyond what their own samples' noise explains (0 when that
	// noise explains it all).
	BetweenSD float64
	// SE is the standard error of Value - SegmentMean, T that difference
	// over SE, with DF degrees of freedom (Points-1), and P its two-sided
	// p-value (1 when the segment cannot tell).
	SE, T float64
	DF    int
	P     float64
	// Breaks is true when P is below the options' MaxPValue.
	Breaks bool
	// Regression is true when it breaks for the worse.
	Regression bool
}

// Change is the relative change of the new value from the segment's
// mean: Value/SegmentMean - 1 (0 when the mean is 0).
func (v Verdict) Change() float64 {
	if v.SegmentMean == 0 {
		return 0
	}
	return v.Value/v.SegmentMean - 1
}

// Check tells whether p, a new result of s, breaks from the segment since
// s's last change point (Detect with opts), using the new run's own
// samples, not its median alone.
//
// The segment's k values m_1..m_k are its runs' medians; their spread
// holds two things: how much runs differ from each other (tau^2) and how
// noisy each run's median is, v_i, estimated from that run's samples as
// the large-sample variance of a median, (pi/2) MAD_i^2 / n_i (MAD scaled
// to a standard deviation, stats.MAD). So with s^2 the sample variance of
// the m_i and vbar the mean of the v_i, tau^2 = max(0, s^2 - vbar). The
// new run's median m has its own noise v (from its samples, the same
// way). Under "no change", m - mean(m_i) has variance tau^2 + v + s^2/k,
// and
//
//	t = (m - mean(m_i)) / sqrt(tau^2 + v + s^2/k)
//
// is referred to Student's t with k-1 degrees of freedom (two-sided). A
// new run as noisy as the segment's (v = vbar) gives the prediction
// interval's t-test of one new value against the segment, s^2 (1 + 1/k);
// a noisier run (fewer samples, a disturbed machine) needs a larger step
// to break, a quieter one a smaller step. A run of one sample tells
// nothing of its noise: it counts as vbar; segment runs of one sample
// count as v_i = 0, which leaves all their spread to tau^2 (a wider,
// safer test). Otava's own check, a pooled t-test of the segment against
// the one value with numpy's divisor-n deviation, is this with v = vbar
// and s^2 computed with divisor k instead of k-1. A segment of fewer than
// 2 points cannot tell.
func Check(s *Series, p Point, opts Options) Verdict {
	opts = opts.withDefaults()
	v := s.Values()
	cps := Detect(v, opts)
	since := 0
	if len(cps) > 0 {
		since = cps[len(cps)-1].Index
	}
	seg := s.Points[since:]
	out := Verdict{Since: since, Points: len(seg), Value: p.Value(), P: 1}
	k := len(seg)
	if k < 2 || math.IsNaN(out.Value) {
		return out
	}
	vals := v[since:]
	out.SegmentMean = stats.Mean(vals)
	out.SegmentSD = stats.StdDev(vals)
	var vbar float64
	known := 0
	for _, q := range seg {
		if w, ok := medianVariance(q.Samples); ok {
			vbar += w
			known++
		}
	}
	if known > 0 {
		vbar /= float64(known)
	}
	vnew, ok := medianVariance(p.Samples)
	if !ok {
		vnew = vbar
	}
	s2 := out.SegmentSD * out.SegmentSD
	tau2 := max(0, s2-vbar)
	out.ValueSE, out.BetweenSD = math.Sqrt(vnew), math.Sqrt(tau2)
	out.SE = math.Sqrt(tau2 + vnew + s2/float64(k))
	out.DF = k - 1
	d := out.Value - out.SegmentMean
	switch {
	case math.IsNaN(d) || math.IsNaN(out.SE):
		return out
	case out.SE == 0 && d == 0:
		out.P = 1
	case out.SE == 0:
		out.P, out.T = 0, math.Copysign(math.Inf(1), d)
	default:
		out.T = d / out.SE
		out.P = min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(out.DF)}.Survival(math.Abs(out.T)))
	}
	out.Breaks = out.P < opts.MaxPValue
	worse := d > 0
	if s.Better == model.HigherIsBetter {
		worse = d < 0
	}
	out.Regression = out.Breaks && worse
	return out
}

// medianVariance is the large-sample variance of the median of x,
// (pi/2) sigma^2 / n with sigma estimated by the scaled MAD; false for
// fewer than 2 values.
func medianVariance(x []float64) (float64, bool) {
	if len(x) < 2 {
		return 0, false
	}
	mad := stats.MAD(x)
	if math.IsNaN(mad) {
		return 0, false
	}
	return math.Pi / 2 * mad * mad / float64(len(x)), true
}
