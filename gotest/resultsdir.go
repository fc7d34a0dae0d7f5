package gotest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// open creates the results directory and one benchmark file per side.
func (s *session) open() error {
	if err := os.MkdirAll(s.cfg.Out, 0o755); err != nil {
		return fmt.Errorf("creating results directory: %w", err)
	}
	for _, sd := range s.sides {
		f, err := os.OpenFile(filepath.Join(s.cfg.Out, sd.Label+".txt"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("creating results file: %w", err)
		}
		sd.file, sd.config = f, map[string]string{}
	}
	return s.writeJSON()
}

// RunFile is the name of the rigor JSON file in the results directory.
const RunFile = experiment.RunFile

// writeJSON rewrites run.json atomically, so that a crash leaves the last
// complete version.
func (s *session) writeJSON() error {
	return experiment.WriteRun(s.cfg.Out, RunFile, s.run)
}

// record appends results to the side's benchmark file, as printed, and to
// the run, every value of a result line tagged with the layout of round's
// binary (sampleLayout). The file says nothing of layouts: benchstat pools
// the links' samples, as it would pool runs of one binary.
func (s *session) record(sd *sideState, round int, results []Result) error {
	layout := s.sampleLayout(round)
	var text strings.Builder
	for _, r := range results {
		for _, kv := range r.Config {
			if v, ok := sd.config[kv.Key]; !ok || v != kv.Value {
				fmt.Fprintf(&text, "%s: %s\n", kv.Key, kv.Value)
				sd.config[kv.Key] = kv.Value
			}
		}
		text.WriteString(r.Line)
		text.WriteByte('\n')

		pkg := r.config("pkg")
		key := r.FullName()
		if pkg != "" {
			key = pkg + "." + key
		}
		bi, ok := s.bench[key]
		if !ok {
			bi = len(s.run.Benchmarks)
			s.bench[key] = bi
			s.run.Benchmarks = append(s.run.Benchmarks, model.Benchmark{
				Name: r.Name, Procs: r.Procs, Pkg: pkg, Config: r.fileConfig, Metrics: []model.Metric{},
			})
		}
		b := &s.run.Benchmarks[bi]
		for _, v := range r.Values {
			m := b.Metric(v.Unit)
			if m == nil {
				b.Metrics = append(b.Metrics, model.Metric{Unit: v.Unit, Better: v.Better, Assume: v.Assume})
				m = &b.Metrics[len(b.Metrics)-1]
			}
			m.Samples = append(m.Samples, model.Sample{Side: sd.Label, Round: round, Iters: r.Iters, Value: v.Value, Layout: layout})
		}
	}
	if _, err := sd.file.WriteString(text.String()); err != nil {
		return fmt.Errorf("writing %s: %w", sd.file.Name(), err)
	}
	return nil
}
