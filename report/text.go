package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
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
	if opts.Width <= 0 {
		opts.Width = 100
	}
	if rep.Paired {
		fmt.Fprintf(ew, "paired: %d sides measured in interleaved rounds; each change is the Hodges-Lehmann center of the per-round ratios\n", len(rep.Sides))
	}
	for _, pkg := range packages(rep) {
		printConfig(ew, rep, pkg)
		for _, unit := range units(rep, pkg) {
			textTable(ew, rep, pkg, unit, opts)
			fmt.Fprintln(ew)
		}
	}
	notes := footnotes(rep)
	if len(notes) > 0 {
		fmt.Fprintln(ew, "Notes:")
		for _, n := range notes {
			fmt.Fprintf(ew, "  - %s\n", n)
		}
	}
	return ew.err
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

func textTable(w io.Writer, rep *analysis.Report, pkg, unit string, opts Options) {
	header := append([]string{unit}, rep.Sides...)
	for _, s := range rep.Sides[1:] {
		vs := "vs base"
		if len(rep.Sides) > 2 {
			vs = s + " vs base"
		}
		header = append(header, vs, pct(rep.Options.Confidence)+" CI", "p", "verdict")
	}
	sc := scaler(rep, pkg, unit)
	rows := [][]string{header}
	var verdicts [][]analysis.Verdict
	verdicts = append(verdicts, nil)
	for _, b := range rep.Benchmarks {
		if b.Pkg != pkg {
			continue
		}
		for _, m := range b.Metrics {
			if m.Unit != unit {
				continue
			}
			row := []string{b.FullName}
			for _, s := range m.Sides {
				row = append(row, center(s, sc))
			}
			var vs []analysis.Verdict
			for _, c := range m.Changes {
				if c == nil {
					row = append(row, "-", "", "", "")
					vs = append(vs, "")
					continue
				}
				row = append(row, estimate(c, m.Unit, percent), changeCI(c), pValue(c)+" n="+fmt.Sprint(c.N), string(c.Verdict))
				vs = append(vs, c.Verdict)
			}
			rows = append(rows, row)
			verdicts = append(verdicts, vs)
		}
	}
	for _, g := range rep.Geomeans {
		if g.Unit != unit || len(packages(rep)) > 1 {
			continue
		}
		row := []string{"geomean"}
		for _, c := range g.Centers {
			row = append(row, scaled(c, sc))
		}
		for _, c := range g.Changes {
			row = append(row, percent(c), "", "", "")
		}
		rows = append(rows, row)
		verdicts = append(verdicts, nil)
	}
	writeGrid(w, rows, verdicts, opts, len(rep.Sides))
}

// writeGrid aligns rows into columns: the name column left-aligned and
// truncated to fit the width, numbers right-aligned, verdicts coloured.
func writeGrid(w io.Writer, rows [][]string, verdicts [][]analysis.Verdict, opts Options, nsides int) {
	ncol := 0
	for _, r := range rows {
		ncol = max(ncol, len(r))
	}
	widths := make([]int, ncol)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], width(c))
		}
	}
	rest := 0
	for _, wd := range widths[1:] {
		rest += wd + 2
	}
	if nameMax := opts.Width - rest; widths[0] > nameMax {
		widths[0] = max(nameMax, 12)
	}
	for ri, r := range rows {
		var line strings.Builder
		for i, c := range r {
			if i > 0 {
				line.WriteString("  ")
			}
			switch {
			case i == 0:
				line.WriteString(pad(truncate(c, widths[0]), widths[0], false))
			case ri == 0 || (i > nsides && (i-nsides)%4 == 0):
				// Headers and verdicts are words: left-aligned.
				cell := pad(c, widths[i], false)
				if ri > 0 && opts.Color {
					cell = colorize(cell, verdicts[ri][(i-nsides)/4-1])
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

// footnotes gathers every note in plain words: per benchmark and metric,
// then the run's.
func footnotes(rep *analysis.Report) []string {
	var out []string
	for _, b := range rep.Benchmarks {
		for _, n := range b.Notes {
			out = append(out, b.FullName+": "+n.Text)
		}
		for _, m := range b.Metrics {
			for _, n := range m.Notes {
				out = append(out, fmt.Sprintf("%s %s: %s", b.FullName, m.Unit, n.Text))
			}
			for _, c := range m.Changes {
				if c != nil && c.Verdict == analysis.Inconclusive {
					out = append(out, fmt.Sprintf("%s %s: inconclusive: %s", b.FullName, m.Unit, c.Reason))
				}
			}
		}
	}
	return append(out, model.Texts(rep.Notes)...)
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
