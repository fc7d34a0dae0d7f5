package execbench

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// orderSampler is an A/A pair of commands under an order effect, fed
// through the round loop and stopping rule rigor exec uses: in every
// round the command that runs second takes (1-effect) times as long as
// it would have first (in A/A trials beside disk-heavy and CPU-bound
// neighbours the second run of a round was 0.5% to 1.1% faster in
// median, experiments/execio), and in a tenth of the rounds a burst
// slows the second slot by half. Each run also has lognormal noise. The
// sides run in the order experiment.SideOrder gives round k, as
// session.round runs them; order "" runs the reference first in every
// round (no counterbalancing), the control that shows the effect is
// there to cancel.
type orderSampler struct {
	run    *model.Run
	order  string
	effect float64
	rng    *rand.Rand
	opts   analysis.Options
}

func newOrderSampler(order string, effect float64, seed uint64) *orderSampler {
	opts := analysis.DefaultOptions()
	opts.Resamples = 200
	return &orderSampler{
		run: &model.Run{Kind: Kind, Paired: true,
			Sides:      []model.Side{{Label: "true", Source: "true"}, {Label: "true (2)", Source: "true"}},
			Benchmarks: []model.Benchmark{{Metrics: []model.Metric{{Unit: WallUnit, Better: model.LowerIsBetter, Assume: model.AssumeNothing}}}}},
		order: order, effect: effect, rng: rand.New(rand.NewPCG(seed, 39)), opts: opts,
	}
}

func (s *orderSampler) Units() []string   { return []string{s.run.Benchmarks[0].Key()} }
func (s *orderSampler) Checkpoint() error { return nil }

func (s *orderSampler) Unresolved() ([]string, error) {
	return experiment.Unresolved(s.run, s.opts)
}

func (s *orderSampler) Round(_ context.Context, k int, _ []string) error {
	sides := []int{0, 1}
	if s.order != "" {
		sides = experiment.SideOrder(s.order, k, 2)
	}
	burst := s.rng.Float64() < 0.1
	m := &s.run.Benchmarks[0].Metrics[0]
	for slot, si := range sides {
		v := 1e-3 * math.Exp(0.02*s.rng.NormFloat64())
		if slot == 1 {
			v *= 1 - s.effect
			if burst {
				v *= 1.5
			}
		}
		m.Samples = append(m.Samples, model.Sample{Side: s.run.Sides[si].Label, Round: k, Iters: 1, Value: v})
	}
	return nil
}

// verdict runs the rounds as rigor exec's design does (MinRounds 10,
// looks as the rounds grow by a quarter, at most maxRounds) and returns
// the final verdict of the A/A comparison.
func (s *orderSampler) verdict(t *testing.T, maxRounds int) analysis.Verdict {
	t.Helper()
	if _, err := experiment.Loop(context.Background(), experiment.Design{MinRounds: 10, MaxRounds: maxRounds, LookGrowth: 0.25}, s); err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.Analyze(s.run, s.opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := rep.Benchmarks[0].Decisions; len(d) == 1 {
		return d[0].Verdict
	}
	t.Fatalf("decisions %+v, want one", rep.Benchmarks[0].Decisions)
	return ""
}

// Counterbalancing cancels an order effect: A/A runs in Thue-Morse or
// ABBA order, under an order effect five times the largest measured
// beside the neighbours and bursts that hit the second slot, call no
// change more often than the 5% a test at alpha 0.05 allows (at most 3
// of 40, P(X > 3) = 0.14 at 5% and 0.0004 at 1%: the bound leaves room
// for chance, not for a bias), while the same runs with the reference
// always first call one in nearly every run.
func TestOrderEffectCancelled(t *testing.T) {
	const runs, effect, maxRounds = 40, 0.05, 200
	alarms := func(order string) (n int, verdicts map[analysis.Verdict]int) {
		verdicts = map[analysis.Verdict]int{}
		for seed := range uint64(runs) {
			v := newOrderSampler(order, effect, seed).verdict(t, maxRounds)
			verdicts[v]++
			if v == analysis.Improved || v == analysis.Regressed {
				n++
			}
		}
		return n, verdicts
	}
	for _, order := range []string{experiment.OrderThueMorse, experiment.OrderABBA} {
		n, vs := alarms(order)
		t.Logf("%s: %v", order, vs)
		if n > 3 {
			t.Errorf("%s: %d of %d A/A runs called a change under a %.0f%% order effect (verdicts %v); want at most 3", order, n, runs, 100*effect, vs)
		}
	}
	n, vs := alarms("")
	t.Logf("reference first: %v", vs)
	if n < runs*9/10 {
		t.Errorf("reference always first: %d of %d A/A runs called a change (verdicts %v); the order effect should show in nearly all", n, runs, vs)
	}
}
