package analysis

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// primaryUnit is the metric that others may be derived from.
const primaryUnit = "sec/op"

// Tolerances of the derivation test.
const (
	// derivedFloor is the relative tolerance of values held at full
	// precision (the in-process harness): float rounding only.
	derivedFloor = 1e-9
	// derivedMaxRounding caps the rounding inferred from a value's
	// digits: go test prints ns/op and custom metrics with at least four
	// significant digits and MB/s with two decimals, so a value that shows
	// fewer digits (100 ns/op is "1e-07" once tidied to sec/op) was
	// printed with trailing zeros, not rounded by 50%. A value whose real
	// rounding is larger (under 1 MB/s) is then not recognised as
	// derived, and counts as a comparison of its own: the old, safe side.
	derivedMaxRounding = 5e-3
	// derivedMinSamples is the number of samples below which a fixed
	// relation between two coarse metrics could be a coincidence.
	derivedMinSamples = 4
)

// derivation reports whether every sample of m is a fixed transform of the
// primary metric's sample of the same side and round: value × primary
// (reciprocal, as B/s = SetBytes / sec/op) or value / primary the same
// constant for every sample of every side. Values read from go test
// output were rounded when printed (7856 ns/op × 81.47 MB/s is 640.03 B,
// 9175 × 69.75 is 639.96 B), so "the same" means: within the rounding
// their digits allow (derivedMaxRounding at most), plus derivedFloor.
// m must also vary by more than that rounding: a metric that is merely
// constant is consistent with anything when the primary barely varies.
func derivation(primary, m *model.Metric) (reciprocal, ok bool) {
	if len(m.Samples) != len(primary.Samples) || len(m.Samples) < derivedMinSamples {
		return false, false
	}
	type at struct {
		side  string
		round int
	}
	t := make(map[at]float64, len(primary.Samples))
	for _, s := range primary.Samples {
		k := at{s.Side, s.Round}
		if _, dup := t[k]; dup || !(s.Value > 0) || math.IsInf(s.Value, 0) {
			return false, false
		}
		t[k] = s.Value
	}
	type interval struct{ lo, hi float64 }
	var rec, prop, own []interval
	for _, s := range m.Samples {
		tv, found := t[at{s.Side, s.Round}]
		if !found || !(s.Value > 0) || math.IsInf(s.Value, 0) {
			return false, false
		}
		ev, et := rounding(s.Value), rounding(tv)
		e := ev + et + derivedFloor
		rec = append(rec, interval{s.Value * tv * (1 - e), s.Value * tv * (1 + e)})
		prop = append(prop, interval{s.Value / tv * (1 - e), s.Value / tv * (1 + e)})
		own = append(own, interval{s.Value * (1 - ev - derivedFloor), s.Value * (1 + ev + derivedFloor)})
	}
	common := func(in []interval) bool {
		lo, hi := math.Inf(-1), math.Inf(1)
		for _, i := range in {
			lo, hi = max(lo, i.lo), min(hi, i.hi)
		}
		return lo <= hi
	}
	switch {
	case common(own):
		return false, false // m does not vary: the relation is not identifiable
	case common(rec):
		return true, true
	case common(prop):
		return false, true
	}
	return false, false
}

// rounding returns the relative rounding error a value may carry from
// being printed: half a unit in its last significant digit, counted at ten
// significant digits at most (7.856000000000001e-06, the float noise of
// tidying 7856 ns to seconds, is 7.856e-06: four digits), capped at
// derivedMaxRounding.
func rounding(x float64) float64 {
	s := strconv.FormatFloat(math.Abs(x), 'e', 9, 64)
	mant, exp, _ := strings.Cut(s, "e")
	e, err := strconv.Atoi(exp)
	if err != nil || x == 0 {
		return derivedMaxRounding
	}
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	ulp := math.Pow(10, float64(e-(len(digits)-1)))
	return min(0.5*ulp/math.Abs(x), derivedMaxRounding)
}

