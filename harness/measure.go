package harness

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
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
func Measure(ctx context.Context, g *rigor.Group) (*model.Run, error) {
	m, err := measure(ctx, g, g.Config, nil, "", nil)
	if m == nil {
		return nil, err
	}
	return m.run, err
}

// measured is a measured group.
type measured struct {
	cfg    rigor.Config // as measured: the options applied, defaults filled in
	run    *model.Run   // the passes combined
	passes []*model.Run // every pass of every process
	// resolution is the timer resolution in seconds, for the analysis.
	resolution float64
	child      bool // this process is a child: the parent reports
}

// measure measures g with cfg (g.Config, or g.Config with the options
// applied; g itself is left alone); args, when not nil, are the arguments
// a child process is started with; out, when not empty, is the directory
// results are written into as they are measured (see sink), files the
// registry of the files this process started there. Interrupted, it
// returns the rounds done with ctx's error, or nil and the error if there
// are none.
func measure(ctx context.Context, g *rigor.Group, cfg rigor.Config, args []string, out string, files *fileRegistry) (*measured, error) {
	s, err := rigor.NewSampler(g, cfg)
	if err != nil {
		return nil, err
	}
	cfg = s.Config()
	var variants []string
	for _, side := range s.Sides() {
		variants = append(variants, side.Label)
	}
	child := isChild(g.Name)
	var env *model.Env
	if !child {
		// Before measuring, so that the results streamed say where they
		// were measured, and a late interrupt cannot cut it short.
		e := observe.CaptureEnv(ctx)
		env = &e
	}
	var k *sink
	if out != "" {
		k = &sink{dir: out, files: files, child: child}
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
			runs, err := spawn(ctx, g.Name, args, p)
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
			run, res, err := measurePass(ctx, g.Name, s, cfg.Seed+uint64(p)*0x9e3779b9, env, k, passes)
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
		return &measured{cfg: cfg, run: passes[0], passes: passes, resolution: resolution, child: true}, writeChild(passes)
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
	if stopErr != nil && !containsText(run.Notes, interruptedNote) {
		run.Notes = append(run.Notes, model.Note{Kind: model.NoteInterrupted, Source: source, Text: interruptedNote})
	}
	// What the observer saw, in words: GC-heavy, lock-bound, a busy
	// machine.
	observe.Annotate(run)
	return &measured{cfg: cfg, run: run, passes: passes, resolution: resolution}, stopErr
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
