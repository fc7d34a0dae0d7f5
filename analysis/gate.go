package analysis

import "math"

// A GateFailure is a regression worse than the gate allows.
type GateFailure struct {
	Benchmark string // full name, with the package when there is one
	Unit      string
	Side      string
	// Change is the relative change in the bad direction, as a
	// positive fraction (0.12 for 12% worse).
	Change float64
	// Estimate is the signed relative change new/old - 1 as the report
	// shows it (-0.94 for B/s falling 94%).
	Estimate float64
}

// Gate returns every comparison whose verdict is Regressed with a point
// estimate worse than maxRegression (a fraction: 0.05 for 5%). A negative
// maxRegression disables the gate.
func (r *Report) Gate(maxRegression float64) []GateFailure {
	if maxRegression < 0 {
		return nil
	}
	var fails []GateFailure
	for _, b := range r.Benchmarks {
		for _, m := range b.Metrics {
			if !m.Decides() {
				continue
			}
			for _, c := range m.Changes {
				if c == nil || c.Verdict != Regressed {
					continue
				}
				bad := c.Estimate * float64(-m.Better)
				if math.IsNaN(bad) || bad <= maxRegression {
					continue
				}
				name := b.FullName
				if b.Pkg != "" {
					name = b.Pkg + "." + name
				}
				fails = append(fails, GateFailure{Benchmark: name, Unit: m.Unit, Side: c.Side, Change: bad, Estimate: c.Estimate})
			}
		}
	}
	return fails
}

// Comparable reports whether at least one benchmark was compared across
// sides.
func (r *Report) Comparable() bool {
	for _, b := range r.Benchmarks {
		for _, m := range b.Metrics {
			for _, c := range m.Changes {
				if c != nil {
					return true
				}
			}
		}
	}
	return false
}
