package rigor

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"time"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
	"github.com/rigorbench/rigor/stats"
)

// A runner measures one pass of a group.
type runner struct {
	cfg          Config
	clock        Clock
	rng          *rand.Rand
	ms           []metrics.Sample
	keepOverhead bool
	shapes       map[reflect.Type]*shape
	shapesMu     sync.Mutex
	// obs, when set, is told which benchmark and round is running (the
	// system observer).
	obs          marker
	observe      bool // start an observer for each set's rounds
	observations []model.Observation
	ctx          context.Context
	pkg          string

	// sink, when set, receives results as they are measured (-rigor.out);
	// pass is the pass's run so far, group the group measured, earlier
	// the passes done before this one.
	sink    *sink
	pass    *model.Run
	group   *Group
	earlier []*model.Run
}

// A marker attributes what the system does to benchmarks and rounds (see
// observe.Observer).
type marker interface {
	Mark(benchmark, side string, round int)
	Pause()
}

func newRunner(cfg Config, seed uint64) *runner {
	return &runner{
		cfg:          cfg,
		clock:        MeasureClock(),
		rng:          experiment.NewRand(seed),
		ms:           newMetricSamples(),
		keepOverhead: cfg.KeepLoopOverhead,
		shapes:       map[reflect.Type]*shape{},
		observe:      true,
	}
}

// A result is one sample of one variant.
type result struct {
	iters      int     // per goroutine
	goroutines int     // 1 unless parallel
	raw        float64 // timed seconds, as measured
	net        float64 // raw minus the harness's overhead, at least 0
	clamped    bool    // net would have been negative
	wall       float64 // seconds the whole call took
	// cpu is the process's CPU time over the timed windows, seconds;
	// cpuNet less the loop overhead, at least 0. Both are NaN when the
	// system does not report CPU time.
	cpu, cpuNet float64
	windows     int
	gcs         uint64
	gcCPU       float64
	objects     uint64 // allocation rounds only
	bytes       uint64
	tp          throughput
	custom      bool
	shape       *shape
	ovPerOp     float64 // loop overhead subtracted, seconds per iteration
}

// sample runs one sample of bn with n iterations (per goroutine).
func (r *runner) sample(bn *bench, n int, counting bool) (result, error) {
	if bn.goroutines > 0 {
		return r.parallel(bn, n, counting)
	}
	b := &B{r: r, iters: n, counting: counting}
	if counting {
		// Exact counts need few windows: one batch of setups at a time.
		b.batch = NumIterations(1000)
	}
	g0 := readMetrics(r.ms)
	w0 := time.Now()
	bn.fn(b)
	wall := time.Since(w0)
	g1 := readMetrics(r.ms)
	res := result{
		iters:      n,
		goroutines: 1,
		raw:        b.timed.Seconds(),
		wall:       wall.Seconds(),
		cpu:        cpuSeconds(b.cpu, b.cpuOK),
		windows:    b.windows,
		gcs:        g1.gcs - g0.gcs,
		gcCPU:      g1.gcCPU - g0.gcCPU,
		objects:    b.allocs.objects,
		bytes:      b.allocs.bytes,
		tp:         bn.tp,
		custom:     b.custom,
		shape:      b.shape,
	}
	if b.tpSet {
		res.tp = b.tp
	}
	if err := sampleErr(bn, b); err != nil {
		return res, err
	}
	if b.shape != nil {
		r.subtract(&res, b.shape.initial)
	} else {
		r.subtract(&res, 0)
	}
	return res, nil
}

func sampleErr(bn *bench, b *B) error {
	switch {
	case b.err != nil:
		return fmt.Errorf("variant %q: %w", bn.variant, b.err)
	case b.loops == 0:
		return fmt.Errorf("variant %q did not call a timing loop (Iter, B.Iter, IterWithSetup or B.IterCustom)", bn.variant)
	}
	return nil
}

// subtract sets res.net: the timed time less the loop overhead, perOp
// seconds per iteration, and one clock reading per timed window. A
// parallel sample's goroutines loop side by side, so their wall time holds
// one goroutine's loop overhead, not the sum.
func (r *runner) subtract(res *result, perOp float64) {
	res.net, res.clamped, res.ovPerOp, res.cpuNet = res.raw, false, 0, res.cpu
	if r.keepOverhead || res.custom {
		return
	}
	res.ovPerOp = perOp
	res.net -= perOp*float64(res.iters) + float64(res.windows)*r.clock.Window.Seconds()
	if res.net < 0 {
		res.net, res.clamped = 0, true
	}
	// The empty loop burns CPU as it takes time; the clock readings
	// are outside the CPU readings.
	res.cpuNet = max(res.cpu-perOp*float64(res.iters)*float64(res.goroutines), 0)
}

