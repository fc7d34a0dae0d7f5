package harness

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
)

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
	floor := analysis.ResolutionRatio * r.clock.Resolution.Seconds()
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

// roundSeconds is the expected length of one timed round of p, seconds,
// from the warm-up estimates: every variant's iterations (its scale times
// the shared count; for linear sampling, the mean multiplier's) at its
// whole call's time. The loop-overhead measurements are left out.
func (p *plan) roundSeconds() float64 {
	n := float64(p.n)
	if p.mode == rigor.Linear && len(p.mult) > 0 {
		n *= float64(len(p.mult)+1) / 2
	}
	t := 0.0
	for i, w := range p.metWall {
		t += float64(p.scale[i]) * n * w
	}
	return t
}

// shortBudget returns, when the budget cannot give p the minimum number
// of rounds, the budget that would: the minimum rounds' expected time,
// rounded up to two significant digits. Zero when the budget suffices.
// The budget cannot when the shared count is 1 and still too many (as
// Criterion.rs's d = 1), or when the minimum rounds would take more than
// twice the budget: a plan's count is rounded up to whole iterations,
// and linear sampling may run up to twice over (see makePlan), which is
// the plan's choice, not a budget too small.
func (r *runner) shortBudget(p *plan) time.Duration {
	need, budget := float64(r.cfg.MinRounds)*p.roundSeconds(), r.cfg.Budget.Seconds()
	if !(need > budget && p.n == 1 || need > 2*budget) {
		return 0
	}
	return roundUp2(time.Duration(math.Round(need * 1e9)))
}

// shortBudgetText says that the budget cannot give the minimum rounds,
// and what would.
func (r *runner) shortBudgetText(need time.Duration) string {
	return fmt.Sprintf("unable to complete the minimum of %d rounds in the %v budget (the warm-up's estimates put them at %v, so they run over it); increase the budget to %v (Config.Budget, -rigor.budget)",
		r.cfg.MinRounds, r.cfg.Budget, need, need)
}

// roundUp2 rounds d up to two significant digits (1234ms is 1.3s).
func roundUp2(d time.Duration) time.Duration {
	unit := time.Duration(1)
	for d/unit >= 100 {
		unit *= 10
	}
	return (d + unit - 1) / unit * unit
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
