package harness

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"testing"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/report"
	"github.com/rigorbench/rigor/store"
)

// An Outcome is a measured, analysed group.
type Outcome struct {
	// Run is the raw measurement.
	Run *model.Run
	// Report compares every variant with the group's baseline variant.
	Report *analysis.Report
	// Baseline compares every variant with its saved baseline, when one
	// was asked for (-rigor.baseline).
	Baseline *analysis.Report
	// Failures are the comparisons that fail the gate
	// (-rigor.max-regression): those against the saved baseline when
	// there is one, else those within the group.
	Failures []analysis.GateFailure
	// Updated names the baseline this run was saved as because the gate
	// passed (-rigor.update-on-pass); empty otherwise.
	Updated string
}

// verbose reports whether go test runs with -v: the text report then
// shows every estimate and the routine notes.
func verbose() bool { return testing.Testing() && flag.Parsed() && testing.Verbose() }

// analyze analyses a run measured with cfg (defaults filled in), with its
// confidence, noise band and seed, and resolution (seconds) as the timer's floor.
func analyze(cfg rigor.Config, run *model.Run, resolution float64) (*analysis.Report, error) {
	o := analysis.DefaultOptions()
	o.Confidence = cfg.Confidence
	o.Noise = cfg.Noise
	o.Seed = cfg.Seed
	o.TimerResolution = resolution
	// Every summary's estimates with intervals and standard errors, as
	// Criterion.rs gives them.
	o.Estimates = true
	return analysis.Analyze(run, o)
}

// finish analyses and reports one group measured with cfg (defaults
// filled in): the report on w in
// o.format, the raw run in o.out, the comparison with and the saving of a
// baseline, and the gate.
func (o *options) finish(w io.Writer, group string, cfg rigor.Config, run *model.Run, resolution float64) (*Outcome, error) {
	out := &Outcome{Run: run}
	rep, err := analyze(cfg, run, resolution)
	if err != nil {
		return nil, fmt.Errorf("analysing group %q: %w", group, err)
	}
	out.Report = rep
	if err := report.Render(w, rep, report.Options{Format: o.format, Verbose: verbose()}); err != nil {
		return nil, fmt.Errorf("reporting group %q: %w", group, err)
	}
	if o.out != "" {
		if err := writeRun(o.out, group, run); err != nil {
			return nil, err
		}
	}
	gated := rep
	if o.baseline != "" || o.saveBaseline != "" {
		flat := flatten(run, group, currentLabel)
		st, err := openStore()
		if err != nil {
			return nil, err
		}
		if o.baseline != "" {
			base, err := st.Load(o.baseline)
			if err != nil {
				return nil, fmt.Errorf("group %q: %w", group, err)
			}
			cmp, err := store.Against(only(base, flat), o.baseline, flat)
			if err != nil {
				return nil, fmt.Errorf("group %q against baseline %s: %w", group, o.baseline, err)
			}
			cmp.Sessions = sessionsOf(st, o.baseline, flat) // across sessions: see sessions.go
			brep, err := analyze(cfg, cmp, resolution)
			if err != nil {
				return nil, fmt.Errorf("analysing group %q against baseline %s: %w", group, o.baseline, err)
			}
			out.Baseline, gated = brep, brep
			if err := report.Render(w, brep, report.Options{Format: o.format, Verbose: verbose()}); err != nil {
				return nil, fmt.Errorf("reporting group %q: %w", group, err)
			}
		}
		if o.saveBaseline != "" {
			if err := saveBaseline(st, o.saveBaseline, flat); err != nil {
				return nil, fmt.Errorf("group %q: %w", group, err)
			}
			if err := keepSession(st, o.saveBaseline, flat); err != nil {
				return nil, fmt.Errorf("group %q: %w", group, err)
			}
		}
	}
	if o.maxRegression >= 0 {
		out.Failures = gated.Gate(o.maxRegression / 100)
	}
	// A comparison across sessions that could not be decided is no pass.
	if o.updateOnPass && o.baseline != "" && len(out.Failures) == 0 && gated.AcrossUnknown() == 0 {
		st, err := openStore()
		if err != nil {
			return nil, err
		}
		flat := flatten(run, group, currentLabel)
		if err := saveBaseline(st, o.baseline, flat); err != nil {
			return nil, fmt.Errorf("group %q: updating baseline %s: %w", group, o.baseline, err)
		}
		if err := keepSession(st, o.baseline, flat); err != nil {
			return nil, fmt.Errorf("group %q: %w", group, err)
		}
		out.Updated = o.baseline
	}
	if o.format == "" || o.format == "text" {
		writeSummary(w, gated, out, o.maxRegression)
	}
	return out, nil
}

// writeSummary ends a group's text report as zenbench does: a summary
// line counting the comparisons by verdict, then PASS or FAIL for the
// gate.
func writeSummary(w io.Writer, rep *analysis.Report, out *Outcome, maxRegression float64) {
	t := rep.Tally()
	against := "the baseline variant " + rep.Sides[0]
	if out.Baseline != nil {
		against = "the saved baseline"
	}
	if len(rep.Sides) > 1 {
		fmt.Fprintf(w, "Summary: %d regressed, %d improved, %d unchanged, %d inconclusive (against %s)\n",
			t.Regressed, t.Improved, t.Unchanged, t.Inconclusive, against)
	}
	limit := strconv.FormatFloat(maxRegression, 'g', 6, 64)
	switch {
	case len(out.Failures) > 0:
		fmt.Fprintf(w, "[rigor] FAIL: %d %s beyond the %s%% limit\n", len(out.Failures), words.Plural(len(out.Failures), "comparison regressed", "comparisons regressed"), limit)
	case maxRegression >= 0:
		fmt.Fprintf(w, "[rigor] PASS: no regression beyond the %s%% limit\n", limit)
	default:
		fmt.Fprintln(w, "[rigor] PASS: no gate was set (-rigor.max-regression)")
	}
	if out.Updated != "" {
		fmt.Fprintf(w, "[rigor] baseline %s updated: the gate passed (-rigor.update-on-pass)\n", out.Updated)
	} else if n := rep.AcrossUnknown(); n > 0 && out.Baseline != nil && len(out.Failures) == 0 {
		fmt.Fprintf(w, "[rigor] baseline kept: %d %s not be decided across sessions\n", n, words.Plural(n, "comparison could", "comparisons could"))
	}
}
