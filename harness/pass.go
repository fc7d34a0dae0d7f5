package harness

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
	"github.com/rigorbench/rigor/stats"
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
}

// A marker attributes what the system does to benchmarks and rounds (see
// observe.Observer).
type marker interface {
	Mark(benchmark, side string, round int)
	Pause()
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

// sample runs one sample of c with n iterations (per goroutine), with the
// loop overhead first measured for its shape subtracted.
func (r *runner) sample(c cell, n int, counting bool) (result, error) {
	x, err := r.s.Sample(c.index, n, counting)
	res := result{Sample: x}
	if err != nil {
		return res, err
	}
	ov := 0.0
	if x.Loop > 0 {
		ov = r.s.FirstLoopOverhead(x.Loop)
	}
	r.subtract(&res, ov)
	return res, nil
}

// subtract sets res.net: the timed time less the loop overhead, perOp
// seconds per iteration, and one clock reading per timed window. A
// parallel sample's goroutines loop side by side, so their wall time holds
// one goroutine's loop overhead, not the sum.
func (r *runner) subtract(res *result, perOp float64) {
	res.net, res.clamped, res.ovPerOp, res.cpuNet = res.Timed, false, 0, res.CPU
	if r.cfg.KeepLoopOverhead || res.Custom {
		return
	}
	res.ovPerOp = perOp
	res.net -= perOp*float64(res.Iters) + float64(res.Windows)*r.clock.Window.Seconds()
	if res.net < 0 {
		res.net, res.clamped = 0, true
	}
	// The empty loop burns CPU as it takes time; the clock readings
	// are outside the CPU readings.
	res.cpuNet = max(res.CPU-perOp*float64(res.Iters)*float64(res.Goroutines), 0)
}

// A set is one benchmark of a group (one set of parameters): its
// variants, measured together.
type set struct {
	name  string // model name: group, or group/params
	cells []cell
}

// plannedRounds is the number of rounds calibration plans the budget for;
// it is also N, the number of multipliers of linear sampling.
const plannedRounds = 100

// plan is a set's schedule.
type plan struct {
	mode rigor.SamplingMode
	n    int // flat: the shared iteration count before jitter; linear: d
	mult []int
	// scale multiplies the shared count for variants so fast that the
	// shared count would give them samples shorter than 1000 times the
	// timer resolution; 1 for every variant of similar speed.
	scale []int
	// metWall and metTimed are the warm-up estimates, seconds per
	// iteration, of each variant's whole call and timed part.
	metWall, metTimed []float64
}

// warmUp runs the variants round-robin with doubling iteration counts for
// the configured warm-up time, as Criterion.rs does, and returns each
// variant's estimated seconds per iteration (whole call, and timed part).
func (r *runner) warmUp(ctx context.Context, s *set) (wall, timed []float64, loops []int, err error) {
	v := len(s.cells)
	loops = make([]int, v)
	iters := make([]float64, v)
	wall = make([]float64, v)
	timed = make([]float64, v)
	next := make([]int, v)
	for i := range next {
		next[i] = 1
	}
	deadline := time.Now().Add(r.cfg.WarmUp)
	for first := true; first || time.Now().Before(deadline); first = false {
		for i, c := range s.cells {
			if err := ctx.Err(); err != nil {
				return nil, nil, nil, err
			}
			res, err := r.sample(c, next[i], false)
			if err != nil {
				return nil, nil, nil, err
			}
			loops[i] = res.Loop
			iters[i] += float64(next[i])
			wall[i] += res.Wall
			timed[i] += res.Timed
			// Double, but do not overshoot the remaining warm-up by much.
			per := wall[i] / iters[i]
			left := time.Until(deadline).Seconds()
			next[i] = max(1, min(2*next[i], int(math.Ceil(left/per/float64(v)))))
		}
		if r.cfg.WarmUp < 0 {
			break // one sample of each variant, for the estimate only
		}
	}
	for i := range wall {
		wall[i] /= iters[i]
		timed[i] /= iters[i]
	}
	return wall, timed, loops, nil
}

// makePlan chooses the sampling mode and iteration counts from the
// warm-up estimates. Rounds share one iteration count, sized so that the
// planned rounds fit the budget; a variant too fast for it to last 1000
// times the timer resolution runs a whole multiple of it instead.
func (r *runner) makePlan(metWall, metTimed []float64) plan {
	p := plan{metWall: metWall, metTimed: metTimed, mode: r.cfg.Sampling, scale: make([]int, len(metWall))}
	sumWall := 0.0
	for _, w := range metWall {
		sumWall += math.Max(w, 1e-12)
	}
	budget := r.cfg.Budget.Seconds()
	floor := 1000 * r.clock.Resolution.Seconds()
	// scales returns the multipliers that lift every variant's shortest
	// sample, of n iterations, over the floor, and the round time at n.
	scales := func(n float64) float64 {
		round := 0.0
		for i := range p.scale {
			t := metTimed[i]
			if !(t > 0) {
				t = metWall[i]
			}
			p.scale[i] = clampIters(math.Ceil(floor / (n * math.Max(t, 1e-12))))
			round += float64(p.scale[i]) * n * metWall[i]
		}
		return round
	}
	rounds := min(max(plannedRounds, r.cfg.MinRounds), r.cfg.MaxRounds)
	if p.mode == rigor.Auto && len(metWall) > 1 {
		// Comparisons rest on per-round ratios, which want samples of
		// similar length round after round: see rigor.Auto.
		p.mode = rigor.Flat
	}
	if p.mode == rigor.Auto || p.mode == rigor.Linear {
		total := float64(rounds*(rounds+1)) / 2
		d := clampIters(math.Ceil(budget / (sumWall * total)))
		// The round at multiplier 1 is the shortest.
		expected := total * scales(float64(d))
		if p.mode == rigor.Linear || expected <= 2*budget {
			p.mode, p.n = rigor.Linear, d
			p.mult = make([]int, rounds)
			for i := range p.mult {
				p.mult[i] = i + 1
			}
			return p
		}
		p.mode = rigor.Flat
	}
	// Flat: one round should take budget/rounds. Jitter goes down to 80%,
	// which must still clear the floor.
	p.n = clampIters(budget / float64(rounds) / sumWall)
	scales(0.8 * float64(p.n))
	return p
}

func clampIters(x float64) int {
	switch {
	case !(x >= 1):
		return 1
	case x > 1<<40:
		return 1 << 40
	}
	return int(x)
}

// iters returns the shared iteration count of round k (from 1).
func (r *runner) iters(p *plan, k int) int {
	if p.mode == rigor.Linear {
		i := (k - 1) % len(p.mult)
		if i == 0 {
			r.rng.Shuffle(len(p.mult), func(a, b int) { p.mult[a], p.mult[b] = p.mult[b], p.mult[a] })
		}
		return p.n * p.mult[i]
	}
	return int(experiment.Jitter(r.rng, int64(p.n)))
}

// allocRounds is the number of allocation rounds per set. One more runs
// first and is not recorded: the runtime makes a few allocations of its own
// the first time some paths run, and they would land in it.
const allocRounds = 5

// measureSet measures one set: warm-up, calibration, allocation rounds,
// then interleaved rounds until the comparisons are resolved or the budget
// is spent.
func (r *runner) measureSet(ctx context.Context, s *set) (*setResult, error) {
	metWall, metTimed, loops, err := r.warmUp(ctx, s)
	if err != nil {
		return nil, err
	}
	p := r.makePlan(metWall, metTimed)
	v := len(s.cells)
	out := &setResult{set: s, plan: p, samples: make([][]result, v), allocs: make([][]result, v),
		overhead: map[int][]float64{}, ovMedian: map[int]float64{}}

	// Allocation rounds: exact counts, at a small cost (about 10% of the
	// budget, and at most 10000 iterations per sample).
	sumWall := 0.0
	for _, w := range metWall {
		sumWall += w
	}
	na := clampIters(0.05 * r.cfg.Budget.Seconds() / ((allocRounds + 1) * sumWall))
	na = min(na, 10000, p.n)
	for k := range allocRounds + 1 {
		for _, i := range r.rng.Perm(v) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			res, err := r.allocSample(s.cells[i], na)
			if err != nil {
				return nil, err
			}
			if k > 0 {
				out.allocs[i] = append(out.allocs[i], res)
			}
		}
	}

	// The loop shapes whose overhead is measured in every round.
	var used []int
	if !r.cfg.KeepLoopOverhead {
		for _, l := range loops {
			if l > 0 && !slices.Contains(used, l) {
				used = append(used, l)
			}
		}
	}
	floor := 1000 * r.clock.Resolution.Seconds()

	// The allocation rounds' counts go out before the timed rounds.
	if err := r.emit(out, 0, true); err != nil {
		return nil, err
	}

	key := (&model.Benchmark{Name: s.name, Pkg: r.pkg, Procs: gomaxprocs()}).Key()
	if r.observe {
		// The observer starts after the allocation rounds: it allocates
		// as it samples, and allocation counts are process-wide.
		obs := observe.StartSelf(r.ctx, 0)
		r.obs = obs
		defer func() {
			r.observations = append(r.observations, obs.Stop()...)
			r.obs = nil
		}()
	}
	budget := experiment.NewBudget(r.cfg.Budget, time.Now())
	sm := &setSampler{r: r, s: s, out: out, key: key, used: used, loops: loops, floor: floor, budget: budget}
	res, stopErr := experiment.Loop(ctx, experiment.Design{
		MinRounds:     r.cfg.MinRounds,
		MaxRounds:     r.cfg.MaxRounds,
		Budget:        budget,
		MinOverBudget: true,
		LookGrowth:    0.1,
	}, sm)
	switch {
	case stopErr != nil && ctx.Err() != nil:
		out.stop = stopInterrupted
	case stopErr != nil:
		return nil, stopErr
	case res.Stop == experiment.StopResolved:
		out.stop = stopResolved
	case res.Stop == experiment.StopBudget:
		out.stop = stopBudget
	default:
		out.stop = stopMaxRounds
	}
	if out.stop == stopBudget || out.stop == stopMaxRounds {
		// Where the rule stands after the last round, for the notes.
		u, err := sm.Unresolved()
		out.unresolved = err != nil || len(u) > 0
	}
	out.elapsed = budget.Elapsed()
	out.subtractOverhead(r)
	return out, stopErr
}

