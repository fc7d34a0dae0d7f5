package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// The words every format opens with, and the rows of the results table,
// laid out from what package analysis decided: a benchmark's one verdict
// per side (analysis.Decision), the counts (analysis.SideTally), the gate
// (analysis.GateResult). Nothing here judges; it only says.

// A headLine is a line of a report's head: lead is said first (bold in
// Markdown), rest follows it.
type headLine struct{ lead, rest string }

func (h headLine) String() string { return h.lead + h.rest }

// headlineNames is how many benchmarks a headline names per verdict
// before it says how many more.
const headlineNames = 3

// headLines are the lines that open a report of several sides: that it
// is an A/A run, the verdicts counted by benchmark (one line per side
// after the baseline), and the gate's outcome when a gate was applied.
// A report of one side has none.
func headLines(rep *analysis.Report) []headLine {
	if len(rep.Sides) < 2 {
		return nil
	}
	var out []headLine
	if rep.AA() {
		what := "both sides build the same code"
		if rep.Kind == model.KindExec {
			what = "every side runs the same command"
		}
		out = append(out, headLine{lead: "A/A run: " + what, rest: ", so any verdict but unchanged is a false alarm"})
	}
	if rep.Kind == model.KindExec {
		out = append(out, execLines(rep)...)
	} else {
		for k, t := range rep.Tallies {
			out = append(out, tallyLine(rep, k, t))
		}
	}
	if g := gateLine(rep); g.lead != "" {
		out = append(out, g)
	}
	return out
}

// tallyLine says how many benchmarks regressed against t.Side, naming
// them with their change, then the improved ones, then the counts of the
// rest: "1 of 2 benchmarks regressed: Work-2 +14.5% [+11.2%, +20.4%]; 1
// unchanged".
func tallyLine(rep *analysis.Report, k int, t analysis.SideTally) headLine {
	if t.Benchmarks == 1 {
		return soleLine(rep, k)
	}
	named := func(idx []int) string {
		var items []string
		for _, i := range idx[:min(len(idx), headlineNames)] {
			b := &rep.Benchmarks[i]
			items = append(items, b.FullName+" "+decisionWords(rep, &b.Decisions[k]))
		}
		return listWords(items, len(idx))
	}
	lead := fmt.Sprintf("%d of %d %s regressed", len(t.Regressed), t.Benchmarks, words.Plural(t.Benchmarks, "benchmark", "benchmarks"))
	if len(rep.Tallies) > 1 {
		lead = t.Side + ": " + lead
	}
	if len(t.Regressed) > 0 {
		lead += ": " + named(t.Regressed)
	}
	var rest []string
	if n := len(t.Improved); n > 0 {
		rest = append(rest, fmt.Sprintf("%d improved: %s", n, named(t.Improved)))
	}
	if n := len(t.Unchanged); n > 0 {
		rest = append(rest, fmt.Sprintf("%d unchanged", n))
	}
	if n := len(t.Inconclusive); n > 0 {
		rest = append(rest, fmt.Sprintf("%d inconclusive", n)+boundedWords(rep, t))
	}
	if n := len(t.Lost); n > 0 {
		var names []string
		for _, i := range t.Lost {
			names = append(names, rep.Benchmarks[i].FullName)
		}
		rest = append(rest, fmt.Sprintf("%d failed or missing on %s: %s", n, t.Side, listWords(names[:min(n, headlineNames)], n)))
	}
	if n := len(t.Other); n > 0 {
		rest = append(rest, fmt.Sprintf("%d not compared", n))
	}
	h := headLine{lead: lead}
	if len(rest) > 0 {
		h.rest = "; " + strings.Join(rest, "; ")
	}
	return h
}

// boundedWords says what the intervals of a side's inconclusive
// benchmarks that found nothing rule out: ", their 95% CIs ruling out
// changes beyond ±2.4%", ", 7 of them ruling out ...". Empty when none
// has such an interval.
func boundedWords(rep *analysis.Report, t analysis.SideTally) string {
	n := len(t.Bounded)
	if n == 0 {
		return ""
	}
	who := "their"
	if n < len(t.Inconclusive) {
		who = fmt.Sprintf("%d of them with", n)
	}
	return fmt.Sprintf(", %s %s CIs ruling out changes beyond ±%s", who, words.PctSetting(rep.Options.Confidence), words.PctUp(t.Within))
}

