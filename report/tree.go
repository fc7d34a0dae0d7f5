package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// renderTree writes zenbench's terminal layout: per package (or, when the
// sides are a group's variants, per benchmark) a tree of rows giving the
// median ± its CI's relative half-width, the CI or the change against the
// baseline with its CI, the verdict and the throughput; then a bar chart
// sorted fastest first; then the footnotes. Style "table" gives bordered
// tables instead.
func renderTree(w io.Writer, rep *analysis.Report, opts Options) error {
	if opts.Style == "table" {
		return renderTable(w, rep, opts)
	}
	return renderSections(w, rep, opts, func(w io.Writer, s section, opts Options, legend []string) {
		writeLegend(w, shownLegend(legend, writeTreeSection(w, s, opts)), opts)
		writeBars(w, s, opts)
	})
}

// renderSections writes the headline, the sides, each section with
// write, and the footnotes: the frame the tree and table layouts share.
// write gets the legend to print under the section's table.
func renderSections(w io.Writer, rep *analysis.Report, opts Options, write func(io.Writer, section, Options, []string)) error {
	opts.Width = lineWidth(opts)
	ew := &errWriter{w: w}
	secs, notes := sections(rep, opts.Verbose)
	for _, h := range headLines(rep) {
		for _, l := range wrap(h.String(), opts.Width, "  ") {
			fmt.Fprintln(ew, l)
		}
	}
	if h := headline(rep); h != "" {
		for _, l := range wrap(h, opts.Width, "  ") {
			fmt.Fprintln(ew, l)
		}
	}
	for _, l := range sideLines(rep) {
		fmt.Fprintln(ew, l)
	}
	legend := rep.Paired && len(rep.Sides) > 1
	for _, s := range secs {
		fmt.Fprintln(ew)
		// What the change column holds, under the first section that
		// has one; why a change is marked, under each that has one.
		var lines []string
		if legend && s.changes {
			legend = false
			lines = append(lines, pairedLegend(rep))
		}
		if s.marked {
			lines = append(lines, disagreeLegend)
		}
		write(ew, s, opts, lines)
	}
	writeNotes(ew, notes, rep, opts)
	return ew.err
}

// shownLegend drops the line about disagreeMark from legend when the
// change column, which holds the marks, was left out.
func shownLegend(legend []string, changeShown bool) []string {
	if changeShown {
		return legend
	}
	return slices.DeleteFunc(slices.Clone(legend), func(l string) bool { return l == disagreeLegend })
}

// writeLegend writes lines wrapped to the width.
func writeLegend(w io.Writer, lines []string, opts Options) {
	for _, l := range lines {
		for _, wl := range wrap(l, opts.Width, "  ") {
			fmt.Fprintln(w, wl)
		}
	}
}

// headline says what was compared and how.
func headline(rep *analysis.Report) string {
	switch {
	case len(rep.Sides) == 1:
		return ""
	case rep.Paired:
		return fmt.Sprintf("%s: paired, interleaved rounds; %s CIs; noise band ±%s",
			strings.Join(rep.Sides, " vs "), words.PctSetting(rep.Options.Confidence), words.PctSetting(rep.Options.Noise))
	}
	return fmt.Sprintf("%s: %s CIs; noise band ±%s",
		strings.Join(rep.Sides, " vs "), words.PctSetting(rep.Options.Confidence), words.PctSetting(rep.Options.Noise))
}

// A section is one tree (or table): a title, columns, rows, and the
// entries of its bar chart.
type section struct {
	title string
	cols  []string // headers of the value columns
	// verdictCol is the index in cols of the verdict column, -1 if none.
	verdictCol int
	// drop lists the columns a narrow terminal leaves out, first first.
	drop []int
	rows []row
	// charts are bar charts, each ranking comparable entries.
	charts [][]bar
	// changes is true when the section has a change column; marked
	// when a change in it has disagreeMark.
	changes, marked bool
}

// A row is one line of a section.
type row struct {
	prefix string // tree drawing before the name
	name   string // label in the tree
	path   string // full label, for tables
	group  string // the variant's subgroup, for tables
	unit   string // the unit of the row's values, for tables
	note   string // footnote marker: "[3]"
	cells  []string
	min    string // the smallest sample, for tables
	// verdict colours the verdict cell.
	verdict analysis.Verdict
	sub     bool // an extra metric under the row above
	base    bool // the baseline of a group's variants
}

