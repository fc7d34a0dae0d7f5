// Package report renders analysed results: terminal tables, JSON, CSV,
// Markdown, Go benchmark format and HTML. Renderers only render: every
// number they print was computed by package analysis (or stored in the
// model by the source that measured it).
package report

import (
	"fmt"
	"io"
	"slices"

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

// formats are the known formats, sorted, each with its renderer: a table
// the program's start does not build (a map filled by each format's init
// paged in a window of each renderer's code at the start of every rigor
// command, whatever it did next).
var formats = [...]struct {
	name string
	r    renderer
}{
	{"benchfmt", renderBenchfmt},
	{"csv", renderCSV},
	{"html", renderHTML},
	{"json", renderJSON},
	{"llm", renderLLM},
	{"md", renderMarkdown},
	{"table", renderTable},
	{"text", renderText},
	{"tree", renderTree},
}

// rendererOf returns format's renderer.
func rendererOf(format string) (renderer, bool) {
	for _, f := range formats {
		if f.name == format {
			return f.r, true
		}
	}
	return nil, false
}

// Formats lists the known formats, sorted.
func Formats() []string {
	f := make([]string, len(formats))
	for i := range formats {
		f[i] = formats[i].name
	}
	return f
}

// Known reports whether format is a known format.
func Known(format string) bool {
	_, ok := rendererOf(format)
	return ok
}

// Render writes rep to w in opts.Format.
func Render(w io.Writer, rep *analysis.Report, opts Options) error {
	r, ok := rendererOf(opts.Format)
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
	switch opts.Format {
	case "text", "tree", "table", "md", "html", "llm":
		// For people; json, csv and benchfmt keep the name scripts read.
		rep = execRows(rep)
	}
	return r(w, rep, opts)
}

// The kind of rigor exec's runs, and the name of the one benchmark of a
// run without parameters (package execbench's Kind and DefaultName).
const (
	execKind = "exec"
	execName = "exec"
)

// execRows returns rep, or a copy whose rigor exec row without parameters
// (named "exec") is named as hyperfine names it: by its command, or
// "commands" when it compares several.
func execRows(rep *analysis.Report) *analysis.Report {
	i := slices.IndexFunc(rep.Benchmarks, func(b analysis.Benchmark) bool {
		return b.Name == execName && b.FullName == execName && len(b.Config) == 0
	})
	if rep.Kind != execKind || i < 0 {
		return rep
	}
	name := "commands"
	if len(rep.Sides) == 1 {
		name = rep.Sides[0]
	}
	out := *rep
	out.Benchmarks = slices.Clone(rep.Benchmarks)
	out.Benchmarks[i].Name, out.Benchmarks[i].FullName = name, name
	return &out
}