// withinWords says, for a row's verdict cell, the change an interval
// that found nothing rules out: "within ±2.4%". Empty without one, and
// for an unchanged verdict, whose interval lies inside the noise band.
func withinWords(d *analysis.Decision) string {
	if math.IsNaN(d.Within) || d.Verdict != analysis.Inconclusive {
		return ""
	}
	return "within ±" + words.PctUp(d.Within)
}

// soleLine says the verdict of a report's one benchmark against side
// k+1: "Work-2 regressed: +14.5% [+11.2%, +20.4%]", "Work-2 on new:
// ..." when there are several sides.
func soleLine(rep *analysis.Report, k int) headLine {
	b := &rep.Benchmarks[0]
	d := &b.Decisions[k]
	who := b.FullName
	if len(rep.Tallies) > 1 {
		who += " on " + d.Side
	}
	switch {
	case d.Change != nil:
		return headLine{lead: who + " " + string(d.Verdict), rest: ": " + decisionWords(rep, d)}
	case d.Missing != nil:
		return headLine{lead: b.FullName + " " + d.Missing.Words()}
	}
	return headLine{lead: who + ": not compared"}
}

// missingWord says in a word or two why a row has no verdict, for its
// verdict cell: "failed", "did not build", "missing"; the head and the
// notes say the reason.
func missingWord(m *analysis.Missing) string {
	if m == nil {
		return "-"
	}
	switch m.Kind {
	case model.MissingFailed:
		return "failed"
	case model.MissingBuild:
		return "did not build"
	}
	return "missing"
}

// listWords joins the first items of a list of n with commas and "and",
// and says how many more there are. Commas, not JoinList's semicolons
// when an item has one (an interval always has): semicolons part a
// headline's clauses.
func listWords(items []string, n int) string {
	switch {
	case n > len(items):
		return strings.Join(items, ", ") + fmt.Sprintf(" and %d more", n-len(items))
	case len(items) > 1:
		return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
	case len(items) == 1:
		return items[0]
	}
	return ""
}

// decisionWords says a decided change in a few words: "+14.5% [+11.2%,
// +20.4%]", with the metric when it is not wall time: "on CPU time
// +14.5% [...]", "allocs/op +1 (exact)".
func decisionWords(rep *analysis.Report, d *analysis.Decision) string {
	c := d.Change
	if c == nil {
		return ""
	}
	est, ci := changeCells(c, d.Unit)
	if rep.Kind == model.KindExec {
		return ratioWords(c)
	}
	s := est + " " + ci
	switch {
	case d.By == analysis.ByInstructions && d.Verdict == analysis.Unchanged:
		s = "in work, instructions " + s + "; time " + string(d.Time)
	case d.By == analysis.ByInstructions:
		s = "in instructions " + s + "; time " + string(d.Time)
	case d.Unit == analysis.WallUnit:
	case d.Unit == analysis.CPUUnit:
		s = "on CPU time " + s
	case math.IsNaN(c.Estimate):
		s = est + " " + ci // "+1 allocs/op (exact)": the unit is in the estimate
	default:
		s = d.Unit + " " + s
	}
	if e := exactWords(d); e != "" {
		s += "; " + e
	}
	return s
}

// exactWords says the exact change beside an inconclusive time
// (Decision.Exact): "allocs/op -12.50% (exact, improved)", "+1 allocs/op
// (exact, regressed)". Empty without one.
func exactWords(d *analysis.Decision) string {
	c := d.Exact
	if c == nil {
		return ""
	}
	est, _ := changeCells(c, d.ExactUnit)
	if !math.IsNaN(c.Estimate) {
		est = d.ExactUnit + " " + est
	}
	return est + " (exact, " + string(c.Verdict) + ")"
}

// clockWords names the metric that decided a row when it is not wall
// time: "CPU time", or the unit.
func clockWords(d *analysis.Decision) string {
	switch d.Unit {
	case "", analysis.WallUnit:
		return ""
	case analysis.CPUUnit:
		return "CPU time"
	case analysis.InstructionsUnit:
		return "instructions"
	}
	return d.Unit
}