// A bar is one entry of a section's bar chart.
type bar struct {
	label string
	value float64 // bar length is proportional to it
	text  string  // the value as printed
}

// A footnote collects one benchmark's notes under one number.
type footnote struct {
	n     int
	title string
	lines []string
}

// variantsAsRows reports whether rep's sides are alternatives to rank (a
// group's variants, or more than two things compared) rather than an old
// and a new version of every benchmark.
func variantsAsRows(rep *analysis.Report) bool {
	return len(rep.Sides) > 2 || (rep.Kind == model.KindHarness && len(rep.Sides) > 1)
}

// sections lays out rep as tree sections and numbers the footnotes;
// unless verbose, routine notes are left out (see analysis.Routine).
func sections(rep *analysis.Report, verbose bool) ([]section, []footnote) {
	var notes []footnote
	mark := func(b *analysis.Benchmark, title string) string {
		lines := benchNotes(rep, b, verbose)
		if len(lines) == 0 {
			return ""
		}
		notes = append(notes, footnote{n: len(notes) + 1, title: title, lines: lines})
		return fmt.Sprintf("[%d]", len(notes))
	}
	var secs []section
	if variantsAsRows(rep) {
		for i := range rep.Benchmarks {
			secs = append(secs, variantSection(rep, &rep.Benchmarks[i], mark, verbose))
		}
		return secs, notes
	}
	for _, pkg := range packages(rep) {
		secs = append(secs, packageSection(rep, pkg, mark, verbose))
	}
	return secs, notes
}

// benchNotes says a benchmark's notes in plain words, for the section
// about it: grouped as the report's notes are (analysis.Report's
// BenchmarkDigest), the routine ones and those of metrics that decide
// nothing only when verbose.
func benchNotes(rep *analysis.Report, b *analysis.Benchmark, verbose bool) []string {
	for i := range rep.Benchmarks {
		if &rep.Benchmarks[i] != b {
			continue
		}
		lines, _ := rep.BenchmarkDigest(i, verbose)
		out := make([]string, 0, len(lines))
		for _, l := range lines {
			out = append(out, l.String())
		}
		return out
	}
	return nil
}

// primary returns the index of the metric a row shows: the one that
// decided the benchmark's verdict against the first other side (see
// analysis.Decision), or the one that decides by default; without
// either, sec/op when present, else the first that is not a throughput.
func primary(b *analysis.Benchmark) int {
	if len(b.Decisions) > 0 && b.Decisions[0].Metric >= 0 {
		return b.Decisions[0].Metric
	}
	for i := range b.Metrics {
		if b.Decider(i) {
			return i
		}
	}
	for i, m := range b.Metrics {
		if m.Unit == "sec/op" {
			return i
		}
	}
	for i, m := range b.Metrics {
		if !isThroughput(m) {
			return i
		}
	}
	return 0
}

// throughput returns the index of the benchmark's throughput metric (a
// per-second unit where higher is better), or -1.
func throughput(b *analysis.Benchmark) int {
	for i, m := range b.Metrics {
		if isThroughput(m) {
			return i
		}
	}
	return -1
}

func isThroughput(m analysis.Metric) bool {
	return m.Better == model.HigherIsBetter && strings.HasSuffix(m.Unit, "/s")
}

// extras returns the indexes of the metrics shown as sub-rows: every
// metric but the primary and the throughput, except exact metrics that
// are identical on every side (they are listed once in a footer) and,
// unless verbose, context (the other clock, the CPU waits) and units
// derived from another.
func extras(b *analysis.Benchmark, verbose bool) (show []int, identical []string) {
	p, t := primary(b), throughput(b)
	for i, m := range b.Metrics {
		if i == p || i == t || !verbose && (!m.Decides() || m.DerivedFrom != "") {
			continue
		}
		if m.Exact && len(m.Changes) > 0 && !slices.ContainsFunc(m.Changes, func(c *analysis.Change) bool {
			return c == nil || c.Verdict != analysis.Unchanged
		}) {
			identical = append(identical, m.Unit)
			continue
		}
		show = append(show, i)
	}
	return show, identical
}

