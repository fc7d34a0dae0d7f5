package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
	"golang.org/x/perf/benchunit"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/internal/redact"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// spread formats a summary's "± 7%".
func spread(s analysis.Summary) string {
	sp := s.Spread()
	switch {
	case math.IsInf(sp, 1):
		return "∞"
	case math.IsNaN(sp) || sp < 0:
		// A negative spread comes from a negative center: a relative
		// width means nothing there ("± -5%").
		return "?"
	}
	return fmt.Sprintf("%.0f%%", sp*100)
}

// center formats "8107.5n ± 7%" with the table's common scale, or "-"
// when the side has no samples.
//
// When the headline is the slope of linear sampling (Summary.Headline),
// the cell shows it, and says so: "10.86µ ± 1% slope".
func center(s analysis.Summary, sc benchunit.Scaler) string {
	if s.N == 0 {
		return "-"
	}
	if h, ok := slopeHeadline(s); ok {
		return scaled(h.Center, sc) + " ± " + spread(h) + " slope"
	}
	return scaled(s.Center, sc) + " ± " + spread(s)
}

// slopeHeadline returns s with the slope as its center and interval when
// the slope is its headline.
func slopeHeadline(s analysis.Summary) (analysis.Summary, bool) {
	name, iv := s.Headline()
	if name != analysis.HeadlineSlope {
		return s, false
	}
	s.Center, s.Lo, s.Hi = iv.Estimate, iv.Lo, iv.Hi
	return s, true
}

// metricCenter is center for a row of m's table: an exact metric's
// value alone, without the "± 0%" of a spread it cannot have: scaled as
// the row is ("42.195Ki" and "1.867Ki"), a whole count of a row without
// a prefix as it is ("127", not "127.000"), and 0 as "0".
func metricCenter(m analysis.Metric, s analysis.Summary, sc benchunit.Scaler) string {
	if !m.Exact || s.N == 0 {
		return center(s, sc)
	}
	switch {
	case s.Center == 0:
		return "0"
	case sc.Prefix == "" && s.Center == math.Trunc(s.Center) && math.Abs(s.Center) < 1e15:
		return strconv.FormatFloat(s.Center, 'f', 0, 64)
	}
	return scaled(s.Center, sc)
}

func scaled(v float64, sc benchunit.Scaler) string {
	if math.IsNaN(v) {
		return "?"
	}
	if x := v / sc.Factor; math.Abs(x) >= hugeScaled {
		// Far beyond the table's common scale: in exponent form, not
		// hundreds of digits.
		return strconv.FormatFloat(x, 'g', 4, 64) + sc.Prefix
	}
	return sc.Format(v)
}

// hugeScaled is the magnitude from which numbers print in exponent form.
const hugeScaled = 1e15

// rowScaler returns the scale benchstat gives one row: the prefix and
// precision that show its smallest center (over every side with
// samples) with four significant digits, shared by the row's other
// centers: 1.509m and 1.452m, 8107.5n and 800.4n.
func rowScaler(m analysis.Metric) benchunit.Scaler {
	var vals []float64
	for _, s := range m.Sides {
		if s.N > 0 && !math.IsNaN(s.Center) && !math.IsInf(s.Center, 0) {
			vals = append(vals, s.Center)
		}
	}
	return benchunit.CommonScale(vals, benchunit.ClassOf(m.Unit))
}

// geomeanScaler is rowScaler for a geomean row.
func geomeanScaler(g analysis.Geomean) benchunit.Scaler {
	var vals []float64
	for _, c := range g.Centers {
		if !math.IsNaN(c) && !math.IsInf(c, 0) {
			vals = append(vals, c)
		}
	}
	return benchunit.CommonScale(vals, benchunit.ClassOf(g.Unit))
}

// percent formats a relative change: -0.9013 -> "-90.13%".
func percent(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "?"
	}
	if math.Abs(f*100) >= hugeScaled {
		return fmt.Sprintf("%+.4g%%", f*100)
	}
	return fmt.Sprintf("%+.2f%%", f*100)
}

// estimate formats a change's estimate with rel ("-90.13%"), or, when
// the relative change is undefined because the baseline is zero, the
// absolute change with its unit: "+1 allocs/op".
func estimate(c *analysis.Change, unit string, rel func(float64) string) string {
	if math.IsNaN(c.Estimate) && !math.IsNaN(c.Delta) && !math.IsInf(c.Delta, 0) {
		f := "%+.4g"
		if c.Delta == math.Trunc(c.Delta) && math.Abs(c.Delta) < 1e15 {
			f = "%+.0f"
		}
		return strings.TrimSpace(fmt.Sprintf(f, c.Delta) + " " + unit)
	}
	return rel(c.Estimate)
}

