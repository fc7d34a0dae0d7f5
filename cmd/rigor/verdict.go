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

	"github.com/spf13/pflag"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/report"
)

// verdictFlags are the analysis, output and gate flags shared by every
// command that ends in a verdict: compare, ab, run, report.
type verdictFlags struct {
	verbose bool
	format  string
	// style is the text layout; a command may preset it before register
	// to choose its default.
	style string
	// color, when set by a command (exec's hyperfine --style), turns
	// colours on or off; nil: on when writing to a terminal.
	color         *bool
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
	gateOn        string
	insTolerance  float64
}

func (f *verdictFlags) register(fs *pflag.FlagSet) {
	d := analysis.DefaultOptions()
	fs.StringVar(&f.format, "format", "text", "output format: "+strings.Join(report.Formats(), ", "))
	fs.StringVar(&f.style, "style", cmp.Or(f.style, "benchstat"), "layout of --format text: "+strings.Join(report.Styles(), ", "))
	fs.StringVarP(&f.output, "output", "o", "", "write the report to this file instead of standard output")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "text and md: every note, each as it is, and every metric's table (by default the notes are those a reader acts on, a note several benchmarks share said once, and the tables after the results are the metrics that did not decide a verdict: the other clock, the CPU waits and derived units are context, and rows the same on every side are left out)")
	fs.Float64Var(&f.maxRegression, "max-regression", -1, "exit 1 when a benchmark regressed by more than this `percent` (e.g. 5); off when negative")
	fs.BoolVar(&f.allowMissing, "allow-missing", false, "with --max-regression, pass a benchmark that the baseline has but that failed, did not build or is missing on another side (by default it fails the gate)")
	fs.Float64Var(&f.noise, "noise", d.Noise*100, "noise band in `percent`: a change whose CI lies inside ±noise is unchanged")
	fs.Float64Var(&f.alpha, "alpha", d.Alpha, "significance level for corrected p-values")
	fs.Float64Var(&f.confidence, "confidence", d.Confidence, "confidence level of every interval")
	fs.StringVar(&f.test, "test", d.Test, "unpaired test: utest (Mann-Whitney, as benchstat), welch, or mixed-bootstrap (Criterion.rs's: Welch's t, p from a bootstrap of the pooled samples)")
	fs.StringVar(&f.correction, "correction", d.Correction, "multiple-comparison correction: holm, bh or none")
	fs.IntVar(&f.resamples, "resamples", d.Resamples, "bootstrap resamples for confidence intervals")
	fs.Uint64Var(&f.seed, "seed", d.Seed, "bootstrap seed (results are reproducible for a given seed)")
	fs.StringVar(&f.gateOn, "gate", d.Gate, "what --max-regression applies to: time (each benchmark's verdict) or instructions (instructions per op, for CI on noisy runners; needs counts: --instructions)")
	fs.Float64Var(&f.insTolerance, "instructions-tolerance", d.InstructionsTolerance*100, "tolerance of an instructions/op count in `percent`: a change whose range lies inside ±tolerance is unchanged, one wholly beyond it moved")
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
	o.Gate = f.gateOn
	o.InstructionsTolerance = f.insTolerance / 100
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
	if !(f.insTolerance >= 0 && f.insTolerance < 100) {
		return o, usageErrorf("--instructions-tolerance must be a percentage in [0, 100), got %v", f.insTolerance)
	}
	if f.gateOn != analysis.GateTime && f.gateOn != analysis.GateInstructions {
		return o, usageErrorf("unknown --gate %q (want %s or %s)", f.gateOn, analysis.GateTime, analysis.GateInstructions)
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

// emit renders rep in the chosen format on s.out (or -o) and applies the
// gate: exit 1 when some benchmark regressed by more than
// --max-regression, or, unless --allow-missing, failed or is missing
// where the baseline has it. Each failure is one line on s.err.
func (f *verdictFlags) emit(s stdio, rep *analysis.Report) error {
	// The gate is applied first, so that the report says its outcome.
	fails := rep.ApplyGate(f.maxRegression/100, f.allowMissing)
	err := f.write(s.out, func(w io.Writer) error {
		color := false
		if file, ok := w.(*os.File); ok {
			color = isTerminal(file)
		}
		if f.color != nil {
			color = *f.color
		}
		return report.Render(w, rep, report.Options{Format: f.format, Style: f.style, Color: color, Width: terminalWidth(w), Verbose: f.verbose})
	})
	if err != nil {
		return err
	}
	if len(fails) == 0 {
		return nil
	}
	for _, g := range fails {
		// Names and labels come from the input: escaped, never obeyed.
		fmt.Fprintln(s.err, "rigor: gate: "+report.TerminalSafe(gateLine(g)))
	}
	return &exitError{code: exitGateFail}
}

// gate returns rep's gate failures at limit percent, without the lost
// benchmarks when --allow-missing says they are accepted.
func (f *verdictFlags) gate(rep *analysis.Report, limit float64) []analysis.GateFailure {
	return rep.GateFailures(limit/100, f.allowMissing)
}

// write calls render with out, or with the file -o names.
func (f *verdictFlags) write(out io.Writer, render func(io.Writer) error) error {
	w := out
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

// gateLine is g's line (analysis.GateFailure.String, the wording every
// front end shares), with how to accept a lost benchmark.
func gateLine(g analysis.GateFailure) string {
	if g.Missing != nil {
		return g.String() + " (--allow-missing accepts this)"
	}
	return g.String()
}
