package history

import (
	"cmp"
	"math"
	"slices"
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
func (p Point) Value() float64 {
	if len(p.Samples) == 1 && !math.IsNaN(p.Samples[0]) {
		// stats.Median's, without its copy and sort: a point read as its
		// median alone (rigor serve's), 50,000 of them in an index.
		return p.Samples[0]
	}
	return stats.Median(p.Samples)
}

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
	// Outliers is the number of unusual results just before Index (an
	// outlier or a transient, see Analyze), left out of the comparison:
	// the step came in at one of them or at Index.
	Outliers int
	// Before is the last point before the change (and before any
	// Outliers), After the first one after it: the change came in with a
	// commit after Before's, up to and including After's.
	Before, After Point
	// Ratio is the median of the segment after over the median of the
	// segment before, with a 95% bootstrap confidence interval
	// (stats.Bootstrap.MedianRatio: the exact bootstrap distribution,
	// past 200 points a segment less its outermost 1e-15 of probability).
	Ratio stats.Interval
	// Test is the t-test of the two segments' means (Otava's), its P
	// not corrected for where the split was chosen.
	Test TTest
	// P is the change's p-value: the chance that the results of the two
	// segments, were there no change among them, would show a split at
	// least this strong anywhere among them (see scanP). Q is the larger
	// of P and the p-value at which the change was admitted, top down
	// (see Analyze); a change is kept when Q is below
	// Options.MaxPValue. Neither depends on other series.
	P, Q float64
	// Regression is true when the change is for the worse in the
	// metric's direction.
	Regression bool
}

// Percent is the change of the median, in percent.
func (c *Change) Percent() float64 { return 100 * (c.Ratio.Estimate - 1) }

// An Analysis is what Analyze found in a set of series. Each series is
// analyzed on its own: what it says of one series does not depend on
// which other series were analyzed with it.
type Analysis struct {
	// Changes are the steps of every series, in the order of the series,
	// oldest first within each.
	Changes []Change
	// Transients are short runs of 2 to Options.Transient results off
	// the results on either side of them, after which the series returns
	// to its level: a regression (or an improvement) that came and went.
	Transients []Transient
	// Outliers are single results off the results around them (a noisy
	// neighbour, a bad runner): left out of the comparisons, not
	// reported as changes.
	Outliers []Transient
	// Newest are the series whose newest result breaks away from the
	// segment before it (Check), and whose break no change reports.
	Newest []Newest
	// Short are the series with too few results to show a change: a
	// change needs 2 results on either side. Those of fewer than 3
	// results are not checked for their newest result either.
	Short []*Series
	// Options are those used, defaults filled in.
	Options Options
}

// A Transient is a run of results, Points[From:To], off the results on
// either side of it, which agree with each other: the series left its
// level and came back (see bursts).
type Transient struct {
	Series *Series
	// From and To index the unusual points, Points[From:To]; with
	// outliers found before it, the run can hold them too.
	From, To int
	// Ratio is the median of the run's values over the median of the
	// results around it.
	Ratio float64
	// P is the chance that results without a burst would show one this
	// far off, anywhere in the series (Bonferroni over every run
	// searched).
	P float64
	// Regression is true when the run is for the worse.
	Regression bool
}

// Len is the number of results in the run.
func (t Transient) Len() int { return t.To - t.From }

// Newest is a series whose newest result breaks away.
type Newest struct {
	Series *Series
	Verdict
}

// MinPoints is the fewest results in which Analyze can find a change: 2
// on either side of it.
const MinPoints = 2 * minSide

// Analyze finds the changes, transients and outliers of each series, and
// checks each series' newest result, each series on its own.
//
// First, runs of 1 to Options.Transient results that lie off the results
// on both sides of them, in the same direction, are found (bursts): a run
// of one is an outlier, a longer one a transient. They are left out of
// what follows. Then Otava's change points (Detect, at MaxPValue) are the
// candidates, and the changes are admitted top down, as in binary
// segmentation: the candidate that splits the whole series most
// strongly, by its t statistic's p-value corrected for where in the
// series the split lies (scanP), is admitted when that p-value is below
// MaxPValue; then each part is split in turn the same way. Last, each
// change admitted is tested against the segments on either side of it
// (Change.P, again corrected for the search within them), and the
// weakest is removed while its p-value is not below MaxPValue; so is a
// change whose medians do not differ (the 95% interval of their ratio
// holds 1). A change needs 2 results on either side. So a series without any step shows a
// change only when its first split is admitted, with a probability of at
// most MaxPValue, whatever its length and noise, as long as its results
// are independent and alike (experiments/changepoints measures it).
//
// With Options.OtavaMerge, the changes are Otava's own (Detect), with
// its p-values, not corrected for the search, as P and Q, and no outliers
// or transients are looked for.
func Analyze(series []*Series, opts Options) *Analysis {
	return analyze(series, opts, true, nil)
}