// unitSuffix is what follows a scaled value of unit: "s" for time, "B"
// for bytes per op, "B/s" for bytes per second; other units are named in
// the column header or the row.
func unitSuffix(unit string) string {
	switch unit {
	case "sec/op", "sec", "cpu-sec/op", "wait-sec/op":
		return "s"
	case "B/op", "B":
		return "B"
	case "B/s":
		return "B/s"
	}
	return ""
}

// value formats v of unit with four significant digits and a prefix,
// as benchstat scales one value: "8.107µs", "42.20KiB"; whole numbers
// below 10000 print as they are ("127", "64B").
func value(unit string, v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "?"
	case v == math.Trunc(v) && math.Abs(v) < 10000 && unit != "sec/op":
		return strconv.FormatFloat(v, 'f', 0, 64) + unitSuffix(unit)
	case math.Abs(v) >= hugeScaled*1e6:
		return strconv.FormatFloat(v, 'g', 4, 64) + unitSuffix(unit)
	}
	return benchunit.Scale(v, benchunit.ClassOf(unit)) + unitSuffix(unit)
}

// center formats a side's median and its CI's relative half-width,
// "7.856µs ±7%", or "-" for a side with no samples.
func centerCell(unit string, s analysis.Summary) string {
	if s.N == 0 {
		return "-"
	}
	if h, ok := slopeHeadline(s); ok {
		return value(unit, h.Center) + " ±" + spread(h) + " slope"
	}
	return value(unit, s.Center) + " ±" + spread(s)
}

// interval formats a summary's CI with one prefix: "[7.25–8.65]µs".
func interval(unit string, s analysis.Summary) string {
	if s.N == 0 || math.IsNaN(s.Lo) || math.IsNaN(s.Hi) || math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		return "-"
	}
	sc := benchunit.CommonScale([]float64{s.Lo, s.Hi}, benchunit.ClassOf(unit))
	num := func(v float64) string {
		if math.Abs(v/sc.Factor) >= hugeScaled {
			return strconv.FormatFloat(v/sc.Factor, 'g', 4, 64)
		}
		return strconv.FormatFloat(v/sc.Factor, 'f', sc.Prec, 64)
	}
	return "[" + num(s.Lo) + "–" + num(s.Hi) + "]" + sc.Prefix + unitSuffix(unit)
}

// minimum formats a summary's smallest sample.
func minimum(unit string, s analysis.Summary) string {
	if s.N == 0 {
		return "-"
	}
	return value(unit, s.Min)
}

// centerOnly formats a summary's median, or "-" without samples.
func centerOnly(unit string, s analysis.Summary) string {
	if s.N == 0 {
		return "-"
	}
	return value(unit, s.Center)
}

// shortPct formats a relative change compactly: "-4.7%", "+0.35%".
func shortPct(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "?"
	case math.Abs(v) < 0.001:
		return fmt.Sprintf("%+.2f%%", v*100)
	case math.Abs(v*100) >= hugeScaled:
		return fmt.Sprintf("%+.3g%%", v*100)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%+.0f%%", v*100)
	}
	return fmt.Sprintf("%+.1f%%", v*100)
}

// changeCells formats a change as its estimate and "[lo, hi]". A change
// from zero, which has no relative estimate, shows the absolute one in
// unit: "+1 allocs/op".
func changeCells(c *analysis.Change, unit string) (est, ci string) {
	if c == nil {
		return "-", ""
	}
	est = estimate(c, unit, shortPct)
	if c.Test == "exact" {
		return est, "(exact)"
	}
	if math.IsNaN(c.Lo) || math.IsNaN(c.Hi) {
		return est, "-"
	}
	return est, "[" + shortPct(c.Lo) + ", " + shortPct(c.Hi) + "]"
}

// roundsTitle says how many samples (or rounds) of how many iterations a
// summary holds: "15 rounds × 320 iters".
func roundsTitle(rep *analysis.Report, s analysis.Summary) string {
	if s.N == 0 {
		return ""
	}
	what := "samples"
	if rep.Paired {
		what = "rounds"
	}
	iters := strconv.FormatFloat(s.Iters, 'f', 0, 64)
	if s.Iters >= 10000 || s.Iters != math.Trunc(s.Iters) {
		iters = benchunit.Scale(s.Iters, benchunit.Decimal)
	}
	return fmt.Sprintf("%d %s × %s iters", s.N, what, iters)
}

