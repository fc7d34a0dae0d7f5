package main

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rigorbench/rigor/history"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// The index's series are kept between requests, per filter, with the
// state of the history they were read at (Store.RecordedRuns): after a
// run is recorded, only the points of the runs recorded since are read
// (Filter.AfterRun) and put in their series, instead of every point of
// the history again. The points are read one at a time
// (Store.EachSummary), each kept as its value and the index of its head
// (what it shows of its run, the same in every series the run added to),
// 12 bytes a point where a history.Point with its median and when it was
// recorded took 104: the index makes one series' points at a time
// (seriesList.points), so serve's memory grows by little more than
// those 12 bytes with the history's length (issue 28).

// pointHead is what a point shows of its run, and where it sorts: the
// same for every series of the run's side.
type pointHead struct {
	commit, subject string
	time            time.Time
	runID           int64
	recorded        int64 // Unix nanoseconds
}

// seriesSet is a filter's series as read at one state of the history.
// Once kept, it is not changed: a later state copies what it adds to.
type seriesSet struct {
	mark  [2]int64 // RecordedRuns of the read
	heads []pointHead
	byKey map[string]*keptSeries
	order []*keptSeries // in the order the points named them
}

// keptSeries is one series' points, oldest first: the index of each
// one's head in its set's heads (^index for a point without samples),
// and its value (its samples' median).
type keptSeries struct {
	s      history.Series // named as groupSeries names it before nameSeries; no points
	heads  []int32
	values []float64
	// extended is set when a later set took the series to append to in
	// place, past the points this one holds (its slices' lengths).
	extended atomic.Bool
	// shared is set while the slices are those of the set before, by
	// extended's claim: sorting them must copy them first.
	shared bool
}

// head returns the head of the series' point i.
func (ks *keptSeries) head(heads []pointHead, i int) *pointHead {
	h := ks.heads[i]
	if h < 0 {
		h = ^h
	}
	return &heads[h]
}

// points returns the series' points, as historyPoint makes them, in
// buf's array when it is large enough.
func (ks *keptSeries) points(heads []pointHead, buf []history.Point) []history.Point {
	out := slices.Grow(buf[:0], len(ks.heads))[:len(ks.heads)]
	for i := range out {
		h := ks.head(heads, i)
		out[i] = history.Point{Commit: h.commit, Subject: h.subject, Time: h.time, RunID: h.runID}
		if ks.heads[i] >= 0 {
			// Clipped: one array for all, as the values are kept.
			out[i].Samples = ks.values[i : i+1 : i+1]
		}
	}
	return out
}

// add puts p in its series, copied first if it is base's (kept).
func (set *seriesSet) add(p *sqlstore.Point, base *seriesSet, touched map[*keptSeries]bool, heads map[pointHead]int32) {
	k, full := seriesKeyOf(p)
	ks := set.byKey[k]
	switch {
	case ks == nil:
		ks = &keptSeries{s: *newSeriesOf(p, full)}
		set.byKey[k] = ks
		set.order = append(set.order, ks)
	case !touched[ks] && base != nil && base.byKey[k] == ks:
		var c *keptSeries
		if ks.extended.CompareAndSwap(false, true) {
			// The first set after base appends past base's points in
			// place: base's readers see their slices' lengths only.
			c = &keptSeries{s: ks.s, heads: ks.heads, values: ks.values, shared: true}
		} else {
			// Clipped: an append of the copy must not write where
			// another copy of ks could.
			c = &keptSeries{s: ks.s, heads: slices.Clip(ks.heads), values: slices.Clip(ks.values)}
		}
		set.byKey[k] = c
		set.order[slices.Index(set.order, ks)] = c
		ks = c
	}
	touched[ks] = true
	hp := historyPoint(p)
	head := pointHead{commit: hp.Commit, subject: hp.Subject, time: hp.Time, runID: hp.RunID, recorded: p.Recorded.UnixNano()}
	i, ok := heads[head]
	if !ok {
		i = int32(len(set.heads))
		set.heads = append(set.heads, head)
		heads[head] = i
	}
	switch len(hp.Samples) {
	case 0:
		ks.heads = append(ks.heads, ^i)
		ks.values = append(ks.values, math.NaN())
	case 1:
		ks.heads = append(ks.heads, i)
		ks.values = append(ks.values, hp.Samples[0])
	default:
		// Not from EachSummary, whose points are their medians
		// (historyPoint); the analysis reads a point's median alone.
		ks.heads = append(ks.heads, i)
		ks.values = append(ks.values, hp.Value())
	}
}

// compact moves a series read whole into arrays of its length, without
// the spare capacity of appends one point at a time.
func (ks *keptSeries) compact() {
	ks.heads, ks.values = slices.Clone(ks.heads), slices.Clone(ks.values)
}

// byTime sorts a series' points as sqlstore sorts a history's: by time,
// then when recorded, then by run.
type byTime struct {
	*keptSeries
	heads []pointHead
}