// gateLine says the gate's outcome: "gate (--max-regression 5%): passed",
// or failed with each failure's words. Empty without a gate.
func gateLine(rep *analysis.Report) headLine {
	g := rep.Gated
	if g == nil {
		return headLine{}
	}
	limit := "gate (--max-regression " + strconv.FormatFloat(g.Limit*100, 'g', 6, 64) + "%)"
	if g.On == analysis.GateInstructions {
		limit = "gate (--max-regression " + strconv.FormatFloat(g.Limit*100, 'g', 6, 64) + "% --gate instructions)"
	}
	var ungated string
	if n := len(g.Ungated); n > 0 {
		ungated = fmt.Sprintf("; %d %s no instruction count to gate on: %s", n, words.Plural(n, "benchmark has", "benchmarks have"), listWords(g.Ungated[:min(n, headlineNames)], n))
	}
	if g.Passed() {
		what := "no regression beyond the limit"
		if g.On == analysis.GateInstructions {
			what = "no instructions per op regressed beyond the limit"
		}
		return headLine{lead: limit + ": passed", rest: ": " + what + ungated}
	}
	var why []string
	for _, f := range g.Failures[:min(len(g.Failures), headlineNames)] {
		why = append(why, f.String())
	}
	if more := len(g.Failures) - headlineNames; more > 0 {
		why = append(why, fmt.Sprintf("and %d more", more))
	}
	return headLine{lead: limit + ": failed", rest: ": " + strings.Join(why, "; ") + ungated}
}

// rowMetric returns the metric whose numbers a benchmark's row of the
// results table shows: the one that decided its verdict against the first
// other side, or the one that would (its time) when it has none.
func rowMetric(b *analysis.Benchmark) (analysis.Metric, bool) {
	if len(b.Decisions) > 0 && b.Decisions[0].Metric >= 0 {
		return b.Metrics[b.Decisions[0].Metric], true
	}
	for i := range b.Metrics {
		if b.Decider(i) {
			return b.Metrics[i], true
		}
	}
	return analysis.Metric{}, false
}

// withUnit formats a center of unit with the row's scale and the unit's
// suffix ("20.91µs", "64B"), a whole exact count as it is ("3"), and 0
// as "0".
func withUnit(v float64, unit string, exact bool, sc benchunit.Scaler) string {
	switch {
	case math.IsNaN(v):
		return "?"
	case v == 0:
		return "0" + unitSuffix(unit)
	case exact && v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64) + unitSuffix(unit)
	}
	return scaled(v, sc) + unitSuffix(unit)
}

// resultCenter formats one side of a results row: "20.91µs ± 9%", an
// exact value without a spread, "-" without samples.
func resultCenter(m analysis.Metric, s analysis.Summary, sc benchunit.Scaler) string {
	if s.N == 0 {
		return "-"
	}
	v := withUnit(s.Center, m.Unit, m.Exact, sc)
	if m.Exact {
		return v
	}
	return v + " ± " + spread(s)
}

// ratioWords says a command's change as hyperfine says a result, with
// rigor's interval: "1.166x [1.132, 1.184] as long as".
func ratioWords(c *analysis.Change) string {
	r := func(f float64) string {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "?"
		}
		return strconv.FormatFloat(1+f, 'f', 3, 64)
	}
	if math.IsNaN(c.Estimate) {
		return "?"
	}
	s := r(c.Estimate) + "x"
	if !math.IsNaN(c.Lo) && !math.IsNaN(c.Hi) && c.Test != "exact" {
		s += " [" + r(c.Lo) + ", " + r(c.Hi) + "]"
	}
	return s
}

// notesHeader is the title of a report's notes, saying how many more -v
// shows.
func notesHeader(hidden int) string {
	if hidden == 0 {
		return "Notes"
	}
	return fmt.Sprintf("Notes (-v shows %d more)", hidden)
}

// execLines say each command's result as hyperfine does, with rigor's
// interval and verdict: "`sleep 0.012` ran 1.166x [1.132, 1.184] as long
// as `sleep 0.01`: regressed"; with the parameters first when the
// commands ran with several values.
func execLines(rep *analysis.Report) []headLine {
	var out []headLine
	for i := range rep.Benchmarks {
		b := &rep.Benchmarks[i]
		prefix := ""
		if len(b.Config) > 0 {
			prefix = b.FullName + ": " // the parameters' values
		}
		for k := range b.Decisions {
			d := &b.Decisions[k]
			side, base := "`"+d.Side+"`", "`"+rep.Sides[0]+"`"
			switch {
			case d.Change == nil && d.Missing != nil:
				out = append(out, headLine{lead: prefix + side + " " + d.Missing.Words()})
			case d.Change == nil:
				out = append(out, headLine{lead: prefix + side + " was not compared with " + base})
			case d.Unit == analysis.CPUUnit:
				out = append(out, headLine{lead: fmt.Sprintf("%s%s used %s the CPU time of %s: %s", prefix, side, ratioWords(d.Change), base, d.Verdict)})
			default:
				out = append(out, headLine{lead: fmt.Sprintf("%s%s ran %s as long as %s: %s", prefix, side, ratioWords(d.Change), base, d.Verdict)})
			}
		}
	}
	return out
}