// variantSection lays out one benchmark whose sides are variants: a row
// per variant, under its subgroup when it has one.
func variantSection(rep *analysis.Report, b *analysis.Benchmark, mark func(*analysis.Benchmark, string) string, verbose bool) section {
	p, t := primary(b), throughput(b)
	pm := b.Metrics[p]
	title := b.FullName
	if rt := roundsTitle(rep, pm.Sides[0]); rt != "" {
		title += "  " + rt
	}
	if m := mark(b, b.FullName); m != "" {
		title += " " + m
	}
	s := section{
		title:      title,
		cols:       []string{"median ±CI", words.PctSetting(rep.Options.Confidence) + " CI", changeHeader(rep, ""), ""},
		verdictCol: 3,
		changes:    len(rep.Sides) > 1,
	}
	s.drop = []int{2}
	if t >= 0 {
		s.cols = append(s.cols, b.Metrics[t].Unit)
		s.drop = []int{4, 2}
	}
	show, identical := extras(b, verbose)

	// Variants grouped by subgroup, in the order of their first variant.
	type node struct {
		label string
		sides []int
		sub   bool
	}
	var nodes []*node
	bySub := map[string]*node{}
	for i, side := range rep.Sides {
		var sub string
		if rep.Run != nil && i < len(rep.Run.Sides) {
			sub = TerminalSafe(rep.Run.Sides[i].Subgroup)
		}
		if sub == "" {
			nodes = append(nodes, &node{label: side, sides: []int{i}})
			continue
		}
		n := bySub[sub]
		if n == nil {
			n = &node{label: sub, sub: true}
			bySub[sub] = n
			nodes = append(nodes, n)
		}
		n.sides = append(n.sides, i)
	}

	var bars []bar
	sideRow := func(i int, prefix, cont, group string) {
		sm := pm.Sides[i]
		r := row{prefix: prefix, name: rep.Sides[i], path: rep.Sides[i], group: group, unit: pm.Unit, min: minimum(pm.Unit, sm)}
		r.cells = []string{centerCell(pm.Unit, sm), "", "", ""}
		if i == 0 {
			r.cells[1], r.cells[2] = interval(pm.Unit, sm), "base"
			r.base = true
		} else {
			c := pm.Changes[i-1]
			r.cells[2], r.cells[1] = changeCells(c, pm.Unit)
			if c != nil {
				r.cells[3], r.verdict = string(c.Verdict), c.Verdict
			}
			if pm.DisagreesWithMedians(i - 1) {
				r.cells[2] += disagreeMark
				s.marked = true
			}
		}
		if t >= 0 {
			tm := b.Metrics[t]
			ts := tm.Sides[i]
			r.cells = append(r.cells, centerOnly(tm.Unit, ts))
			if ts.N > 0 && ts.Center > 0 {
				bars = append(bars, bar{label: rep.Sides[i], value: ts.Center, text: value(tm.Unit, ts.Center)})
			}
		} else if pm.Unit == "sec/op" && sm.N > 0 && sm.Center > 0 {
			bars = append(bars, bar{label: rep.Sides[i], value: -sm.Center, text: value(pm.Unit, sm.Center)})
		}
		s.rows = append(s.rows, r)
		for _, k := range show {
			sr := subRow(b.Metrics[k], i, cont+"  ", len(s.cols))
			s.marked = s.marked || strings.HasSuffix(sr.cells[2], disagreeMark)
			s.rows = append(s.rows, sr)
		}
	}
	for ni, n := range nodes {
		pre, cont := branch(ni == len(nodes)-1)
		if !n.sub {
			sideRow(n.sides[0], pre, cont, "")
			continue
		}
		s.rows = append(s.rows, row{prefix: pre, name: n.label, path: n.label})
		for si, i := range n.sides {
			p2, c2 := branch(si == len(n.sides)-1)
			sideRow(i, cont+p2, cont+c2, n.label)
		}
	}
	if len(identical) > 0 {
		s.rows = append(s.rows, row{name: "identical on every side: " + strings.Join(identical, ", "), sub: true})
	}
	s.charts = append(s.charts, bars)
	alignMarks(&s, 2)
	return s
}

