package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rigorbench/rigor/model"
)

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
	// Old and New are the centers compared, in Unit, and Delta is New -
	// Old when the report has it (see Change.Delta), NaN otherwise. From
	// a zero baseline (0 -> 1 allocs/op) Estimate is NaN and Change is
	// +Inf: beyond any percentage.
	Old, New, Delta float64
	// Missing is set when the failure is a lost benchmark rather than a
	// regression: it failed, did not build or is missing on Side where
	// the baseline has it (see Missing.Lost). Unit is then empty and the
	// numbers NaN.
	Missing *Missing
	// Limit is the gate's maxRegression (a fraction) and Base the
	// baseline's label: what String needs to say the failure on its own.
	Limit float64
	Base  string
}

// String says in one line, the same for every front end (rigor's
// commands and package harness), why f fails the gate. It names no flag:
// a front end that lets the user accept a lost benchmark adds how.
func (f GateFailure) String() string {
	if m := f.Missing; m != nil {
		what := "is missing"
		switch m.Kind {
		case model.MissingFailed:
			what = "failed"
		case model.MissingBuild:
			what = "did not build"
		}
		reason, _, _ := strings.Cut(m.Reason, "\n")
		if reason = strings.TrimSpace(reason); reason != "" {
			reason = ": " + reason
		}
		return fmt.Sprintf("%s %s on %s where %s has it%s", m.Benchmark, what, m.Side, f.Base, reason)
	}
	if math.IsInf(f.Change, 1) && f.Old == 0 {
		return fmt.Sprintf("%s %s regressed on %s: %s from 0, beyond any percentage limit",
			f.Benchmark, f.Unit, f.Side, signedQuantity(f.Delta, f.Unit))
	}
	// Six significant digits: the limit as the user wrote it (5, 2.5),
	// without the rounding error of a percentage divided by 100 and
	// multiplied back (7.000000000000001).
	return fmt.Sprintf("%s %s regressed on %s: %s, %s worse, beyond the %s%% limit",
		f.Benchmark, f.Unit, f.Side, gatePct(f.Estimate, "%+"), gatePct(f.Change, "%"), strconv.FormatFloat(f.Limit*100, 'g', 6, 64))
}

// gatePct formats a fraction as a percentage with two decimals, and in
// exponent form from a million percent up, where two decimals would print
// a hundred digits the table beside it does not ("+1e+151%").
func gatePct(x float64, verb string) string {
	p := x * 100
	if math.Abs(p) >= 1e6 {
		return fmt.Sprintf(verb+".3g%%", p)
	}
	return fmt.Sprintf(verb+".2f%%", p)
}

// Gate returns every comparison whose verdict is Regressed with a point
// estimate worse than maxRegression (a fraction: 0.05 for 5%), once per
// measurement (a metric derived from another, B/s from sec/op, fails with
// it and is not listed again: it never regresses by more), and every
// lost benchmark (Missing.Lost): new code that crashes, hangs or does not
// build must not pass a gate by having no verdict. A command may let the
// user accept lost benchmarks (rigor's --allow-missing) by dropping the
// failures whose Missing is set. A negative maxRegression disables the
// gate. With Options.Gate GateInstructions, the comparisons are those of
// instructions per op instead (whether or not they decided a verdict): a
// benchmark without a count cannot fail it (Ungated lists them).
func (r *Report) Gate(maxRegression float64) []GateFailure {
	if maxRegression < 0 {
		return nil
	}
	var base string
	if len(r.Sides) > 0 {
		base = r.Sides[0]
	}
	var fails []GateFailure
	for i := range r.Missing {
		if m := &r.Missing[i]; m.Lost {
			fails = append(fails, GateFailure{Benchmark: m.Benchmark, Side: m.Side, Missing: m,
				Change: math.NaN(), Estimate: math.NaN(), Old: math.NaN(), New: math.NaN(), Delta: math.NaN(),
				Limit: maxRegression, Base: base})
		}
	}
	onWork := r.Options.Gate == GateInstructions
	for _, b := range r.Benchmarks {
		for _, m := range b.Metrics {
			switch {
			case onWork && m.Unit != InstructionsUnit:
				continue
			case !onWork && (!m.Decides() || m.DerivedFrom != ""):
				continue
			}
			for _, c := range m.Changes {
				if c == nil || c.Verdict != Regressed {
					continue
				}
				bad := c.Estimate * float64(-m.Better)
				if math.IsNaN(c.Estimate) && c.Delta*float64(-m.Better) > 0 {
					bad = math.Inf(1) // from zero
				}
				if math.IsNaN(bad) || bad <= maxRegression {
					continue
				}
				fails = append(fails, GateFailure{Benchmark: b.key(), Unit: m.Unit, Side: c.Side, Change: bad, Estimate: c.Estimate,
					Old: m.Sides[0].Center, New: m.side(c.Side).Center, Delta: c.Delta,
					Limit: maxRegression, Base: base})
			}
		}
	}
	return fails
}

