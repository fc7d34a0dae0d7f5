package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// ANSI colours for verdicts on a terminal.
const (
	green = "\x1b[32m"
	red   = "\x1b[31m"
	reset = "\x1b[0m"
)

// Styles of the text format.
var styles = []string{"benchstat", "tree", "table"}

// Styles lists the layouts of the text format: "benchstat" (a table per
// unit, as benchstat prints it, with CI and verdict columns), "tree"
// (groups and variants as a tree with a bar chart, as zenbench) and
// "table" (bordered tables).
func Styles() []string { return append([]string(nil), styles...) }

// renderText writes, after the head (A/A, the verdicts counted by
// benchmark, the gate, the sides), one results table per package: a row
// per benchmark with the metric that decided its verdict (benchstat's
// columns: each side's median ± CI, the change with its interval, the
// verdict, and the clock when it is not wall time); then the tables of
// the other metrics that are measurements of their own, as benchstat
// prints them; then the notes. With Verbose, every metric's table
// follows, the context ones (the other clock, the CPU waits, derived
// units) marked as such instead of a verdict.
func renderText(w io.Writer, rep *analysis.Report, opts Options) error {
	switch opts.Style {
	case "tree":
		return renderTree(w, rep, opts)
	case "table":
		return renderTable(w, rep, opts)
	case "", "benchstat":
	default:
		return fmt.Errorf("unknown style %q (want benchstat, tree or table)", opts.Style)
	}
	ew := &errWriter{w: w}
	opts.Width = lineWidth(opts)
	if rep.Kind == model.KindExec && len(rep.Sides) > 1 {
		renderExecText(ew, rep, opts)
		return ew.err
	}
	for _, h := range headLines(rep) {
		for _, l := range wrap(h.String(), opts.Width, "  ") {
			fmt.Fprintln(ew, l)
		}
	}
	for _, l := range sideLines(rep) {
		fmt.Fprintln(ew, l)
	}
	if m := methodLine(rep); m != "" {
		fmt.Fprintln(ew, m)
	}
	legend := rep.Paired && len(rep.Sides) > 1
	for i, pkg := range packages(rep) {
		if i > 0 || len(rep.Sides) > 1 || len(sideLines(rep)) > 0 {
			fmt.Fprintln(ew)
		}
		printConfig(ew, rep, pkg)
		if len(rep.Sides) > 1 {
			resultsTable(ew, rep, pkg, opts, &legend)
			fmt.Fprintln(ew)
		}
		for _, unit := range units(rep, pkg) {
			if !shownTable(rep, pkg, unit, opts.Verbose) {
				continue
			}
			textTable(ew, rep, pkg, unit, opts, &legend)
			fmt.Fprintln(ew)
		}
	}
	writeTextNotes(ew, rep, opts)
	return ew.err
}

// methodLine says how the sides were compared: "paired: 56 interleaved
// rounds; 95% CIs; noise band ±1%", "unpaired: ratio of medians; ...".
// Empty for one side.
func methodLine(rep *analysis.Report) string {
	if len(rep.Sides) < 2 {
		return ""
	}
	how := "unpaired: ratio of medians"
	if rep.Paired {
		how = "paired"
		if n := roundsCompared(rep); n > 0 {
			how += fmt.Sprintf(": %d interleaved %s", n, words.Plural(n, "round", "rounds"))
		} else {
			how += ": interleaved rounds"
		}
	}
	return fmt.Sprintf("%s; %s CIs; noise band ±%s", how, words.PctSetting(rep.Options.Confidence), words.PctSetting(rep.Options.Noise))
}

// roundsCompared is the most pairs any benchmark's verdict rests on.
func roundsCompared(rep *analysis.Report) int {
	n := 0
	for _, b := range rep.Benchmarks {
		for _, d := range b.Decisions {
			if d.Change != nil && d.Change.Paired {
				n = max(n, d.Change.N)
			}
		}
	}
	return n
}

// shownTable reports whether the table of unit in pkg has a row to show
// after the results table (see shownRow).
func shownTable(rep *analysis.Report, pkg, unit string, verbose bool) bool {
	for _, b := range rep.Benchmarks {
		if b.Pkg != pkg {
			continue
		}
		for j, m := range b.Metrics {
			if m.Unit == unit && shownRow(rep, &b, j, verbose) {
				return true
			}
		}
	}
	return false
}

