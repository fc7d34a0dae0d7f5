package experiment

import (
	"slices"
	"testing"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// pairedRun builds a two-sided run of one benchmark: rounds pairs where
// new = old * ratio, with old varying by ±spread around 100 ns.
func pairedRun(rounds int, ratio, spread float64) *model.Run {
	m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
	rng := NewRand(5)
	for r := 1; r <= rounds; r++ {
		old := 100e-9 * (1 + spread*(2*rng.Float64()-1))
		jitter := 1 + spread/10*(2*rng.Float64()-1)
		m.Samples = append(m.Samples,
			model.Sample{Side: "old", Round: r, Iters: 1000, Value: old},
			model.Sample{Side: "new", Round: r, Iters: 1000, Value: old * ratio * jitter})
	}
	return &model.Run{
		Kind: model.KindAB, Paired: true,
		Sides:      []model.Side{{Label: "old"}, {Label: "new"}},
		Benchmarks: []model.Benchmark{{Name: "B", Pkg: "p", Metrics: []model.Metric{m}}},
	}
}

func TestUnresolved(t *testing.T) {
	opts := analysis.DefaultOptions()
	opts.Resamples = 2000
	for _, tc := range []struct {
		name     string
		run      *model.Run
		resolved bool
	}{
		// 8 pairs all in one direction: Wilcoxon's exact p is 2/2^8 =
		// 0.0078, significant at 0.05 but not at the interim 0.001.
		{"clear change, too few rounds for an early stop", pairedRun(8, 1.5, 0.02), false},
		// 12 pairs: p = 2/4096 = 0.00049 < 0.001.
		{"clear change, enough rounds", pairedRun(12, 1.5, 0.02), true},
		// Identical up to ±0.02%: the CI lies inside ±1%.
		{"no change, low noise", pairedRun(12, 1, 0.002), true},
		// ±40% noise, 5 rounds: the CI reaches beyond ±1%.
		{"no change, high noise", pairedRun(5, 1, 0.4), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys, err := Unresolved(tc.run, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(keys) == 0; got != tc.resolved {
				rep, _ := analysis.Analyze(tc.run, opts)
				c := rep.Benchmarks[0].Metrics[0].Changes[0]
				t.Errorf("resolved = %v, want %v (verdict %s, p %.4g: %s)", got, tc.resolved, c.Verdict, c.PAdjusted, c.Reason)
			}
			if len(keys) > 0 && !slices.Equal(keys, []string{"p.B"}) {
				t.Errorf("unresolved keys %q, want [p.B]", keys)
			}
		})
	}
}

func TestUnresolvedOneSide(t *testing.T) {
	opts := analysis.DefaultOptions()
	run := func(values ...float64) *model.Run {
		m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
		for i, v := range values {
			m.Samples = append(m.Samples, model.Sample{Side: "current", Round: i + 1, Iters: 100, Value: v})
		}
		return &model.Run{Kind: model.KindRun, Sides: []model.Side{{Label: "current"}},
			Benchmarks: []model.Benchmark{{Name: "B", Metrics: []model.Metric{m}}}}
	}
	// Ten values within ±0.5% of 100: the median's CI (between order
	// statistics) is inside ±1%.
	tight := run(99.6, 99.7, 99.8, 99.9, 100, 100, 100.1, 100.2, 100.3, 100.4)
	if keys, err := Unresolved(tight, opts); err != nil || len(keys) != 0 {
		t.Errorf("tight values unresolved: %q, %v", keys, err)
	}
	wide := run(80, 90, 95, 100, 100, 105, 110, 120, 130, 140)
	if keys, err := Unresolved(wide, opts); err != nil || !slices.Equal(keys, []string{"B"}) {
		t.Errorf("wide values: %q, %v; want [B]", keys, err)
	}
}

// TestInterimChoosesClock: beside a busy neighbour, an interim look that
// sees what the observer saw settles on CPU time what wall time cannot:
// the stopping rule uses the verdict's clock. Wall time swings ±20% from
// pair to pair; CPU time is +10% in all 12 rounds (Wilcoxon's exact
// two-sided p = 2/2^12 = 0.00049, below the interim 0.001); every sample
// ran with three runnable threads on two CPUs at GOMAXPROCS 1.
func TestInterimChoosesClock(t *testing.T) {
	wall := model.Metric{Unit: analysis.WallUnit, Better: model.LowerIsBetter}
	cpu := model.Metric{Unit: analysis.CPUUnit, Better: model.LowerIsBetter}
	bench := model.Benchmark{Name: "B", Pkg: "p", Procs: 1}
	var obs []model.Observation
	for r := 1; r <= 12; r++ {
		swing := 1.2
		if r%2 == 0 {
			swing = 0.8
		}
		for _, side := range []string{"old", "new"} {
			w, c := 100e-6, 95e-6*(1+0.0005*float64(r%3))
			if side == "new" {
				w *= swing
				c *= 1.1
			}
			wall.Samples = append(wall.Samples, model.Sample{Side: side, Round: r, Iters: 1000, Value: w})
			cpu.Samples = append(cpu.Samples, model.Sample{Side: side, Round: r, Iters: 1000, Value: c})
			obs = append(obs, model.Observation{Benchmark: bench.Key(), Side: side, Round: r, OtherCPU: 0.6,
				System: &model.SystemStats{CPUs: 2, Running: 3}})
		}
	}
	bench.Metrics = []model.Metric{wall, cpu}
	run := &model.Run{Kind: model.KindAB, Paired: true, Sides: []model.Side{{Label: "old"}, {Label: "new"}},
		Benchmarks: []model.Benchmark{bench}}
	opts := analysis.DefaultOptions()

	blind, err := Unresolved(run, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(blind, []string{bench.Key()}) {
		t.Errorf("without the observer's data: unresolved %q, want %q (wall time cannot settle)", blind, bench.Key())
	}
	seen, err := Unresolved(Interim(run, obs), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 0 {
		t.Errorf("with the observer's data: unresolved %q, want none (CPU time settles)", seen)
	}
	if len(run.Observations) != 0 {
		t.Errorf("Interim changed the run: %d observations", len(run.Observations))
	}
}
