package harness

import (
	"flag"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// Run measures g inside a Go benchmark, reports each variant as a
// sub-benchmark of b (ns/op, B/op, allocs/op and throughput, the medians of
// the rounds) so that benchstat can read them, prints rigor's report on
// standard output, handles the baseline flags, and fails b when the gate
// fails. It returns the outcome, or nil in a child process of a
// multi-process run.
//
// Call Run once per group in a benchmark function that does nothing else:
// its own b.N is meaningless.
func Run(b *testing.B, g *rigor.Group) *Outcome {
	b.Helper()
	o, err := readOptions(flag.CommandLine, os.LookupEnv)
	if err != nil {
		b.Fatalf("rigor: %v", err)
	}
	return runBench(b, g, o, os.Stdout)
}

// runBench is Run with the options o, reporting on w.
func runBench(b *testing.B, g *rigor.Group, o *options, w io.Writer) *Outcome {
	b.Helper()
	if os.Getenv(envChild) != "" && !isChild(g.Name) {
		return nil // a child measures one group only
	}
	cfg, err := o.apply(g.Config)
	if err != nil {
		b.Fatalf("rigor: %v", err)
	}
	// go test -count N asks for N repetitions: they are N passes, each
	// reported through testing on its own line, so that benchstat sees N
	// independent measurements.
	if f := flag.Lookup("test.count"); f != nil {
		if n, err := strconv.Atoi(f.Value.String()); err == nil && n > cfg.Passes {
			cfg.Passes = n
			if cfg.Policy == "" {
				cfg.Policy = rigor.Mean
			}
		}
	}
	if f := flag.Lookup("test.cpu"); f != nil && strings.Contains(f.Value.String(), ",") {
		b.Logf("rigor: -cpu %s is not applied to group %q: it runs once, at GOMAXPROCS=%d; use BenchScaling to vary goroutines",
			f.Value, g.Name, gomaxprocs())
	}
	m, err := measure(b.Context(), g, cfg, childTestArgs(b.Name()), o.out, o.files)
	if err != nil {
		b.Fatalf("rigor: %v", err)
	}
	if m.child {
		return nil
	}
	out, err := o.finish(w, g.Name, m.cfg, m.run, m.resolution)
	if err != nil {
		b.Fatalf("rigor: %v", err)
	}
	reportSubBenchmarks(b, m.passes)
	for _, f := range out.Failures {
		b.Errorf("rigor: gate: %s", f)
	}
	return out
}

// childTestArgs returns the arguments that make a copy of this test binary
// run only the named benchmark, once.
func childTestArgs(name string) []string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return append(slices.Clone(os.Args[1:]),
		"-test.run=^$",
		"-test.bench="+strings.Join(parts, "/"),
		"-test.benchtime=1x",
		"-test.count=1",
		"-test.cpu="+strconv.Itoa(gomaxprocs()))
}

// reportSubBenchmarks reports each variant through testing, as one
// sub-benchmark per variant and parameters. testing runs a sub-benchmark
// once per -count repetition; repetition j reports pass j's medians.
func reportSubBenchmarks(b *testing.B, passes []*model.Run) {
	first := passes[0]
	for bi, bm := range first.Benchmarks {
		params := strings.TrimPrefix(strings.TrimPrefix(bm.Name, bm.Group), "/")
		for _, side := range first.Sides {
			name := side.Label
			if params != "" {
				name += "/" + params
			}
			var reps [][]reported
			for _, p := range passes {
				if bi < len(p.Benchmarks) {
					reps = append(reps, medians(&p.Benchmarks[bi], side.Label))
				}
			}
			if len(reps) == 0 || len(reps[0]) == 0 {
				continue
			}
			seen := map[*testing.B]int{}
			b.Run(name, func(b *testing.B) {
				j, ok := seen[b]
				if !ok {
					j = len(seen)
					seen[b] = j
				}
				for _, m := range reps[min(j, len(reps)-1)] {
					b.ReportMetric(m.v, m.unit)
				}
			})
		}
	}
}

// A reported value is one metric as testing prints it.
type reported struct {
	v    float64
	unit string
}

// medians returns side's median of every metric of bm, in testing's units.
func medians(bm *model.Benchmark, side string) []reported {
	var ms []reported
	for _, m := range bm.Metrics {
		v := m.Values(side)
		if len(v) == 0 {
			continue
		}
		x, unit := stats.Median(v), m.Unit
		switch unit {
		case unitTime:
			x, unit = x*1e9, "ns/op"
		case "B/s":
			x, unit = x/1e6, "MB/s"
		}
		ms = append(ms, reported{x, unit})
	}
	return ms
}