// AnalyzeSteps is Analyze without the check of each series' newest
// result (Analysis.Newest is nil): the changes, transients, outliers and
// short series, the same as Analyze's, for half the work (the check
// analyzes each series again without its newest result). rigor serve's
// pages show no more.
func AnalyzeSteps(series []*Series, opts Options) *Analysis {
	return analyze(series, opts, false, nil)
}

// An Analyzer is AnalyzeSteps that keeps what the change-point search
// found in each window of a series it analyzed (E-divisive's candidates
// in a window depend on the window's values alone): a series analyzed
// again with a result more (rigor serve's index after a run is recorded)
// is searched again in its last windows only, with the same result as
// AnalyzeSteps'. Its zero value is ready to use, by several goroutines at
// once; it keeps up to about 100,000 windows.
type Analyzer struct {
	windows windowMemo
	bursts  burstMemo
}

// AnalyzeSteps is AnalyzeSteps(series, opts), reusing the windows kept.
func (a *Analyzer) AnalyzeSteps(series []*Series, opts Options) *Analysis {
	return analyze(series, opts, false, a)
}

// memos returns what a keeps, nil for a nil a.
func (a *Analyzer) memos() (*windowMemo, *burstMemo) {
	if a == nil {
		return nil, nil
	}
	return &a.windows, &a.bursts
}

// analyze is Analyze, with the newest results checked when newest, what
// the searches found kept in memo (when not nil).
func analyze(series []*Series, opts Options, newest bool, memo *Analyzer) *Analysis {
	opts = opts.withDefaults()
	out := &Analysis{Options: opts}
	for _, s := range series {
		r := analyzeSeries(s, opts, memo)
		out.Changes = append(out.Changes, r.changes...)
		out.Transients = append(out.Transients, r.transients...)
		out.Outliers = append(out.Outliers, r.outliers...)
		if len(s.Points) < MinPoints {
			out.Short = append(out.Short, s)
		}
		if n := len(s.Points); newest && n >= 3 {
			prefix := *s
			prefix.Points = s.Points[:n-1]
			v := Check(&prefix, s.Points[n-1], opts)
			// A change that the newest result made (one its prefix does
			// not have) already reports it.
			reported := len(r.changes) > 0 && r.changes[len(r.changes)-1].Index > v.Since
			if v.Breaks && !reported {
				out.Newest = append(out.Newest, Newest{Series: s, Verdict: v})
			}
		}
	}
	return out
}

// seriesResult is what Analyze finds in one series.
type seriesResult struct {
	changes              []Change
	transients, outliers []Transient
	// kept are the indexes of the points that are neither outliers nor
	// in transients, in order.
	kept []int
}

// analyzeSeries is Analyze of one series.
func analyzeSeries(s *Series, opts Options, a *Analyzer) seriesResult {
	memo, bmemo := a.memos()
	v := s.Values()
	var r seriesResult
	r.kept = make([]int, 0, len(v))
	if opts.OtavaMerge {
		for i := range v {
			r.kept = append(r.kept, i)
		}
		cps := Detect(v, opts)
		ivs := intervals(cps, len(v))
		for i, cp := range cps {
			c := newChange(s, cp.Index, cp.Index-1, v[ivs[i].start:ivs[i].end], v[ivs[i+1].start:ivs[i+1].end])
			c.P, c.Q = c.Test.P, c.Test.P
			r.changes = append(r.changes, c)
		}
		return r
	}
	runs, kept := bursts(v, opts.Transient, opts.WindowLen/2, opts.MaxPValue, bmemo)
	r.kept = kept
	for _, b := range runs {
		tr := Transient{Series: s, From: b.from, To: b.to, Ratio: b.ratio, P: b.p, Regression: worse(s, b.ratio)}
		if b.to-b.from == 1 {
			r.outliers = append(r.outliers, tr)
		} else {
			r.transients = append(r.transients, tr)
		}
	}
	u := make([]float64, len(r.kept))
	for i, k := range r.kept {
		u[i] = v[k]
	}
	if s.Unit == model.InstructionsUnit {
		// A count repeats nearly exactly: a shift far below anything
		// that matters would pass every test. Its change must clear the
		// tolerance of a count, as package analysis's verdicts do.
		opts.MinMagnitude = max(opts.MinMagnitude, model.InstructionsTolerance)
	}
	cands, ps, qs, ratios := calibrated(u, opts, memo)
	ivs := intervals(cands, len(u))
	for i, cp := range cands {
		// calibrated's last round bootstrapped these segments' ratio.
		c := changeOf(s, r.kept[cp.Index], r.kept[cp.Index-1], u[ivs[i].start:ivs[i].end], u[ivs[i+1].start:ivs[i+1].end], ratios[i])
		c.P, c.Q = ps[i], qs[i]
		r.changes = append(r.changes, c)
	}
	return r
}