func (b byTime) Len() int { return len(b.keptSeries.heads) }
func (b byTime) Less(i, j int) bool {
	p, q := b.head(b.heads, i), b.head(b.heads, j)
	return cmp.Or(p.time.Compare(q.time), cmp.Compare(p.recorded, q.recorded), cmp.Compare(p.runID, q.runID)) < 0
}
func (b byTime) Swap(i, j int) {
	h, v := b.keptSeries.heads, b.values
	h[i], h[j] = h[j], h[i]
	v[i], v[j] = v[j], v[i]
}

// A seriesList is a set's series, named and in order, without their
// points: Points makes one's points when asked for.
type seriesList struct {
	Series []*history.Series // Points nil
	kept   []*keptSeries
	heads  []pointHead
}

// Points returns the points of l.Series[i], in buf's array when it is
// large enough (the index reuses one for every series).
func (l *seriesList) Points(i int, buf []history.Point) []history.Point {
	return l.kept[i].points(l.heads, buf)
}

// All returns the series with their points: what groupSeries makes of
// the same points.
func (l *seriesList) All() []*history.Series {
	if len(l.Series) == 0 {
		return nil
	}
	out := make([]*history.Series, len(l.Series))
	for i, s := range l.Series {
		c := *s
		c.Points = l.Points(i, nil)
		out[i] = &c
	}
	return out
}

// list returns the set's series as groupSeries orders and names them,
// without their points (copies).
func (set *seriesSet) list() *seriesList {
	l := &seriesList{heads: set.heads}
	if len(set.order) == 0 {
		return l
	}
	kept := slices.Clone(set.order)
	// groupSeries meets the series in the order of their first points;
	// nameSeries' order is stable.
	slices.SortStableFunc(kept, func(a, b *keptSeries) int {
		p, q := a.head(set.heads, 0), b.head(set.heads, 0)
		return cmp.Or(p.time.Compare(q.time), cmp.Compare(p.recorded, q.recorded), cmp.Compare(p.runID, q.runID))
	})
	by := make(map[*history.Series]*keptSeries, len(kept))
	l.Series = make([]*history.Series, len(kept))
	for i, ks := range kept {
		s := ks.s
		l.Series[i] = &s
		by[&s] = ks
	}
	nameSeries(l.Series)
	l.kept = make([]*keptSeries, len(l.Series))
	for i, s := range l.Series {
		l.kept[i] = by[s]
	}
	return l
}

// seriesSets keeps the last set read of each filter (a few).
type seriesSets struct {
	mu   sync.Mutex
	sets map[filter]*seriesSet
}

// maxSeriesSets bounds the filters whose series are kept.
const maxSeriesSets = 8

// read returns the series of sf at the history's state mark: the set
// kept for f when it is at mark, or the kept set with the points of the
// runs recorded since, or every point read.
func (c *seriesSets) read(ctx context.Context, st sqlstore.Store, f filter, sf sqlstore.Filter, mark [2]int64) (*seriesList, error) {
	c.mu.Lock()
	base := c.sets[f]
	c.mu.Unlock()
	if base != nil && base.mark == mark {
		return base.list(), nil
	}
	// Runs are never removed and take increasing ids: the runs recorded
	// since base are those after its newest when as many were added as
	// the newest id grew (else, with a run committed out of the order of
	// ids, say, everything is read again).
	if base != nil && !(mark[0]-base.mark[0] == mark[1]-base.mark[1] && mark[1] > base.mark[1]) {
		base = nil
	}
	set := &seriesSet{mark: mark, byKey: map[string]*keptSeries{}}
	if base != nil {
		sf.AfterRun = base.mark[1]
		for k, ks := range base.byKey {
			set.byKey[k] = ks
		}
		set.order = slices.Clone(base.order)
		// Clipped: the runs read now are new heads, appended to a copy.
		set.heads = slices.Clip(base.heads)
	}
	// Nothing recorded while reading (the set would then hold a run
	// that its mark does not count).
	sf.ThroughRun = mark[1]
	touched := map[*keptSeries]bool{}
	heads := map[pointHead]int32{}
	if err := st.EachSummary(ctx, sf, func(p *sqlstore.Point) error {
		set.add(p, base, touched, heads)
		return nil
	}); err != nil {
		return nil, err
	}
	for ks := range touched {
		if base == nil {
			ks.compact()
		}
		// Mostly in order already (a new run is mostly the newest).
		if b := (byTime{ks, set.heads}); !sort.IsSorted(b) {
			if ks.shared {
				// Not in place: base's points are among them.
				ks.heads, ks.values = slices.Clone(ks.heads), slices.Clone(ks.values)
				ks.shared = false
			}
			sort.Stable(b)
		}
	}
	if mark[1] > 0 {
		c.mu.Lock()
		if c.sets == nil || len(c.sets) >= maxSeriesSets {
			c.sets = map[filter]*seriesSet{}
		}
		c.sets[f] = set
		c.mu.Unlock()
	}
	if base == nil {
		set.heads = slices.Clone(set.heads)
	}
	return set.list(), nil
}