// A resultsView is a package's results table: a row per benchmark with
// the metric that decided its verdict (see rowMetric): each side's
// median ± CI with its unit, then per side after the baseline the change,
// its interval and the verdict, and a last column naming the deciding
// metric when some row's is not wall time (by); a geomean row when every
// row shows the same metric.
type resultsView struct {
	header []string
	rows   []resultRow
	// by is set when the last column names the deciding metric; marked
	// when some change has disagreeMark.
	by, marked bool
}

// A resultRow is a row of the results table; bench is nil for the
// geomean.
type resultRow struct {
	bench    *analysis.Benchmark
	cells    []string
	verdicts []analysis.Verdict
}

// results lays out pkg's results table.
func results(rep *analysis.Report, pkg string) resultsView {
	var rv resultsView
	rv.header = append([]string{"benchmark"}, rep.Sides...)
	for _, s := range rep.Sides[1:] {
		rv.header = append(rv.header, changeHeader(rep, s), words.PctSetting(rep.Options.Confidence)+" CI", "verdict")
	}
	for _, b := range rep.Benchmarks {
		for _, d := range b.Decisions {
			rv.by = rv.by || b.Pkg == pkg && clockWords(&d) != ""
		}
	}
	if rv.by {
		rv.header = append(rv.header, "decided by")
	}
	// When every row shows the same metric, its unit heads the table and
	// the cells are benchstat's ("800.4n ± 13%"); otherwise each cell
	// carries its unit ("800.4ns ± 13%", "3").
	common := ""
	for i := range rep.Benchmarks {
		if b := &rep.Benchmarks[i]; b.Pkg == pkg {
			if m, ok := rowMetric(b); ok && (common == "" || common == m.Unit) {
				common = m.Unit
			} else {
				common = "\x00"
			}
		}
	}
	if common != "\x00" && common != "" {
		rv.header[0] = common
	}
	units := map[string]bool{}
	for i := range rep.Benchmarks {
		b := &rep.Benchmarks[i]
		if b.Pkg != pkg {
			continue
		}
		m, ok := rowMetric(b)
		r := resultRow{bench: b, cells: []string{b.FullName}}
		sc := rowScaler(m)
		for si := range rep.Sides {
			switch {
			case !ok || si >= len(m.Sides):
				r.cells = append(r.cells, "-")
			case m.Unit == rv.header[0]:
				r.cells = append(r.cells, metricCenter(m, m.Sides[si], sc))
			default:
				r.cells = append(r.cells, resultCenter(m, m.Sides[si], sc))
			}
		}
		var clocks []string
		for k := range b.Decisions {
			d := &b.Decisions[k]
			r.verdicts = append(r.verdicts, d.Verdict)
			if d.Change == nil {
				r.cells = append(r.cells, "", "", missingWord(d.Missing))
				continue
			}
			est := estimate(d.Change, d.Unit, percent)
			if b.Metrics[d.Metric].DisagreesWithMedians(k) {
				est += disagreeMark
				rv.marked = true
			}
			verdict := string(d.Verdict)
			if w := withinWords(d); w != "" {
				verdict += ", " + w
			}
			if e := exactWords(d); e != "" {
				verdict += "; " + e
			}
			r.cells = append(r.cells, est, changeCI(d.Change), verdict)
			if c := clockWords(d); c != "" && !slices.Contains(clocks, c) {
				clocks = append(clocks, c)
			}
			units[d.Unit] = true
		}
		if rv.by {
			r.cells = append(r.cells, strings.Join(clocks, ", "))
		}
		rv.rows = append(rv.rows, r)
	}
	for _, gm := range rep.Geomeans {
		// The geomean of the metric every row shows, when they show one.
		if len(units) != 1 || !units[gm.Unit] || len(packages(rep)) > 1 {
			continue
		}
		sc := geomeanScaler(gm)
		r := resultRow{cells: []string{"geomean"}}
		for _, c := range gm.Centers {
			r.cells = append(r.cells, scaled(c, sc))
		}
		for k := range gm.Changes {
			r.cells = append(r.cells, percent(gm.Change(k)), "", "")
		}
		rv.rows = append(rv.rows, r)
	}
	return rv
}
