package analysis

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

func TestMachineShiftByHand(t *testing.T) {
	// Machine 1: d = 0.01, 0.02, 0.03; Walsh averages 0.01, 0.015,
	// 0.02, 0.02, 0.025, 0.03: center 0.02. Machine 2: 0.05, 0.06, 0.07:
	// center 0.06. Mean 0.04; their standard deviation 0.02*sqrt(2), so
	// a standard error of 0.02; t(0.975, 1 df) = 12.7062047 (tables):
	// 0.04 ± 0.254124. The t statistic 2 on 1 df (a Cauchy): two-sided
	// p = 1 - 2 atan(2)/pi = 0.295167.
	d := []float64{0.01, 0.02, 0.03, 0.05, 0.06, 0.07}
	machine := []int{1, 1, 1, 2, 2, 2}
	cs, err := machineShift(d, machine, make([]int, len(d)), 0.95)
	if err != nil {
		t.Fatal(err)
	}
	near := func(name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.7f, want %.7f", name, got, want)
		}
	}
	near("estimate", cs.Estimate, 0.04, 1e-12)
	near("lo", cs.Lo, 0.04-0.254124, 1e-6)
	near("hi", cs.Hi, 0.04+0.254124, 1e-6)
	near("p", cs.P, 1-2*math.Atan(2)/math.Pi, 1e-9)
	if cs.Clusters != 2 || len(cs.Centers) != 2 {
		t.Errorf("clusters %d, centers %v; want 2 machines", cs.Clusters, cs.Centers)
	}

	// Within a machine, several pairs of links: its center is the mean
	// of theirs. Machine 1: links 1 {0.01, 0.03} (center 0.02) and 2
	// {0.05, 0.07} (0.06): 0.04; machine 2 one link {0.10, 0.12, 0.14}:
	// 0.12. Mean 0.08, standard error |0.12-0.04|/2 = 0.04.
	d = []float64{0.01, 0.03, 0.05, 0.07, 0.10, 0.12, 0.14}
	machine = []int{1, 1, 1, 1, 2, 2, 2}
	links := []int{1, 1, 2, 2, 0, 0, 0}
	cs, err = machineShift(d, machine, links, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	near("estimate with links", cs.Estimate, 0.08, 1e-12)
	near("half-width with links", cs.Hi-cs.Estimate, 12.7062047*0.04, 1e-6)
}

// pairs returns old and new samples of n rounds on each machine, the
// rounds numbered 1..n on every machine (as each shard numbers its own),
// new = old * exp(change[m] + noise).
func pairs(rng *rand.Rand, change []float64, n int, noise float64) (xs, ys []model.Sample) {
	for m, c := range change {
		for r := 1; r <= n; r++ {
			old := 1e-3 * math.Exp(0.05*rng.NormFloat64())
			e := noise * rng.NormFloat64()
			if rng.IntN(20) == 0 { // a preempted sample now and then
				e += 0.2 * rng.Float64()
			}
			xs = append(xs, model.Sample{Side: "old", Round: r, Iters: 1, Value: old, Machine: m + 1})
			ys = append(ys, model.Sample{Side: "new", Round: r, Iters: 1, Value: old * math.Exp(c+e), Machine: m + 1})
		}
	}
	return xs, ys
}

func TestPairedChangeAcrossMachines(t *testing.T) {
	// Pairs are made on one machine: round 3 of machine 1 never pairs
	// with round 3 of machine 2. Without noise, machine 1 changes by
	// exactly +2% and machine 2 by +10%: the change is the mean of the
	// logs, exp((log 1.02 + log 1.10)/2) - 1.
	rng := rand.New(rand.NewPCG(1, 2))
	xs, ys := pairs(rng, []float64{math.Log(1.02), math.Log(1.10)}, 12, 0)
	for i := range ys { // no preemption either
		ys[i].Value = xs[i].Value * [2]float64{1.02, 1.10}[ys[i].Machine-1]
	}
	c := pairedChange(xs, ys, DefaultOptions())
	if c.Test != TestMachines || c.Machines != 2 || c.N != 24 {
		t.Fatalf("test %q, machines %d, n %d; want machines, 2, 24", c.Test, c.Machines, c.N)
	}
	want := math.Exp((math.Log(1.02)+math.Log(1.10))/2) - 1
	if math.Abs(c.Estimate-want) > 1e-12 {
		t.Errorf("estimate %v, want %v", c.Estimate, want)
	}
	// t(0.975, 1) * |log 1.10 - log 1.02| / 2 on the log scale.
	half := 12.7062047 * (math.Log(1.10) - math.Log(1.02)) / 2
	if lo := math.Expm1(math.Log1p(want) - half); math.Abs(c.Lo-lo) > 1e-6 {
		t.Errorf("lo %v, want %v", c.Lo, lo)
	}
	// One machine: the ordinary paired change.
	one := pairedChange(xs[:12], ys[:12], DefaultOptions())
	if one.Test != "wilcoxon" || one.Machines != 0 {
		t.Errorf("one machine: test %q, machines %d", one.Test, one.Machines)
	}
}

