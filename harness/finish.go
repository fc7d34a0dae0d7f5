package harness

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/analysis"
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
}

// analyze analyses a run measured with cfg (defaults filled in), with its
// confidence, noise band and seed, and resolution (seconds) as the timer's floor.
func analyze(cfg rigor.Config, run *model.Run, resolution float64) (*analysis.Report, error) {
	o := analysis.DefaultOptions()
	o.Confidence = cfg.Confidence
	o.Noise = cfg.Noise
	o.Seed = cfg.Seed
	o.TimerResolution = resolution
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
	if err := report.Render(w, rep, report.Options{Format: o.format}); err != nil {
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
			brep, err := analyze(cfg, cmp, resolution)
			if err != nil {
				return nil, fmt.Errorf("analysing group %q against baseline %s: %w", group, o.baseline, err)
			}
			out.Baseline, gated = brep, brep
			if err := report.Render(w, brep, report.Options{Format: o.format}); err != nil {
				return nil, fmt.Errorf("reporting group %q: %w", group, err)
			}
		}
		if o.saveBaseline != "" {
			if err := saveBaseline(st, o.saveBaseline, flat); err != nil {
				return nil, fmt.Errorf("group %q: %w", group, err)
			}
		}
	}
	if o.maxRegression >= 0 {
		out.Failures = gated.Gate(o.maxRegression / 100)
	}
	return out, nil
}

// currentLabel labels this run's side in baseline comparisons.
const currentLabel = "current"

func openStore() (*store.Store, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	root, err := store.ModuleRoot(wd)
	if err != nil {
		return nil, fmt.Errorf("finding where baselines live: %w", err)
	}
	return store.Open(root), nil
}

// writeRun writes run as dir/<group>.json and, as its final version,
// dir/run.json (see sink).
func writeRun(dir, group string, run *model.Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	if err := writeJSONFile(dir, fileName(group)+".json", run); err != nil {
		return err
	}
	return writeJSONFile(dir, runFile, run)
}

// fileName makes a group name safe as a file name.
func fileName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "group"
	}
	return b.String()
}

// flatten turns a group's run (one side per variant) into a one-sided run
// with one benchmark per variant and parameters, named
// group/variant[/params], as baselines hold them.
func flatten(run *model.Run, group, label string) *model.Run {
	out := *run
	out.Sides = []model.Side{{Label: label}}
	out.Benchmarks = nil
	out.Paired = false
	for _, b := range run.Benchmarks {
		params := strings.TrimPrefix(strings.TrimPrefix(b.Name, group), "/")
		for _, side := range run.Sides {
			fb := model.Benchmark{
				Name:    group + "/" + side.Label,
				Procs:   b.Procs,
				Pkg:     b.Pkg,
				Group:   group,
				Variant: side.Label,
			}
			if params != "" {
				fb.Name += "/" + params
			}
			for _, m := range b.Metrics {
				fm := model.Metric{Unit: m.Unit, Better: m.Better, Assume: m.Assume}
				for _, s := range m.Samples {
					if s.Side == side.Label {
						s.Side = label
						fm.Samples = append(fm.Samples, s)
					}
				}
				if len(fm.Samples) > 0 {
					fb.Metrics = append(fb.Metrics, fm)
				}
			}
			if len(fb.Metrics) > 0 {
				out.Benchmarks = append(out.Benchmarks, fb)
			}
		}
	}
	return &out
}

// only returns base restricted to the benchmarks of flat's group and
// package: a baseline holds every group saved under its name.
func only(base, flat *model.Run) *model.Run {
	out := *base
	out.Benchmarks = nil
	for _, b := range base.Benchmarks {
		for _, f := range flat.Benchmarks {
			if b.Group == f.Group && b.Pkg == f.Pkg {
				out.Benchmarks = append(out.Benchmarks, b)
				break
			}
		}
	}
	return &out
}

// saveBaseline saves flat under name, replacing the benchmarks of the
// same group and package and keeping the others: one baseline holds every
// group saved under its name.
func saveBaseline(st *store.Store, name string, flat *model.Run) error {
	merged := *flat
	merged.Benchmarks = nil
	old, err := st.Load(name)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return err
	case len(old.Sides) == 1:
		for _, b := range old.Benchmarks {
			if len(flat.Benchmarks) > 0 && b.Group == flat.Benchmarks[0].Group && b.Pkg == flat.Benchmarks[0].Pkg {
				continue
			}
			for j := range b.Metrics {
				for k := range b.Metrics[j].Samples {
					b.Metrics[j].Samples[k].Side = flat.Sides[0].Label
				}
			}
			merged.Benchmarks = append(merged.Benchmarks, b)
		}
	}
	merged.Benchmarks = append(merged.Benchmarks, flat.Benchmarks...)
	return st.Save(name, &merged)
}
