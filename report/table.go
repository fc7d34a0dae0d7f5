package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rigorbench/rigor/analysis"
)

// renderTable writes the tree's sections as bordered tables, one row per
// benchmark (or variant) with its full name and a column for the
// smallest sample, then the footnotes.
func renderTable(w io.Writer, rep *analysis.Report, opts Options) error {
	return renderSections(w, rep, opts, func(w io.Writer, s section, opts Options, legend []string) {
		writeLegend(w, shownLegend(legend, writeTable(w, s, opts)), opts)
	})
}

// writeTable draws s and reports whether its change column (the
// section's third) was shown.
func writeTable(w io.Writer, s section, opts Options) (changeShown bool) {
	// Columns: the subgroup when variants have one, the name, the unit
	// when rows differ in it, the section's value columns with "min"
	// after the first, and a notes column when a row has a footnote.
	var units []string
	hasGroup, hasNote := false, false
	for _, r := range s.rows {
		if len(r.cells) == 0 {
			continue
		}
		if !slices.Contains(units, r.unit) {
			units = append(units, r.unit)
		}
		hasGroup = hasGroup || r.group != ""
		hasNote = hasNote || r.note != ""
	}
	title := s.title
	if len(units) == 1 {
		title += "  (" + units[0] + ")"
	}
	fmt.Fprintln(w, title)

	var head []string
	kind := map[int]string{} // column index -> "name", "text", "num", "verdict"
	colOf := map[int]int{}   // section column -> table column
	add := func(h, k string) {
		kind[len(head)] = k
		head = append(head, h)
	}
	if hasGroup {
		add("subgroup", "text")
	}
	add("name", "name")
	if len(units) > 1 {
		add("unit", "text")
	}
	colOf[0] = len(head)
	add(s.cols[0], "num")
	minCol := len(head)
	add("min", "num")
	for i, c := range s.cols[1:] {
		colOf[i+1] = len(head)
		if i+1 == s.verdictCol {
			add("verdict", "verdict")
			continue
		}
		add(c, "num")
	}
	// A narrow terminal drops the throughput, then the minimum, then
	// the tree's other optional columns.
	var drop []int
	for i, c := range s.drop {
		if i == 0 && c == len(s.cols)-1 && s.verdictCol != c {
			drop = append(drop, colOf[c])
			continue
		}
		if len(drop) == 0 || drop[len(drop)-1] != minCol {
			drop = append(drop, minCol)
		}
		drop = append(drop, colOf[c])
	}
	if !slices.Contains(drop, minCol) {
		drop = append(drop, minCol)
	}
	if hasNote {
		add("note", "text")
	}

	type trow struct {
		cells   []string
		verdict analysis.Verdict
	}
	var rows []trow
	var footer []string
	lastGroup := ""
	for _, r := range s.rows {
		if len(r.cells) == 0 {
			if r.sub {
				footer = append(footer, r.name)
			}
			continue // a tree node without results: the paths say it
		}
		var c []string
		if hasGroup {
			g := r.group
			if g == lastGroup || r.sub {
				g = ""
			} else {
				lastGroup = r.group
			}
			c = append(c, g)
		}
		c = append(c, r.path)
		if len(units) > 1 {
			c = append(c, r.unit)
		}
		c = append(c, r.cells[0], r.min)
		c = append(c, r.cells[1:]...)
		for len(c) < len(head)-1 {
			c = append(c, "")
		}
		if hasNote {
			c = append(c, r.note)
		}
		rows = append(rows, trow{c, r.verdict})
	}

	widths := make([]int, len(head))
	for i, h := range head {
		widths[i] = width(h)
	}
	for _, r := range rows {
		for i, c := range r.cells {
			widths[i] = max(widths[i], width(c))
		}
	}
	nameCol := slices.Index(head, "name")
	rest := func() int {
		n := 1
		for i, wd := range widths {
			if i != nameCol && wd >= 0 {
				n += wd + 3
			}
		}
		return n + 3
	}
	for _, i := range drop {
		if opts.Width-rest() >= min(widths[nameCol], 24) {
			break
		}
		widths[i] = -1 // dropped
	}
	widths[nameCol] = max(min(widths[nameCol], opts.Width-rest()), min(widths[nameCol], 12))
	// Names shortened to fit never read the same.
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.cells[nameCol]
	}
	names, widths[nameCol] = fitNames(names, nil, widths[nameCol])
	widths[nameCol] = max(widths[nameCol], width(head[nameCol]))
	for i := range rows {
		rows[i].cells[nameCol] = names[i]
	}

	rule := func(l, m, r string) string {
		var b strings.Builder
		b.WriteString(l)
		first := true
		for _, wd := range widths {
			if wd < 0 {
				continue
			}
			if !first {
				b.WriteString(m)
			}
			first = false
			b.WriteString(strings.Repeat("─", wd+2))
		}
		b.WriteString(r)
		return b.String()
	}
	line := func(cells []string, v analysis.Verdict, header bool) string {
		var b strings.Builder
		b.WriteString("│")
		for i, wd := range widths {
			if wd < 0 {
				continue
			}
			c := cells[i]
			var cell string
			switch k := kind[i]; {
			case k == "name":
				cell = pad(c, wd, false)
			case header || k != "num":
				cell = pad(c, wd, false)
				if !header && opts.Color && k == "verdict" {
					cell = colorize(cell, v)
				}
			default:
				cell = pad(c, wd, true)
			}
			b.WriteString(" " + cell + " │")
		}
		return b.String()
	}
	fmt.Fprintln(w, rule("┌", "┬", "┐"))
	fmt.Fprintln(w, line(head, "", true))
	fmt.Fprintln(w, rule("├", "┼", "┤"))
	for _, r := range rows {
		fmt.Fprintln(w, line(r.cells, r.verdict, false))
	}
	fmt.Fprintln(w, rule("└", "┴", "┘"))
	for _, f := range footer {
		fmt.Fprintln(w, f)
	}
	c, ok := colOf[2]
	return s.changes && ok && widths[c] >= 0
}
