// Package report renders analysed results: terminal tables, JSON, CSV,
// Markdown, Go benchmark format and HTML. Renderers only render: every
// number they print was computed by package analysis (or stored in the
// model by the source that measured it).
package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/rigorbench/rigor/analysis"
)

// Options control rendering.
type Options struct {
	// Format is one of Formats().
	Format string
	// Color enables ANSI colours in terminal formats.
	Color bool
	// Width is the terminal width in columns; 0 means 100.
	Width int
	// Style selects the layout of the text format: "benchstat" (the
	// default when empty), "tree" or "table"; see Styles.
	Style string
	// Verbose shows every note and every row in text and md: without it,
	// notes several benchmarks share are said once, routine notes are
	// counted rather than shown, and rows of exact metrics that are 0 on
	// every side are left out. JSON, CSV and llm always hold everything.
	Verbose bool
}

// A renderer writes one format.
type renderer func(w io.Writer, rep *analysis.Report, opts Options) error

var renderers = map[string]renderer{}

// register adds a format; each format's file calls it from init.
func register(format string, r renderer) {
	if _, dup := renderers[format]; dup {
		panic("report: format registered twice: " + format)
	}
	renderers[format] = r
}

// Formats lists the known formats, sorted.
func Formats() []string {
	var f []string
	for k := range renderers {
		f = append(f, k)
	}
	sort.Strings(f)
	return f
}

// Known reports whether format is a known format.
func Known(format string) bool {
	_, ok := renderers[format]
	return ok
}

// Render writes rep to w in opts.Format.
func Render(w io.Writer, rep *analysis.Report, opts Options) error {
	r, ok := renderers[opts.Format]
	if !ok {
		return fmt.Errorf("unknown format %q", opts.Format)
	}
	switch opts.Format {
	case "text", "tree", "table", "md", "csv", "html":
		// Read on a terminal (md, csv and html too, before they are
		// pasted, opened or printed with cat): names and labels with
		// control characters show them escaped. JSON escapes them its
		// own way, and benchfmt keeps the names benchstat reads.
		rep = terminalSafeReport(rep)
	}
	return r(w, rep, opts)
}
