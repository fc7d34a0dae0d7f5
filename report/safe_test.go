package report

import (
	"bytes"
	"encoding/csv"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

func TestTerminalSafe(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Build/size=8", "Build/size=8"},
		{"日本語/🚀", "日本語/🚀"},
		{"X\x1b]0;pwned\x07", `X\x1b]0;pwned\x07`},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"a\nb\tc\rd", `a\nb\tc\rd`},
		{"del\x7f", `del\x7f`},
		{"c1\u009b31m", `c1\x9b31m`},
		{"bidi\u202eevil\u2066", `bidi\u202eevil\u2066`},
		{"bad\xff\xfeutf8", `bad\xff\xfeutf8`},
	}
	for _, tt := range tests {
		if got := TerminalSafe(tt.in); got != tt.want {
			t.Errorf("TerminalSafe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// hostileRun is a comparison whose names, labels, configuration and
// package carry terminal escapes, Markdown and spreadsheet formulas.
func hostileRun(t *testing.T, name, side string) *analysis.Report {
	t.Helper()
	run := &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindFiles,
		Sides: []model.Side{{Label: "old"}, {Label: side}}}
	m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
	for r := 1; r <= 8; r++ {
		m.Samples = append(m.Samples,
			model.Sample{Side: "old", Round: r, Iters: 100, Value: 100e-9 + float64(r)*1e-9},
			model.Sample{Side: side, Round: r, Iters: 100, Value: 50e-9 + float64(r%3)*1e-9})
	}
	run.Benchmarks = []model.Benchmark{{Name: name, Pkg: "example.com/`pkg`\x1b[8m", Metrics: []model.Metric{m},
		Config: map[string]string{"cpu": "\x1b]0;cpu title\x07", "goos": "linux"},
		Notes:  []model.Note{{Kind: model.NoteOther, Text: "printed \x1b[2J while running"}}}}
	o := analysis.DefaultOptions()
	o.Resamples = 200
	rep, err := analysis.Analyze(run, o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func render(t *testing.T, rep *analysis.Report, opts Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, rep, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestTextFormatsNeutraliseControls: escape sequences in benchmark names,
// side labels, configuration and notes reach no terminal: text (every
// style), the tree and table formats and Markdown show them escaped, and with colour on, the only
// escape sequences are rigor's own colours. Before, a name could set the
// terminal's title or clear the screen.
func TestTextFormatsNeutraliseControls(t *testing.T) {
	rep := hostileRun(t, "X\x1b]0;pwned\x07/a", "new\x1b[2J")
	for _, opts := range []Options{
		{Format: "text"}, {Format: "text", Style: "tree"}, {Format: "text", Style: "table"}, {Format: "md"},
		{Format: "text", Color: true}, {Format: "text", Style: "tree", Color: true}, {Format: "text", Style: "table", Color: true},
		// --format tree and --format table reach the same layouts
		// without going through the text format.
		{Format: "tree"}, {Format: "table"}, {Format: "tree", Color: true}, {Format: "table", Color: true},
	} {
		out := render(t, rep, opts)
		own := strings.NewReplacer(green, "", red, "", reset, "").Replace(out)
		for _, r := range own {
			if escapable(r) && r != '\n' {
				t.Errorf("%+v: output holds %q:\n%s", opts, r, out)
				break
			}
		}
		if !utf8.ValidString(out) {
			t.Errorf("%+v: output is not UTF-8", opts)
		}
		if opts.Format == "md" {
			if !strings.Contains(out, `X\\x1b\]0;pwned\\x07/a`) {
				t.Errorf("md: name not shown escaped:\n%s", out)
			}
			continue
		}
		for _, want := range []string{`X\x1b]0;pwned\x07/a`, `new\x1b[2J`} {
			if !strings.Contains(out, want) {
				t.Errorf("%+v: %q not shown:\n%s", opts, want, out)
			}
		}
	}
}

// TestCSVAndHTMLNeutraliseControls: CSV and HTML show the escape
// sequences and bidirectional controls of names, labels, configuration,
// notes, the command line and the sides' sources escaped as the text
// formats do; they were written raw, and reached a terminal with cat
// (issue 23 item 7).
func TestCSVAndHTMLNeutraliseControls(t *testing.T) {
	rep := hostileRun(t, "X\x1b]0;pwned\x07/a\u202e", "new\x1b[2J")
	run := *rep.Run
	run.Command = []string{"rigor", "exec", "-n", "x\x1b[8m"}
	run.Sides = []model.Side{{Label: "old", Source: "src\x1b[1m", Rev: "rev\x07"}, {Label: "new\x1b[2J"}}
	run.Env = &model.Env{Hostname: "host\x1b]0;t\x07", Kernel: "k\u202e"}
	rep.Run = &run
	for _, format := range []string{"csv", "html"} {
		out := render(t, rep, Options{Format: format})
		for _, r := range out {
			if escapable(r) && r != '\n' {
				t.Errorf("%s: output holds %q:\n%s", format, r, out)
				break
			}
		}
		want := []string{`X\x1b]0;pwned\x07/a\u202e`, `new\x1b[2J`}
		if format == "html" {
			// The charts find the samples of the side whose label is
			// shown escaped.
			want = append(want, `new\x1b[2J round 1:`)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: %q not shown", format, w)
			}
		}
	}
}

// TestMarkdownEscapesLabels: a side label or name cannot add a heading,
// break a table row, open a code span or a link. Before, labels went raw
// into the "### rigor:" heading.
func TestMarkdownEscapesLabels(t *testing.T) {
	rep := hostileRun(t, "A|B`c`[x](http://e)", "pr\n# owned |x|")
	out := render(t, rep, Options{Format: "md"})
	lines := strings.Split(out, "\n")
	tables, inTable := 0, false
	if want := `### rigor: old vs pr\\n\# owned \|x\|`; lines[0] != want {
		t.Errorf("heading %q, want %q", lines[0], want)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "#") && l != lines[0] {
			t.Errorf("a second heading: %q", l)
		}
		if strings.HasPrefix(l, "|") && !inTable {
			tables++
		}
		inTable = strings.HasPrefix(l, "|")
		if strings.HasPrefix(l, "| ") {
			// Cells: split on unescaped '|' only.
			cells := strings.Split(strings.ReplaceAll(l, `\|`, ""), "|")
			want := 3 + len(rep.Sides) + 4*(len(rep.Sides)-1) // a metric's table
			if tables == 1 {
				// The results table, the first: no p column.
				want = 3 + len(rep.Sides) + 3*(len(rep.Sides)-1)
			}
			if len(cells) != want {
				t.Errorf("row %q has %d cells", l, len(cells)-2)
			}
		}
	}
	// The name holds a URL: a code span, its | escaped in a cell.
	for _, want := range []string{"`` example.com/`pkg`\\x1b[8m ``", "| `` A\\|B`c`[x](http://e) `` |", "**`` A|B`c`[x](http://e) `` improved**"} {
		if !strings.Contains(out, want) {
			t.Errorf("md lacks %q:\n%s", want, out)
		}
	}
}

// TestMarkdownNoLiveGitHubSyntax (issue 40 item 4): text a pull request
// controls (benchmark names, units, side labels, notes that quote a
// compiler) cannot mention anyone, reference an issue or link anywhere in
// the comment the action posts: each such word is a code span, where
// GitHub leaves it as it is. Before, "@alice" and "owner/repo#12" were
// escaped as punctuation, which GitHub reads as a mention and a
// reference, and a URL stayed an autolink.
func TestMarkdownNoLiveGitHubSyntax(t *testing.T) {
	rep := hostileRun(t, "Parse/@alice/see_https://evil.example/x?a=1|2", "owner/repo#12")
	b := &rep.Benchmarks[0]
	b.Notes = append(b.Notes, model.Note{Kind: model.NoteOther, Text: "./x.go:3: cc @bob, fixes other/repo#34 and GH-5; see www.evil.example or mail me@evil.example"})
	b.Metrics[0].Unit = "@carol/op"
	out := render(t, rep, Options{Format: "md", Verbose: true})
	text := outsideCodeSpans(out)
	for _, live := range []string{"@alice", "@bob", "@carol", "@evil", "#12", "#34", "GH-5", "://", "www."} {
		if strings.Contains(text, live) {
			t.Errorf("%q is live (outside a code span):\n%s", live, out)
		}
	}
	for _, want := range []string{"`@bob,`", "`other/repo#34`", "`GH-5;`", "`www.evil.example`", "`me@evil.example`", "`owner/repo#12`",
		"| `Parse/@alice/see_https://evil.example/x?a=1\\|2` |", "cc", "fixes"} {
		if !strings.Contains(out, want) {
			t.Errorf("md lacks %q:\n%s", want, out)
		}
	}
	// Rows keep their cells: the | inside the name's code span is escaped.
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| `Parse") {
			if cells := strings.Split(strings.ReplaceAll(l, `\|`, ""), "|"); len(cells) != 3+len(rep.Sides)+4*(len(rep.Sides)-1) && len(cells) != 3+len(rep.Sides)+3*(len(rep.Sides)-1) {
				t.Errorf("row %q has %d cells", l, len(cells)-2)
			}
		}
	}
}

// FuzzMarkdownNotLive: whatever the text, what mdEscape and mdCell leave
// outside code spans, read as GitHub reads it (backslash escapes and
// entities undone), holds nothing GitHub makes live (mdLive).
func FuzzMarkdownNotLive(f *testing.F) {
	for _, s := range []string{"cc @alice", "owner/repo#12 and GH-3", "see https://e.example/a|b", "www.x.org", "a`b` @c", "\\@x", "&#64;y", "``@z``"} {
		f.Add(s)
	}
	unescape := strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">")
	backslash := regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{mdEscape(s), mdCell(s)} {
			text := unescape.Replace(backslash.ReplaceAllString(outsideCodeSpans(out), "$1"))
			if m := mdLive.FindString(text); m != "" {
				t.Errorf("%q renders as %q: %q is live in %q", s, out, m, text)
			}
		}
	})
}

// outsideCodeSpans returns md without its code spans (CommonMark's: a
// run of n unescaped backticks up to the next run of exactly n).
func outsideCodeSpans(md string) string {
	var b strings.Builder
	for i := 0; i < len(md); {
		switch {
		case md[i] == '\\' && i+1 < len(md):
			b.WriteString(md[i : i+2])
			i += 2
			continue
		case md[i] != '`':
			b.WriteByte(md[i])
			i++
			continue
		}
		n := 0
		for i+n < len(md) && md[i+n] == '`' {
			n++
		}
		end := -1
		for j := i + n; j < len(md); {
			if md[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(md) && md[j+m] == '`' {
				m++
			}
			if m == n {
				end = j + m
				break
			}
			j += m
		}
		if end < 0 { // no closing run: the backticks are text
			b.WriteString(md[i : i+n])
			i += n
			continue
		}
		b.WriteString(" ")
		i = end
	}
	return b.String()
}

// TestCSVGuardsFormulas: text cells starting with =, +, -, @, tab or CR
// get a leading quote (OWASP's CSV-injection advice); numbers keep their
// sign. Before, a benchmark named =HYPERLINK(...) was a live formula.
func TestCSVGuardsFormulas(t *testing.T) {
	for _, tt := range []struct{ name, side, wantName, wantSide string }{
		{`=HYPERLINK("http://evil","x")`, "+cmd|' /C calc'!A0", `'=HYPERLINK("http://evil","x")`, "'+cmd|' /C calc'!A0"},
		{"-2+3", "@SUM(A1)", "'-2+3", "'@SUM(A1)"},
		// A leading tab or CR is shown escaped, as every control is,
		// which defuses it too.
		{"\tX", "\rY", `\tX`, `\rY`},
		{"Build", "new", "Build", "new"},
	} {
		out := render(t, hostileRun(t, tt.name, tt.side), Options{Format: "csv"})
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 3 {
			t.Fatalf("%d rows", len(rows))
		}
		head := rows[0]
		col := func(name string) int {
			for i, h := range head {
				if h == name {
					return i
				}
			}
			t.Fatalf("no column %s", name)
			return -1
		}
		r := rows[2]
		if r[col("benchmark")] != tt.wantName || r[col("side")] != tt.wantSide {
			t.Errorf("benchmark %q side %q, want %q and %q", r[col("benchmark")], r[col("side")], tt.wantName, tt.wantSide)
		}
		if c := r[col("change")]; !strings.HasPrefix(c, "-0.") {
			t.Errorf("change %q: a number must keep its sign", c)
		}
	}
}

// TestHTMLEscapesLabels: the HTML report shows hostile names and side
// labels as text (verified for issue 11, item 11: no change was needed).
func TestHTMLEscapesLabels(t *testing.T) {
	rep := hostileRun(t, `<img src=x onerror=alert(1)>`, `<script>alert(2)</script>`)
	out := render(t, rep, Options{Format: "html"})
	if bad := unexpectedTags(out); len(bad) > 0 {
		t.Errorf("tags from names: %q", bad)
	}
	for _, want := range []string{"&lt;img src=x onerror=alert(1)&gt;", "&lt;script&gt;alert(2)&lt;/script&gt;"} {
		if !strings.Contains(out, want) {
			t.Errorf("html lacks %q", want)
		}
	}
}

// TestNoteLines: a note quoting a compiler's output keeps its line breaks
// (it was shown with literal \n), each line escaped on its own, and every
// line after the first indented so that none passes for a report line.
func TestNoteLines(t *testing.T) {
	rep := hostileRun(t, "X", "new")
	rep.Notes = append(rep.Notes, model.Note{Kind: model.NoteBuild,
		Text: "package p does not build on new:\n    ./x.go:3: undefined: y\x1b[2J\nX  1.00n  2.00n  +100%  regressed"})
	for _, opts := range []Options{{Format: "text"}, {Format: "text", Style: "tree"}, {Format: "text", Style: "table"}} {
		out := render(t, rep, opts)
		for _, want := range []string{"does not build on new:\n", "\n    ./x.go:3: undefined: y\\x1b[2J\n", "\n    X  1.00n  2.00n  +100%  regressed"} {
			if !strings.Contains(out, want) {
				t.Errorf("%+v: %q not in:\n%s", opts, want, out)
			}
		}
		if strings.Contains(out, `new:\n`) {
			t.Errorf("%+v: line break shown as \\n:\n%s", opts, out)
		}
	}
}

// TestExecRowNames: the row of a rigor exec run without parameters
// (execbench names its benchmark "exec") is named as hyperfine names it:
// by the command, or "commands" when several are compared; json and csv
// keep the name scripts read (issue 23 item 8).
func TestExecRowNames(t *testing.T) {
	for _, sides := range [][]string{{"sleep 0.01"}, {"sleep 0.01", "sleep 0.012"}} {
		run := &model.Run{SchemaVersion: model.SchemaVersion, Kind: "exec", Paired: len(sides) > 1}
		m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
		for i, s := range sides {
			run.Sides = append(run.Sides, model.Side{Label: s})
			for r := 1; r <= 8; r++ {
				m.Samples = append(m.Samples, model.Sample{Side: s, Round: r, Iters: 1, Value: float64(10+2*i)*1e-3 + float64(r%3)*1e-5})
			}
		}
		run.Benchmarks = []model.Benchmark{{Name: "exec", Metrics: []model.Metric{m}}}
		rep, err := analysis.Analyze(run, analysis.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		want := "commands"
		if len(sides) == 1 {
			want = sides[0]
		}
		text := render(t, rep, Options{Format: "text"})
		if len(sides) == 1 {
			if row := strings.Split(text, "\n")[1]; !strings.HasPrefix(row, want+" ") {
				t.Errorf("1 side: row %q, want it named %q:\n%s", row, want, text)
			}
		} else {
			// Several commands: a row per command, named by it (issue 24
			// item 5).
			for _, s := range sides {
				if !slices.ContainsFunc(strings.Split(text, "\n"), func(l string) bool { return strings.HasPrefix(l, s+" ") && strings.Contains(l, "ms") }) {
					t.Errorf("%d sides: no row named %q:\n%s", len(sides), s, text)
				}
			}
		}
		if js := render(t, rep, Options{Format: "json"}); !strings.Contains(js, `"name": "exec"`) && !strings.Contains(js, `"name":"exec"`) {
			t.Errorf("json renamed the benchmark:\n%.400s", js)
		}
		if rep.Benchmarks[0].Name != "exec" {
			t.Errorf("Render changed the report's benchmark name to %q", rep.Benchmarks[0].Name)
		}
	}
}

// TestReportsMaskSecrets (issue 40 item 1): a run's command line, its
// sides' build environment and test arguments are shown without their
// secrets (a proxy URL's password, a variable or flag named like a
// token), whatever recorded them: a run.json of an older rigor holds them
// as given. The run keeps the environment, to build the side again.
func TestReportsMaskSecrets(t *testing.T) {
	rep := hostileRun(t, "Build", "new")
	run := *rep.Run
	run.Command = []string{"rigor", "ab", "--store", "postgres://rigor:SECRETPW@db/rigor", "--env", "GOPROXY=https://u:SECRETPW@proxy.example"}
	run.Sides = []model.Side{{Label: "old", BuildEnv: []string{"GOPROXY=https://u:SECRETPW@proxy.example", "API_TOKEN=SECRETPW"}, Args: []string{"-token", "SECRETPW"}}, {Label: "new"}}
	rep.Run = &run
	for _, format := range []string{"text", "md", "html"} {
		out := render(t, rep, Options{Format: format})
		if strings.Contains(out, "SECRETPW") {
			t.Errorf("%s shows a secret:\n%s", format, out)
		}
		if !strings.Contains(out, "u:xxxxx@proxy.example") {
			t.Errorf("%s does not show the build environment, masked:\n%s", format, out)
		}
	}
	if run.Sides[0].BuildEnv[1] != "API_TOKEN=SECRETPW" {
		t.Errorf("rendering changed the run: %q", run.Sides[0].BuildEnv)
	}
}