// subRow shows metric m of side i (compared with side 0) under its row,
// in a variant section's columns.
func subRow(m analysis.Metric, i int, prefix string, ncols int) row {
	sm := m.Sides[i]
	r := row{prefix: prefix, name: "· " + m.Unit, unit: m.Unit, sub: true, min: minimum(m.Unit, sm)}
	r.cells = make([]string, ncols)
	r.cells[0] = centerCell(m.Unit, sm)
	if i > 0 {
		c := m.Changes[i-1]
		r.cells[2], r.cells[1] = changeCells(c, m.Unit)
		if c != nil {
			r.cells[3], r.verdict = string(c.Verdict), c.Verdict
		}
		if m.DisagreesWithMedians(i - 1) {
			r.cells[2] += disagreeMark
		}
	}
	return r
}

// branch returns the tree drawing for an entry and for the lines under it.
func branch(last bool) (entry, cont string) {
	if last {
		return "╰─ ", "   "
	}
	return "├─ ", "│  "
}

// A tnode is a node of a package's name tree.
type tnode struct {
	label    string
	bench    *analysis.Benchmark
	children []*tnode
}

func (n *tnode) child(label string) *tnode {
	for _, c := range n.children {
		if c.label == label && c.bench == nil {
			return c
		}
	}
	c := &tnode{label: label}
	n.children = append(n.children, c)
	return c
}

// collapse merges chains of single children without results of their
// own: "Hash" > "sha256" becomes "Hash/sha256".
func (n *tnode) collapse() {
	for i, c := range n.children {
		for c.bench == nil && len(c.children) == 1 {
			only := c.children[0]
			only.label = c.label + "/" + only.label
			c = only
		}
		n.children[i] = c
		c.collapse()
	}
}

// A leaf is a benchmark in a name tree, with its path below the node
// the walk started from.
type leaf struct {
	path  string
	bench *analysis.Benchmark
}

func (n *tnode) leaves(path string, out *[]leaf) {
	if n.bench != nil {
		*out = append(*out, leaf{path, n.bench})
	}
	for _, c := range n.children {
		p := c.label
		if path != "" {
			p = path + "/" + c.label
		}
		c.leaves(p, out)
	}
}

