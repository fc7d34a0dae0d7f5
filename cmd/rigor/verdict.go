package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/report"
)

// verdictFlags are the analysis, output and gate flags shared by every
// command that ends in a verdict: compare, ab, run.
type verdictFlags struct {
	verbose bool
	format  string
	// style is the text layout; a command may preset it before register
	// to choose its default.
	style         string
	output        string
	maxRegression float64
	allowMissing  bool
	noise         float64
	alpha         float64
	confidence    float64
	test          string
	correction    string
	resamples     int
	seed          uint64
}

func (f *verdictFlags) register(fs *pflag.FlagSet) {
	d := analysis.DefaultOptions()
	fs.StringVar(&f.format, "format", "text", "output format: "+strings.Join(report.Formats(), ", "))
	fs.StringVar(&f.style, "style", cmp.Or(f.style, "benchstat"), "layout of --format text: "+strings.Join(report.Styles(), ", "))
	fs.StringVarP(&f.output, "output", "o", "", "write the report to this file instead of standard output")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "text and md: every note and every row (by default a note several benchmarks share is said once, routine notes are counted, and exact rows that are 0 on every side are left out)")
	fs.Float64Var(&f.maxRegression, "max-regression", -1, "exit 1 when a benchmark regressed by more than this `percent` (e.g. 5); off when negative")
	fs.BoolVar(&f.allowMissing, "allow-missing", false, "with --max-regression, pass a benchmark that the baseline has but that failed, did not build or is missing on another side (by default it fails the gate)")
	fs.Float64Var(&f.noise, "noise", d.Noise*100, "noise band in `percent`: a change whose CI lies inside ±noise is unchanged")
	fs.Float64Var(&f.alpha, "alpha", d.Alpha, "significance level for corrected p-values")
	fs.Float64Var(&f.confidence, "confidence", d.Confidence, "confidence level of every interval")
	fs.StringVar(&f.test, "test", d.Test, "unpaired test: utest (Mann-Whitney, as benchstat) or welch")
	fs.StringVar(&f.correction, "correction", d.Correction, "multiple-comparison correction: holm, bh or none")
	fs.IntVar(&f.resamples, "resamples", d.Resamples, "bootstrap resamples for confidence intervals")
	fs.Uint64Var(&f.seed, "seed", d.Seed, "bootstrap seed (results are reproducible for a given seed)")
}

// options validates the flags and returns the analysis options.
func (f *verdictFlags) options() (analysis.Options, error) {
	o := analysis.DefaultOptions()
	o.Noise = f.noise / 100
	o.Alpha = f.alpha
	o.Confidence = f.confidence
	o.Test = f.test
	o.Correction = f.correction
	o.Resamples = f.resamples
	o.Seed = f.seed
	if !report.Known(f.format) {
		return o, usageErrorf("unknown --format %q (want %s)", f.format, strings.Join(report.Formats(), ", "))
	}
	if !slices.Contains(report.Styles(), f.style) {
		return o, usageErrorf("unknown --style %q (want %s)", f.style, strings.Join(report.Styles(), ", "))
	}
	if math.IsNaN(f.maxRegression) || math.IsInf(f.maxRegression, 1) {
		return o, usageErrorf("--max-regression must be a percentage (5), or negative for no gate, got %v", f.maxRegression)
	}
	if f.noise < 0 || f.noise >= 100 {
		return o, usageErrorf("--noise must be a percentage in [0, 100), got %v", f.noise)
	}
	if err := o.Validate(); err != nil {
		return o, usageErrorf("%v", err)
	}
	if f.output != "" {
		// Checked now, not after a run of many minutes.
		if dir, err := os.Stat(filepath.Dir(f.output)); err != nil || !dir.IsDir() {
			return o, usageErrorf("-o %s: %s is not a directory", f.output, filepath.Dir(f.output))
		}
		if fi, err := os.Stat(f.output); err == nil && fi.IsDir() {
			return o, usageErrorf("-o %s: is a directory", f.output)
		}
	}
	return o, nil
}

// emit renders rep in the chosen format and applies the gate: exit 1 when
// some benchmark regressed by more than --max-regression, or, unless
// --allow-missing, failed or is missing where the baseline has it.
func (f *verdictFlags) emit(cmd *cobra.Command, rep *analysis.Report) error {
	err := f.write(cmd, func(w io.Writer) error {
		color := false
		if file, ok := w.(*os.File); ok {
			color = isTerminal(file)
		}
		return report.Render(w, rep, report.Options{Format: f.format, Style: f.style, Color: color, Width: terminalWidth(w), Verbose: f.verbose})
	})
	if err != nil {
		return err
	}
	if f.maxRegression < 0 {
		return nil
	}
	fails := f.gate(rep, f.maxRegression)
	if len(fails) == 0 {
		return nil
	}
	for _, g := range fails {
		// Names and labels come from the input: escaped, never obeyed.
		fmt.Fprintln(cmd.ErrOrStderr(), "rigor: gate: "+report.TerminalSafe(gateLine(g, f.maxRegression, rep.Sides[0])))
	}
	return &exitError{code: exitGateFail}
}

// gate returns rep's gate failures at limit percent, without the lost
// benchmarks when --allow-missing says they are accepted.
func (f *verdictFlags) gate(rep *analysis.Report, limit float64) []analysis.GateFailure {
	fails := rep.Gate(limit / 100)
	if f.allowMissing {
		fails = slices.DeleteFunc(fails, func(g analysis.GateFailure) bool { return g.Missing != nil })
	}
	return fails
}

// write calls render with standard output, or with the file -o names.
func (f *verdictFlags) write(cmd *cobra.Command, render func(io.Writer) error) error {
	var w io.Writer = cmd.OutOrStdout()
	if f.output != "" {
		file, err := os.Create(f.output)
		if err != nil {
			return usageErrorf("%v", err)
		}
		defer file.Close()
		w = file
	}
	if err := render(w); err != nil {
		return fmt.Errorf("rendering report: %w", err)
	}
	return nil
}

// gateLine says in one line why g fails a gate of limit percent; base is
// the baseline's label.
func gateLine(g analysis.GateFailure, limit float64, base string) string {
	if m := g.Missing; m != nil {
		what := "is missing"
		switch m.Kind {
		case model.MissingFailed:
			what = "failed"
		case model.MissingBuild:
			what = "did not build"
		}
		reason, _, _ := strings.Cut(m.Reason, "\n")
		if reason = strings.TrimSpace(reason); reason != "" {
			reason = ": " + reason
		}
		return fmt.Sprintf("%s %s on %s where %s has it%s (--allow-missing accepts this)", m.Benchmark, what, m.Side, base, reason)
	}
	if math.IsInf(g.Change, 1) && g.Old == 0 {
		return fmt.Sprintf("%s %s regressed on %s: %s from 0, beyond any percentage limit",
			g.Benchmark, g.Unit, g.Side, signedNumber(g.Delta)+" "+g.Unit)
	}
	return fmt.Sprintf("%s %s regressed on %s: %+.2f%%, %.2f%% worse, beyond the %g%% limit",
		g.Benchmark, g.Unit, g.Side, g.Estimate*100, g.Change*100, limit)
}

// signedNumber prints whole numbers whole (+8, not +8e+00) and others
// with four significant digits.
func signedNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%+.0f", v)
	}
	return fmt.Sprintf("%+.4g", v)
}
