package main

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/rigorbench/rigor/history"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// The index's series are kept between requests, per filter, with the
// state of the history they were read at (Store.RecordedRuns): after a
// run is recorded, only the points of the runs recorded since are read
// (Filter.AfterRun) and put in their series, instead of every point of
// the history again. The points are read one at a time
// (Store.EachSummary), each kept as a history.Point, not first as a
// slice of the store's points (a few hundred bytes each).

// seriesSet is a filter's series as read at one state of the history.
// Once kept, it is not changed: a later state copies what it adds to.
type seriesSet struct {
	mark  [2]int64 // RecordedRuns of the read
	byKey map[string]*keptSeries
	order []*keptSeries // in the order the points named them
}

// keptSeries is one series' points, oldest first, with when each was
// recorded (its order among points of the same time).
type keptSeries struct {
	s        history.Series // named as groupSeries names it before nameSeries
	recorded []int64        // Unix nanoseconds
	// medians holds the points' samples (a median each) side by side:
	// the analysis reads every point's, and one allocation a point
	// scattered them over the heap (a cache miss each).
	medians []float64
	// extended is set when a later set took the series to append to in
	// place, past the points this one holds (its slices' lengths).
	extended atomic.Bool
	// shared is set while the slices are those of the set before, by
	// extended's claim: sorting them must copy them first.
	shared bool
}

// add puts p in its series, copied first if it is base's (kept).
func (set *seriesSet) add(p *sqlstore.Point, base *seriesSet, touched map[*keptSeries]bool) {
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
			c = &keptSeries{s: ks.s, recorded: ks.recorded, medians: ks.medians, shared: true}
		} else {
			// Clipped: an append of the copy must not write where
			// another copy of ks could.
			c = &keptSeries{s: ks.s, recorded: slices.Clone(ks.recorded), medians: slices.Clip(ks.medians)}
			c.s.Points = slices.Clone(ks.s.Points)
		}
		set.byKey[k] = c
		set.order[slices.Index(set.order, ks)] = c
		ks = c
	}
	touched[ks] = true
	hp := historyPoint(p)
	if len(hp.Samples) == 1 {
		// The points before keep the array they were given.
		ks.medians = append(ks.medians, hp.Samples[0])
		n := len(ks.medians)
		hp.Samples = ks.medians[n-1 : n : n]
	}
	ks.s.Points = append(ks.s.Points, hp)
	ks.recorded = append(ks.recorded, p.Recorded.UnixNano())
}

// compact moves a series read whole into arrays of its length, without
// the spare capacity of appends one point at a time (up to as much
// again: 8 MB of 1,000 commits x 50 benchmarks, not 5).
func (ks *keptSeries) compact() {
	points := slices.Clone(ks.s.Points)
	medians := make([]float64, 0, len(ks.medians))
	for i := range points {
		if len(points[i].Samples) == 1 {
			medians = append(medians, points[i].Samples[0])
			n := len(medians)
			points[i].Samples = medians[n-1 : n : n]
		}
	}
	ks.s.Points, ks.recorded, ks.medians = points, slices.Clone(ks.recorded), medians
}

// byTime sorts a series' points as sqlstore sorts a history's: by time,
// then when recorded, then by run.
type byTime struct{ *keptSeries }

func (b byTime) Len() int { return len(b.s.Points) }
func (b byTime) Less(i, j int) bool {
	p, q := &b.s.Points[i], &b.s.Points[j]
	return cmp.Or(p.Time.Compare(q.Time), cmp.Compare(b.recorded[i], b.recorded[j]), cmp.Compare(p.RunID, q.RunID)) < 0
}
func (b byTime) Swap(i, j int) {
	b.s.Points[i], b.s.Points[j] = b.s.Points[j], b.s.Points[i]
	b.recorded[i], b.recorded[j] = b.recorded[j], b.recorded[i]
}

// series returns the set's series as groupSeries makes them of the same
// points: copies, named and in order.
func (set *seriesSet) series() []*history.Series {
	if len(set.order) == 0 {
		return nil
	}
	kept := slices.Clone(set.order)
	// groupSeries meets the series in the order of their first points;
	// nameSeries' order is stable.
	slices.SortStableFunc(kept, func(a, b *keptSeries) int {
		return cmp.Or(a.s.Points[0].Time.Compare(b.s.Points[0].Time), cmp.Compare(a.recorded[0], b.recorded[0]), cmp.Compare(a.s.Points[0].RunID, b.s.Points[0].RunID))
	})
	out := make([]*history.Series, len(kept))
	for i, ks := range kept {
		s := ks.s
		// Clipped: the next set appends past these points in place
		// (add), so an append by a reader must not write there.
		s.Points = slices.Clip(s.Points)
		out[i] = &s
	}
	nameSeries(out)
	return out
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
func (c *seriesSets) read(ctx context.Context, st sqlstore.Store, f filter, sf sqlstore.Filter, mark [2]int64) ([]*history.Series, error) {
	c.mu.Lock()
	base := c.sets[f]
	c.mu.Unlock()
	if base != nil && base.mark == mark {
		return base.series(), nil
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
	}
	// Nothing recorded while reading (the set would then hold a run
	// that its mark does not count).
	sf.ThroughRun = mark[1]
	touched := map[*keptSeries]bool{}
	if err := st.EachSummary(ctx, sf, func(p *sqlstore.Point) error {
		set.add(p, base, touched)
		return nil
	}); err != nil {
		return nil, err
	}
	for ks := range touched {
		if base == nil {
			ks.compact()
		}
		// Mostly in order already (a new run is mostly the newest).
		if b := (byTime{ks}); !sort.IsSorted(b) {
			if ks.shared {
				// Not in place: base's points are among them.
				ks.s.Points, ks.recorded = slices.Clone(ks.s.Points), slices.Clone(ks.recorded)
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
	return set.series(), nil
}
