package execbench

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rigorbench/rigor/internal/words"
)

// Markup formats of WriteMarkup: hyperfine's --export-markdown,
// --export-asciidoc and --export-orgmode.
const (
	Markdown = "markdown"
	AsciiDoc = "asciidoc"
	OrgMode  = "orgmode"
)

// WriteCSV writes the rows, in command order as hyperfine's --export-csv
// writes them whatever --sort says: hyperfine's columns
// first, in seconds (command, mean, stddev (0 after a single run),
// median, user, system, min, max, then parameter_NAME for each parameter,
// sorted by name), then rigor's: median_ci_low and median_ci_high (the
// median's interval), relative, relative_ci_low and relative_ci_high (see
// Row.Relative), verdict and clock (the unit the verdict was taken from).
// A number that does not exist is an empty field.
func (s *Summary) WriteCSV(w io.Writer) error {
	rows := s.Rows
	var params []string
	if len(rows) > 0 {
		for k := range rows[0].Parameters {
			params = append(params, k)
		}
		slices.Sort(params)
	}
	header := []string{"command", "mean", "stddev", "median", "user", "system", "min", "max"}
	for _, p := range params {
		header = append(header, "parameter_"+p)
	}
	header = append(header, "median_ci_low", "median_ci_high", "relative", "relative_ci_low", "relative_ci_high", "verdict", "clock")
	cw := csv.NewWriter(w)
	cw.Write(header)
	num := func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	for _, r := range rows {
		sd := 0.0
		if r.StdDev != nil {
			sd = *r.StdDev
		}
		rec := []string{csvText(r.Command), num(r.Mean), num(sd), num(r.Median), num(r.User), num(r.System), num(r.Min), num(r.Max)}
		for _, p := range params {
			rec = append(rec, csvText(r.Parameters[p]))
		}
		rec = append(rec, num(r.MedianLo), num(r.MedianHi), num(r.Relative), num(r.RelativeLo), num(r.RelativeHi), string(r.Verdict), r.Clock)
		cw.Write(rec)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return nil
}

// csvText is a text cell of the CSV export: escaped for a terminal (as
// every export is), and guarded against formula injection as the report's
// CSV is (OWASP's advice): a cell that starts with =, +, -, @ is prefixed
// with a single quote, so that a spreadsheet shows it as text. (A tab or
// carriage return is shown escaped already.)
func csvText(s string) string {
	s = words.TerminalSafe(s)
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		return "'" + s
	}
	return s
}

// WriteMarkup writes rows (s.Rows, or s.Sorted's) as a table in format
// (Markdown, AsciiDoc or OrgMode), laid out as hyperfine lays out its
// tables, times in unit (nil: hyperfine's choice, from the mean of the
// first row in command order). The columns are hyperfine's
// with rigor's inserted: Command, Mean (± the standard deviation),
// Median, the median's confidence interval, Min, Max, Relative (see
// Row.Relative), its interval, and the verdict against the reference
// ("reference" on the reference's rows; "(CPU time)" when CPU time
// decided it).
func (s *Summary) WriteMarkup(w io.Writer, format string, rows []Row, unit *TimeUnit) error {
	u := autoUnit(s.Rows)
	if unit != nil {
		u = *unit
	}
	var t markup
	switch format {
	case Markdown:
		t = markdown{}
	case AsciiDoc:
		t = asciidoc{}
	case OrgMode:
		t = orgmode{}
	default:
		return fmt.Errorf("unknown markup format %q", format)
	}
	level := strconv.FormatFloat(s.Confidence*100, 'f', -1, 64) + "% CI"
	bracket := " [" + u.Short + "]"
	header := []string{"Command", "Mean" + bracket, "Median" + bracket, level + bracket, "Min" + bracket, "Max" + bracket, "Relative", level, "Verdict"}
	right := []bool{false, true, true, true, true, true, true, true, false}
	f := u.format
	interval := func(lo, hi float64, f func(float64) string) string {
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return ""
		}
		return "[" + f(lo) + ", " + f(hi) + "]"
	}
	ratio := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	var cells [][]string
	for _, r := range rows {
		mean := f(r.Mean)
		if r.StdDev != nil {
			mean += " ± " + f(*r.StdDev)
		}
		rel := ""
		if !math.IsNaN(r.Relative) && !math.IsInf(r.Relative, 0) {
			rel = ratio(r.Relative)
		}
		verdict := string(r.Verdict)
		switch {
		case r.Reference:
			verdict = "reference"
		case verdict != "" && r.Clock == CPUUnit:
			verdict += " (CPU time)"
		}
		cells = append(cells, []string{
			markupCommand(t, r.Title), mean, f(r.Median), interval(r.MedianLo, r.MedianHi, f), f(r.Min), f(r.Max),
			rel, interval(r.RelativeLo, r.RelativeHi, ratio), verdict,
		})
	}
	if _, err := io.WriteString(w, renderTable(t, header, right, cells)); err != nil {
		return fmt.Errorf("writing %s: %w", format, err)
	}
	return nil
}

