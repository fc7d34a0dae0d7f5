package main

import (
	"context"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// compareOptions are rigor compare's flags and arguments.
type compareOptions struct {
	verdict verdictFlags
	inputs  []string // path or label=path, the baseline first
	record  recordFlags
}

func newCompareCmd(s stdio) *cobra.Command {
	var o compareOptions
	cmd := &cobra.Command{
		Use:   "compare [flags] OLD NEW [MORE...]",
		Short: "Compare files of benchmark results, as benchstat does, with verdicts and a gate",
		Long: `compare reads files of Go benchmark output, of 'go test -json' output, or of
rigor JSON, and compares every benchmark and unit of each file with the first.

Each argument is a path, or label=path to name its column. Every unit is
compared: sec/op, B/op, allocs/op, B/s and custom units; B/s and other
per-second units improve upward. A change is "improved" or "regressed" only
when its confidence interval clears the noise band and its corrected p-value
is below alpha; "unchanged" when the interval lies inside the band;
"inconclusive" otherwise, with the reason.

Exit status: 0, or 1 when --max-regression is set and a benchmark regressed by
more than it, or 2 for unreadable input, no benchmarks, or nothing in common.`,
		Example: `  rigor compare old.txt new.txt
  rigor compare --max-regression 5 base=main.txt pr=pr.txt
  rigor compare --format json old.txt new.txt | jq '.benchmarks[].metrics[].verdict'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.inputs = args
			return runCompare(cmd.Context(), &o, s)
		},
	}
	o.verdict.register(cmd.Flags())
	o.record.register(cmd.Flags())
	return cmd
}

// compareGCPercent is the garbage collector's GOGC while rigor compare
// runs, unless GOGC is set: the heap may grow three quarters over what is
// live, not double it. compare's live heap only grows (the samples read,
// then the analysis beside them), so its peak, most of compare's memory
// above the program's own, is about that factor times the last live
// heap. Measured with testdata/genlarge/vs-benchstat.sh in one sitting
// (median CPU and max RSS of alternating runs, benchstat's beside), GOGC
// 100, 75 and 50: 1,000 benchmarks 0.150, 0.160, 0.160 s and 30.9, 30.0,
// 29.9 MiB (benchstat 0.190 s, 13.7 MiB); 10,000 benchmarks 1.64, 1.61,
// 1.85 s and 136.0, 121.8, 115.7 MiB (benchstat 2.56 s, 98.5 MiB). 50
// cost 13% more CPU at 10,000 for 6 MiB less; 75 about as much CPU as 100.
const compareGCPercent = 75

// runCompare compares o's input files and prints the verdicts.
func runCompare(ctx context.Context, o *compareOptions, s stdio) error {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(compareGCPercent))
	}
	opts, err := o.verdict.options()
	if err != nil {
		return err
	}
	if err := o.record.check(); err != nil {
		return err
	}
	if err := outputNotInput(o.verdict.output, o.inputs); err != nil {
		return err
	}
	run, err := readInputs(o.inputs)
	if err != nil {
		return err
	}
	rep, err := analysis.Analyze(run, opts)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if len(run.Sides) > 1 && !rep.Comparable() {
		return usageErrorf("no benchmark in common between %s", strings.Join(rep.Sides, " and "))
	}
	return o.record.after(ctx, s.err, run, o.verdict.emit(s, rep))
}

// readInputs reads each argument (path or label=path) and merges them
// into one run, one side per argument.
func readInputs(args []string) (*model.Run, error) {
	inputs := make([]model.Input, len(args))
	for i, arg := range args {
		label, path := splitLabel(arg)
		inputs[i] = model.Input{Path: path, Label: label}
	}
	run, err := model.ReadFiles(inputs)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return run, nil
}

// splitLabel splits benchstat's label=path form. An argument that names an
// existing file is a path even if it contains '='.
func splitLabel(arg string) (label, path string) {
	if _, err := os.Stat(arg); err == nil {
		return arg, arg
	}
	if l, p, ok := strings.Cut(arg, "="); ok && l != "" {
		return l, p
	}
	return arg, arg
}

// outputNotInput refuses an -o file that is one of the inputs (the same
// file, under any name): writing the report would destroy it.
func outputNotInput(output string, args []string) error {
	if output == "" {
		return nil
	}
	out, err := os.Stat(output)
	if err != nil {
		return nil // not there yet, so not an input
	}
	for _, arg := range args {
		_, path := splitLabel(arg)
		if in, err := os.Stat(path); err == nil && os.SameFile(in, out) {
			return usageErrorf("-o %s is the input %s: the report would overwrite it", output, path)
		}
	}
	return nil
}
