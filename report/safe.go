package report

import (
	"slices"
	"strings"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// Text from the input (benchmark names, side labels, units, configuration
// values, notes that quote them) reaches terminals, Markdown and
// spreadsheets. A benchmark named "X\x1b]0;pwned\x07" must not retitle the
// terminal, nor "=HYPERLINK(...)" become a formula.

// escapable reports whether a terminal would act on r rather than show
// it (see words.Escapable).
func escapable(r rune) bool { return words.Escapable(r) }

// needsEscape reports whether TerminalSafe would change s.
func needsEscape(s string) bool { return words.NeedsEscape(s) }

// TerminalSafe returns s with what a terminal would act on shown as Go
// escapes: control characters as \x1b, \n, \t; bidirectional controls as
// \u202e; bytes that are not UTF-8 as \xff. Other text, wide runes and
// emoji included, is returned as is.
func TerminalSafe(s string) string { return words.TerminalSafe(s) }

// terminalSafeReport returns rep, or a copy of it with every string from
// the input passed through TerminalSafe when some string needs it. The
// copy shares the Run, whose strings the text formats do not show
// (except subgroups, escaped where they are shown).
func terminalSafeReport(rep *analysis.Report) *analysis.Report {
	if !reportStrings(rep, needsEscape) {
		return rep
	}
	f := TerminalSafe
	each := func(ss []string) []string {
		if ss == nil {
			return nil
		}
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = f(s)
		}
		return out
	}
	out := *rep
	out.Sides = each(rep.Sides)
	out.Notes = eachNote(rep.Notes, f)
	out.Benchmarks = make([]analysis.Benchmark, len(rep.Benchmarks))
	for i, b := range rep.Benchmarks {
		nb := b
		nb.Name, nb.FullName, nb.Pkg, nb.Group, nb.Variant = f(b.Name), f(b.FullName), f(b.Pkg), f(b.Group), f(b.Variant)
		if b.Config != nil {
			nb.Config = make(map[string]string, len(b.Config))
			for k, v := range b.Config {
				nb.Config[f(k)] = f(v)
			}
		}
		nb.Notes = eachNote(b.Notes, f)
		nb.Metrics = make([]analysis.Metric, len(b.Metrics))
		for j, m := range b.Metrics {
			nm := m
			nm.Unit = f(m.Unit)
			nm.Notes = eachNote(m.Notes, f)
			nm.Sides = make([]analysis.Summary, len(m.Sides))
			for k, s := range m.Sides {
				s.Side = f(s.Side)
				nm.Sides[k] = s
			}
			nm.Changes = make([]*analysis.Change, len(m.Changes))
			for k, c := range m.Changes {
				if c != nil {
					nc := *c
					nc.Side, nc.Reason = f(c.Side), f(c.Reason)
					nm.Changes[k] = &nc
				}
			}
			nb.Metrics[j] = nm
		}
		nb.Decisions = make([]analysis.Decision, len(b.Decisions))
		for k, d := range b.Decisions {
			d.Side, d.Unit = f(d.Side), f(d.Unit)
			if d.Metric >= 0 && k < len(nb.Metrics[d.Metric].Changes) {
				d.Change = nb.Metrics[d.Metric].Changes[k]
			}
			if d.Missing != nil {
				d.Missing = safeMissing(*d.Missing, f)
			}
			nb.Decisions[k] = d
		}
		out.Benchmarks[i] = nb
	}
	out.Missing = make([]analysis.Missing, len(rep.Missing))
	for i, m := range rep.Missing {
		out.Missing[i] = *safeMissing(m, f)
	}
	out.Tallies = slices.Clone(rep.Tallies)
	for i := range out.Tallies {
		out.Tallies[i].Side = f(out.Tallies[i].Side)
	}
	if g := rep.Gated; g != nil {
		ng := *g
		ng.Failures = slices.Clone(g.Failures)
		for i, gf := range ng.Failures {
			gf.Benchmark, gf.Unit, gf.Side, gf.Base = f(gf.Benchmark), f(gf.Unit), f(gf.Side), f(gf.Base)
			if gf.Missing != nil {
				gf.Missing = safeMissing(*gf.Missing, f)
			}
			ng.Failures[i] = gf
		}
		out.Gated = &ng
	}
	out.Geomeans = make([]analysis.Geomean, len(rep.Geomeans))
	for i, g := range rep.Geomeans {
		g.Unit = f(g.Unit)
		out.Geomeans[i] = g
	}
	return &out
}

// safeMissing returns a copy of m with f applied to its strings.
func safeMissing(m analysis.Missing, f func(string) string) *analysis.Missing {
	m.Benchmark, m.Side, m.Reason = f(m.Benchmark), f(m.Side), f(m.Reason)
	return &m
}

// reportStrings reports whether pred holds for some string of rep that
// came from the input.
func reportStrings(rep *analysis.Report, pred func(string) bool) bool {
	anyOf := func(ss ...string) bool {
		for _, s := range ss {
			if pred(s) {
				return true
			}
		}
		return false
	}
	if anyOf(rep.Sides...) || anyOf(model.Texts(rep.Notes)...) {
		return true
	}
	for _, m := range rep.Missing {
		if anyOf(m.Benchmark, m.Side, m.Reason) {
			return true
		}
	}
	for _, b := range rep.Benchmarks {
		if anyOf(b.Name, b.FullName, b.Pkg, b.Group, b.Variant) || anyOf(model.Texts(b.Notes)...) {
			return true
		}
		for k, v := range b.Config {
			if pred(k) || pred(v) {
				return true
			}
		}
		for _, m := range b.Metrics {
			if anyOf(m.Unit) || anyOf(model.Texts(m.Notes)...) {
				return true
			}
			for _, s := range m.Sides {
				if pred(s.Side) {
					return true
				}
			}
			for _, c := range m.Changes {
				if c != nil && anyOf(c.Side, c.Reason) {
					return true
				}
			}
		}
	}
	return false
}

// csvSafe guards a text cell against formula injection as OWASP
// recommends: a cell starting with =, +, -, @, a tab or a carriage return
// is prefixed with a single quote, so a spreadsheet shows it as text.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// eachNote returns notes with f applied to the words of each.
func eachNote(notes []model.Note, f func(string) string) []model.Note {
	if notes == nil {
		return nil
	}
	out := make([]model.Note, len(notes))
	for i, n := range notes {
		n.Text = noteLines(n.Text, f)
		out[i] = n
	}
	return out
}

// noteLines applies f to each line of a note and keeps the line breaks
// (a compiler's output, quoted in a note, stays readable), indenting every
// line after the first so that none can pass for a line of the report.
func noteLines(text string, f func(string) string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = f(l)
		if i > 0 && !strings.HasPrefix(l, "    ") {
			lines[i] = "    " + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}
