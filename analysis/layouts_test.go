package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// layoutTrial simulates one benchmark measured in rounds paired rounds,
// each side linked layouts times and the rounds cycling through the links
// (round r runs link r mod layouts on both sides). On the log scale: a
// change mu; each link of each side its own layout effect, normal with
// standard deviation sdLayout; each round the machine's drift, shared by
// both sides (pairing cancels it); each sample a heavy-tailed noise of its
// own (3% times Student's t on 3 degrees of freedom), and one sample in
// twenty preempted (+30%).
func layoutTrial(rng *rand.Rand, layouts, rounds int, sdLayout, mu float64, tag bool) (old, new []model.Sample) {
	a, b := make([]float64, layouts), make([]float64, layouts)
	for k := range a {
		a[k], b[k] = sdLayout*rng.NormFloat64(), sdLayout*rng.NormFloat64()
	}
	noise := func() float64 {
		// Student's t with 3 degrees of freedom: a normal over the root
		// of a chi-square on 3 over 3.
		z, chi := rng.NormFloat64(), 0.0
		for range 3 {
			g := rng.NormFloat64()
			chi += g * g
		}
		e := 0.03 * z / math.Sqrt(chi/3)
		if rng.IntN(20) == 0 {
			e += math.Log(1.3)
		}
		return e
	}
	for r := range rounds {
		k := r % layouts
		drift := 0.1 * rng.NormFloat64()
		l := 0
		if tag {
			l = k + 1
		}
		old = append(old, model.Sample{Side: "old", Round: r, Iters: 1000, Layout: l, Value: 1e-6 * math.Exp(drift+a[k]+noise())})
		new = append(new, model.Sample{Side: "new", Round: r, Iters: 1000, Layout: l, Value: 1e-6 * math.Exp(drift+mu+b[k]+noise())})
	}
	return old, new
}

// The interval of a change measured across several links per side covers
// the true change at least 94% of the time at 95%, whatever the layouts'
// variance (none, 1%, 3% per link), the links (4, 8) and the rounds (12,
// 40), over 4,000 trials each (a coverage of 95% reads 94.3% or more 19
// times in 20): more rounds never make a layout offset look surer. Ignoring the
// links (one interval over the rounds, as with one binary per side) covers
// far less where layouts vary: the bias no interval covered.
func TestLayoutCoverage(t *testing.T) {
	const trials = 4000
	opts := DefaultOptions()
	mu := math.Log(1.02)
	want := math.Expm1(mu)
	for _, sdLayout := range []float64{0, 0.01, 0.03} {
		for _, layouts := range []int{4, 8} {
			for _, rounds := range []int{12, 40} {
				name := fmt.Sprintf("sd%.0f%%/%dlinks/%drounds", 100*sdLayout, layouts, rounds)
				rng := rand.New(rand.NewPCG(uint64(layouts*1000+rounds), uint64(100*sdLayout)+1))
				covered, coveredFlat := 0, 0
				var width, widthFlat float64
				for range trials {
					old, new := layoutTrial(rng, layouts, rounds, sdLayout, mu, true)
					c := pairedChange(old, new, opts)
					if c.Test != TestLayouts || c.Layouts != layouts {
						t.Fatalf("%s: test %q over %d pairs of links, want %q over %d", name, c.Test, c.Layouts, TestLayouts, layouts)
					}
					if c.Lo <= want && want <= c.Hi {
						covered++
					}
					width += (c.Hi - c.Lo) / trials
					for i := range old {
						old[i].Layout, new[i].Layout = 0, 0
					}
					f := pairedChange(old, new, opts)
					if f.Lo <= want && want <= f.Hi {
						coveredFlat++
					}
					widthFlat += (f.Hi - f.Lo) / trials
				}
				rate, flat := float64(covered)/trials, float64(coveredFlat)/trials
				t.Logf("%s: coverage %.3f, mean width %.2f%% (ignoring the links %.3f, %.2f%%)", name, rate, 100*width, flat, 100*widthFlat)
				if rate < 0.94 {
					t.Errorf("%s: the interval covered the change in %.1f%% of %d trials, want at least 94%%", name, 100*rate, trials)
				}
				if sdLayout == 0.03 && rounds == 40 && !(flat < 0.9) {
					t.Errorf("%s: ignoring the links covered %.1f%%: the simulation does not show the bias it is for", name, 100*flat)
				}
			}
		}
	}
}

// A benchmark whose links differ by far more than its rounds vary gets the
// layout-sensitive note with the spread of its pairs of links; one
// measured without layout effects does not.
func TestLayoutSensitiveNote(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		sd   float64
		note bool
	}{{0.15, true}, {0, false}} {
		old, new := layoutTrial(rng, 6, 36, tc.sd, 0, true)
		m := model.Metric{Unit: WallUnit, Samples: append(old, new...)}
		rep, err := Analyze(decisionRun(model.Benchmark{Name: "Sum", Metrics: []model.Metric{m}}), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		var found *model.Note
		for i, n := range rep.Benchmarks[0].Metrics[0].Notes {
			if n.Topic == TopicLayoutSensitive {
				found = &rep.Benchmarks[0].Metrics[0].Notes[i]
			}
		}
		if (found != nil) != tc.note {
			t.Errorf("layouts varying by %.0f%%: note %v, want %v", 100*tc.sd, found, tc.note)
		}
		if found != nil && (found.Evidence["layouts"] != 6 || !(found.Evidence["layout_hi"]-found.Evidence["layout_lo"] > 0.01)) {
			t.Errorf("note %+v: want 6 pairs of links and their spread", found)
		}
	}
}

// A change across links that the band leaves open asks for more links,
// not rounds: w = 0.025, gap = 0.005, w' = 0.0034979 (as TestMoreRounds
// derives it), so 4 pairs of links become 4 × 51.08 = 204.3, 205.
func TestMoreLayouts(t *testing.T) {
	c := &Change{Paired: true, Test: TestLayouts, Layouts: 4, N: 20, Estimate: 0.005, Lo: -0.02, Hi: 0.03, P: 0.5, PAdjusted: 0.5}
	m := &Metric{Unit: WallUnit, Better: model.LowerIsBetter, Sides: []Summary{{Center: 1e-4, Iters: 300}, {Center: 1e-4, Iters: 300}}}
	decide(c, m, DefaultOptions())
	if c.Verdict != Inconclusive || c.SettleLayouts != 205 || c.SettleRounds != 0 || !strings.Contains(c.Reason, "about 205 (--layouts 205) would likely settle it: more rounds alone cannot") {
		t.Errorf("%s, settle layouts %d, rounds %d: %q", c.Verdict, c.SettleLayouts, c.SettleRounds, c.Reason)
	}
}