// subtractOverhead sets every sample's net time with the loop overhead
// measured so far: the median of the per-round measurements of its loop
// shape, or the first estimate before any.
func (s *setResult) subtractOverhead(r *runner) {
	for sh, m := range s.overhead {
		if len(m) > 0 {
			s.ovMedian[sh] = stats.Median(m)
		}
	}
	for i := range s.samples {
		for k := range s.samples[i] {
			x := &s.samples[i][k]
			if x.Loop == 0 {
				continue
			}
			ov, ok := s.ovMedian[x.Loop]
			if !ok {
				ov = r.s.FirstLoopOverhead(x.Loop)
			}
			r.subtract(x, ov)
		}
	}
}

// truncate keeps the first k rounds.
func (s *setResult) truncate(k int) {
	for i := range s.samples {
		s.samples[i] = s.samples[i][:min(k, len(s.samples[i]))]
	}
	for sh, m := range s.overhead {
		s.overhead[sh] = m[:min(k, len(m))]
	}
	s.rounds = k
}

// emit writes what is new to the -rigor.out directory, if any, with the
// observer paused: the allocation rounds' lines (round 0), or timed round
// k's lines and the run so far.
func (r *runner) emit(s *setResult, k int, allocs bool) error {
	if r.sink == nil {
		return nil
	}
	if err := r.write(s, k, allocs); err != nil {
		// A full disk must not cost the measurements: stop streaming,
		// say so, and keep measuring; the report still comes at the end.
		r.sink = nil
		r.pass.Notes = append(r.pass.Notes, fmt.Sprintf("writing results as they arrived failed, so streaming stopped (the measurements go on): %v", err))
	}
	return nil
}

