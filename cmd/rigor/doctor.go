package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
)

// doctorOptions are rigor doctor's flags and what it checks with.
type doctorOptions struct {
	format string
	strict bool
	// check examines the machine: observe.Check, which samples the load
	// for a second; tests give findings of their own.
	check func(context.Context, *model.Env) ([]observe.Finding, error)
}

func newDoctorCmd(s stdio) *cobra.Command {
	o := doctorOptions{check: observe.Check}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the machine for what would distort benchmark results",
		Long: `doctor checks the machine before benchmarking, as pyperf's "system check"
does: frequency governor, turbo, load and the processes causing it (sampled
over one second), steal, cores, memory, ASLR, virtualization, battery and
hardware instruction counters. Each finding says what to do about it.

Findings marked warn would distort results. doctor exits 0, or with --strict
exits 1 when there is a warn finding, so scripts can refuse to benchmark on
a busy or throttled machine.`,
		Example: `  rigor doctor
  rigor doctor --strict && rigor ab --old main ./...`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDoctor(cmd.Context(), &o, s)
		},
	}
	cmd.Flags().StringVar(&o.format, "format", "text", "output format: text or json")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "exit 1 when a finding would distort results")
	return cmd
}

// runDoctor checks the machine and prints the findings; with o.strict a
// finding that would distort results exits 1.
func runDoctor(ctx context.Context, o *doctorOptions, s stdio) error {
	if o.format != "text" && o.format != "json" {
		return usageErrorf("unknown --format %q (want text or json)", o.format)
	}
	env := observe.CaptureEnv(ctx)
	findings, err := o.check(ctx, &env)
	if err != nil {
		return fmt.Errorf("checking the machine: %w", err)
	}
	if o.format == "json" {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(findings); err != nil {
			return err
		}
	} else if err := writeFindings(s.out, findings); err != nil {
		return err
	}
	if o.strict && observe.Strict(findings) {
		return &exitError{code: exitGateFail}
	}
	return nil
}

// writeFindings prints a summary line, then one line per finding (worst
// first) with its fix indented under it.
func writeFindings(w io.Writer, findings []observe.Finding) error {
	count := map[string]int{}
	for _, f := range findings {
		count[f.Severity]++
	}
	switch n := count[observe.SeverityWarn]; n {
	case 0:
		fmt.Fprintln(w, "rigor doctor: nothing found that would distort results")
	case 1:
		fmt.Fprintln(w, "rigor doctor: 1 finding would distort results")
	default:
		fmt.Fprintf(w, "rigor doctor: %d findings would distort results\n", n)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, sev := range []string{observe.SeverityWarn, observe.SeverityInfo, observe.SeverityOK} {
		for _, f := range findings {
			if f.Severity != sev {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Severity, f.Check, f.Message)
			if f.Fix != "" {
				fmt.Fprintf(tw, "\t\tfix: %s\n", f.Fix)
			}
		}
	}
	return tw.Flush()
}
