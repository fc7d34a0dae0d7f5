package main

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/report"
)

func init() {
	var flags verdictFlags
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
more than it, or 2 for unreadable input.`,
		Example: `  rigor report results.json --format html -o report.html
  rigor report results.json --format tree
  rigor report results.json --format benchfmt > results.txt`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := flags.options()
			if err != nil {
				return err
			}
			run, err := model.ReadFile(args[0], "")
			if err != nil {
				return usageErrorf("%v", err)
			}
			var rep *analysis.Report
			if len(run.Sides) == 0 && run.Ramp != nil {
				// A ramp has no sides to compare: only the ramp to show.
				switch {
				case flags.format == "json":
					return flags.write(cmd, run.WriteJSON)
				case slices.Contains(report.RampFormats, flags.format):
					return flags.write(cmd, func(w io.Writer) error { return report.RenderRamp(w, run.Ramp, flags.format) })
				case flags.format != "html":
					return usageErrorf("%s holds a ramp, which --format %s cannot show (want %s, json or html)",
						args[0], flags.format, strings.Join(report.RampFormats, ", "))
				}
				rep = &analysis.Report{Kind: run.Kind, Options: opts, Run: run, Notes: run.Notes}
			} else if rep, err = analysis.Analyze(run, opts); err != nil {
				return usageErrorf("%s: %v", args[0], err)
			}
			return flags.emit(cmd, rep)
		},
	}
	flags.register(cmd.Flags())
	rootCmd.AddCommand(cmd)
}
