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
	// go test -bench 'Fib/fib20$' measures fib20 alone.
	filter := newBenchFilter(flag.CommandLine, b.Name())
	if filter != nil {
		all := g.Len()
		g = g.Select(filter.keep)
		if g.Len() == 0 {
			b.Logf("rigor: no variant of group %q matches -test.bench: nothing measured", g.Name)
			return nil
		}
		if g.Len() < all {
			b.Logf("rigor: -test.bench selects %d of group %q's %d variants and parameters: only they are measured and compared", g.Len(), g.Name, all)
		}
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
	m, err := measure(b.Context(), g, cfg, childTestArgs(b.Name(), filter), o.out, o.files)
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
// run only the named benchmark, once, with the variants filter selects.
func childTestArgs(name string, filter *benchFilter) []string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	if filter != nil {
		parts = append(parts, filter.rest...)
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
// once per -count repetition; repetition j reports pass j's medians, and
// its iteration count is the number of iterations the variant ran in
// that pass's timed rounds (testing's own b.N would count calls of a
// function that only reports).
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
			var iters []int
			for _, p := range passes {
				if bi < len(p.Benchmarks) {
					reps = append(reps, medians(&p.Benchmarks[bi], side.Label))
					iters = append(iters, timedIters(&p.Benchmarks[bi], side.Label))
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
				j = min(j, len(reps)-1)
				for _, m := range reps[j] {
					b.ReportMetric(m.v, m.unit)
				}
				// testing reports the b.N of its last call of this
				// function: make it the iterations measured. Only on
				// the last call (testing's ramp-up reaches 1e9 calls
				// of a function this quick, and a count -benchtime
				// makes none after), since the ramp-up predicts the
				// next b.N from this one.
				if iters[j] > 0 && (b.N >= maxBenchN || countBenchtime()) {
					//lint:ignore SA3001 this function times nothing: b.N is set for the line testing prints, on the last call only
					b.N = iters[j]
				}
			})
		}
	}
}

// maxBenchN is the largest b.N testing's ramp-up gives a benchmark: the
// last call of a function that takes no time.
const maxBenchN = 1e9

// countBenchtime reports whether -test.benchtime is a count ("100x"),
// which testing runs once, without a ramp-up.
func countBenchtime() bool {
	f := flag.Lookup("test.benchtime")
	return f != nil && strings.HasSuffix(f.Value.String(), "x")
}

// timedIters is the number of iterations side ran in bm's timed rounds
// (per goroutine).
func timedIters(bm *model.Benchmark, side string) int {
	m := bm.Metric(unitTime)
	if m == nil {
		return 0
	}
	n := int64(0)
	for _, s := range m.Samples {
		if s.Side == side {
			n += s.Iters
		}
	}
	return int(min(n, 1<<62))
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
