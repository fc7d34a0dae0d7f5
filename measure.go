package rigor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
	"github.com/rigorbench/rigor/stats"
)

// Environment variables of the multi-process protocol: a parent sets them
// for the child processes it starts.
const (
	envChild    = "RIGOR_CHILD"     // the group the child measures
	envChildOut = "RIGOR_CHILD_OUT" // where the child writes its passes
)

// Measure measures g with g.Config and returns the run: one side per
// variant (the baseline first), one benchmark per set of parameters, with
// every round's samples. It reads no flags and prints nothing; see Run and
// Main for that.
//
// With Config.Passes or Config.Processes above 1 the whole measurement is
// repeated, in this process or in fresh ones (the program is re-executed
// with the arguments it was started with), and Config.Policy combines the
// repetitions, benchmark by benchmark: Best keeps the repetition with the
// lowest times, Median the one with the median times, Mean pools the
// rounds of all of them.
//
// When ctx is done before the end, Measure returns what was measured,
// the rounds completed before it (a round cut short is dropped, since it
// would pair with nothing), with ctx's error; a nil run if no round was
// complete.
func (g *Group) Measure(ctx context.Context) (*model.Run, error) {
	m, err := g.measure(ctx, g.Config, nil, "")
	if m == nil {
		return nil, err
	}
	return m.run, err
}

// measured is a measured group.
type measured struct {
	run    *model.Run   // the passes combined
	passes []*model.Run // every pass of every process
	// resolution is the timer resolution in seconds, for the analysis.
	resolution float64
	child      bool // this process is a child: the parent reports
}

// measure measures g with cfg (g.Config, or g.Config with the options
// applied; g itself is left alone); args, when not nil, are the arguments a child
// process is started with; out, when not empty, is the directory results
// are written into as they are measured (see sink). Interrupted, it
// returns the rounds done with ctx's error, or nil and the error if there
// are none.
func (g *Group) measure(ctx context.Context, cfg Config, args []string, out string) (*measured, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("group %q: %w", g.Name, err)
	}
	if g.err != nil {
		return nil, fmt.Errorf("group %q: %w", g.Name, g.err)
	}
	variants, err := g.variants()
	if err != nil {
		return nil, err
	}
	child := isChild(g)
	var env *model.Env
	if !child {
		// Before measuring, so that the results streamed say where they
		// were measured, and a late interrupt cannot cut it short.
		e := observe.CaptureEnv(ctx)
		env = &e
	}
	var k *sink
	if out != "" {
		k = &sink{dir: out, child: child}
		if env != nil {
			k.cpu = env.CPUModel
		}
		if err := k.open(variants); err != nil {
			return nil, err
		}
	}
	var passes []*model.Run
	var resolution float64
	var stopErr error
	if cfg.Processes > 1 && !child {
		if args == nil {
			args = os.Args[1:]
		}
		for p := range cfg.Processes {
			runs, err := g.spawn(ctx, args, p)
			if err != nil {
				if ctx.Err() == nil {
					return nil, err
				}
				stopErr = ctx.Err()
				break
			}
			passes = append(passes, runs...)
			if k != nil {
				if err := k.json(combine(passes, cfg.Policy, true)); err != nil {
					return nil, err
				}
			}
		}
	} else {
		for p := range cfg.Passes {
			// Each pass has its own seed, so its own order and jitter.
			run, res, err := g.measurePass(ctx, cfg, cfg.Seed+uint64(p)*0x9e3779b9, env, k, passes)
			if run != nil && len(run.Benchmarks) > 0 {
				resolution = math.Max(resolution, res)
				passes = append(passes, run)
			}
			if err != nil {
				stopErr = err
				break
			}
		}
	}
	if child {
		if stopErr != nil {
			return nil, stopErr // the parent reports
		}
		return &measured{run: passes[0], passes: passes, resolution: resolution, child: true}, writeChild(passes)
	}
	if len(passes) == 0 {
		return nil, fmt.Errorf("group %q: interrupted before any round was measured: %w", g.Name, stopErr)
	}
	for _, p := range passes {
		resolution = math.Max(resolution, timerResolution(p))
	}
	run := passes[0]
	if len(passes) > 1 {
		run = combine(passes, cfg.Policy, cfg.Processes > 1)
	}
	run.Env = env
	run.Command = os.Args
	if stopErr != nil && !slices.Contains(run.Notes, interruptedNote) {
		run.Notes = append(run.Notes, interruptedNote)
	}
	// What the observer saw, in words: GC-heavy, lock-bound, a busy
	// machine.
	observe.Annotate(run)
	return &measured{run: run, passes: passes, resolution: resolution}, stopErr
}

// timerResolution reads back the resolution recorded in a run's
// benchmarks.
func timerResolution(run *model.Run) float64 {
	res := 0.0
	for _, b := range run.Benchmarks {
		if d, err := time.ParseDuration(b.Config["timer-resolution"]); err == nil {
			res = math.Max(res, d.Seconds())
		}
	}
	return res
}

// modulePkg returns the import path of the package under test (a test
// binary's path without ".test") or of the main package.
func modulePkg() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return strings.TrimSuffix(bi.Path, ".test")
}

// isChild reports whether this process is a child started to measure g.
func isChild(g *Group) bool {
	return os.Getenv(envChild) != "" && os.Getenv(envChild) == g.Name
}