// cpuSeconds is d in seconds, or NaN when it was not measured.
func cpuSeconds(d time.Duration, ok bool) float64 {
	if !ok {
		return math.NaN()
	}
	return d.Seconds()
}

// parallel runs one sample of a parallel variant: bn.goroutines
// goroutines each run n iterations, released together.
func (r *runner) parallel(bn *bench, n int, counting bool) (result, error) {
	g := bn.goroutines
	p := newParallelSample(g)
	bs := make([]*B, g)
	var wg sync.WaitGroup
	g0 := readMetrics(r.ms)
	w0 := time.Now()
	for i := range bs {
		b := &B{r: r, iters: n, gid: i, par: p}
		bs[i] = b
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer b.parRelease()
			bn.fn(b)
		}()
	}
	p.ready.Wait()
	var allocs allocDelta
	if counting {
		allocs.start()
	}
	c0, cok := processCPU()
	t0 := time.Now()
	close(p.start)
	p.done.Wait()
	d := time.Since(t0)
	c1, cok1 := processCPU()
	if counting {
		allocs.stop()
	}
	wg.Wait()
	wall := time.Since(w0)
	g1 := readMetrics(r.ms)
	res := result{
		iters:      n,
		goroutines: g,
		raw:        d.Seconds(),
		wall:       wall.Seconds(),
		cpu:        cpuSeconds(c1-c0, cok && cok1 && !counting),
		windows:    1,
		gcs:        g1.gcs - g0.gcs,
		gcCPU:      g1.gcCPU - g0.gcCPU,
		objects:    allocs.objects,
		bytes:      allocs.bytes,
		tp:         bn.tp,
		shape:      bs[0].shape,
	}
	if bs[0].tpSet {
		res.tp = bs[0].tp
	}
	for _, b := range bs {
		if err := sampleErr(bn, b); err != nil {
			return res, err
		}
	}
	if res.shape != nil {
		r.subtract(&res, res.shape.initial)
	}
	return res, nil
}

// A set is one benchmark of a group (one set of parameters): its
// variants, measured together.
type set struct {
	name    string // model name: group, or group/params
	benches []*bench
}

