package analysis

import (
	"fmt"
	"math"

	"github.com/rigorbench/rigor/model"
)

// distrust makes inconclusive every verdict whose numbers cannot be
// trusted, whatever the source of the run (Go benchmark format already
// skips such values; rigor JSON and measured runs may still hold them):
//
//   - a side holds a value that cannot be a measurement
//     (model.Implausible: a negative time, a magnitude beyond what the
//     arithmetic survives);
//   - the change's estimate or interval is infinite though the baseline
//     has no zero: the arithmetic overflowed, and an infinite interval
//     cannot clear or sit inside any band. (A zero baseline is a change
//     of its own kind, decided elsewhere.)
func (r *Report) distrust() {
	run := r.Run
	for i := range r.Benchmarks {
		for j := range r.Benchmarks[i].Metrics {
			m := &r.Benchmarks[i].Metrics[j]
			var raw *model.Metric
			if run != nil && i < len(run.Benchmarks) && j < len(run.Benchmarks[i].Metrics) {
				raw = &run.Benchmarks[i].Metrics[j]
			}
			for _, c := range m.Changes {
				if c == nil || c.Verdict == Inconclusive {
					continue
				}
				if why := implausibleSides(raw, r.Sides[0], c.Side); why != "" {
					c.Verdict, c.ReasonKind, c.Reason = Inconclusive, ReasonImplausible, why
					continue
				}
				if overflowed(c) && !hasZero(raw, r.Sides[0]) {
					c.Verdict, c.ReasonKind = Inconclusive, ReasonOverflow
					c.Reason = fmt.Sprintf("the change overflows floating-point arithmetic (estimate %s, interval [%s, %s]): the values are too far apart to compare",
						signedPct(c.Estimate), signedPct(c.Lo), signedPct(c.Hi))
				}
			}
		}
	}
}

// implausibleSides says which value of the two sides of raw cannot be a
// measurement, or returns "".
func implausibleSides(raw *model.Metric, sides ...string) string {
	if raw == nil {
		return ""
	}
	for _, s := range raw.Samples {
		if s.Side != sides[0] && s.Side != sides[1] {
			continue
		}
		if why := model.Implausible(s.Value, raw.Unit); why != "" {
			return fmt.Sprintf("a value on %s cannot be a measurement: %v %s %s", s.Side, s.Value, raw.Unit, why)
		}
	}
	return ""
}

// overflowed reports whether c's numbers went infinite.
func overflowed(c *Change) bool {
	return math.IsInf(c.Estimate, 0) || math.IsInf(c.Lo, 0) || math.IsInf(c.Hi, 0) ||
		(c.Verdict.Significant() && math.IsNaN(c.Estimate))
}

func hasZero(raw *model.Metric, side string) bool {
	if raw == nil {
		return false
	}
	for _, s := range raw.Samples {
		if s.Side == side && s.Value == 0 {
			return true
		}
	}
	return false
}