// writeChild writes a child's passes for its parent.
func writeChild(passes []*model.Run) error {
	path := os.Getenv(envChildOut)
	if path == "" {
		return fmt.Errorf("%s is set but %s is not", envChild, envChildOut)
	}
	data, err := json.Marshal(passes)
	if err != nil {
		return fmt.Errorf("writing passes for the parent process: %w", err)
	}
	return os.WriteFile(path, data, 0o600)
}

// spawn re-executes this program to measure g in a fresh process, and
// returns the child's passes.
func (g *Group) spawn(ctx context.Context, args []string, index int) ([]*model.Run, error) {
	dir, err := os.MkdirTemp("", "rigor-child-")
	if err != nil {
		return nil, fmt.Errorf("starting process %d: %w", index+1, err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "passes.json")
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), envChild+"="+g.Name, envChildOut+"="+out)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("process %d of group %q: %w: %s", index+1, g.Name, err, tail(buf.String(), 10))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("process %d of group %q wrote no results (does it run the group?): %s", index+1, g.Name, tail(buf.String(), 10))
	}
	var runs []*model.Run
	if err := json.Unmarshal(data, &runs); err != nil || len(runs) == 0 {
		return nil, fmt.Errorf("process %d of group %q: reading its results: %v", index+1, g.Name, err)
	}
	for _, r := range runs {
		r.Notes = append(r.Notes, fmt.Sprintf("measured in process %d", index+1))
	}
	return runs, nil
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}

// combine merges repetitions of the same group by policy, benchmark by
// benchmark.
func combine(passes []*model.Run, policy Policy, processes bool) *model.Run {
	what := "passes"
	if processes {
		what = "processes"
	}
	out := *passes[0]
	out.Benchmarks = nil
	out.End = passes[len(passes)-1].End
	out.Notes = nil
	out.Observations = nil
	for _, p := range passes {
		out.Observations = append(out.Observations, p.Observations...)
		for _, n := range p.Notes {
			if !slices.Contains(out.Notes, n) && !strings.HasPrefix(n, "measured in process") {
				out.Notes = append(out.Notes, n)
			}
		}
	}
	for j := range passes[0].Benchmarks {
		var reps []*model.Benchmark
		for _, p := range passes {
			if j < len(p.Benchmarks) && p.Benchmarks[j].Name == passes[0].Benchmarks[j].Name {
				reps = append(reps, &p.Benchmarks[j])
			}
		}
		out.Benchmarks = append(out.Benchmarks, combineBenchmark(reps, out.Sides, policy, what))
	}
	return &out
}

// combineBenchmark merges one benchmark's repetitions. Best and Median
// keep one whole repetition, so rounds stay paired; the score of a
// repetition is the sum over variants of the log of their median sec/op.
// Mean pools every repetition's rounds, renumbered so that they stay
// distinct.
func combineBenchmark(reps []*model.Benchmark, sides []model.Side, policy Policy, what string) model.Benchmark {
	scores := make([]float64, len(reps))
	for i, b := range reps {
		if m := b.Metric(unitTime); m != nil {
			for _, s := range sides {
				if v := m.Values(s.Label); len(v) > 0 {
					scores[i] += math.Log(math.Max(stats.Median(v), 1e-15))
				}
			}
		}
	}
	var per []string
	for i, sc := range scores {
		per = append(per, fmt.Sprintf("%d: %s", i+1, fmtSeconds(math.Exp(sc/float64(len(sides))))))
	}
	spread := fmt.Sprintf("geometric mean of the variants' median sec/op in each of the %d %s: %s", len(reps), what, strings.Join(per, ", "))
	if policy == Mean {
		out := *reps[0]
		out.Metrics = nil
		out.Notes = nil
		for _, b := range reps {
			out.Notes = appendNew(out.Notes, b.Notes...)
		}
		offset := 0
		for _, b := range reps {
			top := 0
			for mi, m := range b.Metrics {
				idx := -1
				for k := range out.Metrics {
					if out.Metrics[k].Unit == m.Unit {
						idx = k
					}
				}
				if idx < 0 {
					out.Metrics = append(out.Metrics, model.Metric{Unit: m.Unit, Better: m.Better, Assume: m.Assume})
					idx = len(out.Metrics) - 1
				}
				for _, s := range b.Metrics[mi].Samples {
					s.Round += offset
					top = max(top, s.Round-offset)
					out.Metrics[idx].Samples = append(out.Metrics[idx].Samples, s)
				}
			}
			offset += top
		}
		out.Notes = append(out.Notes, fmt.Sprintf("mean of %d %s: their rounds are pooled; %s", len(reps), what, spread))
		return out
	}
	order := make([]int, len(reps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(scores[a], scores[b]) })
	pick, word := order[0], "best"
	if policy == Median {
		pick, word = order[(len(order)-1)/2], "median"
	}
	out := *reps[pick]
	out.Notes = append(slices.Clone(out.Notes), fmt.Sprintf("%s of %d %s: kept number %d; %s", word, len(reps), what, pick+1, spread))
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func appendNew(dst []string, src ...string) []string {
	for _, s := range src {
		if !slices.Contains(dst, s) {
			dst = append(dst, s)
		}
	}
	return dst
}
