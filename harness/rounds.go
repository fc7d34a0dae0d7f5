package harness

import (
	"context"
	"math"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// A setSampler measures one set's timed rounds for the experiment's round
// loop: the set is its one unit, its variants the sides.
type setSampler struct {
	r      *runner
	s      *set
	out    *setResult
	key    string  // the set's model.Benchmark.Key
	used   []int   // the loop shapes whose overhead each round measures
	loops  []int   // each cell's loop shape
	floor  float64 // seconds a sample must last: analysis.ResolutionRatio timer resolutions
	budget *experiment.Budget
	failed bool
}

func (m *setSampler) Units() []string {
	if m.failed {
		return nil
	}
	return []string{m.key}
}

// Round runs the variants and the loop-overhead measurements once each,
// in one shuffled order, with the round's shared iteration count.
// Interrupted, it keeps the complete rounds and drops this one, which
// would pair with nothing.
func (m *setSampler) Round(ctx context.Context, k int, _ []string) error {
	r, s, out := m.r, m.s, m.out
	v := len(s.cells)
	n := r.iters(&out.plan, k)
	for _, i := range r.rng.Perm(v + len(m.used)) {
		if err := ctx.Err(); err != nil {
			out.truncate(k - 1)
			return err
		}
		if i >= v {
			// The loop-overhead measurement is no variant's: the
			// observer's interval pauses for it.
			if r.obs != nil {
				r.obs.Pause()
			}
			l := m.used[i-v]
			it := clampIters(math.Ceil(m.floor / math.Max(r.s.FirstLoopOverhead(l), 1e-12)))
			for j := range s.cells {
				if m.loops[j] == l {
					it = max(it, n*out.plan.scale[j])
				}
			}
			out.overhead[l] = append(out.overhead[l], r.s.LoopOverhead(l, it))
			continue
		}
		// Each sample is an interval of its variant (the side the clock
		// rule and the notes read the observer's figures by).
		if r.obs != nil {
			r.obs.Mark(m.key, s.cells[i].variant, k)
		}
		res, err := r.sample(s.cells[i], n*out.plan.scale[i], false)
		if err != nil {
			m.failed = true
			return err
		}
		out.samples[i] = append(out.samples[i], res)
	}
	out.rounds = k
	out.subtractOverhead(r)
	return nil
}

// Checkpoint streams the round to the results directory; the time it
// takes is not the budget's, which is for measuring.
func (m *setSampler) Checkpoint() error {
	w := m.budget.Pause()
	defer w()
	return m.r.emit(m.out, m.out.rounds, false)
}

// Unresolved is the stopping rule: what the analysis would say of the
// rounds so far (experiment.Unresolved), and, with a precision target,
// every variant's median time known within ±Precision.
func (m *setSampler) Unresolved() ([]string, error) {
	r, out := m.r, m.out
	if r.cfg.Precision > 0 && !out.precise(r.cfg.Precision, max(experiment.InterimConfidence, r.cfg.Confidence)) {
		return []string{m.key}, nil
	}
	hdr := out.header(r)
	hdr.Metrics = out.allMetrics()
	run := &model.Run{Kind: model.KindHarness, Paired: true, Sides: r.pass.Sides,
		Benchmarks: []model.Benchmark{hdr}}
	if r.obs != nil {
		run = experiment.Interim(run, r.obs.Observations())
	}
	o := analysis.DefaultOptions()
	o.Confidence, o.Noise, o.Seed = r.cfg.Confidence, r.cfg.Noise, r.cfg.Seed
	o.TimerResolution = r.clock.Resolution.Seconds()
	o.Resamples = 1000 // the rule needs no slope's interval
	return experiment.Unresolved(run, o)
}

// precise reports whether the confidence interval of every variant's
// median time, on the log scale, is within ±precision.
func (s *setResult) precise(precision, conf float64) bool {
	for i := range s.samples {
		var logs []float64
		for _, x := range s.samples[i] {
			if x.net > 0 {
				logs = append(logs, math.Log(x.net/float64(x.Iters)))
			}
		}
		if len(logs) < 2 {
			continue
		}
		ci, err := stats.MedianCI(logs, conf)
		if err != nil || (ci.Hi-ci.Lo)/2 > math.Log1p(precision) {
			return false
		}
	}
	return true
}