// boot is the bootstrap of every change's ratio (seeded: the same
// series always gives the same interval).
var boot = stats.Bootstrap{Seed: 1, Confidence: 0.95, Resamples: 10_000}

// newChange is the change of s at point index, the last point before it
// being point before, between the segments' values before and after.
func newChange(s *Series, index, before int, beforeValues, afterValues []float64) Change {
	return changeOf(s, index, before, beforeValues, afterValues, boot.MedianRatio(beforeValues, afterValues))
}

// changeOf is newChange with the segments' ratio, boot.MedianRatio of
// them, already known.
func changeOf(s *Series, index, before int, beforeValues, afterValues []float64, ratio stats.Interval) Change {
	c := Change{Series: s, Index: index, Outliers: index - before - 1, Before: s.Points[before], After: s.Points[index],
		Test: ttest(beforeValues, afterValues), Ratio: ratio}
	c.Regression = worse(s, c.Ratio.Estimate) && c.Ratio.Estimate != 1
	return c
}

// worse reports whether a ratio after/before is for the worse in s's
// direction.
func worse(s *Series, ratio float64) bool {
	if s.Better == model.HigherIsBetter {
		return ratio < 1
	}
	return ratio > 1
}

// calibrated returns the change points of u that Analyze keeps (see
// there), oldest first, with their p-values (against their final
// neighbours) and q-values (the larger of that and the p-value at which
// the change was admitted), and the bootstrap of the ratio of the
// medians of the segments on either side of each (boot.MedianRatio).
func calibrated(u []float64, opts Options, memo *windowMemo) (cps []ChangePoint, ps, qs []float64, ratios []stats.Interval) {
	if len(u) < MinPoints {
		return nil, nil, nil, nil
	}
	cands, _ := detectAll(u, opts, memo)
	// Admission, top down: the stretch's strongest candidate, by its
	// p-value corrected for the search within the stretch, splits it
	// when that is below the level; then each part in turn.
	admitted := map[int]float64{}
	// The p-values of splits u[start:index], u[index:end] computed, for
	// the rounds below (a split that admission found below the level).
	type segments struct{ start, index, end int }
	pOf := map[segments]float64{}
	var visit func(a, b int, parent float64)
	visit = func(a, b int, parent float64) {
		// The splits of u[a:b] share scanP's m, so the smallest p-value
		// is that of the largest |t| (scanP is not increasing in |t|): the
		// first of the largest, as the first of equal p-values.
		best, bestT := -1, 0.0
		for _, c := range cands {
			if c.Index-a < minSide || b-c.Index < minSide {
				continue
			}
			if t := math.Abs(splitT(u, a, c.Index, b)); t > bestT {
				best, bestT = c.Index, t
			}
		}
		if best < 0 {
			return
		}
		// Only a p-value below the level can be admitted.
		bestP, below := scanPBelow(b-a, bestT, opts.MaxPValue)
		if !below {
			return
		}
		pOf[segments{a, best, b}] = bestP
		admitted[best] = max(parent, bestP)
		visit(a, best, admitted[best])
		visit(best, b, admitted[best])
	}
	visit(0, len(u), 0)
	for _, c := range cands {
		if _, ok := admitted[c.Index]; ok {
			cps = append(cps, c)
		}
	}
	// Each change against its final neighbours: the weakest is removed
	// while its p-value is not below the level, or the confidence
	// interval of its medians' ratio holds 1 (a difference of means that
	// the medians do not show is a few unusual results in a short
	// segment, not a step).
	// A change whose neighbours a round did not move has the p-value
	// and ratio of the round before.
	ratioOf := map[segments]stats.Interval{}
	for len(cps) > 0 {
		ivs := intervals(cps, len(u))
		ps, qs, ratios = make([]float64, len(cps)), make([]float64, len(cps)), make([]stats.Interval, len(cps))
		weakest, unseen := 0, -1
		for i, c := range cps {
			seg := segments{ivs[i].start, c.Index, ivs[i+1].end}
			p, ok := pOf[seg]
			if !ok {
				p = scanP(seg.end-seg.start, splitT(u, seg.start, seg.index, seg.end))
				pOf[seg] = p
			}
			r, ok := ratioOf[seg]
			if !ok {
				r = boot.MedianRatio(u[seg.start:seg.index], u[seg.index:seg.end])
				ratioOf[seg] = r
			}
			ps[i], ratios[i] = p, r
			qs[i] = max(ps[i], admitted[c.Index])
			if ps[i] > ps[weakest] {
				weakest = i
			}
			if r := ratios[i]; unseen < 0 && !(r.Lo > 1+opts.MinMagnitude || r.Hi < 1-opts.MinMagnitude) {
				unseen = i
			}
		}
		switch {
		case !(ps[weakest] < opts.MaxPValue):
		case unseen >= 0:
			weakest = unseen
		default:
			return cps, ps, qs, ratios
		}
		cps = slices.Delete(cps, weakest, weakest+1)
	}
	return nil, nil, nil, nil
}

