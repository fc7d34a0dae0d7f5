package analysis

import (
	"math"
	"slices"

	"github.com/rigorbench/rigor/model"
)

// Why a metric decides a benchmark's verdict (Decision.By).
const (
	// ByTime: the time metric the clock chose, wall time (sec/op).
	ByTime = "time"
	// ByCPUTime: the time metric the clock chose, CPU time (cpu-sec/op:
	// the machine was busy, or CPU time the steadier clock, and the
	// benchmark CPU-bound; Benchmark.Clock says why).
	ByCPUTime = "cpu-time"
	// ByExact: a metric compared exactly (allocs/op, B/op that never
	// vary) changed while the time did not: the only change.
	ByExact = "exact"
	// ByMetric: the benchmark reports no time; its first metric that is
	// neither derived from another nor context decides.
	ByMetric = "metric"
	// ByInstructions: the time could not decide (inconclusive) and the
	// instructions per op did: they moved beyond their tolerance, or,
	// for a benchmark that works rather than waits and whose time's
	// interval includes no change, stayed inside it (unchanged in work).
	ByInstructions = "instructions"
)

// A Decision is a benchmark's one verdict against one side: the verdict
// of the metric that decides it, with that metric's change. A reader (and
// a headline) counts benchmarks by it; every other metric of the
// benchmark is context for it or a measurement of its own.
type Decision struct {
	Side string
	// Verdict is the deciding metric's verdict on Side; empty when Side
	// or the baseline lacks the benchmark (Missing says why) or no
	// metric was compared.
	Verdict Verdict
	// Metric is the index in Benchmark.Metrics of the deciding metric,
	// and Unit its unit; -1 and "" when there is none.
	Metric int
	Unit   string
	// By says why that metric decides: ByTime, ByCPUTime, ByExact,
	// ByMetric or ByInstructions.
	By string
	// Time is the time's own verdict when another metric decided in its
	// place (By is ByInstructions): inconclusive. Empty otherwise.
	Time Verdict
	// Change is the deciding metric's change on Side; nil without one.
	Change *Change
	// Missing is set when Side (Lost false: or the baseline) lacks the
	// benchmark's results.
	Missing *Missing
	// Exact is, for a time verdict of inconclusive, the change of an
	// exact metric that changed (a regression before an improvement),
	// and ExactUnit its unit: it does not decide (the time may have
	// moved either way) but is said with the verdict. Nil otherwise.
	Exact     *Change
	ExactUnit string
	// Within is, for a time (or, without one, a metric) verdict of
	// unchanged or inconclusive whose interval includes no change, the
	// largest change that interval leaves possible, max(|Lo|, |Hi|): the
	// run rules out changes beyond ±Within at its confidence. NaN
	// otherwise (a change found, an interval off zero, none at all, or
	// another metric deciding).
	Within float64
}

// ByClock reports whether d was decided by the time metric its clock
// chose, wall time or CPU time.
func (d *Decision) ByClock() bool { return d.By == ByTime || d.By == ByCPUTime }

// within returns what Decision.Within says of d.
func within(d *Decision) float64 {
	c := d.Change
	if c == nil || (!d.ByClock() && d.By != ByMetric) || (d.Verdict != Unchanged && d.Verdict != Inconclusive) ||
		math.IsNaN(c.Lo) || math.IsNaN(c.Hi) || math.IsInf(c.Lo, 0) || math.IsInf(c.Hi, 0) || c.Lo > 0 || c.Hi < 0 {
		return math.NaN()
	}
	return max(-c.Lo, c.Hi)
}

// timeMetric returns the index of b's time metric, the one its clock
// chose (sec/op by default, the other clock when sec/op is context), or
// -1.
func (b *Benchmark) timeMetric() int {
	units := []string{WallUnit, CPUUnit}
	if b.Clock != nil {
		units = append([]string{b.Clock.Unit}, units...)
	}
	for _, u := range units {
		if i := slices.IndexFunc(b.Metrics, func(m Metric) bool { return m.Unit == u && m.Decides() }); i >= 0 {
			return i
		}
	}
	return -1
}