// write streams the latest round (or the allocation rounds) to the sink.
func (r *runner) write(s *setResult, k int, allocs bool) error {
	if r.obs != nil {
		r.obs.Pause()
	}
	hdr := s.header(r)
	if allocs {
		bytes, allocs := s.allocMetrics()
		return r.sink.lines(r.pass, &hdr, []model.Metric{bytes, allocs})
	}
	sec, tps, gcs, _ := s.timedMetrics(k-1, k)
	ms := append([]model.Metric{sec}, tps...)
	if a, _ := s.allocMetrics(); s.allocates(a) {
		ms = append(ms, gcs)
	}
	if err := r.sink.lines(r.pass, &hdr, ms); err != nil {
		return err
	}
	hdr.Metrics = s.allMetrics()
	return r.sink.json(r.snapshot(hdr))
}

// snapshot returns the run so far, with b the benchmark being measured:
// the earlier passes' and this pass's benchmarks, combined by policy.
func (r *runner) snapshot(b model.Benchmark) *model.Run {
	cur := *r.pass
	cur.Benchmarks = append(slices.Clone(r.pass.Benchmarks), b)
	cur.End = time.Now()
	cur.Observations = slices.Clone(r.observations)
	if len(r.earlier) == 0 {
		return &cur
	}
	return combine(append(slices.Clone(r.earlier), &cur), r.cfg.Policy, false)
}