// splitT is Student's two-sample t statistic of u[a:c] against u[c:b]
// (not Otava's, whose deviations, numpy's with divisor n, make t a little
// too large).
func splitT(u []float64, a, c, b int) float64 {
	t, _ := pooledT(momentsOf(u[a:c]), momentsOf(u[c:b]))
	return t
}

// detectAll is Detect that also returns the number of weak change points.
func detectAll(series []float64, opts Options, memo *windowMemo) (final []ChangePoint, weak int) {
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
	w := split(series, opts.WindowLen, first, memo)
	weak = len(w)
	return merge(w, series, opts.MaxPValue, opts.MinMagnitude, opts.OtavaMerge), weak
}

// A Verdict is the online check of a new result: does it break from the
// segment since the last change? See Check for the method.
type Verdict struct {
	// Since is the index of the first point of the segment the new
	// result was compared with: the last change, or 0.
	Since int
	// Points is the number of points in the segment (outliers and
	// transients left out).
	Points int
	// SegmentMean is the mean of the segment's values (its runs'
	// medians), SegmentSD their standard deviation (divisor n-1).
	SegmentMean, SegmentSD float64
	// Value is the new run's median, ValueSE the standard error of that
	// median from the run's own samples (see Check).
	Value, ValueSE float64
	// ExtraSD is how much more the new run's median varies, from its own
	// samples, than the segment's runs' medians do from theirs (0 when
	// it varies no more): what widens the test for a noisier run.
	ExtraSD float64
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
// s's last change (as Analyze finds them in s, outliers and transients
// left out), using the new run's own samples, not its median alone.
//
// Under "no change" the new run's median m is one more draw like the
// segment's k medians m_1..m_k, with their mean mbar and sample variance
// s^2: m - mbar has variance s^2 (1 + 1/k), and
//
//	t = (m - mbar) / sqrt(s^2 (1 + 1/k) + max(0, v - vbar))
//
// is referred to Student's t with k-1 degrees of freedom (two-sided):
// the prediction interval's test, exact for normal results whatever
// their noise is made of (the runs' samples, a machine a little faster
// one day than the next). The run's own samples can only widen it: v is
// the variance of the new run's median, (pi/2) MAD^2 / n from its n
// samples (MAD scaled to a standard deviation, stats.MAD: the
// large-sample variance of a median), vbar the mean of the same for the
// segment's runs; a run noisier than those (fewer samples, a disturbed
// machine) needs a larger step to break. A quieter run does not narrow
// the test: the variance of a median estimated from a few samples is
// itself too noisy to trust below the segment's own spread. A run of one
// sample tells nothing of its noise and counts as vbar; segment runs of
// one sample are left out of vbar. A segment of fewer than 2 points
// cannot tell.
func Check(s *Series, p Point, opts Options) Verdict {
	opts = opts.withDefaults()
	r := analyzeSeries(s, opts, nil)
	since := 0
	if len(r.changes) > 0 {
		since = r.changes[len(r.changes)-1].Index
	}
	var seg []Point
	for _, k := range r.kept {
		if k >= since {
			seg = append(seg, s.Points[k])
		}
	}
	out := Verdict{Since: since, Points: len(seg), Value: p.Value(), P: 1}
	k := len(seg)
	if k < 2 || math.IsNaN(out.Value) {
		return out
	}
	vals := make([]float64, k)
	for i, q := range seg {
		vals[i] = q.Value()
	}
	out.SegmentMean = stats.Mean(vals)
	out.SegmentSD = stats.StdDev(vals)
	var vbar float64
	known := 0
	for _, q := range seg {
		if w, ok := stats.MedianVariance(q.Samples); ok {
			vbar += w
			known++
		}
	}
	if known > 0 {
		vbar /= float64(known)
	}
	vnew, ok := stats.MedianVariance(p.Samples)
	if !ok {
		vnew = vbar
	}
	s2 := out.SegmentSD * out.SegmentSD
	extra := max(0, vnew-vbar)
	out.ValueSE, out.ExtraSD = math.Sqrt(vnew), math.Sqrt(extra)
	out.SE = math.Sqrt(s2*(1+1/float64(k)) + extra)
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
	if s.Unit == model.InstructionsUnit && math.Abs(out.Value/out.SegmentMean-1) <= model.InstructionsTolerance {
		// A count within its tolerance of the segment's does not break
		// from it, however steady the segment (see analyzeSeries).
		out.Breaks = false
	}
	out.Regression = out.Breaks && worse(s, out.Value/out.SegmentMean)
	return out
}

// A Rename is a likely rename of benchmarks: series that end at one
// result and series that begin at the next, of one package and unit on
// one machine and branch. Their results are separate series, so neither
// shows the step (if any) between them.
type Rename struct {
	Ended, Began []*Series
	// Last is the last result of the series that ended, First the first
	// of those that began.
	Last, First Point
}

// Renames finds the likely renames among series: where some series of a
// package, unit, machine and branch have their last result and others
// their first at the next result recorded for that package (in the
// order of the results' times, then runs).
func Renames(series []*Series) []Rename {
	type group struct {
		members []*Series
	}
	groups := map[string]*group{}
	var order []string
	for _, s := range series {
		if len(s.Points) == 0 {
			continue
		}
		k := s.Machine + "\x00" + s.Branch + "\x00" + s.Pkg + "\x00" + s.Unit
		g := groups[k]
		if g == nil {
			g = &group{}
			groups[k] = g
			order = append(order, k)
		}
		g.members = append(g.members, s)
	}
	type result struct {
		t   time.Time
		run int64
	}
	var out []Rename
	for _, k := range order {
		g := groups[k]
		var all []result
		seen := map[result]bool{}
		for _, s := range g.members {
			for _, p := range s.Points {
				r := result{p.Time, p.RunID}
				if !seen[r] {
					seen[r] = true
					all = append(all, r)
				}
			}
		}
		slices.SortFunc(all, func(a, b result) int {
			if c := a.t.Compare(b.t); c != 0 {
				return c
			}
			return cmp.Compare(a.run, b.run)
		})
		pos := make(map[result]int, len(all))
		for i, r := range all {
			pos[r] = i
		}
		byBoundary := map[int]*Rename{}
		var boundaries []int
		for _, s := range g.members {
			first, last := s.Points[0], s.Points[len(s.Points)-1]
			if i := pos[result{last.Time, last.RunID}]; i < len(all)-1 {
				r := byBoundary[i]
				if r == nil {
					r = &Rename{}
					byBoundary[i] = r
					boundaries = append(boundaries, i)
				}
				r.Ended, r.Last = append(r.Ended, s), last
			}
			if i := pos[result{first.Time, first.RunID}]; i > 0 {
				r := byBoundary[i-1]
				if r == nil {
					r = &Rename{}
					byBoundary[i-1] = r
					boundaries = append(boundaries, i-1)
				}
				r.Began, r.First = append(r.Began, s), first
			}
		}
		slices.Sort(boundaries)
		for _, i := range boundaries {
			if r := byBoundary[i]; len(r.Ended) > 0 && len(r.Began) > 0 {
				out = append(out, *r)
			}
		}
	}
	return out
}