// changeCI formats "[-91.20%, -89.02%]"; "-" without an interval (not
// "[?, ?]", which printed an interval that does not exist beside "+0
// allocs/op" on few samples).
func changeCI(c *analysis.Change) string {
	if c.Test == "exact" || c.Lo == c.Hi && c.Lo == c.Estimate {
		return "(exact)"
	}
	if math.IsNaN(c.Lo) || math.IsNaN(c.Hi) {
		return "-"
	}
	return "[" + percent(c.Lo) + ", " + percent(c.Hi) + "]"
}

// pValue formats a p-value as benchstat does ("p=0.000") and marks a
// corrected one.
func pValue(c *analysis.Change) string {
	if math.IsNaN(c.PAdjusted) {
		return "p=?"
	}
	return fmt.Sprintf("p=%.3f", c.PAdjusted)
}

// better names a unit's direction for machine formats.
func better(b int) string {
	if b > 0 {
		return "higher"
	}
	return "lower"
}

// width is the display width of s in a terminal.
func width(s string) int { return runewidth.StringWidth(s) }

// pad pads s with spaces to w display columns, left- or right-aligned.
func pad(s string, w int, right bool) string {
	n := w - width(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

// truncate shortens s to at most w display columns, keeping its start
// and end (where sub-benchmark parameters usually are).
func truncate(s string, w int) string {
	if width(s) <= w || w < 5 {
		return s
	}
	keep := w - 1
	head := runewidth.Truncate(s, keep-keep/2, "")
	rs := []rune(s)
	tail := ""
	for i := len(rs) - 1; i >= 0 && width(tail)+runewidth.RuneWidth(rs[i]) <= keep/2; i-- {
		tail = string(rs[i]) + tail
	}
	return head + "…" + tail
}

// noLimit is the width of output that is not read on a terminal (a file,
// a pipe): names are never shortened and no column is dropped.
const noLimit = 1 << 20

// lineWidth is opts.Width, or noLimit when it is not positive.
func lineWidth(opts Options) int {
	if opts.Width <= 0 {
		return noLimit
	}
	return opts.Width
}

// fitNames shortens names to at most w display columns (see truncate),
// but never so far that two different names read the same within a
// scope: scopes[i] (nil for one scope) is what the reader sees around
// names[i], such as its group. It widens w as little as it must for
// that, and returns the names as shown and the width used.
func fitNames(names, scopes []string, w int) ([]string, int) {
	longest := 0
	for _, n := range names {
		longest = max(longest, width(n))
	}
	scope := func(i int) string {
		if scopes == nil {
			return ""
		}
		return scopes[i]
	}
	try := func(w int) ([]string, bool) {
		out := make([]string, len(names))
		seen := make(map[[2]string]string, len(names))
		for i, n := range names {
			out[i] = truncate(n, w)
			k := [2]string{scope(i), out[i]}
			if prev, ok := seen[k]; ok && prev != n {
				return nil, false
			}
			seen[k] = n
		}
		return out, true
	}
	if w >= longest {
		return slices.Clone(names), longest
	}
	if out, ok := try(w); ok {
		return out, w
	}
	// The full names are distinct; find the narrowest width that keeps
	// them so, by bisection (every width returned was checked).
	lo, hi := w, longest // try(lo) fails, try(hi) succeeds
	best := slices.Clone(names)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if out, ok := try(mid); ok {
			hi, best = mid, out
		} else {
			lo = mid
		}
	}
	return best, hi
}

// groupNames lays out a column of names for a terminal w columns wide,
// as benchstat groups rows under a shared key. When a name does not
// fit, each run of two or more consecutive names with the same first
// element (up to a slash or a comma: "Hashes/") goes under a group line
// of it, each name without it and indented. A group whose names still
// do not fit takes in their next element when they all share it
// ("Hashes/xxhash,"), or splits into groups by it ("Hashes/xxhash,direct,"
// and "Hashes/xxhash,digest,") when each of those would have two names
// or more. heads[i] is the group line to print before row i, or "". The
// names as shown are then fitted to w with fitNames, distinct within
// their group.
func groupNames(names []string, w int) (heads, shown []string) {
	heads = make([]string, len(names))
	shown = slices.Clone(names)
	fits := true
	for _, n := range names {
		fits = fits && width(n) <= w
	}
	if fits {
		return heads, shown
	}
	scopes := make([]string, len(names))
	// next returns the element of name that follows scope, with its
	// separator, or "" when none follows.
	next := func(name, scope string) string {
		rest := strings.TrimPrefix(name, scope)
		i := strings.IndexAny(rest, "/,")
		if i < 0 || i == len(rest)-1 {
			return ""
		}
		return rest[:i+1]
	}
	var refine func(rows []int, scope string, top bool)
	refine = func(rows []int, scope string, top bool) {
		type run struct {
			i, j int
			elem string
		}
		var runs []run
		for i := 0; i < len(rows); {
			e := next(names[rows[i]], scope)
			j := i + 1
			for j < len(rows) && e != "" && next(names[rows[j]], scope) == e {
				j++
			}
			if !top && (e == "" || j-i < 2) {
				return // no clean split: the group stays as it is
			}
			runs = append(runs, run{i, j, e})
			i = j
		}
		for _, r := range runs {
			if r.elem == "" || r.j-r.i < 2 {
				continue
			}
			sub := scope + r.elem
			over := false
			for _, k := range rows[r.i:r.j] {
				scopes[k] = sub
				over = over || 2+width(names[k])-width(sub) > w
			}
			if over {
				refine(rows[r.i:r.j], sub, false)
			}
		}
	}
	all := make([]int, len(names))
	for i := range all {
		all[i] = i
	}
	refine(all, "", true)
	for i, n := range names {
		if scopes[i] == "" {
			continue
		}
		shown[i] = "  " + strings.TrimPrefix(n, scopes[i])
		if i == 0 || scopes[i-1] != scopes[i] {
			heads[i] = scopes[i]
		}
	}
	shown, _ = fitNames(shown, scopes, w)
	return heads, shown
}

// shellQuote joins args into one line a POSIX shell reads back as the
// same arguments: an argument with characters the shell treats
// specially, or an empty one, is single-quoted; one with control
// characters is written in $'...' form (bash, zsh, ksh), so that it
// stays on one line.
func shellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuoteArg(a)
	}
	return strings.Join(out, " ")
}