// packageSection lays out one package's benchmarks as a tree of their
// names' slash-separated parts, comparing at most two sides.
func packageSection(rep *analysis.Report, pkg string, mark func(*analysis.Benchmark, string) string, verbose bool) section {
	two := len(rep.Sides) == 2
	last := len(rep.Sides) - 1
	s := section{title: "pkg: " + pkg, verdictCol: -1}
	if pkg == "" {
		s.title = "benchmarks"
	}
	if two {
		s.cols = []string{rep.Sides[0], rep.Sides[1], changeHeader(rep, rep.Sides[1]), words.PctSetting(rep.Options.Confidence) + " CI", ""}
		s.verdictCol = 4
		s.changes = true
		// The baseline's median goes first, then the change: never the
		// change beside both medians without the room to show it.
		s.drop = []int{0, 2}
	} else {
		s.cols = []string{"median ±CI", words.PctSetting(rep.Options.Confidence) + " CI"}
		s.drop = []int{1}
	}

	// Procs suffixes are shown only when they tell benchmarks apart.
	procs := map[string]bool{}
	var first *analysis.Benchmark
	for i, b := range rep.Benchmarks {
		if b.Pkg == pkg {
			procs[strings.TrimPrefix(b.FullName, b.Name)] = true
			if first == nil {
				first = &rep.Benchmarks[i]
			}
		}
	}
	if first != nil && len(first.Metrics) > 0 {
		if rt := roundsTitle(rep, first.Metrics[primary(first)].Sides[0]); rt != "" {
			s.title += "  (" + strings.Split(rt, " × ")[0] + ")"
		}
	}
	root := &tnode{}
	tpUnit := ""
	for i := range rep.Benchmarks {
		b := &rep.Benchmarks[i]
		if b.Pkg != pkg {
			continue
		}
		parts := strings.Split(b.Name, "/")
		if len(procs) > 1 {
			parts[len(parts)-1] += strings.TrimPrefix(b.FullName, b.Name)
		}
		n := root
		for _, p := range parts[:len(parts)-1] {
			n = n.child(p)
		}
		n.children = append(n.children, &tnode{label: parts[len(parts)-1], bench: b})
		if t := throughput(b); t >= 0 && tpUnit == "" {
			tpUnit = b.Metrics[t].Unit
		}
	}
	root.collapse()
	// tp returns b's throughput metric when it is in the column's unit.
	tp := func(b *analysis.Benchmark) *analysis.Metric {
		if t := throughput(b); t >= 0 && b.Metrics[t].Unit == tpUnit {
			return &b.Metrics[t]
		}
		return nil
	}
	if tpUnit != "" {
		h := tpUnit
		if two {
			h += " (" + rep.Sides[last] + ")"
		}
		s.drop = append([]int{len(s.cols)}, s.drop...)
		s.cols = append(s.cols, h)
	}
	ncols := len(s.cols)

	metricRow := func(m analysis.Metric, r row) row {
		r.unit = m.Unit
		r.min = minimum(m.Unit, m.Sides[last])
		if two {
			r.cells = []string{centerCell(m.Unit, m.Sides[0]), centerCell(m.Unit, m.Sides[1]), "-", "", ""}
			if c := m.Changes[0]; c != nil {
				r.cells[2], r.cells[3] = changeCells(c, m.Unit)
				r.cells[4], r.verdict = string(c.Verdict), c.Verdict
			}
			if m.DisagreesWithMedians(0) {
				r.cells[2] += disagreeMark
				s.marked = true
			}
		} else {
			r.cells = []string{centerCell(m.Unit, m.Sides[0]), interval(m.Unit, m.Sides[0])}
		}
		for len(r.cells) < ncols {
			r.cells = append(r.cells, "")
		}
		return r
	}

	identical := map[string]int{}
	var identicalOrder []string
	var walk func(n *tnode, prefix, path string)
	walk = func(n *tnode, prefix, path string) {
		for ci, c := range n.children {
			entry, cont := branch(ci == len(n.children)-1)
			p := c.label
			if path != "" {
				p = path + "/" + c.label
			}
			r := row{prefix: prefix + entry, name: c.label, path: p}
			b := c.bench
			if b == nil || len(b.Metrics) == 0 {
				s.rows = append(s.rows, r)
				walk(c, prefix+cont, p)
				continue
			}
			r = metricRow(b.Metrics[primary(b)], r)
			if two && len(b.Decisions) > 0 {
				if c := clockWords(&b.Decisions[0]); c != "" && r.cells[4] != "" {
					r.cells[4] += " (" + c + ")" // the verdict's metric, when not wall time
				}
			}
			if tm := tp(b); tm != nil {
				r.cells[ncols-1] = centerOnly(tm.Unit, tm.Sides[last])
			}
			r.note = mark(b, b.FullName)
			s.rows = append(s.rows, r)
			show, same := extras(b, verbose)
			for _, u := range same {
				if identical[u] == 0 {
					identicalOrder = append(identicalOrder, u)
				}
				identical[u]++
			}
			under := prefix + cont + "  "
			if len(c.children) > 0 {
				under = prefix + cont + "│ "
			}
			for _, k := range show {
				m := b.Metrics[k]
				s.rows = append(s.rows, metricRow(m, row{prefix: under, name: "· " + m.Unit, sub: true}))
			}
			walk(c, prefix+cont, p)
		}
	}
	walk(root, "", "")

	// Geomean of time, when the run has one package.
	if two && len(packages(rep)) == 1 {
		for _, g := range rep.Geomeans {
			if g.Unit != "sec/op" || len(g.Changes) == 0 {
				continue
			}
			r := row{name: "geomean", path: "geomean", unit: g.Unit, sub: true}
			r.cells = []string{value(g.Unit, g.Centers[0]), value(g.Unit, g.Centers[1]), shortPct(g.Change(0)), "", ""}
			for len(r.cells) < ncols {
				r.cells = append(r.cells, "")
			}
			s.rows = append(s.rows, r)
		}
	}
	if len(identicalOrder) > 0 {
		var parts []string
		for _, u := range identicalOrder {
			parts = append(parts, fmt.Sprintf("%s (%d %s)", u, identical[u], words.Plural(identical[u], "benchmark", "benchmarks")))
		}
		s.rows = append(s.rows, row{name: "identical on every side, not shown: " + strings.Join(parts, ", "), sub: true})
	}

	// Bars: each top-level node with several benchmarks ranks them by
	// the last side's throughput when all have one, else by time.
	for _, top := range root.children {
		var ls []leaf
		top.leaves(top.label, &ls)
		if len(ls) < 2 {
			continue
		}
		byTP := !slices.ContainsFunc(ls, func(l leaf) bool { return tp(l.bench) == nil })
		var bars []bar
		for _, l := range ls {
			if byTP {
				ts := tp(l.bench).Sides[last]
				if ts.N > 0 && ts.Center > 0 {
					bars = append(bars, bar{label: l.path, value: ts.Center, text: value(tpUnit, ts.Center)})
				}
				continue
			}
			pm := l.bench.Metrics[primary(l.bench)]
			if ps := pm.Sides[last]; pm.Unit == "sec/op" && ps.N > 0 && ps.Center > 0 {
				bars = append(bars, bar{label: l.path, value: -ps.Center, text: value(pm.Unit, ps.Center)})
			}
		}
		s.charts = append(s.charts, bars)
	}
	alignMarks(&s, 2)
	return s
}

