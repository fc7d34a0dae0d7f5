package report

import (
	"fmt"
	"io"
	"slices"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/internal/words"
)

// renderExecText writes a run of commands (rigor exec) as hyperfine's
// reader expects it: the head says each command's result in hyperfine's
// words with rigor's interval (see execLines); then a row per command,
// named by it (or its --name), with its time, its ratio to the first
// command and the verdict; then the other metrics and the notes, as
// renderText writes them.
func renderExecText(w io.Writer, rep *analysis.Report, opts Options) {
	for _, h := range headLines(rep) {
		for _, l := range wrap(h.String(), opts.Width, "  ") {
			fmt.Fprintln(w, l)
		}
	}
	if m := methodLine(rep); m != "" {
		fmt.Fprintln(w, m)
	}
	fmt.Fprintln(w)
	rv := execView(rep)
	g := grid{rows: [][]string{rv.header}, words: map[int]bool{}, verdictOf: map[int]int{}, verdicts: [][]analysis.Verdict{nil}}
	for i, h := range rv.header {
		switch h {
		case "verdict":
			g.words[i], g.verdictOf[i] = true, 0
		case "parameters", "decided by":
			g.words[i] = true
		}
	}
	for _, r := range rv.rows {
		g.rows = append(g.rows, r.cells)
		g.verdicts = append(g.verdicts, r.verdicts)
	}
	g.write(w, opts)
	for _, l := range wrap(fmt.Sprintf("vs %s: the center of the per-round time ratios (Hodges-Lehmann) with its %s CI.",
		rep.Sides[0], words.PctSetting(rep.Options.Confidence)), opts.Width, "  ") {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	legend := false
	for _, pkg := range packages(rep) {
		for _, unit := range units(rep, pkg) {
			if shownTable(rep, pkg, unit, opts.Verbose) {
				textTable(w, rep, pkg, unit, opts, &legend)
				fmt.Fprintln(w)
			}
		}
	}
	writeTextNotes(w, rep, opts)
}

// execView lays out a run of commands as a results table: a row per
// command (and parameter values), named by it, with the time that
// decided its verdict, its ratio to the first command with its interval,
// and the verdict.
func execView(rep *analysis.Report) resultsView {
	var rv resultsView
	params := slices.ContainsFunc(rep.Benchmarks, func(b analysis.Benchmark) bool { return len(b.Config) > 0 })
	rv.by = slices.ContainsFunc(rep.Benchmarks, func(b analysis.Benchmark) bool {
		return slices.ContainsFunc(b.Decisions, func(d analysis.Decision) bool { return clockWords(&d) != "" })
	})
	rv.header = []string{"command"}
	if params {
		rv.header = append(rv.header, "parameters")
	}
	rv.header = append(rv.header, "time", "vs "+rep.Sides[0], "verdict")
	if rv.by {
		rv.header = append(rv.header, "decided by")
	}
	for i := range rep.Benchmarks {
		b := &rep.Benchmarks[i]
		m, ok := rowMetric(b)
		sc := rowScaler(m)
		for si, side := range rep.Sides {
			r := resultRow{bench: b, cells: []string{side}}
			if params {
				r.cells = append(r.cells, b.FullName)
			}
			time := "-"
			if ok && si < len(m.Sides) {
				time = resultCenter(m, m.Sides[si], sc)
			}
			r.cells = append(r.cells, time)
			var v analysis.Verdict
			switch {
			case si == 0:
				r.cells = append(r.cells, "", "")
			case si-1 < len(b.Decisions) && b.Decisions[si-1].Change != nil:
				d := &b.Decisions[si-1]
				v = d.Verdict
				r.cells = append(r.cells, ratioWords(d.Change), string(v))
			default:
				var m *analysis.Missing
				if si-1 < len(b.Decisions) {
					m = b.Decisions[si-1].Missing
				}
				r.cells = append(r.cells, "", missingWord(m))
			}
			if rv.by {
				c := ""
				if si > 0 && si-1 < len(b.Decisions) {
					c = clockWords(&b.Decisions[si-1])
				}
				r.cells = append(r.cells, c)
			}
			r.verdicts = []analysis.Verdict{v}
			rv.rows = append(rv.rows, r)
		}
	}
	return rv
}
