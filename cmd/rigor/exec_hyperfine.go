package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/execbench"
)

// hyperfineFlags are hyperfine's flags that rigor exec takes beyond the
// ones exec.go registers with its own: the summary exports, their time
// unit and order, the reference's name, --style's hyperfine values, and
// two flags refused with the reason.
type hyperfineFlags struct {
	// exports maps a summary format (csv, or execbench.Markdown,
	// AsciiDoc, OrgMode) to its --export-* file.
	exports       map[string]*string
	timeUnit      string
	sort          string
	referenceName string
	// style is hyperfine's --style value, when --style gave one.
	style string
	// Refused: they cannot mean in rigor what they mean in hyperfine.
	minBenchmarkingTime, debugMode refusedFlag
}

// A refusedFlag is a flag of hyperfine's that rigor exec refuses, with the
// reason, rather than as an unknown flag.
type refusedFlag struct{ set bool }

func (f *refusedFlag) String() string   { return "" }
func (f *refusedFlag) Type() string     { return "" }
func (f *refusedFlag) Set(string) error { f.set = true; return nil }

// exportFormats are the --export-* flags of the summary, in the order
// they are written.
var exportFormats = []struct{ format, flag string }{
	{"csv", "export-csv"},
	{execbench.Markdown, "export-markdown"},
	{execbench.AsciiDoc, "export-asciidoc"},
	{execbench.OrgMode, "export-orgmode"},
}

// hyperfineStyles are hyperfine's --style values. They choose colours
// and a progress bar, not a layout: rigor's default layout is kept and
//   - auto: as rigor does by default (colour and a progress bar on a
//     terminal);
//   - basic: no colour, no progress bar;
//   - full: colour even off a terminal, and the progress bar (which only
//     a terminal can show);
//   - nocolor: no colour, the progress bar;
//   - color: colour, no progress bar;
//   - none: no report on standard output and no progress (the exports,
//     results directory, errors and exit status are unchanged).
var hyperfineStyles = []string{"auto", "basic", "full", "nocolor", "color", "none"}

func (h *hyperfineFlags) register(fs *pflag.FlagSet) {
	h.exports = map[string]*string{}
	for _, e := range exportFormats {
		var what string
		switch e.format {
		case "csv":
			what = "hyperfine's CSV columns (seconds), then rigor's: median_ci_low, median_ci_high, relative, relative_ci_low, relative_ci_high, verdict, clock"
		default:
			what = "a " + map[string]string{execbench.Markdown: "Markdown", execbench.AsciiDoc: "AsciiDoc", execbench.OrgMode: "Emacs org-mode"}[e.format] +
				" table as hyperfine's, with rigor's median, its CI, the paired relative time with its CI, and the verdict"
		}
		h.exports[e.format] = fs.String(e.flag, "", "also write to `FILE` "+what)
	}
	fs.StringVarP(&h.timeUnit, "time-unit", "u", "", "`UNIT` of the times in the Markdown, AsciiDoc and org-mode exports: second, millisecond, microsecond or nanosecond (default: hyperfine's choice from the first command's mean; the terminal table keeps its own scale)")
	fs.StringVar(&h.sort, "sort", execbench.SortAuto, "`ORDER` of the rows of the Markdown, AsciiDoc and org-mode exports: auto or command (as given), mean-time or median-time (by median wall time, fastest first: rigor ranks by the median)")
	fs.StringVar(&h.referenceName, "reference-name", "", "`NAME` of the --reference command in reports and exports")
	fs.Var(&h.minBenchmarkingTime, "min-benchmarking-time", "refused")
	fs.VarPF(&h.debugMode, "debug-mode", "", "refused").NoOptDefVal = "true"
	fs.MarkHidden("min-benchmarking-time")
	fs.MarkHidden("debug-mode")
}

// check refuses what cannot be done, before anything runs.
func (h *hyperfineFlags) check(reference string) error {
	switch {
	case h.minBenchmarkingTime.set:
		return usageErrorf("--min-benchmarking-time is hyperfine's minimum time per command; rigor's rounds stop when the comparison is resolved: --min-rounds sets a floor, --time a budget")
	case h.debugMode.set:
		return usageErrorf("--debug-mode is hyperfine's fake timing of sleep for its own tests; rigor exec only measures real runs")
	case h.referenceName != "" && reference == "":
		return usageErrorf("--reference-name names the --reference command, and there is no --reference")
	}
	if h.timeUnit != "" {
		if _, err := execbench.ParseTimeUnit(h.timeUnit); err != nil {
			return usageErrorf("--time-unit: %v", err)
		}
	}
	if !slices.Contains(execbench.SortOrders(), h.sort) {
		return usageErrorf("unknown --sort %q (want %s)", h.sort, strings.Join(execbench.SortOrders(), ", "))
	}
	for _, e := range exportFormats {
		if err := checkFile("--"+e.flag, *h.exports[e.format]); err != nil {
			return err
		}
	}
	return nil
}