// TestMachineCoverage simulates benchmarks measured on k machines, each
// machine moving the change by its own offset (a random effect, standard
// deviation 3%, around a true +2%), rounds with 2% noise and a preempted
// sample in twenty: the interval must cover the true change at least 94%
// of the time at 95% confidence. Pooling the machines' rounds as if from
// one machine (the Wilcoxon interval over all pairs) must not: it
// ignores the offsets.
func TestMachineCoverage(t *testing.T) {
	// 4,000 trials: the binomial standard error of a 95% rate is
	// 0.34%, so 94% is three of them below (10,000 trials a case read
	// 95.7%, 94.8% and 94.9%).
	const trials = 4000
	const truth = 0.02
	for _, tc := range []struct {
		machines, rounds int
	}{{2, 15}, {4, 15}, {3, 30}} {
		rng := rand.New(rand.NewPCG(41, uint64(tc.machines*100+tc.rounds)))
		covered, pooledCovered := 0, 0
		for range trials {
			change := make([]float64, tc.machines)
			for m := range change {
				change[m] = truth + 0.03*rng.NormFloat64()
			}
			xs, ys := pairs(rng, change, tc.rounds, 0.02)
			c := pairedChange(xs, ys, DefaultOptions())
			if c.Test != TestMachines {
				t.Fatalf("test %q", c.Test)
			}
			if lt := math.Log1p(c.Lo); lt <= truth && truth <= math.Log1p(c.Hi) {
				covered++
			}
			d := make([]float64, len(xs))
			for i := range xs {
				d[i] = math.Log(ys[i].Value / xs[i].Value)
			}
			if in, err := stats.PairedShift(d, 0.95); err == nil && in.Lo <= truth && truth <= in.Hi {
				pooledCovered++
			}
		}
		rate, pooled := float64(covered)/float64(trials), float64(pooledCovered)/float64(trials)
		t.Logf("%d machines, %d rounds each: covered %.1f%%, pooled as one machine %.1f%%", tc.machines, tc.rounds, 100*rate, 100*pooled)
		if rate < 0.94 {
			t.Errorf("%d machines, %d rounds: the interval covered the change %.1f%% of %d trials, want at least 94%%", tc.machines, tc.rounds, 100*rate, trials)
		}
		if pooled > 0.8 {
			t.Errorf("%d machines: pooling covered %.1f%%; the simulation's machine offsets are too small to test anything", tc.machines, 100*pooled)
		}
	}
}

func TestMoreMachines(t *testing.T) {
	// Half-width 0.02; the estimate 0.02 is 0.01 from the 1% band's
	// edge; z(0.975) = 1.959964, z(0.8) = 0.841621: the target
	// half-width is 0.01/(1 + 0.841621/1.959964) = 0.0069959, and
	// 2 machines * (0.02/0.0069959)^2 = 16.35: about 17 machines.
	c := &Change{Estimate: 0.02, Lo: 0, Hi: 0.04, Machines: 2, N: 40}
	got := moreMachines(c, DefaultOptions())
	if want := "; it was measured on 2 machines, and at their spread about 17 would likely settle it: more rounds on these cannot"; got != want {
		t.Errorf("moreMachines = %q, want %q", got, want)
	}
	if got2 := moreRounds(c, DefaultOptions()); got2 != got {

	}
}