// markDerived finds the metrics of b that are fixed transforms of its
// primary metric (sec/op) and marks them in am, b's analysed metrics.
// Exact metrics are compared exactly and need no test; a primary that
// never varies gives no evidence of a relation. CPU time is the other
// clock, never a transform of wall time. A derived metric decides the
// verdict only when its primary does (see Metric.Context): B/s is wall
// time, so it is context too when the verdict is taken from CPU time.
func markDerived(b *model.Benchmark, am []Metric) {
	p := -1
	for i := range b.Metrics {
		if b.Metrics[i].Unit == primaryUnit && !am[i].Exact {
			p = i
		}
	}
	if p < 0 {
		return
	}
	for i := range b.Metrics {
		if i == p || am[i].Exact || am[i].Unit == CPUUnit {
			continue
		}
		if reciprocal, ok := derivation(&b.Metrics[p], &b.Metrics[i]); ok {
			am[i].DerivedFrom, am[i].reciprocal, am[i].primary = primaryUnit, reciprocal, p
			if am[i].Context == "" {
				am[i].Context = am[p].Context
			}
		}
	}
}

// derivedNote says which units were counted with the metric they are
// derived from, for the chance note: " B/s, derived from sec/op, shares
// its test and is not counted." It is empty when none is.
func derivedNote(r *Report) string {
	var units []string
	seen := map[string]bool{}
	for _, b := range r.Benchmarks {
		for _, m := range b.Metrics {
			if m.DerivedFrom != "" && !seen[m.Unit] && slices.ContainsFunc(m.Changes, func(c *Change) bool { return c != nil }) {
				seen[m.Unit] = true
				units = append(units, m.Unit)
			}
		}
	}
	switch len(units) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" %s, derived from %s, shares its test and is not counted.", units[0], primaryUnit)
	}
	return fmt.Sprintf(" %s, derived from %s, share its test and are not counted.", words.JoinList(units, len(units)), primaryUnit)
}

// shareVerdict gives c, a change of the derived metric m, the test and
// verdict of pc, the same comparison of m's primary metric pm: its
// p-values and test, and its interval transformed (new/old of a
// reciprocal is the inverse of the primary's). c keeps its own estimate,
// the ratio of its own centers, as benchstat reports it.
func shareVerdict(c, pc *Change, m, pm *Metric) {
	c.P, c.PAdjusted, c.Test, c.Paired = pc.P, pc.PAdjusted, pc.Test, pc.Paired
	sign := 1.0
	transformed := pc.Estimate
	if m.reciprocal {
		c.Lo, c.Hi = 1/(1+pc.Hi)-1, 1/(1+pc.Lo)-1
		transformed = 1/(1+pc.Estimate) - 1
		sign = -1
	} else {
		c.Lo, c.Hi = pc.Lo, pc.Hi
	}
	if !(c.Lo <= c.Estimate && c.Estimate <= c.Hi) && !math.IsNaN(c.Lo) {
		// The own center's ratio can differ from the transformed one by
		// the rounding of printed values (and, for an even count, the
		// median of inverses is not the inverse of the median); outside
		// a narrow interval it would contradict it.
		c.Estimate = transformed
	}
	how := "a constant times"
	if m.reciprocal {
		how = "a constant divided by"
	}
	c.Verdict, c.ReasonKind = pc.Verdict, pc.ReasonKind
	c.SettleRounds, c.SettleBeyond, c.SettleSamples = pc.SettleRounds, pc.SettleBeyond, pc.SettleSamples
	if pc.Verdict.Significant() {
		if sign*pc.Estimate*float64(-m.Better) > 0 {
			c.Verdict = Regressed
		} else {
			c.Verdict = Improved
		}
	}
	c.Reason = fmt.Sprintf("%s is %s %s in every sample, so it shares that test and verdict; for %s, %s",
		m.Unit, how, pm.Unit, pm.Unit, pc.Reason)
}
