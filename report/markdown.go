package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/internal/words"
)

func init() { register("md", renderMarkdown) }

// renderMarkdown writes GitHub-flavoured Markdown, fit for a pull-request
// comment or $GITHUB_STEP_SUMMARY: a headline of verdict counts, a table
// per unit, then the notes.
func renderMarkdown(w io.Writer, rep *analysis.Report, opts Options) error {
	ew := &errWriter{w: w}
	counts := map[analysis.Verdict]int{}
	for _, b := range rep.Benchmarks {
		for _, m := range b.Metrics {
			for _, c := range m.Changes {
				if c != nil {
					counts[c.Verdict]++
				}
			}
		}
	}
	sides := make([]string, len(rep.Sides))
	for i, s := range rep.Sides {
		sides[i] = mdEscape(s)
	}
	fmt.Fprintf(ew, "### rigor: %s\n\n", strings.Join(sides, " vs "))
	if run := rep.Run; run != nil && len(run.Command) > 0 {
		// Quoted as a shell reads it, so that it can be pasted back.
		fmt.Fprintf(ew, "%s\n\n", mdCode(TerminalSafe(shellQuote(run.Command))))
	}
	if rows := sideRows(rep); rows != nil {
		for _, r := range rows {
			line := "- " + mdEscape(TerminalSafe(r[0])) + ":"
			for _, c := range r[1:] {
				if c != "" {
					line += " " + mdCode(TerminalSafe(c))
				}
			}
			fmt.Fprintln(ew, line)
		}
		fmt.Fprintln(ew)
	}
	if len(rep.Sides) > 1 {
		fmt.Fprintf(ew, "**%d regressed**, %d improved, %d unchanged, %d inconclusive", counts[analysis.Regressed],
			counts[analysis.Improved], counts[analysis.Unchanged], counts[analysis.Inconclusive])
		if rep.Paired {
			fmt.Fprint(ew, " (paired, interleaved rounds)")
		}
		fmt.Fprint(ew, "\n\n")
	}
	legend := true
	for _, pkg := range packages(rep) {
		if pkg != "" {
			fmt.Fprintf(ew, "%s\n\n", mdCode(pkg))
		}
		for _, unit := range units(rep, pkg) {
			if !opts.Verbose && allZero(rep, pkg, unit) {
				continue
			}
			head := []string{mdEscape(unit)}
			for _, s := range rep.Sides {
				head = append(head, mdEscape(s))
			}
			change := "change"
			if rep.Paired {
				change = "paired Δ"
			}
			for _, s := range rep.Sides[1:] {
				head = append(head, change+" ("+mdEscape(s)+")", words.PctSetting(rep.Options.Confidence)+" CI", "p", "verdict")
			}
			marked := false
			fmt.Fprintf(ew, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat(" ---: |", len(head)))
			for _, b := range rep.Benchmarks {
				if b.Pkg != pkg {
					continue
				}
				for _, m := range b.Metrics {
					if m.Unit != unit || !opts.Verbose && m.AllZero() {
						continue
					}
					sc := rowScaler(m)
					row := []string{mdEscape(b.FullName)}
					for _, s := range m.Sides {
						row = append(row, center(s, sc))
					}
					for i, c := range m.Changes {
						if c == nil {
							row = append(row, "-", "", "", "")
							continue
						}
						v := string(c.Verdict)
						if c.Verdict.Significant() {
							v = "**" + v + "**"
						}
						est := estimate(c, m.Unit, percent)
						if m.DisagreesWithMedians(i) {
							est += disagreeMark
							marked = true
						}
						row = append(row, est, changeCI(c), pValue(c), v)
					}
					fmt.Fprintf(ew, "| %s |\n", strings.Join(row, " | "))
				}
			}
			fmt.Fprintln(ew)
			if rep.Paired && len(rep.Sides) > 1 && legend {
				legend = false
				fmt.Fprintf(ew, "%s\n\n", mdEscape(pairedLegend(rep)))
			}
			if marked {
				fmt.Fprintf(ew, "%s\n\n", mdEscape(disagreeLegend))
			}
		}
	}
	if notes := footnotes(rep, opts.Verbose); len(notes) > 0 {
		fmt.Fprintln(ew, "<details><summary>Notes</summary>")
		fmt.Fprintln(ew)
		for _, n := range notes {
			fmt.Fprintf(ew, "- %s\n", mdEscape(n))
		}
		fmt.Fprintln(ew, "\n</details>")
	}
	return ew.err
}

// mdEscaper backslash-escapes every ASCII punctuation character that
// Markdown gives a meaning to (CommonMark lets any of them be escaped),
// the backslash first among them, so that user text (benchmark names,
// side labels) is read as text in a heading, a list or a table cell: no
// link, emphasis, code span, heading or cell break. < and > become
// entities (no HTML); line breaks, already shown as \n by TerminalSafe,
// cannot end a cell or a heading.
var mdEscaper = strings.NewReplacer(
	"\\", "\\\\", "|", "\\|", "*", "\\*", "_", "\\_", "`", "\\`", "[", "\\[", "]", "\\]",
	"#", "\\#", "!", "\\!", "~", "\\~", "&", "&amp;", "<", "&lt;", ">", "&gt;",
	"\n", " ", "\r", " ",
)

func mdEscape(s string) string { return mdEscaper.Replace(s) }

// mdCode writes s as an inline code span, fenced with one backtick more
// than the longest run of backticks in s, so that no backtick in s ends
// it early.
func mdCode(s string) string {
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, " ") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
