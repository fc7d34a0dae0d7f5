package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/stats"
)

func init() { register("text", renderText) }

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

// renderText writes a benchstat-like table per package and unit, with the
// change's confidence interval and a verdict column, then the footnotes.
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
	if rep.Paired {
		fmt.Fprintf(ew, "paired: %d sides measured in interleaved rounds\n", len(rep.Sides))
	}
	for _, l := range sideLines(rep) {
		fmt.Fprintln(ew, l)
	}
	legend := rep.Paired && len(rep.Sides) > 1
	for _, pkg := range packages(rep) {
		printConfig(ew, rep, pkg)
		for _, unit := range units(rep, pkg) {
			if !opts.Verbose && allZero(rep, pkg, unit) {
				continue
			}
			textTable(ew, rep, pkg, unit, opts, &legend)
			fmt.Fprintln(ew)
		}
	}
	notes := footnotes(rep, opts.Verbose)
	if len(notes) > 0 {
		fmt.Fprintln(ew, "Notes:")
		for _, n := range notes {
			fmt.Fprintf(ew, "  - %s\n", n)
		}
	}
	return ew.err
}

// allZero reports whether every row of unit in pkg is an exact 0 on
// every side (allocs/op of benchmarks that never allocate): text and md
// leave such a table out unless verbose.
func allZero(rep *analysis.Report, pkg, unit string) bool {
	for _, b := range rep.Benchmarks {
		if b.Pkg != pkg {
			continue
		}
		for _, m := range b.Metrics {
			if m.Unit == unit && !m.AllZero() {
				return false
			}
		}
	}
	return true
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
// the change against the baseline. Under the first paired table (while
// *legend is true) a line says what the change column holds; under any
// table with a change marked disagreeMark, why.
func textTable(w io.Writer, rep *analysis.Report, pkg, unit string, opts Options, legend *bool) {
	header := append([]string{unit}, rep.Sides...)
	for _, s := range rep.Sides[1:] {
		header = append(header, changeHeader(rep, s), words.PctSetting(rep.Options.Confidence)+" CI", "p", "verdict")
	}
	rows := [][]string{header}
	var verdicts [][]analysis.Verdict
	verdicts = append(verdicts, nil)
	nsides := len(rep.Sides)
	marked := make([]bool, nsides-1) // by change column: some row disagrees
	var marks [][]bool
	for _, b := range rep.Benchmarks {
		if b.Pkg != pkg {
			continue
		}
		for _, m := range b.Metrics {
			if m.Unit != unit || !opts.Verbose && m.AllZero() {
				continue
			}
			sc := rowScaler(m)
			row := []string{b.FullName}
			for _, s := range m.Sides {
				row = append(row, center(s, sc))
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
				row = append(row, estimate(c, m.Unit, percent), changeCI(c), pValue(c)+" n="+fmt.Sprint(c.N), string(c.Verdict))
				vs = append(vs, c.Verdict)
			}
			rows = append(rows, row)
			verdicts = append(verdicts, vs)
			marks = append(marks, mk)
		}
	}
	// A marked change keeps its digits aligned with the others.
	for ri, mk := range marks {
		for i, on := range mk {
			if col := 1 + nsides + 4*i; marked[i] && col < len(rows[ri+1]) && rows[ri+1][col] != "-" {
				if on {
					rows[ri+1][col] += disagreeMark
				} else {
					rows[ri+1][col] += " "
				}
			}
		}
	}
	for _, g := range rep.Geomeans {
		if g.Unit != unit || len(packages(rep)) > 1 {
			continue
		}
		sc := geomeanScaler(g)
		row := []string{"geomean"}
		for _, c := range g.Centers {
			row = append(row, scaled(c, sc))
		}
		for i, c := range g.Changes {
			cell := percent(c)
			if i < len(marked) && marked[i] {
				cell += " "
			}
			row = append(row, cell, "", "", "")
		}
		rows = append(rows, row)
		verdicts = append(verdicts, nil)
	}
	writeGrid(w, rows, verdicts, opts, nsides)
	if opts.Verbose {
		for _, l := range estimateLines(rep, pkg, unit) {
			for _, wl := range wrap(l, opts.Width, "    ") {
				fmt.Fprintln(w, wl)
			}
		}
	}
	if rep.Paired && nsides > 1 && *legend {
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

// writeGrid aligns rows into columns: the name column left-aligned,
// numbers right-aligned, verdicts coloured. Names that do not fit the
// width are grouped under their shared prefix and shortened, never so
// far that two read the same (see groupNames); the geomean row stays
// as it is.
func writeGrid(w io.Writer, rows [][]string, verdicts [][]analysis.Verdict, opts Options, nsides int) {
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
		if ri > 0 && !(ri == len(rows)-1 && r[0] == "geomean" && verdicts[ri] == nil) {
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
			case ri == 0 || (i > nsides && (i-nsides)%4 == 0):
				// Headers and verdicts are words: left-aligned.
				cell := pad(c, widths[i], false)
				// The geomean row has no verdicts.
				if k := (i-nsides)/4 - 1; ri > 0 && opts.Color && k < len(verdicts[ri]) {
					cell = colorize(cell, verdicts[ri][k])
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

// footnotes lists the notes as the analysis digests them (see
// analysis.Report.Digest), with a last line counting what verbose would
// add.
func footnotes(rep *analysis.Report, verbose bool) []string {
	lines, hidden := rep.Digest(verbose)
	out := make([]string, 0, len(lines)+1)
	for _, l := range lines {
		out = append(out, l.String())
	}
	if hidden > 0 {
		out = append(out, fmt.Sprintf("(%d routine %s not shown: exact comparisons, outliers kept, profile files, derived units; -v shows them)", hidden, words.Plural(hidden, "note", "notes")))
	}
	return out
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