// decide sets b's Decisions, one per side after the baseline: the time
// metric's verdict; an exact metric's when the time is unchanged and an
// exact metric changed (a regression before an improvement); without a
// time, the first independent metric's. missing holds the report's
// records of sides that lack b.
func (b *Benchmark) decide(sides []string, missing []Missing, noise float64) {
	key := b.key()
	t := b.timeMetric()
	by := ByTime
	if t < 0 {
		by = ByMetric
		t = slices.IndexFunc(b.Metrics, func(m Metric) bool { return m.Decides() && m.DerivedFrom == "" })
	}
	b.main = t
	b.Decisions = make([]Decision, 0, max(len(sides)-1, 0))
	for k, side := range sides[min(1, len(sides)):] {
		d := Decision{Side: side, Metric: -1}
		for i := range missing {
			if m := &missing[i]; m.Benchmark == b.key() && (m.Side == side || m.Side == sides[0]) {
				d.Missing = m
				if m.Side == side {
					break // the side's own record first
				}
			}
		}
		if t >= 0 && k < len(b.Metrics[t].Changes) && b.Metrics[t].Changes[k] != nil {
			d.Metric, d.Unit, d.By, d.Change = t, b.Metrics[t].Unit, by, b.Metrics[t].Changes[k]
			if by == ByTime && d.Unit == CPUUnit {
				d.By = ByCPUTime
			}
			d.Verdict = d.Change.Verdict
			if n := b.decideByWork(&d, k, key, noise); n != nil {
				b.Notes = append(b.Notes, *n)
			}
		}
		if d.Change == nil || d.Verdict == Unchanged {
			if e := b.exactChange(k); e >= 0 {
				m := &b.Metrics[e]
				d.Metric, d.Unit, d.By, d.Change, d.Verdict = e, m.Unit, ByExact, m.Changes[k], m.Changes[k].Verdict
			}
		} else if d.Verdict == Inconclusive && d.ByClock() {
			// The time is open, so an exact change does not decide (the
			// time may have moved either way), but it is said with the
			// verdict: before, allocs/op 16 -> 14 went unsaid beside an
			// inconclusive time.
			if e := b.exactChange(k); e >= 0 {
				d.ExactUnit, d.Exact = b.Metrics[e].Unit, b.Metrics[e].Changes[k]
			}
		}
		if d.Change != nil {
			d.Missing = nil // compared: a one-sided record of another side does not bear on it
		}
		d.Within = within(&d)
		b.Decisions = append(b.Decisions, d)
	}
}

// exactChange returns the index of b's exact, independent metric that
// regressed against side k+1, or else improved, or -1.
func (b *Benchmark) exactChange(k int) int {
	found := -1
	for i := range b.Metrics {
		m := &b.Metrics[i]
		if !m.Exact || !m.Decides() || m.DerivedFrom != "" || k >= len(m.Changes) || m.Changes[k] == nil {
			continue
		}
		switch m.Changes[k].Verdict {
		case Regressed:
			return i
		case Improved:
			if found < 0 {
				found = i
			}
		}
	}
	return found
}

// Decider reports whether Metrics[m] decides b's verdict against some
// side (Decisions); when no side has a verdict (one side, or the
// benchmark missing), whether it is the metric that would: its time, or
// without one its first independent metric.
func (b *Benchmark) Decider(m int) bool {
	if slices.ContainsFunc(b.Decisions, func(d Decision) bool { return d.Metric >= 0 }) {
		return slices.ContainsFunc(b.Decisions, func(d Decision) bool { return d.Metric == m })
	}
	return m == b.main && m >= 0
}

// A SideTally counts a report's benchmarks by their verdict against one
// side (Decision), for a headline. Each list holds indexes into
// Report.Benchmarks, in order.
type SideTally struct {
	Side string
	// Benchmarks is how many benchmarks the report has.
	Benchmarks int
	// Regressed, Improved, Unchanged and Inconclusive hold the
	// benchmarks with that verdict.
	Regressed, Improved, Unchanged, Inconclusive []int
	// Lost are the benchmarks the baseline has that failed, did not
	// build or are missing on Side (Missing.Lost); Other those with no
	// verdict for another reason (only on Side, failed on both, nothing
	// compared).
	Lost, Other []int
	// Bounded are the inconclusive benchmarks whose interval includes
	// no change (Decision.Within is set): nothing was found, and their
	// intervals say how large a change they rule out. Within is the
	// largest of their Decision.Within, NaN when Bounded is empty: the run
	// rules out a change beyond ±Within in any of them.
	Bounded []int
	Within  float64
}

// tally counts the decisions of r's benchmarks against side k+1.
func (r *Report) tally(k int) SideTally {
	t := SideTally{Side: r.Sides[k+1], Benchmarks: len(r.Benchmarks), Within: math.NaN()}
	for i := range r.Benchmarks {
		d := r.Benchmarks[i].Decisions[k]
		switch {
		case d.Verdict == Regressed:
			t.Regressed = append(t.Regressed, i)
		case d.Verdict == Improved:
			t.Improved = append(t.Improved, i)
		case d.Verdict == Unchanged:
			t.Unchanged = append(t.Unchanged, i)
		case d.Verdict == Inconclusive:
			t.Inconclusive = append(t.Inconclusive, i)
			if !math.IsNaN(d.Within) {
				t.Bounded = append(t.Bounded, i)
				if math.IsNaN(t.Within) || d.Within > t.Within {
					t.Within = d.Within
				}
			}
		case d.Missing != nil && d.Missing.Lost:
			t.Lost = append(t.Lost, i)
		default:
			t.Other = append(t.Other, i)
		}
	}
	return t
}

// AA reports whether the run is an A/A run: its source found that every
// side builds (or runs) the same thing, so any verdict but unchanged is a
// false alarm.
func (r *Report) AA() bool { return len(model.OfKind(r.Notes, model.NoteAA)) > 0 }