// write writes the summary exports that were asked for.
func (h *hyperfineFlags) write(res *execbench.Result, rep *analysis.Report) error {
	var sum *execbench.Summary
	for _, e := range exportFormats {
		path := *h.exports[e.format]
		if path == "" {
			continue
		}
		if sum == nil {
			sum = res.Summary(rep)
		}
		err := writeFileAtomic(path, func(w io.Writer) error {
			if e.format == "csv" {
				return sum.WriteCSV(w)
			}
			rows, err := sum.Sorted(h.sort)
			if err != nil {
				return err
			}
			var unit *execbench.TimeUnit
			if h.timeUnit != "" {
				u, err := execbench.ParseTimeUnit(h.timeUnit)
				if err != nil {
					return err
				}
				unit = &u
			}
			return sum.WriteMarkup(w, e.format, rows, unit)
		})
		if err != nil {
			return fmt.Errorf("--%s: %w", e.flag, err)
		}
	}
	return nil
}

// writeFileAtomic writes path through a temporary file in its directory,
// so that a failed write leaves no partial file.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	err = write(f)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// colour returns whether --style forces colours on (true) or off
// (false); nil leaves the choice to the terminal.
func (h *hyperfineFlags) colour() *bool {
	on, off := true, false
	switch h.style {
	case "full", "color":
		return &on
	case "basic", "nocolor", "none":
		return &off
	}
	return nil
}

// progress reports whether --style allows a progress bar.
func (h *hyperfineFlags) progress() bool {
	return !slices.Contains([]string{"basic", "color", "none"}, h.style)
}

// commandNames spreads --name over the commands: one name per command
// (the first ones, as many as given), or, with parameters, one per
// benchmark as hyperfine takes them (combinations × commands names in
// hyperfine's order, the commands varying fastest). It returns the
// per-command labels or, in the second case, each command's names.
func commandNames(names []string, commands, combinations int) (labels []string, each [][]string, err error) {
	switch {
	case len(names) <= commands:
		return names, nil, nil
	case combinations > 1 && len(names) == commands*combinations:
		each = make([][]string, commands)
		for i, n := range names {
			each[i%commands] = append(each[i%commands], n)
		}
		return nil, each, nil
	case combinations > 1:
		return nil, nil, usageErrorf("%d --name values for %d commands and %d parameter combinations: give one per command, or one per benchmark (%d, in hyperfine's order)", len(names), commands, combinations, commands*combinations)
	}
	return nil, nil, usageErrorf("%d --name values for %d commands", len(names), commands)
}

// ignoreFailureFlag is --ignore-failure (-i): hyperfine's
// --ignore-failure[=all-non-zero|CODES].
type ignoreFailureFlag struct {
	set   bool
	codes []int
}

// allNonZero is -i's value without one, as hyperfine's.
const allNonZero = "all-non-zero"

func (f *ignoreFailureFlag) String() string {
	switch {
	case !f.set:
		return "false"
	case len(f.codes) == 0:
		return allNonZero
	}
	s := make([]string, len(f.codes))
	for i, c := range f.codes {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

func (f *ignoreFailureFlag) Type() string { return "codes" }

func (f *ignoreFailureFlag) Set(v string) error {
	codes, set, err := parseIgnoreFailure(v)
	if err != nil {
		return err
	}
	f.set, f.codes = set, codes
	return nil
}

// parseIgnoreFailure reads --ignore-failure's value: all-non-zero (or
// true) ignores every failure, false none, and a comma-separated list of
// exit codes (1,2) those codes only.
func parseIgnoreFailure(v string) (codes []int, set bool, err error) {
	switch v {
	case allNonZero, "true":
		return nil, true, nil
	case "false":
		return nil, false, nil
	}
	for _, s := range strings.Split(v, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || c < 1 || c > 255 {
			return nil, false, fmt.Errorf("want all-non-zero or exit codes from 1 to 255 separated by commas (1,2), got %q", v)
		}
		if !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	return codes, true, nil
}
