package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/internal/redact"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// renderMarkdown writes GitHub-flavoured Markdown, fit for a pull-request
// comment or $GITHUB_STEP_SUMMARY: the head (A/A, the verdicts counted by
// benchmark, the gate), the sides, one results table per package (as
// text's), the tables of the other metrics that are measurements of
// their own (every metric's with -v), then the notes, folded.
func renderMarkdown(w io.Writer, rep *analysis.Report, opts Options) error {
	ew := &errWriter{w: w}
	sides := make([]string, len(rep.Sides))
	for i, s := range rep.Sides {
		sides[i] = mdEscape(s)
	}
	fmt.Fprintf(ew, "### rigor: %s\n\n", strings.Join(sides, " vs "))
	for _, h := range headLines(rep) {
		fmt.Fprintf(ew, "**%s**%s\n\n", mdEscape(h.lead), mdEscape(h.rest))
	}
	if run := rep.Run; run != nil && len(run.Command) > 0 {
		// Quoted as a shell reads it, so that it can be pasted back;
		// without its secrets, for a run an older rigor recorded.
		fmt.Fprintf(ew, "%s\n\n", mdCode(TerminalSafe(shellQuote(redact.Args(run.Command)))))
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
	if m := methodLine(rep); m != "" {
		fmt.Fprintf(ew, "%s\n\n", mdEscape(m))
	}
	legend := true
	if rep.Kind == model.KindExec && len(rep.Sides) > 1 {
		mdTable(ew, execView(rep))
		fmt.Fprintln(ew)
		legend = false
	}
	for _, pkg := range packages(rep) {
		if pkg != "" {
			fmt.Fprintf(ew, "%s\n\n", mdCode(pkg))
		}
		if len(rep.Sides) > 1 && rep.Kind != model.KindExec {
			rv := results(rep, pkg)
			mdTable(ew, rv)
			fmt.Fprintln(ew)
			if rep.Paired && legend {
				legend = false
				fmt.Fprintf(ew, "%s\n\n", mdEscape(pairedLegend(rep)))
			}
			if rv.marked {
				fmt.Fprintf(ew, "%s\n\n", mdEscape(disagreeLegend))
			}
		}
		for _, unit := range units(rep, pkg) {
			if !shownTable(rep, pkg, unit, opts.Verbose) {
				continue
			}
			head := []string{mdCell(unit)}
			for _, s := range rep.Sides {
				head = append(head, mdCell(s))
			}
			change := "change"
			if rep.Paired {
				change = "paired Δ"
			}
			for _, s := range rep.Sides[1:] {
				head = append(head, change+" ("+mdCell(s)+")", words.PctSetting(rep.Options.Confidence)+" CI", "p", "verdict")
			}
			marked := false
			align := []string{":---"}
			for _, h := range head[1:] {
				if h == "verdict" {
					align = append(align, ":---")
				} else {
					align = append(align, "---:")
				}
			}
			fmt.Fprintf(ew, "| %s |\n| %s |\n", strings.Join(head, " | "), strings.Join(align, " | "))
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
					row := []string{mdCell(b.FullName)}
					for _, s := range m.Sides {
						row = append(row, metricCenter(m, s, sc))
					}
					for i, c := range m.Changes {
						if c == nil {
							row = append(row, "-", "", "", "")
							continue
						}
						v := string(c.Verdict)
						switch {
						case context:
							v = "context"
						case c.Verdict.Significant():
							v = "**" + v + "**"
						}
						est := estimate(c, m.Unit, percent)
						if m.DisagreesWithMedians(i) {
							est += disagreeMark
							marked = true
						}
						p := pValue(c)
						if c.Test == "exact" {
							p = ""
						}
						row = append(row, est, changeCI(c), p, v)
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
	if notes, hidden := footnotes(rep, opts.Verbose); len(notes) > 0 || hidden > 0 {
		fmt.Fprintf(ew, "<details><summary>%s</summary>\n\n", notesHeader(hidden))
		for _, n := range notes {
			fmt.Fprintf(ew, "- %s\n", mdEscape(n))
		}
		fmt.Fprintln(ew, "\n</details>")
	}
	return ew.err
}

// mdTable writes a results table: names left-aligned, numbers right,
// words (the verdict, what decided it) left; a significant verdict in
// bold.
func mdTable(w io.Writer, rv resultsView) {
	align := []string{":---"}
	for _, h := range rv.header[1:] {
		switch h {
		case "verdict", "decided by", "parameters":
			align = append(align, ":---")
		default:
			align = append(align, "---:")
		}
	}
	head := make([]string, len(rv.header))
	for i, h := range rv.header {
		head[i] = mdCell(h)
	}
	fmt.Fprintf(w, "| %s |\n| %s |\n", strings.Join(head, " | "), strings.Join(align, " | "))
	for _, r := range rv.rows {
		cells := make([]string, len(r.cells))
		for i, c := range r.cells {
			cells[i] = mdCell(c)
			if i > 0 && rv.header[i] == "verdict" && analysis.Verdict(c).Significant() {
				cells[i] = "**" + cells[i] + "**"
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
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

// mdLive matches what GitHub makes live in a comment's or a job
// summary's text, backslash-escaped or not: an @mention (or an e-mail
// address), a reference to an issue or pull request (#12,
// owner/repo#12, GH-12) and a bare URL (https://..., www.example.com,
// mailto:). A code span is the one place it leaves them as they are.
var mdLive = regexp.MustCompile(`@[\pL\pN_-]|#\d|(?i:\bgh-\d|[a-z][a-z0-9+.-]*://|\bwww\.|\b(?:mailto|xmpp):)`)

// mdWord is a word of text: what lies between spaces.
var mdWord = regexp.MustCompile(`[^\t\n\f\r ]+`)

// mdEscape makes user text (benchmark names, side labels, units, notes
// that quote a compiler) read as text in a heading or a list: each word
// GitHub would make live (mdLive: a pull request's code could mention
// anyone, or link anywhere, in the bot's comment) is a code span, the
// rest escaped (mdEscaper).
func mdEscape(s string) string { return mdText(s, false) }

// mdCell is mdEscape for a table cell: a | in a code span is escaped too,
// since GitHub splits a row into cells before it reads code spans.
func mdCell(s string) string { return mdText(s, true) }

func mdText(s string, cell bool) string {
	if !mdLive.MatchString(s) {
		return mdEscaper.Replace(s)
	}
	var b strings.Builder
	last := 0
	for _, w := range mdWord.FindAllStringIndex(s, -1) {
		b.WriteString(mdEscaper.Replace(s[last:w[0]]))
		word := s[w[0]:w[1]]
		switch {
		case !mdLive.MatchString(word):
			b.WriteString(mdEscaper.Replace(word))
		case cell:
			b.WriteString(strings.ReplaceAll(mdCode(word), "|", `\|`))
		default:
			b.WriteString(mdCode(word))
		}
		last = w[1]
	}
	b.WriteString(mdEscaper.Replace(s[last:]))
	return b.String()
}

// mdCode writes s as an inline code span (words.CodeSpan).
func mdCode(s string) string { return words.CodeSpan(s) }