func shellQuoteArg(a string) string {
	if a == "" {
		return "''"
	}
	plain, control := true, false
	for i := 0; i < len(a); {
		r, n := utf8.DecodeRuneInString(a[i:])
		i += n
		switch {
		case escapable(r) || r == utf8.RuneError && n == 1:
			control = true
		case r < utf8.RuneSelf && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-~", r)):
			plain = false
		}
	}
	if !control {
		if plain && a[0] != '=' && a[0] != '~' { // a leading = (zsh) or ~ expands
			return a
		}
		return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(a); {
		r, n := utf8.DecodeRuneInString(a[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, a[i])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case escapable(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case escapable(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(a[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// changeHeader names the column of the change of side against the
// baseline: "vs base" as benchstat says for a ratio of medians, "paired
// Δ" when it is the center of the per-round ratios (see pairedLegend).
// With more than two sides it starts with side, unless side is "".
func changeHeader(rep *analysis.Report, side string) string {
	h := "vs base"
	if rep.Paired {
		h = "paired Δ"
	}
	if len(rep.Sides) > 2 && side != "" {
		h = side + " " + h
	}
	return h
}

// disagreeMark follows a change whose sign differs from the medians
// beside it (analysis.Metric.DisagreesWithMedians); disagreeLegend says
// why.
const disagreeMark = "†"

// pairedLegend says, in a line under a paired table, what its change
// column holds and what the medians beside it are.
func pairedLegend(rep *analysis.Report) string {
	ratios := rep.Sides[len(rep.Sides)-1] + "/" + rep.Sides[0]
	if len(rep.Sides) > 2 {
		ratios = "side/" + rep.Sides[0]
	}
	if acrossLinks(rep) {
		return fmt.Sprintf("paired Δ: the mean, over the pairs of links (each side's binary linked with several random layouts, the rounds cycling through them), of each pair's center of its per-round %s ratios (Hodges-Lehmann), with Student's t %s CI across the pairs, so the layouts' variation is inside it; the medians are each side's own, for context.",
			ratios, words.PctSetting(rep.Options.Confidence))
	}
	return fmt.Sprintf("paired Δ: center of the per-round %s ratios (Hodges-Lehmann) with its %s CI; the medians are each side's own, for context.",
		ratios, words.PctSetting(rep.Options.Confidence))
}

// acrossLinks reports whether some change of rep was measured across
// several links per side (analysis.TestLayouts).
func acrossLinks(rep *analysis.Report) bool {
	for i := range rep.Benchmarks {
		for _, m := range rep.Benchmarks[i].Metrics {
			if slices.ContainsFunc(m.Changes, func(c *analysis.Change) bool { return c != nil && c.Test == analysis.TestLayouts }) {
				return true
			}
		}
	}
	return false
}

// instructionsLegend says, under a table with a change of instructions
// per op, what that change and its interval are.
func instructionsLegend(rep *analysis.Report) string {
	return fmt.Sprintf("instructions/op: Δ is the median of the new over old ratios of the windows' counts (Hodges-Lehmann), its interval Moses's (with 4 windows a side, lowest new over highest old to highest new over lowest old); a count moved when that interval lies beyond ±%s, and did not when it lies inside.",
		words.Pct(rep.Options.InstructionsTolerance))
}

// showsInstructions reports whether pkg's results table has a row
// decided by instructions per op.
func showsInstructions(rep *analysis.Report, pkg string) bool {
	for i := range rep.Benchmarks {
		b := &rep.Benchmarks[i]
		if b.Pkg == pkg && slices.ContainsFunc(b.Decisions, func(d analysis.Decision) bool { return d.By == analysis.ByInstructions }) {
			return true
		}
	}
	return false
}

// disagreeLegend explains disagreeMark.
const disagreeLegend = disagreeMark + " opposite sign to the medians: the rounds varied more than the change, which paired Δ measures within each round."

// wrap breaks s into lines of at most w display columns at spaces (a
// longer word stays whole); lines after the first start with indent.
func wrap(s string, w int, indent string) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case width(line)+1+width(word) <= w:
			line += " " + word
		default:
			lines = append(lines, line)
			line = indent + word
		}
	}
	return append(lines, line)
}

// sideRows describes the sides of a run of revisions or builds, one row
// of cells per side: its label, where it came from ("working tree" for
// "."), the short revision with "+dirty" for uncommitted changes, and
// the build settings (tags, gcflags, Go toolchain, environment, the test
// binaries' arguments) that
// any side sets, on every side, so that a setting both share (rigor ab
// --tags purego) is named too. It is nil when there is nothing to tell:
// one side, or sides with no revision and no build setting (files,
// variants).
// Strings come from the run as they are; callers escape them.
func sideRows(rep *analysis.Report) [][]string {
	run := rep.Run
	if run == nil || len(run.Sides) < 2 || len(run.Sides) != len(rep.Sides) {
		return nil
	}
	type setting struct {
		key  string
		of   func(model.Side) string
		none string
	}
	settings := []setting{
		{"tags", func(s model.Side) string { return s.Tags }, "(none)"},
		{"gcflags", func(s model.Side) string { return s.GCFlags }, "(none)"},
		{"go", func(s model.Side) string { return s.Toolchain }, "(default)"},
		// Without their secrets (GOPROXY=https://user:xxxxx@...), as
		// the command line is shown; the run keeps them, to build again.
		{"env", func(s model.Side) string { return shellQuote(redact.Args(s.BuildEnv)) }, "(none)"},
		{"args", func(s model.Side) string { return shellQuote(redact.Args(s.Args)) }, "(none)"},
	}
	var shown []setting
	hasRev := false
	for _, st := range settings {
		if slices.ContainsFunc(run.Sides, func(s model.Side) bool { return st.of(s) != "" }) {
			shown = append(shown, st)
		}
	}
	for _, s := range run.Sides {
		hasRev = hasRev || s.Rev != "" || s.Dirty
	}
	if !hasRev && len(shown) == 0 {
		return nil
	}
	var rows [][]string
	for _, s := range run.Sides {
		src := s.Source
		switch {
		case src == ".":
			src = "working tree"
		case src == s.Label:
			src = ""
		case slices.ContainsFunc(run.Sides, func(o model.Side) bool { return o.Label == src }):
			// A ref named like another side ("old: new 5480b1315300"
			// for rigor ab --old new, the ref new measured as side
			// old) reads as a side, not a ref.
			src = "ref " + src
		}
		rev := s.Rev
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if s.Dirty {
			rev += "+dirty"
		}
		var build []string
		for _, st := range shown {
			v := st.of(s)
			if v == "" {
				v = st.none
			} else if st.key != "env" && st.key != "args" {
				v = shellQuoteArg(v)
			}
			if st.key == "args" {
				build = append(build, "-- "+v) // as rigor ab's command line passes them
				continue
			}
			build = append(build, st.key+"="+v)
		}
		rows = append(rows, []string{s.Label, src, strings.TrimPrefix(rev, "+"), strings.Join(build, " ")})
	}
	return rows
}

// sideLines lays out sideRows as aligned lines for a terminal:
// "old: HEAD~1        a8cdb6b4ef6c        tags=purego".
func sideLines(rep *analysis.Report) []string {
	rows := sideRows(rep)
	if rows == nil {
		return nil
	}
	widths := make([]int, 4)
	for _, r := range rows {
		for i, c := range r {
			r[i] = TerminalSafe(c)
			widths[i] = max(widths[i], width(r[i]))
		}
	}
	var lines []string
	for _, r := range rows {
		var b strings.Builder
		b.WriteString(pad(r[0]+":", widths[0]+1, false))
		for i, c := range r[1:] {
			if widths[i+1] > 0 {
				b.WriteString(" " + pad(c, widths[i+1], false))
			}
		}
		lines = append(lines, strings.TrimRight(b.String(), " "))
	}
	return lines
}
