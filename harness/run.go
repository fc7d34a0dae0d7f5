package harness

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/analysis"
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
	if optsErr != nil {
		b.Fatalf("rigor: %v", optsErr)
	}
	if os.Getenv(envChild) != "" && !isChild(g.Name) {
		return nil // a child measures one group only
	}
	cfg, err := opts.apply(g.Config)
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
	m, err := measure(b.Context(), g, cfg, childTestArgs(b.Name()), opts.out)
	if err != nil {
		b.Fatalf("rigor: %v", err)
	}
	if m.child {
		return nil
	}
	out, err := opts.finish(os.Stdout, g.Name, m.cfg, m.run, m.resolution)
	if err != nil {
		b.Fatalf("rigor: %v", err)
	}
	reportSubBenchmarks(b, m.passes)
	for _, f := range out.Failures {
		b.Errorf("rigor: %s", gateWords(f, opts.maxRegression))
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

func gateWords(f analysis.GateFailure, limit float64) string {
	return fmt.Sprintf("%s: %s is %.2f%% worse in %s, beyond the %.4g%% allowed (-rigor.max-regression)",
		f.Benchmark, f.Side, 100*f.Change, f.Unit, limit)
}

// Main measures groups from a program's main: it parses the command line
// (the -rigor.* flags, and any the program registered), measures each
// group, prints each report on standard output, and exits: 0 when all is
// well, 1 when the gate failed, 2 on a usage or measurement error or an
// interrupt (SIGINT or SIGTERM), after printing the report of the rounds
// completed.
func Main(groups ...*rigor.Group) {
	os.Exit(mainCode(os.Stdout, os.Stderr, groups))
}

func mainCode(stdout, stderr io.Writer, groups []*rigor.Group) int {
	registerFlags(flag.CommandLine)
	if !flag.Parsed() {
		flag.Parse()
	}
	if optsErr != nil {
		fmt.Fprintf(stderr, "rigor: %v\n", optsErr)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// After the first interrupt, the next one ends the program at once.
		<-ctx.Done()
		stop()
	}()
	return runGroups(ctx, stdout, stderr, groups)
}

// runGroups measures and reports each group in turn. Interrupted, it
// reports what the group being measured had completed, keeps the files
// of -rigor.out, and returns 2.
func runGroups(ctx context.Context, stdout, stderr io.Writer, groups []*rigor.Group) int {
	code := 0
	for _, g := range groups {
		if os.Getenv(envChild) != "" && !isChild(g.Name) {
			continue
		}
		out, err := mainGroup(ctx, stdout, g)
		if out != nil {
			for _, f := range out.Failures {
				fmt.Fprintf(stderr, "rigor: %s\n", gateWords(f, opts.maxRegression))
				code = 1
			}
		}
		switch {
		case err != nil && ctx.Err() != nil && out != nil:
			fmt.Fprintf(stderr, "rigor: interrupted: the report of group %q above is partial%s\n", g.Name, keptWhere())
			return 2
		case err != nil:
			fmt.Fprintf(stderr, "rigor: %v\n", err)
			return 2
		}
	}
	return code
}

// keptWhere says where -rigor.out kept the results, if it did.
func keptWhere() string {
	if opts.out == "" {
		return ""
	}
	return "; the rounds measured are in " + opts.out
}

// mainGroup measures and reports g. Interrupted, it reports the rounds
// completed and returns the outcome with the interrupt's error.
func mainGroup(ctx context.Context, stdout io.Writer, g *rigor.Group) (*Outcome, error) {
	cfg, err := opts.apply(g.Config)
	if err != nil {
		return nil, err
	}
	m, err := measure(ctx, g, cfg, nil, opts.out)
	if m == nil || m.child {
		return nil, err
	}
	out, ferr := opts.finish(stdout, g.Name, m.cfg, m.run, m.resolution)
	if ferr != nil {
		return nil, ferr
	}
	return out, err
}
