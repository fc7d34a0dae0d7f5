package analysis

import (
	"fmt"
	"math"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// The units of the code's work, read by hardware counters in the timed
// window or simulated under Valgrind (see package gotest/window).
const (
	// InstructionsUnit is the instructions the benchmark retired per
	// operation: a property of the code and the toolchain that no
	// neighbour on the machine can move. Evidence beside the time, never
	// a time.
	InstructionsUnit = model.InstructionsUnit
	// CyclesUnit is the CPU cycles per operation, read by hardware
	// counters: a clock, context only.
	CyclesUnit = model.CyclesUnit
)

// TestInstructions is the Change.Test of an instructions/op comparison:
// the counts are nearly exact, so their change is compared as exactly as
// they are, by the interval their windows allow, against
// Options.InstructionsTolerance rather than the time's noise band.
const TestInstructions = "instructions"

// DefaultInstructionsTolerance is the default of
// Options.InstructionsTolerance: ±0.5% (model.InstructionsTolerance,
// which says why).
const DefaultInstructionsTolerance = model.InstructionsTolerance

// Gates (Options.Gate): what --max-regression applies to.
const (
	// GateTime: each benchmark's deciding metric (its time, or an exact
	// metric when that is the only change).
	GateTime = "time"
	// GateInstructions: instructions per op, for CI on noisy runners
	// where time cannot be trusted; benchmarks without a count pass
	// (and the report says which).
	GateInstructions = "instructions"
)

// workBound is the least CPU time per wall time (Clock.CPUPerWall) at
// which a benchmark counts as doing work all its time, so that unchanged
// instructions say its time did not change either: below it, it waits
// (sleeps, blocks, does I/O), which no instruction count sees.
const workBound = 0.8

// instructionsChange compares the instruction counts base and other of
// one benchmark, each a sample per timed window: the Hodges-Lehmann shift
// of their logarithms (the median of every new over old ratio's log),
// with Moses's distribution-free interval (stats.HodgesLehmann), as a
// relative change. With 4 windows a side that interval is the widest it
// can be, from the lowest new over the highest old to the highest new
// over the lowest old (the only one that covers 95%: it covers 97.1%);
// with 8 it is the 14th smallest to the 14th largest of the 64 ratios.
// With fewer windows than any interval at the confidence needs, it is
// still that widest range: what the repeats allow.
//
// The windows of one process share its heap's history, so they are not
// quite independent; the tolerance the verdict holds the interval
// against (Options.InstructionsTolerance) is wider than what that
// leaves out.
func instructionsChange(base, other []float64, opts Options) *Change {
	c := &Change{Test: TestInstructions, N: min(len(base), len(other)),
		P: math.NaN(), PAdjusted: math.NaN(), Effect: math.NaN(), Delta: math.NaN(),
		Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	if !positive(base) || !positive(other) {
		return c // decide says why: not a count of work
	}
	lx, ly := logs(base), logs(other)
	in, err := stats.HodgesLehmann(lx, ly, opts.Confidence)
	if err != nil && !math.IsNaN(in.Estimate) {
		// Too few windows for the confidence: the widest range.
		in.Lo, in.Hi = stats.Min(ly)-stats.Max(lx), stats.Max(ly)-stats.Min(lx)
	}
	c.Estimate, c.Lo, c.Hi = math.Expm1(in.Estimate), math.Expm1(in.Lo), math.Expm1(in.Hi)
	return c
}

// logs returns the natural logarithms of v.
func logs(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Log(x)
	}
	return out
}

// decideInstructions sets the verdict of an instructions/op change c of
// metric m: improved or regressed when its range lies wholly beyond
// ±tolerance, unchanged when wholly inside it, inconclusive otherwise
// (a count that varied between repeats, or a change at the tolerance's
// edge).
func decideInstructions(c *Change, m *Metric, opts Options) {
	tol := opts.InstructionsTolerance
	rng := fmt.Sprintf("%s [%s, %s]", signedPct(c.Estimate), signedPct(c.Lo), signedPct(c.Hi))
	band := "±" + words.Pct(tol)
	switch {
	case math.IsNaN(c.Estimate) || math.IsNaN(c.Lo) || math.IsNaN(c.Hi):
		c.Verdict, c.ReasonKind = Inconclusive, ReasonImplausible
		c.Reason = "a side has no positive instruction count, which is not a count of work"
	case c.Lo > tol || c.Hi < -tol:
		v := Improved
		if c.Estimate*float64(-m.Better) > 0 {
			v = Regressed
		}
		c.Verdict, c.ReasonKind = v, ReasonClears
		c.Reason = fmt.Sprintf("instructions per op moved %s, the interval of their windows lying wholly beyond the %s tolerance of a count", rng, band)
	case c.Lo >= -tol && c.Hi <= tol:
		c.Verdict, c.ReasonKind = Unchanged, ReasonInsideBand
		c.Reason = fmt.Sprintf("instructions per op moved %s, inside the %s tolerance of a count", rng, band)
	case c.Lo > 0 || c.Hi < 0:
		c.Verdict, c.ReasonKind = Inconclusive, ReasonSmall
		c.Reason = fmt.Sprintf("instructions per op moved %s, at the edge of the %s tolerance of a count: too small to call", rng, band)
	default:
		c.Verdict, c.ReasonKind = Inconclusive, ReasonOpen
		c.Reason = fmt.Sprintf("instructions per op read %s: the count varied between windows by more than the %s tolerance (work that depends on chance: random seeds, timing, maps' iteration order)", rng, band)
	}
}

// markInstructions makes b's instruction and cycle counts context: the
// verdict is the time's, the counts its evidence (see decideByWork), and
// --gate instructions gates on them. A benchmark with no time keeps its
// instructions as its deciding metric.
func markInstructions(b *Benchmark) {
	hasTime := false
	for i := range b.Metrics {
		if isTime(b.Metrics[i].Unit) {
			hasTime = true
		}
	}
	for i := range b.Metrics {
		m := &b.Metrics[i]
		switch {
		case m.Unit == CyclesUnit && hasTime:
			m.Context = "cycles are a clock that counts a slower CPU as more work: context for the time"
		case m.Unit == InstructionsUnit && hasTime && m.Context == "":
			m.Context = "instructions per op are the evidence of the code's work beside its time: the verdict is the time's, unless the time could not decide"
		}
	}
}

// instructionsMetric returns the index of b's instructions/op metric, or
// -1.
func (b *Benchmark) instructionsMetric() int {
	for i := range b.Metrics {
		if b.Metrics[i].Unit == InstructionsUnit {
			return i
		}
	}
	return -1
}

// works reports whether b's rounds show it working all its time (CPU
// time at least workBound of the time it could run), with that ratio
// (NaN when the rounds did not measure both clocks: files compared, or
// a source without CPU time, where nothing shows that it never waits).
func (b *Benchmark) works() (float64, bool) {
	if b.Clock == nil || math.IsNaN(b.Clock.CPUPerWall) {
		return math.NaN(), false
	}
	return b.Clock.CPUPerWall, b.Clock.CPUPerWall >= workBound
}

// decideByWork lets the instruction count settle d, a decision by time
// against side k+1 that the time left inconclusive, or note where time
// and instructions disagree. It returns the note to add to the
// benchmark, if any.
//
//   - Time inconclusive, instructions moved, and the time's interval not
//     wholly on the other side: the verdict is the instructions' (By
//     ByInstructions): "improved in instructions -12.1%; time
//     inconclusive".
//   - Time inconclusive with an interval that includes no change, and
//     instructions unchanged, for a benchmark that works rather than
//     waits: unchanged in work (By ByInstructions).
//   - Time unchanged (inside the noise band) while instructions moved:
//     for a benchmark that works, the count decides when its interval
//     lies wholly beyond the band; otherwise a note says so.
//   - Time improved or regressed while instructions did not move, or
//     moved the other way: the verdict stays, with a note naming the
//     likely causes.
func (b *Benchmark) decideByWork(d *Decision, k int, key string, noise float64) *model.Note {
	i := b.instructionsMetric()
	if i < 0 || !d.ByClock() || d.Change == nil {
		return nil
	}
	m := &b.Metrics[i]
	if k >= len(m.Changes) || m.Changes[k] == nil {
		return nil
	}
	ic, tc := m.Changes[k], d.Change
	timeUnit := d.Unit
	ratio, working := b.works()
	switch {
	case d.Verdict == Inconclusive && ic.Verdict.Significant():
		if tc.Lo > 0 && ic.Estimate < 0 || tc.Hi < 0 && ic.Estimate > 0 {
			return workNote(key, d.Side, "contradicts", fmt.Sprintf(
				"instructions per op moved %s, but the time's interval [%s, %s] lies wholly the other way: the work changed one way and the time the other (memory, code layout or the machine), so neither decides",
				signedPct(ic.Estimate), signedPct(tc.Lo), signedPct(tc.Hi)), ic)
		}
		d.Time = d.Verdict
		d.Metric, d.Unit, d.By, d.Change, d.Verdict = i, m.Unit, ByInstructions, ic, ic.Verdict
	case d.Verdict == Inconclusive && ic.Verdict == Unchanged && tc.Lo <= 0 && tc.Hi >= 0:
		switch {
		case math.IsNaN(ratio):
			return workNote(key, d.Side, "waits", fmt.Sprintf(
				"instructions per op did not move (%s), but without the benchmark's CPU time nothing shows that it never waits (sleeps, locks, I/O), which no instruction count sees, so the time stays inconclusive",
				signedPct(ic.Estimate)), ic)
		case !working:
			return workNote(key, d.Side, "waits", fmt.Sprintf(
				"instructions per op did not move (%s), but the benchmark used %s of a CPU per unit of time it could run: it also waits (sleeps, locks, I/O), which no instruction count sees, so the time stays inconclusive",
				signedPct(ic.Estimate), words.Pct(ratio)), ic)
		}
		d.Time = d.Verdict
		d.Metric, d.Unit, d.By, d.Change, d.Verdict = i, m.Unit, ByInstructions, ic, Unchanged
	case d.Verdict == Unchanged && ic.Verdict.Significant() && (ic.Lo > noise || ic.Hi < -noise) && working:
		// The time's interval lies inside the band while the work moved
		// beyond it: for a benchmark that works rather than waits, the
		// count is the surer of the two.
		d.Time = d.Verdict
		d.Metric, d.Unit, d.By, d.Change, d.Verdict = i, m.Unit, ByInstructions, ic, ic.Verdict
		return workNote(key, d.Side, "work-beyond-band", fmt.Sprintf(
			"%s was unchanged (%s [%s, %s], inside the ±%s band) while instructions per op moved %s [%s, %s], wholly beyond it: the work changed by more than the band, so the count decides",
			timeWords(timeUnit), signedPct(tc.Estimate), signedPct(tc.Lo), signedPct(tc.Hi), words.Pct(noise), signedPct(ic.Estimate), signedPct(ic.Lo), signedPct(ic.Hi)), ic)
	case d.Verdict == Unchanged && ic.Verdict.Significant():
		return workNote(key, d.Side, "work-only", fmt.Sprintf(
			"%s was unchanged (%s [%s, %s], inside the ±%s band) while instructions per op moved %s [%s, %s]: the work changed, by about as much as the band or less",
			timeWords(timeUnit), signedPct(tc.Estimate), signedPct(tc.Lo), signedPct(tc.Hi), words.Pct(noise), signedPct(ic.Estimate), signedPct(ic.Lo), signedPct(ic.Hi)), ic)
	case d.Verdict.Significant() && ic.Verdict == Unchanged:
		return workNote(key, d.Side, "time-only", fmt.Sprintf(
			"%s %s %s while instructions per op did not move (%s): the same work took %s time, so the cause is memory (caches, allocation, the collector), code layout or the machine, not more or less code run",
			timeWords(timeUnit), d.Verdict, signedPct(tc.Estimate), signedPct(ic.Estimate), map[bool]string{true: "more", false: "less"}[d.Verdict == Regressed]), ic)
	case d.Verdict.Significant() && ic.Verdict.Significant() && ic.Verdict != d.Verdict:
		return workNote(key, d.Side, "contradicts", fmt.Sprintf(
			"%s %s %s while instructions per op moved the other way (%s): less work that took longer, or more that took less (memory, code layout, vectorised or branch-free code)",
			timeWords(timeUnit), d.Verdict, signedPct(tc.Estimate), signedPct(ic.Estimate)), ic)
	}
	return nil
}

// timeWords names a time unit for a note: "time", or "CPU time".
func timeWords(unit string) string {
	if unit == CPUUnit {
		return "CPU time"
	}
	return "time"
}

// workNote is a note on how a benchmark's time and its instructions
// agree, with the instructions' change as evidence.
func workNote(key, side, topic, text string, ic *Change) *model.Note {
	return &model.Note{Kind: model.NoteInstructions, Source: source, Benchmark: key, Side: side, Unit: InstructionsUnit,
		Topic: topic, Text: text,
		Evidence: map[string]float64{"instructions_change": ic.Estimate, "instructions_lo": ic.Lo, "instructions_hi": ic.Hi}}
}