func TestCrossedShiftByHand(t *testing.T) {
	// Two machines ran the same two pairs of links, one round each:
	// cells 0.01, 0.03 (machine 1, links 1 and 2) and 0.05, 0.07
	// (machine 2). Machines' means 0.02, 0.06 (variance 0.0008), links'
	// means 0.03, 0.05 (variance 0.0002): a standard error of
	// sqrt(0.0008/2 + 0.0002/2) = sqrt(0.0005); t on min(2, 2)-1 = 1 df,
	// 12.7062047: 0.04 ± 0.284121; p = 1 - 2 atan(0.04/sqrt(0.0005))/pi.
	d := []float64{0.01, 0.03, 0.05, 0.07}
	cs, err := machineShift(d, []int{1, 1, 2, 2}, []int{1, 2, 1, 2}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	se := math.Sqrt(0.0005)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"estimate", cs.Estimate, 0.04},
		{"lo", cs.Lo, 0.04 - 12.7062047*se},
		{"hi", cs.Hi, 0.04 + 12.7062047*se},
		{"p", cs.P, 1 - 2*math.Atan(0.04/se)/math.Pi},
	} {
		if math.Abs(c.got-c.want) > 1e-6 {
			t.Errorf("%s = %.7f, want %.7f", c.name, c.got, c.want)
		}
	}
	if cs.Clusters != 2 {
		t.Errorf("clusters %d, want 2 machines", cs.Clusters)
	}
}

// crossedPairs is pairs where the machines ran the same links, each
// link with its own layout effect (standard deviation sdL) shared by
// every machine, each machine its own offset (sdM).
func crossedPairs(rng *rand.Rand, machines, links, rounds int, truth, sdM, sdL float64) (xs, ys []model.Sample) {
	linkEff := make([]float64, links)
	for l := range linkEff {
		linkEff[l] = sdL * rng.NormFloat64()
	}
	for m := range machines {
		me := sdM * rng.NormFloat64()
		for r := 1; r <= rounds; r++ {
			l := (r-1)%links + 1
			old := 1e-3 * math.Exp(0.05*rng.NormFloat64())
			e := 0.02 * rng.NormFloat64()
			if rng.IntN(20) == 0 {
				e += 0.2 * rng.Float64()
			}
			xs = append(xs, model.Sample{Side: "old", Round: r, Iters: 1, Value: old, Layout: l, Machine: m + 1})
			ys = append(ys, model.Sample{Side: "new", Round: r, Iters: 1, Value: old * math.Exp(truth+me+linkEff[l-1]+e), Layout: l, Machine: m + 1})
		}
	}
	return xs, ys
}

// TestCrossedMachines: the same shard run on several machines runs the
// same links (their seeds follow --seed), so a link's layout effect is
// common to every machine. The interval must still cover the change at
// least 94% of the time; the machines' spread alone (nestedShift), blind
// to the shared layout effects, covered it 78-89% in these cases.
func TestCrossedMachines(t *testing.T) {
	const truth, trials = 0.02, 2000
	for _, tc := range []struct {
		machines, links, rounds int
		sdM, sdL                float64
	}{{2, 4, 16, 0.005, 0.02}, {4, 4, 16, 0.01, 0.02}, {3, 8, 24, 0.01, 0.03}, {2, 4, 16, 0.03, 0}} {
		rng := rand.New(rand.NewPCG(43, uint64(tc.machines*1000+tc.links)))
		covered, nested := 0, 0
		for range trials {
			xs, ys := crossedPairs(rng, tc.machines, tc.links, tc.rounds, truth, tc.sdM, tc.sdL)
			c := pairedChange(xs, ys, DefaultOptions())
			if c.Test != TestMachines || c.Machines != tc.machines {
				t.Fatalf("test %q on %d machines", c.Test, c.Machines)
			}
			if math.Log1p(c.Lo) <= truth && truth <= math.Log1p(c.Hi) {
				covered++
			}
			d := make([]float64, len(xs))
			machine, link := make([]int, len(xs)), make([]int, len(xs))
			byMachine := map[int][]int{}
			var order []int
			for i := range xs {
				d[i] = math.Log(ys[i].Value / xs[i].Value)
				machine[i], link[i] = xs[i].Machine, xs[i].Layout*layoutKey+ys[i].Layout
				if _, ok := byMachine[machine[i]]; !ok {
					order = append(order, machine[i])
				}
				byMachine[machine[i]] = append(byMachine[machine[i]], i)
			}
			if cs, err := nestedShift(d, order, byMachine, link, 0.95); err == nil && cs.Lo <= truth && truth <= cs.Hi {
				nested++
			}
		}
		rate := float64(covered) / trials
		t.Logf("%+v: covered %.1f%%, the machines' spread alone %.1f%%", tc, 100*rate, 100*float64(nested)/trials)
		if rate < 0.94 {
			t.Errorf("%+v: covered %.1f%% of %d trials, want at least 94%%", tc, 100*rate, trials)
		}
	}
}