// shownRow reports whether metric j of b has a row in its unit's table
// after the results table. With verbose, every metric has. Otherwise a
// metric that is a measurement of its own and did not decide the
// verdict: not the row's metric of the results table, not context (the
// other clock, the CPU waits), not derived from another (B/s), and not
// routine (an exact metric the same on every side, medians of 0 that did
// not change).
func shownRow(rep *analysis.Report, b *analysis.Benchmark, j int, verbose bool) bool {
	if verbose {
		return true
	}
	m := &b.Metrics[j]
	if len(rep.Sides) < 2 {
		return m.DerivedFrom == "" && m.Decides() && !m.AllZero()
	}
	return !b.Decider(j) && m.Decides() && m.DerivedFrom == "" && !m.Settled()
}

// resultsTable writes pkg's results table (see results), aligned.
func resultsTable(w io.Writer, rep *analysis.Report, pkg string, opts Options, legend *bool) {
	rv := results(rep, pkg)
	nsides := len(rep.Sides)
	g := grid{rows: [][]string{rv.header}, words: map[int]bool{}, verdictOf: map[int]int{}, verdicts: [][]analysis.Verdict{nil}}
	for k := range rep.Sides[1:] {
		g.words[nsides+3*k+3] = true
		g.verdictOf[nsides+3*k+3] = k
	}
	if rv.by {
		g.words[len(rv.header)-1] = true
	}
	for _, r := range rv.rows {
		g.rows = append(g.rows, r.cells)
		g.verdicts = append(g.verdicts, r.verdicts)
	}
	g.write(w, opts)
	if rep.Paired && nsides > 1 && *legend {
		*legend = false
		for _, l := range wrap(pairedLegend(rep), opts.Width, "  ") {
			fmt.Fprintln(w, l)
		}
	}
	if showsInstructions(rep, pkg) {
		for _, l := range wrap(instructionsLegend(rep), opts.Width, "  ") {
			fmt.Fprintln(w, l)
		}
	}
	if rv.marked {
		for _, l := range wrap(disagreeLegend, opts.Width, "  ") {
			fmt.Fprintln(w, l)
		}
	}
}

// packages returns the packages of rep's benchmarks in order of first
// appearance.
func packages(rep *analysis.Report) []string {
	seen := map[string]bool{}
	var out []string
	for _, b := range rep.Benchmarks {
		if !seen[b.Pkg] {
			seen[b.Pkg] = true
			out = append(out, b.Pkg)
		}
	}
	return out
}

// units returns the units reported in pkg, time first, in order of first
// appearance otherwise.
func units(rep *analysis.Report, pkg string) []string {
	seen := map[string]bool{}
	var out []string
	for _, b := range rep.Benchmarks {
		if b.Pkg != pkg {
			continue
		}
		for _, m := range b.Metrics {
			if !seen[m.Unit] {
				seen[m.Unit] = true
				out = append(out, m.Unit)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i] == "sec/op" && out[j] != "sec/op" })
	return out
}

func printConfig(w io.Writer, rep *analysis.Report, pkg string) {
	for _, b := range rep.Benchmarks {
		if b.Pkg != pkg {
			continue
		}
		for _, k := range []string{"goos", "goarch"} {
			if v := b.Config[k]; v != "" {
				fmt.Fprintf(w, "%s: %s\n", k, v)
			}
		}
		if pkg != "" {
			fmt.Fprintf(w, "pkg: %s\n", pkg)
		}
		if v := b.Config["cpu"]; v != "" {
			fmt.Fprintf(w, "cpu: %s\n", v)
		}
		return
	}
}

