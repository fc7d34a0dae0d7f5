package harness

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// A runner measures one pass of a group.
type runner struct {
	cfg   rigor.Config
	clock rigor.Clock
	s     *rigor.Sampler
	rng   *rand.Rand
	// obs, when set, is told which benchmark and round is running (the
	// system observer).
	obs          marker
	observe      bool // start an observer for each set's rounds
	observations []model.Observation
	ctx          context.Context
	pkg          string

	// sink, when set, receives results as they are measured (-rigor.out);
	// pass is the pass's run so far, group the group's name, earlier the
	// passes done before this one.
	sink    *sink
	pass    *model.Run
	group   string
	earlier []*model.Run
	// warn, when set, receives the warnings said before measuring (a
	// budget too small for the minimum rounds).
	warn io.Writer
}

// A marker attributes what the system does to benchmarks and rounds (see
// observe.Observer).
type marker interface {
	Mark(benchmark, side string, round int)
	Pause()
	// Observations are the intervals ended so far, for the stopping
	// rule's interim looks.
	Observations() []model.Observation
}

// newRunner returns a runner of s's samples: it measures the clock
// afresh, so each pass has its own loop-overhead measurements.
func newRunner(s *rigor.Sampler, seed uint64) *runner {
	clock := rigor.MeasureClock()
	s.Reset(clock)
	return &runner{
		cfg:     s.Config(),
		clock:   clock,
		s:       s,
		rng:     experiment.NewRand(seed),
		observe: true,
		warn:    os.Stderr,
	}
}

// A result is one sample of one variant, with the harness's overhead
// subtracted.
type result struct {
	rigor.Sample
	net     float64 // Timed less the harness's overhead, at least 0
	clamped bool    // net would have been negative
	// cpuNet is CPU less the loop overhead, at least 0; NaN when CPU is.
	cpuNet  float64
	ovPerOp float64 // loop overhead subtracted, seconds per iteration
}

// A cell is one variant of a set, as the sampler numbers it.
type cell struct {
	index      int // the sampler's cell
	variant    string
	goroutines int // > 0 for a parallel variant
}

// A set is one benchmark of a group (one set of parameters): its
// variants, measured together.
type set struct {
	name  string // model name: group, or group/params
	cells []cell
}

// sets returns group name's sets, one per set of parameters in the order
// first added, each with its variants' cells in the order of the sides.
func sets(name string, s *rigor.Sampler) []*set {
	var out []*set
	byParams := map[string]*set{}
	for i := range s.Cells() {
		_, params, _ := s.Cell(i)
		if byParams[params] != nil {
			continue
		}
		st := &set{name: name}
		if params != "" {
			st.name += "/" + params
		}
		byParams[params] = st
		out = append(out, st)
	}
	for _, side := range s.Sides() {
		for i := range s.Cells() {
			v, params, goroutines := s.Cell(i)
			if v == side.Label {
				st := byParams[params]
				st.cells = append(st.cells, cell{index: i, variant: v, goroutines: goroutines})
			}
		}
	}
	return out
}

// measurePass measures every set of group name, sampled by s, once and
// returns the pass's run. Interrupted (ctx done), it returns the run so
// far, holding the benchmarks with at least one complete round, with
// ctx's error. The results go to k, when not nil, as they are measured;
// earlier are the passes done before this one.
func measurePass(ctx context.Context, name string, s *rigor.Sampler, seed uint64, env *model.Env, k *sink, earlier []*model.Run) (*model.Run, float64, error) {
	r := newRunner(s, seed)
	r.pkg = modulePkg()
	r.ctx = ctx
	run := &model.Run{
		SchemaVersion: model.SchemaVersion,
		Kind:          model.KindHarness,
		Paired:        true,
		Start:         time.Now(),
		Command:       os.Args,
		Env:           env,
		Sides:         s.Sides(),
	}
	r.sink, r.pass, r.group, r.earlier = k, run, name, earlier
	var stopErr error
	for _, st := range sets(name, s) {
		res, err := r.measureSet(ctx, st)
		if res != nil && res.rounds > 0 {
			run.Benchmarks = append(run.Benchmarks, res.benchmark(r))
		}
		if err != nil {
			if ctx.Err() == nil {
				return nil, 0, fmt.Errorf("group %q, benchmark %q: %w", name, st.name, err)
			}
			stopErr = err
			break
		}
	}
	run.End = time.Now()
	run.Notes = append(run.Notes, model.Note{Kind: model.NoteProcess, Topic: "timer", Source: source, Text: r.clockNote()})
	if stopErr != nil {
		run.Notes = append(run.Notes, model.Note{Kind: model.NoteInterrupted, Source: source, Text: interruptedNote})
	}
	run.Observations = r.observations
	return run, r.clock.Resolution.Seconds(), stopErr
}

// interruptedNote ends the notes of a run cut short.
const interruptedNote = "The run was interrupted: these are partial results (the rounds completed before the interrupt)."

func (r *runner) clockNote() string {
	c := r.clock
	return fmt.Sprintf("timer resolution %v (smallest step %v, %v per reading): every sample was planned to last at least %v",
		c.Resolution, c.Tick, c.ReadCost, analysis.ResolutionRatio*c.Resolution)
}

func gomaxprocs() int { return runtime.GOMAXPROCS(0) }
