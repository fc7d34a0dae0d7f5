package harness

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/store"
)

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