// textTable writes one package's table of unit, as benchstat does: a
// row per benchmark with each side's median ± CI (scaled per row) and
// the change against the baseline, its interval, p and verdict; a
// context row (the other clock, the CPU waits, a derived unit) says
// "context" instead of a verdict of its own. Under the first paired
// table (while *legend is true) a line says what the change column
// holds; under any table with a change marked disagreeMark, why.
func textTable(w io.Writer, rep *analysis.Report, pkg, unit string, opts Options, legend *bool) {
	header := append([]string{unit}, rep.Sides...)
	for _, s := range rep.Sides[1:] {
		header = append(header, changeHeader(rep, s), words.PctSetting(rep.Options.Confidence)+" CI", "p", "verdict")
	}
	nsides := len(rep.Sides)
	g := grid{rows: [][]string{header}, words: map[int]bool{}, verdictOf: map[int]int{}}
	for k := range rep.Sides[1:] {
		g.words[nsides+4*k+4] = true
		g.verdictOf[nsides+4*k+4] = k
	}
	g.verdicts = append(g.verdicts, nil)
	marked := make([]bool, nsides-1) // by change column: some row disagrees
	var marks [][]bool
	for bi := range rep.Benchmarks {
		b := &rep.Benchmarks[bi]
		if b.Pkg != pkg {
			continue
		}
		for j, m := range b.Metrics {
			if m.Unit != unit || !shownRow(rep, b, j, opts.Verbose) {
				continue
			}
			context := !m.Decides() || m.DerivedFrom != ""
			sc := rowScaler(m)
			row := []string{b.FullName}
			for _, s := range m.Sides {
				row = append(row, metricCenter(m, s, sc))
			}
			var vs []analysis.Verdict
			mk := make([]bool, nsides-1)
			for i, c := range m.Changes {
				if c == nil {
					row = append(row, "-", "", "", "")
					vs = append(vs, "")
					continue
				}
				mk[i] = m.DisagreesWithMedians(i)
				marked[i] = marked[i] || mk[i]
				v := c.Verdict
				if context {
					v = "context" // not a verdict: shown, uncoloured
				}
				row = append(row, estimate(c, m.Unit, percent), changeCI(c), pValue(c)+" n="+fmt.Sprint(c.N), string(v))
				vs = append(vs, v)
			}
			g.rows = append(g.rows, row)
			g.verdicts = append(g.verdicts, vs)
			marks = append(marks, mk)
		}
	}
	// A marked change keeps its digits aligned with the others.
	for ri, mk := range marks {
		for i, on := range mk {
			if col := 1 + nsides + 4*i; marked[i] && col < len(g.rows[ri+1]) && g.rows[ri+1][col] != "-" {
				if on {
					g.rows[ri+1][col] += disagreeMark
				} else {
					g.rows[ri+1][col] += " "
				}
			}
		}
	}
	for _, gm := range rep.Geomeans {
		if gm.Unit != unit || len(packages(rep)) > 1 || !opts.Verbose && len(rep.Sides) > 1 {
			continue // the results table has the geomean of the verdicts' metric
		}
		sc := geomeanScaler(gm)
		row := []string{"geomean"}
		for _, c := range gm.Centers {
			row = append(row, scaled(c, sc))
		}
		for i := range gm.Changes {
			cell := percent(gm.Change(i))
			if i < len(marked) && marked[i] {
				cell += " "
			}
			row = append(row, cell, "", "", "")
		}
		g.rows = append(g.rows, row)
		g.verdicts = append(g.verdicts, nil)
	}
	g.write(w, opts)
	if opts.Verbose {
		for _, l := range estimateLines(rep, pkg, unit) {
			for _, wl := range wrap(l, opts.Width, "    ") {
				fmt.Fprintln(w, wl)
			}
		}
	}
	switch {
	case unit == analysis.InstructionsUnit && nsides > 1:
		for _, l := range wrap(instructionsLegend(rep), opts.Width, "  ") {
			fmt.Fprintln(w, l)
		}
	case rep.Paired && nsides > 1 && *legend:
		*legend = false
		for _, l := range wrap(pairedLegend(rep), opts.Width, "  ") {
			fmt.Fprintln(w, l)
		}
	}
	if slices.Contains(marked, true) {
		for _, l := range wrap(disagreeLegend, opts.Width, "  ") {
			fmt.Fprintln(w, l)
		}
	}
}

