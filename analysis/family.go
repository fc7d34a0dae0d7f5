package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// A family is the notes of several benchmarks (or comparisons) whose
// words differ only in their numbers: the same bottleneck, the clock
// chosen for the same reason, comparisons inconclusive for the same
// reason. Digest says a family once, naming its members, with say's
// words; a family of one member keeps that member's own line.
type family struct {
	members []member
	say     func([]member) string
}

// A member is one benchmark's note of a family, with the data its words
// came from.
type member struct {
	bench, unit string
	line        NoteLine // what Digest says of it alone
	note        model.Note
	clock       *Clock
	change      *Change
}

// label names m among its family's members: the benchmark, and the unit
// when the members have several.
func label(m member, units []string) string {
	if len(units) > 1 && m.unit != "" {
		return m.bench + " " + m.unit
	}
	return m.bench
}

// unitsOf returns the distinct units of members, in order.
func unitsOf(members []member) []string {
	var units []string
	for _, m := range members {
		if !slices.Contains(units, m.unit) {
			units = append(units, m.unit)
		}
	}
	return units
}

// subject names the family's members as Digest names benchmarks, unit by
// unit: "every benchmark sec/op", "3 benchmarks (A, B and C) sec/op and
// D cpu-sec/op"; units of the same benchmarks are named together: "3
// benchmarks (A, B and C) sec/op and cpu-sec/op". all is the number of
// benchmarks in the report.
func (f *family) subject(all int) string {
	type group struct {
		key, who string // key: every benchmark, which who may shorten
		units    []string
	}
	var groups []group
	for _, u := range unitsOf(f.members) {
		var benches []string
		for _, m := range f.members {
			if m.unit == u && !slices.Contains(benches, m.bench) {
				benches = append(benches, m.bench)
			}
		}
		who := benches[0]
		switch {
		case len(benches) == all && all > 1:
			who = "every benchmark"
		case len(benches) > 1:
			who = fmt.Sprintf("%d benchmarks (%s)", len(benches), words.JoinList(benches, 4))
		}
		key := strings.Join(benches, "\x00")
		if i := slices.IndexFunc(groups, func(g group) bool { return g.key == key }); i >= 0 {
			groups[i].units = append(groups[i].units, u)
			continue
		}
		groups = append(groups, group{key, who, []string{u}})
	}
	var parts []string
	for _, g := range groups {
		s := g.who
		if units := strings.TrimSpace(strings.Join(g.units, " and ")); units != "" {
			s += " " + units
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " and ")
}

// rangeOf returns the smallest and largest value of f over members, NaN
// values left out; NaN and NaN when all are.
func rangeOf(members []member, f func(member) float64) (lo, hi float64) {
	lo, hi = math.NaN(), math.NaN()
	for _, m := range members {
		v := f(m)
		if math.IsNaN(v) {
			continue
		}
		if math.IsNaN(lo) || v < lo {
			lo = v
		}
		if math.IsNaN(hi) || v > hi {
			hi = v
		}
	}
	return lo, hi
}

// span says the range of f over members: "1.5" when every value reads
// the same, "0.66 to 0.85" otherwise; the values that are NaN are left
// out, and it is "?" when all of them are.
func span(members []member, f func(member) float64, format func(float64) string) string {
	lo, hi := rangeOf(members, f)
	if math.IsNaN(lo) {
		return "?"
	}
	if a, b := format(lo), format(hi); a != b {
		return a + " to " + b
	}
	return format(lo)
}

// spanNamed is span for counts where which member has which matters:
// "29 (A) to 594 (B)", naming the first member at each end, or "29" when
// every member has it.
func spanNamed(members []member, f func(member) int) string {
	units := unitsOf(members)
	lo, hi := 0, 0
	for i, m := range members {
		if f(m) < f(members[lo]) {
			lo = i
		}
		if f(m) > f(members[hi]) {
			hi = i
		}
	}
	if f(members[lo]) == f(members[hi]) {
		return fmt.Sprint(f(members[lo]))
	}
	return fmt.Sprintf("%d (%s) to %d (%s)", f(members[lo]), label(members[lo], units), f(members[hi]), label(members[hi], units))
}

// pct0 and pct1 write a fraction as a percentage with no or one decimal,
// as the clock's reasons do.
func pct0(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }
func pct1(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

// verdictFamily returns the family of an inconclusive change c: the case
// of the verdict rule and what would settle it. Only the cases whose words
// differ from one comparison to the next by numbers the table already
// shows (the interval, p) or that say() gives as a range (the rounds) have
// one; the others ("") stay as they are, merged when their words are the
// same.
func (r *Report) verdictFamily(c *Change) string {
	switch c.ReasonKind {
	case ReasonNotSignificant, ReasonSmall, ReasonUnsure, ReasonOpen:
	default:
		return ""
	}
	settle := ""
	switch {
	case c.SettleRounds > 0:
		settle = "rounds"
	case c.SettleBeyond > 0:
		settle = "beyond"
	case c.SettleSamples > 0:
		settle = "samples"
	}
	return "verdict\x00" + string(c.ReasonKind) + "\x00" + settle
}

// sayVerdicts says why the comparisons of members, which share a
// verdictFamily, are inconclusive. Each one's interval and p-value are in
// the table; the rounds that would settle each are a range.
func (r *Report) sayVerdicts(members []member) string {
	opts := r.Options
	c0 := members[0].change
	ci := words.Pct(opts.Confidence) + " CI"
	band := "±" + words.Pct(opts.Noise)
	var s string
	switch c0.ReasonKind {
	case ReasonNotSignificant:
		p := "p"
		if opts.Correction != CorrectionNone && slices.ContainsFunc(members, func(m member) bool { return m.change.PAdjusted != m.change.P }) {
			p += " after " + correctionName(opts.Correction)
		}
		s = fmt.Sprintf("each %s clears the %s noise band, but %s is not below %v", ci, band, p, opts.Alpha)
	case ReasonSmall:
		s = fmt.Sprintf("real changes, but each %s overlaps the %s noise band: they may be too small to matter", ci, band)
	case ReasonUnsure:
		p := "p"
		if opts.Correction != CorrectionNone && slices.ContainsFunc(members, func(m member) bool { return m.change.PAdjusted != m.change.P }) {
			p += " after " + correctionName(opts.Correction)
		}
		s = fmt.Sprintf("each %s overlaps the %s noise band, and %s is not below %v: neither a change beyond the band nor a significant one", ci, band, p, opts.Alpha)
	default:
		s = fmt.Sprintf("each %s includes no change and reaches beyond the %s noise band", ci, band)
	}
	rounds := span(members, func(m member) float64 { return float64(m.change.N) }, func(v float64) string { return fmt.Sprint(v) })
	switch {
	case c0.SettleRounds > 0:
		s += fmt.Sprintf("; at this run's variation about %s rounds would likely settle them (they had %s)",
			spanNamed(members, func(m member) int { return m.change.SettleRounds }), rounds)
	case c0.SettleBeyond > 0:
		s += fmt.Sprintf("; their estimates sit near the band's edge: settling them would take more than %d times their %s rounds", settleMost, rounds)
	case c0.SettleSamples > 0:
		s += fmt.Sprintf("; about %s samples per side would resolve a %s change at this variation",
			spanNamed(members, func(m member) int { return m.change.SettleSamples }), words.Pct(opts.Noise))
	}
	return "inconclusive: " + s
}

// noteFamily returns the family of a benchmark's note n and the words
// that say it for several benchmarks, or "" when n has none: the clock
// chosen for a reason (clock, the benchmark's, holds the numbers), and a
// bottleneck by its finding (the words its maker gives for what several
// benchmarks share; a note without one, from an older file, stays with
// its benchmark).
func noteFamily(n model.Note, clock *Clock) (string, func([]member) string) {
	switch {
	case n.Kind == model.NoteClock && clock != nil && clock.Why != "" && n.Topic == clock.Why:
		key := fmt.Sprintf("clock\x00%s\x00%s\x00%s\x00%t", clock.Why, clock.Unit, clock.Basis, math.IsNaN(clock.Waiting))
		if clock.Why == ClockNoProfile {
			key += fmt.Sprint("\x00", clock.Procs, "\x00", clock.ProfileSamples > 0)
		}
		return key, sayClocks
	case n.Kind == model.NoteBottleneck && n.Finding != "" && n.Topic != bottleneckInconclusive:
		return "bottleneck\x00" + n.Topic + "\x00" + n.Finding + "\x00" + n.Side, sayBottlenecks
	}
	return "", nil
}

// sayClocks says why the verdicts of members, whose clocks share a Why
// (and unit, basis, profile and GOMAXPROCS where the words depend on
// them), are taken from the clock they are, with each number as a range.
func sayClocks(members []member) string {
	c0 := members[0].clock
	clocks := func(f func(*Clock) float64) func(member) float64 {
		return func(m member) float64 { return f(m.clock) }
	}
	busy := fmt.Sprintf("the machine was busy (other processes competed for the CPU in %s of their samples)",
		span(members, clocks(func(c *Clock) float64 { return c.Contended }), pct0))
	share := "CPU time not measured"
	if lo, hi := rangeOf(members, clocks(func(c *Clock) float64 { return c.CPUPerWall })); !math.IsNaN(lo) {
		share = shareWords(lo, hi, c0.Basis)
	}
	switch c0.Why {
	case ClockCPUMissing:
		return fmt.Sprintf("the machine was busy, but CPU time was measured for only %s of their samples (the others were too short to tell from the process's start-up), so the verdict stays on wall time",
			span(members, clocks(func(c *Clock) float64 { return float64(c.CPUSamples) / float64(c.WallSamples) }), pct0))
	case ClockNotCPUBound:
		return fmt.Sprintf("%s, but they are not CPU-bound (%s): they wait, and CPU time would hide the waiting, so the verdict stays on wall time", busy, share)
	case ClockWaits:
		return fmt.Sprintf("%s, but %s of their CPU profiles is spent on locks or file I/O, so they also wait, which CPU time would hide: the verdict stays on wall time",
			busy, span(members, clocks(func(c *Clock) float64 { return c.Waiting }), pct0))
	case ClockNoProfile:
		profile := "without a CPU profile nothing shows that they never wait"
		if c0.ProfileSamples > 0 {
			profile = fmt.Sprintf("their CPU profiles were too short to show that they never wait (at most %s samples, %d needed: the machine left the profiling runs little CPU)",
				span(members, clocks(func(c *Clock) float64 { return float64(c.ProfileSamples) }), func(v float64) string { return fmt.Sprintf("%.0f", v) }), profileSamples)
		}
		return fmt.Sprintf("%s, but %s: on %s their goroutines may spin or sleep on a lock, which CPU time would hide (%s), so the verdict stays on wall time",
			busy, profile, procsWords(c0.Procs), share)
	case ClockCPUUnsteady:
		return fmt.Sprintf("%s, but CPU time varied as much as wall time from round to round (%s against %s), so the verdict stays on wall time", busy,
			span(members, clocks(func(c *Clock) float64 { return c.CPUSpread }), pct1),
			span(members, clocks(func(c *Clock) float64 { return c.WallSpread }), pct1))
	}
	evidence := "their one thread busy, GOMAXPROCS 1"
	if !math.IsNaN(c0.Waiting) {
		evidence = span(members, clocks(func(c *Clock) float64 { return c.Waiting }), pct0) + " of their CPU profiles on locks or file I/O"
	}
	if c0.Why == ClockSteadier {
		return fmt.Sprintf("CPU time decides: they are CPU-bound (%s, %s), so their CPU time is their wall time less the moments they waited for a CPU, and it varied less from round to round (%s against %s)",
			share, evidence, span(members, clocks(func(c *Clock) float64 { return c.CPUSpread }), pct1),
			span(members, clocks(func(c *Clock) float64 { return c.WallSpread }), pct1))
	}
	return fmt.Sprintf("%s: wall time measured the machine; they are CPU-bound (%s, %s), so CPU time is used for their verdicts", busy, share, evidence)
}

// bottleneckInconclusive is the Topic of a bottleneck note that found
// none (package observe's BottleneckInconclusive): its words say nothing
// several benchmarks could share, so it stays benchmark by benchmark.
const bottleneckInconclusive = "inconclusive"

// bottleneckFigures are the figures a bottleneck's group line gives as
// ranges, by topic: the Evidence key and how to say its range.
var bottleneckFigures = map[string][]struct {
	key    string
	format func(float64) string
	say    string
}{
	"cpu-user": {
		{"user_share", words.Pct, "%s of the processes' CPU time was user time"},
		{"cpus_busy", cpus, "%s CPUs busy"},
	},
	"cpu-starved": {
		{"cpus_busy", cpus, "the processes kept only %s CPUs busy"},
		{"other_cpu", words.Pct, "other processes used %s of the CPU"},
		{"idle", words.Pct, "the CPUs were idle %s of the time"},
	},
	"gc":      {{"gc_share", words.Pct, "the garbage collector used %s of the CPU"}},
	"io":      {{"iowait", words.Pct, "CPUs waited on I/O %s of the time"}},
	"waiting": {{"cpus_busy", cpus, "%s CPUs busy"}},
}

func cpus(v float64) string { return fmt.Sprintf("%.2f", v) }

// sayBottlenecks says the bottleneck the members share, with the range
// of each figure that every member's note has as Evidence (a file
// written before notes carried them has none: the figures are then with
// -v only).
func sayBottlenecks(members []member) string {
	topic := members[0].note.Topic
	var figs []string
	for _, f := range bottleneckFigures[topic] {
		if slices.ContainsFunc(members, func(m member) bool { _, ok := m.note.Evidence[f.key]; return !ok }) {
			continue
		}
		figs = append(figs, fmt.Sprintf(f.say, span(members, func(m member) float64 { return m.note.Evidence[f.key] }, f.format)))
	}
	s := "bottleneck: " + members[0].note.Finding
	if len(figs) > 0 {
		s += " (" + strings.Join(figs, ", ") + ")"
	}
	if side := members[0].note.Side; side != "" {
		s = side + ": " + s
	}
	return s
}