// plan is a set's schedule.
type plan struct {
	mode SamplingMode
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
func (r *runner) warmUp(ctx context.Context, s *set) (wall, timed []float64, shapes []*shape, err error) {
	v := len(s.benches)
	shapes = make([]*shape, v)
	iters := make([]float64, v)
	wall = make([]float64, v)
	timed = make([]float64, v)
	next := make([]int, v)
	for i := range next {
		next[i] = 1
	}
	deadline := time.Now().Add(r.cfg.WarmUp)
	for first := true; first || time.Now().Before(deadline); first = false {
		for i, bn := range s.benches {
			if err := ctx.Err(); err != nil {
				return nil, nil, nil, err
			}
			res, err := r.sample(bn, next[i], false)
			if err != nil {
				return nil, nil, nil, err
			}
			shapes[i] = res.shape
			iters[i] += float64(next[i])
			wall[i] += res.wall
			timed[i] += res.raw
			// Double, but do not overshoot the remaining warm-up by much.
			per := wall[i] / iters[i]
			left := time.Until(deadline).Seconds()
			next[i] = max(1, min(2*next[i], int(math.Ceil(left/per/float64(v)))))
			if r.cfg.WarmUp < 0 {
				break
			}
		}
		if r.cfg.WarmUp < 0 {
			break
		}
	}
	for i := range wall {
		wall[i] /= iters[i]
		timed[i] /= iters[i]
	}
	return wall, timed, shapes, nil
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
	if p.mode == Auto && len(metWall) > 1 {
		// Comparisons rest on per-round ratios, which want samples of
		// similar length round after round: see Auto.
		p.mode = Flat
	}
	if p.mode == Auto || p.mode == Linear {
		total := float64(rounds*(rounds+1)) / 2
		d := clampIters(math.Ceil(budget / (sumWall * total)))
		// The round at multiplier 1 is the shortest.
		expected := total * scales(float64(d))
		if p.mode == Linear || expected <= 2*budget {
			p.mode, p.n = Linear, d
			p.mult = make([]int, rounds)
			for i := range p.mult {
				p.mult[i] = i + 1
			}
			return p
		}
		p.mode = Flat
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
	if p.mode == Linear {
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
	metWall, metTimed, shapes, err := r.warmUp(ctx, s)
	if err != nil {
		return nil, err
	}
	p := r.makePlan(metWall, metTimed)
	v := len(s.benches)
	out := &setResult{set: s, plan: p, samples: make([][]result, v), allocs: make([][]result, v),
		overhead: map[*shape][]float64{}, ovMedian: map[*shape]float64{}}

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
			res, err := r.allocSample(s.benches[i], na)
			if err != nil {
				return nil, err
			}
			if k > 0 {
				out.allocs[i] = append(out.allocs[i], res)
			}
		}
	}

	// The loop shapes whose overhead is measured in every round.
	var used []*shape
	if !r.keepOverhead {
		for _, sh := range shapes {
			if sh != nil && !slices.Contains(used, sh) {
				used = append(used, sh)
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
	sm := &setSampler{r: r, s: s, out: out, key: key, used: used, shapes: shapes, floor: floor, budget: budget}
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
			if x.shape == nil {
				continue
			}
			ov, ok := s.ovMedian[x.shape]
			if !ok {
				ov = x.shape.initial
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
	hdr := s.header(r.group.Name, r)
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
func (r *runner) allocSample(bn *bench, n int) (result, error) {
	a, err := r.sample(bn, n, true)
	if err != nil {
		return a, err
	}
	b, err := r.sample(bn, n, true)
	if err != nil {
		return b, err
	}
	if b.objects < a.objects || (b.objects == a.objects && b.bytes < a.bytes) {
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
	samples [][]result // per bench, per round
	allocs  [][]result // per bench, per allocation round
	// overhead holds each loop shape's overhead, seconds per iteration,
	// measured once per round.
	overhead map[*shape][]float64
	ovMedian map[*shape]float64 // the median of overhead, per shape
	rounds   int
	stop     string
	// unresolved is true when the rounds stopped at the budget or the
	// maximum with the stopping rule still unsatisfied.
	unresolved bool
	elapsed    time.Duration
}

// shapeOf returns the loop shape of bench i's samples, nil for IterCustom
// or before any sample.
func (s *setResult) shapeOf(i int) *shape {
	for _, x := range s.samples[i] {
		if x.shape != nil {
			return x.shape
		}
	}
	return nil
}

// measurePass measures every set of g once and returns the pass's run.
// Interrupted (ctx done), it returns the run so far, holding the
// benchmarks with at least one complete round, with ctx's error. The
// results go to k, when not nil, as they are measured; earlier are the
// passes done before this one.
func (g *Group) measurePass(ctx context.Context, cfg Config, seed uint64, env *model.Env, k *sink, earlier []*model.Run) (*model.Run, float64, error) {
	variants, err := g.variants()
	if err != nil {
		return nil, 0, err
	}
	r := newRunner(cfg, seed)
	r.pkg = modulePkg()
	r.ctx = ctx
	run := &model.Run{
		SchemaVersion: model.SchemaVersion,
		Kind:          model.KindHarness,
		Paired:        true,
		Start:         time.Now(),
		Command:       os.Args,
		Env:           env,
	}
	r.sink, r.pass, r.group, r.earlier = k, run, g, earlier
	for _, v := range variants {
		side := model.Side{Label: v}
		for _, bn := range g.benches {
			if bn.variant == v {
				side.Subgroup = bn.subgroup
				break
			}
		}
		run.Sides = append(run.Sides, side)
	}
	var stopErr error
	for _, params := range g.paramSets() {
		s := &set{name: g.Name}
		if params != "" {
			s.name += "/" + params
		}
		for _, v := range variants {
			for _, bn := range g.benches {
				if bn.variant == v && bn.params == params {
					s.benches = append(s.benches, bn)
				}
			}
		}
		res, err := r.measureSet(ctx, s)
		if res != nil && res.rounds > 0 {
			run.Benchmarks = append(run.Benchmarks, res.benchmark(g, r))
		}
		if err != nil {
			if ctx.Err() == nil {
				return nil, 0, fmt.Errorf("group %q, benchmark %q: %w", g.Name, s.name, err)
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

// interruptedNote ends the notes of a run cut short.
const interruptedNote = "The run was interrupted: these are partial results (the rounds completed before the interrupt)."

func (r *runner) clockNote() string {
	c := r.clock
	return fmt.Sprintf("timer resolution %v (smallest step %v, %v per reading): every sample was planned to last at least %v",
		c.Resolution, c.Tick, c.ReadCost, 1000*c.Resolution)
}

func gomaxprocs() int { return runtime.GOMAXPROCS(0) }