// estimateLines returns, for -v, one line per benchmark and side of unit
// in pkg with the estimates the analysis made (Summary.Estimates): each
// with its interval and standard error, as Criterion.rs's estimates.json.
func estimateLines(rep *analysis.Report, pkg, unit string) []string {
	var lines []string
	for _, b := range rep.Benchmarks {
		if b.Pkg != pkg {
			continue
		}
		for _, m := range b.Metrics {
			if m.Unit != unit {
				continue
			}
			for _, s := range m.Sides {
				e := s.Estimates
				if e == nil {
					continue
				}
				parts := []string{}
				for _, x := range []struct {
					name string
					e    *stats.Estimate
				}{{"mean", &e.Mean}, {"median", &e.Median}, {"std dev", &e.StdDev}, {"MAD", &e.MAD}, {"slope", e.Slope}} {
					if x.e == nil {
						continue
					}
					p := x.name + " " + estimateCell(unit, x.e)
					if x.name == "slope" {
						p += fmt.Sprintf(" (R² %.4f)", e.FitR2)
					}
					parts = append(parts, p)
				}
				lines = append(lines, fmt.Sprintf("  %s %s: %s; headline: %s", b.FullName, s.Side, strings.Join(parts, "; "), e.Headline))
			}
		}
	}
	return lines
}

// A grid is rows of cells to align in columns: names left-aligned,
// numbers right-aligned, the columns of words (and the header)
// left-aligned, verdicts coloured.
type grid struct {
	rows [][]string
	// words are the columns of words; verdictOf maps a verdict column to
	// its index in verdicts[row].
	words     map[int]bool
	verdictOf map[int]int
	verdicts  [][]analysis.Verdict
}

// write aligns the grid. Names that do not fit the width are grouped
// under their shared prefix and shortened, never so far that two read
// the same (see groupNames); the geomean row stays as it is.
func (g *grid) write(w io.Writer, opts Options) {
	rows := g.rows
	ncol := 0
	for _, r := range rows {
		ncol = max(ncol, len(r))
	}
	widths := make([]int, ncol)
	for _, r := range rows {
		for i, c := range r {
			if i > 0 {
				widths[i] = max(widths[i], width(c))
			}
		}
	}
	rest := 0
	for _, wd := range widths[1:] {
		rest += wd + 2
	}
	var names []string
	for ri, r := range rows {
		if ri > 0 && !(ri == len(rows)-1 && r[0] == "geomean" && g.verdicts[ri] == nil) {
			names = append(names, r[0])
		}
	}
	heads, shown := groupNames(names, max(lineWidth(opts)-rest, 12))
	widths[0] = width(rows[0][0])
	for ri := range rows {
		if ri > 0 && ri <= len(shown) {
			rows[ri][0] = shown[ri-1]
		}
		widths[0] = max(widths[0], width(rows[ri][0]))
	}
	for ri, r := range rows {
		if ri > 0 && ri <= len(heads) && heads[ri-1] != "" {
			fmt.Fprintln(w, heads[ri-1])
		}
		var line strings.Builder
		for i, c := range r {
			if i > 0 {
				line.WriteString("  ")
			}
			switch {
			case i == 0:
				line.WriteString(pad(c, widths[0], false))
			case ri == 0 || g.words[i]:
				cell := pad(c, widths[i], false)
				// The geomean row has no verdicts.
				if k, ok := g.verdictOf[i]; ok && ri > 0 && opts.Color && k < len(g.verdicts[ri]) {
					cell = colorize(cell, g.verdicts[ri][k])
				}
				line.WriteString(cell)
			default:
				line.WriteString(pad(c, widths[i], true))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(line.String(), " "))
	}
}

func colorize(s string, v analysis.Verdict) string {
	switch v {
	case analysis.Improved:
		return green + s + reset
	case analysis.Regressed:
		return red + s + reset
	}
	return s
}

// writeTextNotes writes the notes as a list, under a title that says how
// many more -v shows.
func writeTextNotes(w io.Writer, rep *analysis.Report, opts Options) {
	notes, hidden := footnotes(rep, opts.Verbose)
	if len(notes) > 0 {
		fmt.Fprintln(w, notesHeader(hidden)+":")
		for _, n := range notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	} else if hidden > 0 {
		fmt.Fprintln(w, "("+notesHeader(hidden)+")")
	}
}

// footnotes lists the notes as the analysis digests them (see
// analysis.Report.Digest), and how many more verbose would show.
func footnotes(rep *analysis.Report, verbose bool) ([]string, int) {
	lines, hidden := rep.Digest(verbose)
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, l.String())
	}
	return out, hidden
}

// errWriter remembers the first write error so renderers can write freely
// and check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
