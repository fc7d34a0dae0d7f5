package experiment

import (
	"math"
	"slices"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// InterimAlpha is the significance level a change must reach, after the
// multiple-comparison correction, for the run to stop early because of it:
// the Haybittle-Peto boundary. The stopping rule looks at the data after
// every round, and stopping at the first look that happens to cross the
// usual 0.05 would call many more false changes than 5%; with interim
// looks at 0.001 the overall rate stays close to the final look's alpha.
const InterimAlpha = 0.001

// lookResamples is the bootstrap resamples of one look of the stopping
// rule: the analysis's minimum.
const lookResamples = 100

// InterimConfidence is the confidence of intervals a stopping rule
// checks at an interim look, for the same reason: 1 - InterimAlpha.
const InterimConfidence = 1 - InterimAlpha

// Unresolved analyses run and returns the keys (model.Benchmark.Key) of the
// benchmarks that more rounds could still settle, for the stopping rule. A
// comparison is settled when its confidence interval lies inside the noise
// band (unchanged), when it differs exactly (deterministic metrics), or
// when it is improved or regressed with a corrected p-value below
// InterimAlpha. A benchmark measured on one side only is settled when the
// confidence interval of every metric's median lies within ±noise of the
// median.
//
// Only the comparisons that decide a benchmark's verdict count: a metric
// derived from another, or a clock the verdict is not taken from, is
// context and never keeps a run going.
func Unresolved(run *model.Run, opts analysis.Options) ([]string, error) {
	// The rule reads verdicts, which rest on rank tests and exact
	// intervals; the bootstrap only serves the slopes of the summaries
	// (and unpaired ratios of more than 200 samples), so a look spends
	// as few resamples as the analysis accepts.
	opts.Resamples = min(opts.Resamples, lookResamples)
	rep, err := analysis.Analyze(run, opts)
	if err != nil {
		return nil, err
	}
	var keys []string
	for i, b := range rep.Benchmarks {
		if !Settled(&b, len(rep.Sides), opts.Noise) {
			keys = append(keys, run.Benchmarks[i].Key())
		}
	}
	return keys, nil
}

// Interim returns run as an interim look should see it: with obs, the
// observer's intervals that have ended so far, after the run's own
// observations, so that the look chooses the verdict's clock as the final
// analysis will (a look on wall time alone would never settle, beside a
// busy neighbour, what CPU time settles). run itself is not changed.
func Interim(run *model.Run, obs []model.Observation) *model.Run {
	if len(obs) == 0 {
		return run
	}
	r := *run
	r.Observations = append(slices.Clip(run.Observations), obs...)
	return &r
}

// Settled reports whether more rounds could no longer change b's verdict
// in a way that matters (see Unresolved).
func Settled(b *analysis.Benchmark, sides int, noise float64) bool {
	for _, m := range b.Metrics {
		if !m.Decides() {
			continue
		}
		if sides == 1 {
			s := m.Sides[0]
			if s.N == 0 || m.Exact {
				continue
			}
			if !(s.Hi-s.Lo <= 2*noise*math.Abs(s.Center)) {
				return false
			}
			continue
		}
		for _, c := range m.Changes {
			if c == nil {
				continue
			}
			switch {
			case c.BelowResolution, c.SessionLimited:
				// More rounds cannot resolve it.
			case c.Verdict == analysis.Inconclusive:
				return false
			case c.Verdict.Significant():
				if c.Test != "exact" && !(c.PAdjusted < InterimAlpha) {
					return false
				}
			}
		}
	}
	return true
}