// allocSample measures bn's allocations over n iterations: twice, keeping
// the smaller count. Counts are process-wide, so another goroutine (a
// finalizer woken by the bracketing collection, say) can add to a window's
// count but never take from it; it does so in about one window in a
// thousand.
func (r *runner) allocSample(c cell, n int) (result, error) {
	a, err := r.sample(c, n, true)
	if err != nil {
		return a, err
	}
	b, err := r.sample(c, n, true)
	if err != nil {
		return b, err
	}
	if b.Objects < a.Objects || (b.Objects == a.Objects && b.Bytes < a.Bytes) {
		return b, nil
	}
	return a, nil
}

// Why a set's rounds stopped.
const (
	stopResolved    = "resolved"
	stopBudget      = "budget"
	stopMaxRounds   = "max-rounds"
	stopInterrupted = "interrupted"
)

// A setResult is a measured set.
type setResult struct {
	set     *set
	plan    plan
	samples [][]result // per cell, per round
	allocs  [][]result // per cell, per allocation round
	// overhead holds each loop shape's overhead (by Sample.Loop), seconds
	// per iteration, measured once per round.
	overhead map[int][]float64
	ovMedian map[int]float64 // the median of overhead, per shape
	rounds   int
	stop     string
	// unresolved is true when the rounds stopped at the budget or the
	// maximum with the stopping rule still unsatisfied.
	unresolved bool
	elapsed    time.Duration
}

// loopOf returns the loop shape of cell i's samples, 0 for IterCustom or
// before any sample.
func (s *setResult) loopOf(i int) int {
	for _, x := range s.samples[i] {
		if x.Loop > 0 {
			return x.Loop
		}
	}
	return 0
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
	run.Notes = append(run.Notes, r.clockNote())
	if stopErr != nil {
		run.Notes = append(run.Notes, interruptedNote)
	}
	run.Observations = r.observations
	return run, r.clock.Resolution.Seconds(), stopErr
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

// interruptedNote ends the notes of a run cut short.
const interruptedNote = "The run was interrupted: these are partial results (the rounds completed before the interrupt)."

func (r *runner) clockNote() string {
	c := r.clock
	return fmt.Sprintf("timer resolution %v (smallest step %v, %v per reading): every sample was planned to last at least %v",
		c.Resolution, c.Tick, c.ReadCost, 1000*c.Resolution)
}

func gomaxprocs() int { return runtime.GOMAXPROCS(0) }