// alignMarks pads the change cells (column col) of a section with a
// marked change, so that their digits stay aligned with the marked one's.
func alignMarks(s *section, col int) {
	if !s.marked {
		return
	}
	for i := range s.rows {
		c := s.rows[i].cells
		if col < len(c) && c[col] != "" && c[col] != "-" && !strings.HasSuffix(c[col], disagreeMark) {
			c[col] += " "
		}
	}
}

// writeTreeSection writes s as a tree and reports whether its change
// column (the third) was shown.
func writeTreeSection(w io.Writer, s section, opts Options) (changeShown bool) {
	fmt.Fprintln(w, s.title)
	ncols := len(s.cols)
	for _, r := range s.rows {
		ncols = max(ncols, len(r.cells))
	}
	widths := make([]int, ncols)
	for i, c := range s.cols {
		widths[i] = width(c)
	}
	// nameW is what the longest name needs, nameMin what the deepest
	// needs truncated to five columns.
	nameW, nameMin := 0, 0
	for _, r := range s.rows {
		for i, c := range r.cells {
			widths[i] = max(widths[i], width(c))
		}
		if !r.sub || len(r.cells) > 0 {
			nameW = max(nameW, width(r.prefix)+width(r.name)+noteWidth(r.note))
			nameMin = max(nameMin, width(r.prefix)+min(width(r.name), 5)+noteWidth(r.note))
		}
	}
	rest := func() int {
		n := 0
		for _, wd := range widths {
			if wd > 0 {
				n += wd + 2
			}
		}
		return n
	}
	// A narrow terminal drops the least useful columns before names
	// shrink below what they need (or 30 columns).
	for _, i := range s.drop {
		if opts.Width-rest() >= min(nameW, 30) {
			break
		}
		widths[i] = 0
	}
	nameW = max(min(nameW, opts.Width-rest()), min(nameW, 12), nameMin)

	line := func(name string, cells []string, v analysis.Verdict) string {
		var b strings.Builder
		b.WriteString(pad(name, nameW, false))
		for i, wd := range widths {
			if wd == 0 {
				continue
			}
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			b.WriteString("  ")
			if i == s.verdictCol || i >= len(s.cols) {
				cell := pad(c, wd, false)
				if opts.Color && i == s.verdictCol && c != "" {
					cell = colorize(cell, v)
				}
				b.WriteString(cell)
				continue
			}
			b.WriteString(pad(c, wd, true))
		}
		return strings.TrimRight(b.String(), " ")
	}
	names := treeNames(s.rows, nameW)
	for i, r := range s.rows {
		if len(r.cells) > 0 || !r.sub {
			nameW = max(nameW, width(names[i]))
		}
	}
	fmt.Fprintln(w, line("", s.cols, ""))
	for i, r := range s.rows {
		if len(r.cells) == 0 && r.sub {
			fmt.Fprintln(w, r.prefix+r.name)
			continue
		}
		fmt.Fprintln(w, line(names[i], r.cells, r.verdict))
	}
	return s.changes && len(widths) > 2 && widths[2] > 0
}