// A GateResult is the outcome of the gate a command applied to a report,
// for the report's views to say.
type GateResult struct {
	// Limit is the largest regression allowed, a fraction (0.05 for 5%).
	Limit float64
	// AllowMissing is set when lost benchmarks were accepted.
	AllowMissing bool
	// Failures are what failed it; none when it passed.
	Failures []GateFailure
	// On is what it applied to: GateTime or GateInstructions.
	On string
	// Ungated are, under GateInstructions, the benchmarks compared that
	// had no instruction count to gate on (see Report.Ungated).
	Ungated []string
}

// Ungated returns, under GateInstructions, the benchmarks compared that
// have no instruction count to gate on (none measured, or not on every
// side), by key; nil under GateTime.
func (r *Report) Ungated() []string {
	if r.Options.Gate != GateInstructions {
		return nil
	}
	var out []string
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		if len(b.Decisions) == 0 || !slices.ContainsFunc(b.Decisions, func(d Decision) bool { return d.Change != nil }) {
			continue // not compared: nothing to gate
		}
		j := b.instructionsMetric()
		if j < 0 || slices.Contains(b.Metrics[j].Changes, nil) {
			out = append(out, b.key())
		}
	}
	return out
}

// Passed reports whether nothing failed the gate.
func (g *GateResult) Passed() bool { return len(g.Failures) == 0 }

// ApplyGate applies the gate at maxRegression (see Gate), without the
// lost benchmarks when allowMissing accepts them, records the outcome in
// r.Gated so that every view says it, and returns the failures. A
// negative maxRegression applies no gate and records nothing.
func (r *Report) ApplyGate(maxRegression float64, allowMissing bool) []GateFailure {
	if maxRegression < 0 {
		r.Gated = nil
		return nil
	}
	fails := r.GateFailures(maxRegression, allowMissing)
	r.Gated = &GateResult{Limit: maxRegression, AllowMissing: allowMissing, Failures: fails,
		On: cmp.Or(r.Options.Gate, GateTime), Ungated: r.Ungated()}
	return fails
}

// GateFailures is Gate without the lost benchmarks when allowMissing
// accepts them.
func (r *Report) GateFailures(maxRegression float64, allowMissing bool) []GateFailure {
	fails := r.Gate(maxRegression)
	if allowMissing {
		fails = slices.DeleteFunc(fails, func(g GateFailure) bool { return g.Missing != nil })
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

// A Tally counts a report's comparisons by verdict: one per benchmark and
// side against the baseline, the benchmark's verdict (Decision: its
// deciding time metric, sec/op or cpu-sec/op when the clock chose it; an
// exact metric when it is the only change; without a time its first
// deciding metric), as zenbench's summary line counts them.
type Tally struct {
	Regressed, Improved, Unchanged, Inconclusive int
}

// Tally counts r's comparisons by verdict, over every side (SideTally
// counts them side by side, with the benchmarks' names).
func (r *Report) Tally() Tally {
	var t Tally
	for _, b := range r.Benchmarks {
		for _, d := range b.Decisions {
			switch d.Verdict {
			case Regressed:
				t.Regressed++
			case Improved:
				t.Improved++
			case Unchanged:
				t.Unchanged++
			case Inconclusive:
				t.Inconclusive++
			}
		}
	}
	return t
}