// format writes v seconds in u, with hyperfine's precision.
func (u TimeUnit) format(v float64) string {
	return strconv.FormatFloat(v*u.Scale, 'f', u.Decimals, 64)
}

// markupCommand is a command's cell: hyperfine escapes the | that would
// end it; rigor also keeps a line break from ending the row, and shows
// what a terminal would act on (an escape sequence in a --name) escaped.
func markupCommand(t markup, cmd string) string {
	return t.command(words.TerminalSafe(strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(cmd)))
}

// renderTable lays out a table in t: the header row, then rows of cells,
// right marking the right-aligned columns.
func renderTable(t markup, header []string, right []bool, rows [][]string) string {
	var b strings.Builder
	b.WriteString(t.header(right))
	b.WriteString(t.row(header))
	b.WriteString(t.divider(right))
	for _, r := range rows {
		b.WriteString(t.row(r))
	}
	b.WriteString(t.footer())
	return b.String()
}

// A markup lays out a table as one of hyperfine's exporters does
// (src/export/markdown.rs, asciidoc.rs, orgmode.rs).
type markup interface {
	header(right []bool) string
	row(cells []string) string
	divider(right []bool) string
	footer() string
	command(cmd string) string
}

type markdown struct{}

func (markdown) header([]bool) string { return "" }
func (markdown) row(cells []string) string {
	return "| " + strings.Join(cells, " | ") + " |\n"
}
func (markdown) divider(right []bool) string {
	var b strings.Builder
	b.WriteString("|")
	for _, r := range right {
		if r {
			b.WriteString("---:|")
		} else {
			b.WriteString(":---|")
		}
	}
	return b.String() + "\n"
}
func (markdown) footer() string { return "" }

// command is a code span fenced with one backtick more than the longest
// run of backticks in cmd (a space inside when cmd has any), so that no
// backtick in a command ends it early and the rest of the command is
// read as Markdown.
func (markdown) command(cmd string) string {
	return words.CodeSpan(cmd)
}

type asciidoc struct{}

func (asciidoc) header(right []bool) string {
	cols := make([]string, len(right))
	for i, r := range right {
		cols[i] = "<"
		if r {
			cols[i] = ">"
		}
	}
	return `[cols="` + strings.Join(cols, ",") + "\"]\n|==="
}
func (asciidoc) row(cells []string) string {
	return "\n| " + strings.Join(cells, " \n| ") + " \n"
}
func (asciidoc) divider([]bool) string     { return "" }
func (asciidoc) footer() string            { return "|===\n" }
func (asciidoc) command(cmd string) string { return "`" + cmd + "`" }

type orgmode struct{}

func (orgmode) header([]bool) string { return "" }
func (orgmode) row(cells []string) string {
	return "| " + cells[0] + "  |  " + strings.Join(cells[1:], " |  ") + " |\n"
}
func (orgmode) divider(right []bool) string {
	return "|" + strings.Repeat("--+", len(right)-1) + "--|\n"
}
func (orgmode) footer() string            { return "" }
func (orgmode) command(cmd string) string { return "=" + cmd + "=" }
