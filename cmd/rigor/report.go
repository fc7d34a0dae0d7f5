package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/report"
)

// reportOptions are rigor report's flags and argument.
type reportOptions struct {
	verdict verdictFlags
	input   string // the results file
}

func newReportCmd(s stdio) *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report [flags] RESULTS",
		Short: "Render saved results (rigor JSON, or any file compare reads) in any format, HTML included",
		Long: `report reads one file of results, analyses it as compare does and renders it.
RESULTS is usually the rigor JSON a run saved (a model.Run: its sides, raw
samples, environment and observations); Go benchmark output and 'go test
-json' output are read too. A ramp's JSON is rendered as its ramp.

--format html writes one self-contained file: inline CSS and SVG charts, no
script, nothing fetched. It shows the environment and what the system was
doing, a comparison chart per group, and per benchmark its distribution,
per-round timeline, paired differences, linear-sampling regression and
footnotes.

Exit status: 0, or 1 when --max-regression is set and a benchmark regressed by
more than it, or 2 for unreadable input, or results that are partial (a run
that was interrupted, or cut short: its run.json has a start and no end, as
a killed run leaves it): the report is written, with a note saying so.`,
		Example: `  rigor report results.json --format html -o report.html
  rigor report results.json --format tree
  rigor report results.json --format benchfmt > results.txt`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.input = args[0]
			return runReport(cmd.Context(), &o, s)
		},
	}
	o.verdict.register(cmd.Flags())
	return cmd
}

// runReport renders o's results file as o.verdict says, with its gate.
func runReport(_ context.Context, o *reportOptions, s stdio) error {
	f := &o.verdict
	opts, err := f.options()
	if err != nil {
		return err
	}
	run, err := model.ReadFile(o.input, "")
	if err != nil {
		return usageErrorf("%v", err)
	}
	var rep *analysis.Report
	if len(run.Sides) == 0 && run.Ramp != nil {
		// A ramp has no sides to compare: only the ramp to show.
		switch {
		case f.format == "json":
			return f.write(s.out, run.WriteJSON)
		case slices.Contains(report.RampFormats, f.format):
			return f.write(s.out, func(w io.Writer) error { return report.RenderRamp(w, run.Ramp, f.format) })
		case f.format != "html":
			return usageErrorf("%s holds a ramp, which --format %s cannot show (want %s, json or html)",
				o.input, f.format, strings.Join(report.RampFormats, ", "))
		}
		rep = &analysis.Report{Kind: run.Kind, Options: opts, Run: run, Notes: run.Notes}
	} else if rep, err = analysis.Analyze(run, opts); err != nil {
		return usageErrorf("%s: %v", o.input, err)
	}
	err = f.emit(s, rep)
	if err == nil && rep.Partial() {
		// As the interrupted run exited: its partial verdict, exit 2.
		return &exitError{code: exitUsage, err: fmt.Errorf("%s holds partial results (the run was cut short or interrupted): the verdict above rests on the rounds it finished", o.input)}
	}
	return err
}
