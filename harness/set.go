package harness

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
	"github.com/rigorbench/rigor/stats"
)

// allocRounds is the number of allocation rounds per set. One more runs
// first and is not recorded: the runtime makes a few allocations of its own
// the first time some paths run, and they would land in it.
const allocRounds = 5

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
	// needBudget, when not zero, is the budget the plan needed for the
	// minimum rounds, above the one given.
	needBudget time.Duration
}

// Why a set's rounds stopped.
const (
	stopResolved    = "resolved"
	stopBudget      = "budget"
	stopMaxRounds   = "max-rounds"
	stopInterrupted = "interrupted"
)

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
	// Say before spending it that the budget cannot give the minimum
	// rounds (they run over it), as Criterion.rs's "Unable to complete
	// N samples in T".
	if need := r.shortBudget(&p); need > 0 {
		out.needBudget = need
		if r.warn != nil {
			fmt.Fprintf(r.warn, "rigor: %s: %s\n", s.name, r.shortBudgetText(need))
		}
	}

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
	floor := analysis.ResolutionRatio * r.clock.Resolution.Seconds()

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