// treeNames returns each row's name column: its tree drawing, its name
// shortened to fit nameW (five columns at least) and its footnote
// marker. A shortened name never reads the same as a sibling's (rows
// under the same parent): the names of those that would are given the
// room they need.
func treeNames(rows []row, nameW int) []string {
	out := make([]string, len(rows))
	room := func(r row, w int) int { return max(w-width(r.prefix)-noteWidth(r.note), 5) }
	// Siblings share their parent's path; rows without a path (a metric
	// under its benchmark) are not names.
	parent := func(r row) string { return strings.TrimSuffix(r.path, r.name) }
	lay := func(w int) bool {
		seen := map[[2]string]string{}
		ok := true
		for i, r := range rows {
			name := truncate(r.name, room(r, w))
			if r.path != "" && !r.sub {
				k := [2]string{parent(r), name}
				if prev, dup := seen[k]; dup && prev != r.name {
					ok = false
				}
				seen[k] = r.name
			}
			out[i] = r.prefix + name
			if r.note != "" {
				out[i] += " " + r.note
			}
		}
		return ok
	}
	if lay(nameW) {
		return out
	}
	longest := nameW
	for _, r := range rows {
		longest = max(longest, width(r.prefix)+width(r.name)+noteWidth(r.note))
	}
	lo, hi := nameW, longest // lay(lo) fails, lay(hi) succeeds
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; lay(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	lay(hi)
	return out
}

// noteWidth is the room a footnote marker takes after a name.
func noteWidth(note string) int {
	if note == "" {
		return 0
	}
	return 1 + width(note)
}

// barRunes are the eighths of a block, for bars with sub-cell precision.
var barRunes = []rune(" ▏▎▍▌▋▊▉")

// writeBars writes a section's bar charts, fastest first: bars are
// proportional to throughput, or to the inverse of time.
func writeBars(w io.Writer, s section, opts Options) {
	for _, c := range s.charts {
		writeChart(w, c, opts)
	}
}

func writeChart(w io.Writer, bars []bar, opts Options) {
	if len(bars) < 2 {
		return
	}
	bars = slices.Clone(bars)
	// Values are throughputs (higher is faster) or negated times.
	slices.SortStableFunc(bars, func(a, b bar) int {
		switch {
		case a.value > b.value:
			return -1
		case a.value < b.value:
			return 1
		}
		return 0
	})
	labelW, textW := 0, 0
	for _, b := range bars {
		labelW = max(labelW, width(b.label))
		textW = max(textW, width(b.text))
	}
	labels := make([]string, len(bars))
	for i, b := range bars {
		labels[i] = b.label
	}
	labels, labelW = fitNames(labels, nil, min(labelW, max(opts.Width/3, 12)))
	barW := min(opts.Width-labelW-textW-4, 50)
	if barW < 5 {
		barW = 5
	}
	fmt.Fprintln(w)
	best := bars[0].value
	for i, b := range bars {
		// Throughput bars are value/best; time bars best/value (both
		// negated, so the ratio is the same expression inverted).
		frac := b.value / best
		if b.value < 0 {
			frac = best / b.value
		}
		cells := frac * float64(barW)
		full := int(cells)
		eighths := int((cells - float64(full)) * 8)
		bs := strings.Repeat("█", full)
		if eighths > 0 {
			bs += string(barRunes[eighths])
		}
		if bs == "" {
			bs = "▏"
		}
		fmt.Fprintf(w, "%s  %s  %s\n", pad(labels[i], labelW, false), pad(bs, barW, false), b.text)
	}
}

// writeNotes writes the numbered footnotes, then the run's notes.
func writeNotes(w io.Writer, notes []footnote, rep *analysis.Report, opts Options) {
	if len(notes) == 0 && len(rep.Notes) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Notes:")
	for _, n := range notes {
		fmt.Fprintf(w, "[%d] %s\n", n.n, n.title)
		for _, l := range n.lines {
			fmt.Fprintf(w, "    - %s\n", l)
		}
	}
	for _, n := range rep.Notes {
		if opts.Verbose || !analysis.Routine(n, false) {
			fmt.Fprintf(w, "- %s\n", n.Text)
		}
	}
}
