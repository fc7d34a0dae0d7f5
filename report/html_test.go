package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/analysis"
)

func renderHTMLString(t testing.TB, rep *analysis.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, rep, Options{Format: "html"}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// fxRampReport is a ramp run as rigor report shows it: no sides to
// compare, only the ramp.
func fxRampReport(t testing.TB) *analysis.Report {
	run := fxRampRun(t)
	return &analysis.Report{Kind: run.Kind, Run: run, Options: fxOptions()}
}

// A sub-benchmark named <script>alert(1)</script> renders as text: in
// headings, tables and the SVG charts' labels and tooltips alike.
func TestHTMLEscapesNames(t *testing.T) {
	page := renderHTMLString(t, fxPaired(t))
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Errorf("the page holds a <script element")
	}
	escaped := "&lt;script&gt;alert(1)&lt;/script&gt;"
	if n := strings.Count(page, escaped); n < 2 {
		t.Errorf("the escaped name appears %d times, want it in the benchmark's heading and the group chart's tooltip", n)
	}
	// Nothing user-supplied can open a tag: every tag is one the report
	// itself writes.
	for _, tag := range unexpectedTags(page) {
		t.Errorf("unexpected tag <%s>", tag)
	}
}

var tagRE = regexp.MustCompile(`<(/?)([a-zA-Z!][a-zA-Z0-9]*)`)

var reportTags = map[string]bool{"!DOCTYPE": true, "html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
	"header": true, "h1": true, "h2": true, "h3": true, "h4": true, "p": true, "span": true, "main": true, "section": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "dl": true, "dt": true, "dd": true,
	"figure": true, "figcaption": true, "ul": true, "ol": true, "li": true, "details": true, "summary": true, "div": true,
	"strong": true, "pre": true, "footer": true, "svg": true, "text": true, "rect": true, "line": true, "circle": true,
	"polyline": true, "polygon": true, "g": true}

// unexpectedTags returns the tags in page that the report does not write.
func unexpectedTags(page string) []string {
	var out []string
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		if !reportTags[m[2]] {
			out = append(out, m[1]+m[2])
		}
	}
	return out
}

// The file needs nothing else: no script, no link, no image, no URL to
// fetch, no web font.
func TestHTMLSelfContained(t *testing.T) {
	for name, rep := range map[string]*analysis.Report{"paired": fxPaired(t), "group": fxGroup(t), "ramp": fxRampReport(t), "seed003": fxSeed003(t)} {
		page := renderHTMLString(t, rep)
		for _, bad := range []string{"src=", "href=", "url(", "@import", "<link", "<img", "<iframe", "<object", "<embed", "<script", "xlink:", "@font-face"} {
			if strings.Contains(strings.ToLower(page), bad) {
				t.Errorf("%s: page contains %q", name, bad)
			}
		}
	}
}

// Every section the issue asks for is there, with its title.
func TestHTMLSections(t *testing.T) {
	tests := []struct {
		name string
		rep  *analysis.Report
		want []string
	}{
		{"paired", fxPaired(t), []string{
			"<title>rigor report: old vs new</title>", "<h2>Run</h2>", "<h3>Environment</h3>", "AMD EPYC 9V74 80-Core Processor",
			"<h3>What the system was doing</h3>", "CPU over the run", "other processes&#39; CPU", "13.5% mean, 25.0% max",
			"<h2>example.com/strs · Join</h2>", "Change against old", "Distribution of sec/op", "Per round: sec/op",
			"Paired differences per round: sec/op vs old", "Footnotes", "values drift across rounds", "日本語テキスト", "🚀🔥",
			// Benchmarks counted, not metric rows (2 of them regressed
			// on sec/op and B/s; issue 24).
			"2 regressed", "2 improved", "2 of 7 benchmarks regressed",
		}},
		{"group", fxGroup(t), []string{
			"Variants: median and 95% CI of sec/op", "Linear sampling: total sec against iterations, with the slope",
			"16.20µs [15.99–16.37]µs", "level_9", "sequential", "This run recorded no observations of the system.",
		}},
		{"seed003", fxSeed003(t), []string{
			"rigor report: base vs optimized", "-90.1%", "-95.6% (exact)", "-93.7% (exact)", "Per round: sec/op", "sample (in file order)",
		}},
		{"ramp", fxRampReport(t), []string{
			"<h2>Ramp</h2>", "Throughput against load, with the fitted models", "Latency against load", "USL (R² 0.990)",
			"1853 req/s at concurrency 72", "lock-bound",
		}},
	}
	for _, tt := range tests {
		page := renderHTMLString(t, tt.rep)
		for _, w := range tt.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: page lacks %q", tt.name, w)
			}
		}
	}
	// A run that is not paired has no paired-difference chart, and one
	// without linear sampling no regression chart.
	page := renderHTMLString(t, fxSeed003(t))
	if strings.Contains(page, "Paired differences") || strings.Contains(page, "Linear sampling") {
		t.Error("seed 003 (unpaired, fixed iterations) shows a paired or regression chart")
	}
}

func TestNiceTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   string
	}{
		{0, 1, "[0 0.2 0.4 0.6 0.8 1]"},
		{-0.173, 0.012, "[-0.15 -0.1 -0.05 0]"},
		{97.75e-9, 122.4e-9, "[1e-07 1.05e-07 1.1e-07 1.15e-07 1.2e-07]"},
		{3, 3, "[3]"},
	}
	for _, tt := range tests {
		if g := fmt.Sprintf("%.4g", niceTicks(tt.lo, tt.hi, 5)); g != tt.want {
			t.Errorf("niceTicks(%g, %g) = %s, want %s", tt.lo, tt.hi, g, tt.want)
		}
	}
	// Labels must print exactly, not 60.00000000000001% (3 × 0.2 in binary).
	var labels []string
	for _, v := range niceTicks(0, 1, 5) {
		labels = append(labels, shareFormatter(v))
	}
	if g := strings.Join(labels, " "); g != "0% 20% 40% 60% 80% 100%" {
		t.Errorf("share tick labels = %s", g)
	}
	if g := fmt.Sprintf("%.4g", logTicks(14e-6, 490e-6)); g != "[2e-05 5e-05 0.0001 0.0002]" {
		t.Errorf("logTicks(14µ, 490µ) = %s, want 20µ 50µ 100µ 200µ", g)
	}
}
