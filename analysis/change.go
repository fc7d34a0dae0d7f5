package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

func exactChange(x, y []float64) *Change {
	c := &Change{Test: "exact", N: min(len(x), len(y)), P: math.NaN(), Effect: math.NaN()}
	c.Estimate = ratio(stats.Median(y), stats.Median(x)) - 1
	c.Lo, c.Hi = c.Estimate, c.Estimate
	c.Delta = stats.Median(y) - stats.Median(x)
	// The p-value is benchstat's, for compatibility; the verdict does
	// not use it because exact values need no test.
	if _, p, err := stats.MannWhitneyU(x, y); err == nil {
		c.P = p
	}
	return c
}

// fromZeroChange compares a varying metric whose baseline median is zero
// (most samples allocate nothing, say): a relative change from zero is
// undefined, so the change is the difference of the medians, and the
// verdict rests on the Mann-Whitney U test alone (also for paired runs:
// zeros have no logarithm, as in pairedChange).
func fromZeroChange(x, y []float64) *Change {
	c := &Change{Test: TestUTest, N: min(len(x), len(y)), P: math.NaN(), Effect: math.NaN(),
		Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	c.Delta = stats.Median(y) - stats.Median(x)
	if _, p, err := stats.MannWhitneyU(x, y); err == nil {
		c.P = p
	}
	return c
}

func unpairedChange(x, y []float64, opts Options, seed uint64) *Change {
	c := &Change{Test: opts.Test, N: min(len(x), len(y)), P: math.NaN(), Delta: math.NaN()}
	b := stats.Bootstrap{Resamples: opts.Resamples, Confidence: opts.Confidence, Seed: seed}
	in := b.MedianRatio(x, y)
	c.Estimate, c.Lo, c.Hi = in.Estimate-1, in.Lo-1, in.Hi-1
	switch opts.Test {
	case TestWelch:
		if _, _, p, err := stats.WelchT(x, y); err == nil {
			c.P = p
		}
	case TestMixedBootstrap:
		_, c.P = stats.MixedBootstrapT(x, y, opts.Resamples, seed^0x6d697865)
	default:
		if _, p, err := stats.MannWhitneyU(x, y); err == nil {
			c.P = p
		}
	}
	c.Effect = stats.CohenD(x, y)
	return c
}

// pairedChange pairs samples by round: round i of the baseline and round i
// of the other side ran under the same conditions. The change is the
// Hodges-Lehmann estimate of the per-round log ratio log(new/old), a
// geometric-mean ratio that one preempted round cannot drag, with the
// distribution-free interval that inverts the Wilcoxon signed-rank test
// whose p-value is reported beside it, so interval and test agree.
//
// When the sides' binaries were linked several times each (Sample.Layout:
// the rounds cycle through the links), the pairs of one pair of links share
// that pair's layout effect, which more rounds cannot average away: the
// change is then the mean of the pairs of links' centers, with Student's
// t interval on their spread (stats.ShiftByCluster, Test TestLayouts), so
// it covers the variation between links as well as between rounds.
func pairedChange(xs, ys []model.Sample, opts Options) *Change {
	type at struct {
		v       float64
		layout  int
		machine int
	}
	type round struct{ machine, round int }
	byRound := make(map[round]at, len(xs))
	for _, s := range xs {
		byRound[round{s.Machine, s.Round}] = at{s.Value, s.Layout, s.Machine}
	}
	var x, y []float64
	var links, machines []int
	layouts, onMachines := map[int]bool{}, map[int]bool{}
	for _, s := range ys {
		if o, ok := byRound[round{s.Machine, s.Round}]; ok {
			x = append(x, o.v)
			y = append(y, s.Value)
			l := o.layout*layoutKey + s.Layout
			links = append(links, l)
			layouts[l] = true
			machines = append(machines, o.machine)
			onMachines[o.machine] = true
		}
	}
	c := &Change{Paired: true, Test: "wilcoxon", N: len(x), P: math.NaN(), Effect: math.NaN(),
		Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Delta: math.NaN()}
	if len(x) < 2 {
		return c
	}
	if !positive(x) || !positive(y) {
		// A zero or negative value has no logarithm: compare the medians
		// as if unpaired, and say so in the test name.
		in := stats.Bootstrap{Confidence: opts.Confidence}.MedianRatio(x, y)
		c.Estimate, c.Lo, c.Hi = in.Estimate-1, in.Lo-1, in.Hi-1
		c.Test = "utest"
		if _, p, err := stats.MannWhitneyU(x, y); err == nil {
			c.P = p
		}
		return c
	}
	lx, ly, d := make([]float64, len(x)), make([]float64, len(y)), make([]float64, len(x))
	for i := range x {
		lx[i], ly[i] = math.Log(x[i]), math.Log(y[i])
		d[i] = ly[i] - lx[i]
	}
	if len(onMachines) > 1 {
		// Several machines (rigor merge): the machine is a random
		// effect, as the link is.
		cs, err := machineShift(d, machines, links, opts.Confidence)
		c.Test, c.Machines = TestMachines, cs.Clusters
		if err == nil {
			c.Estimate, c.Lo, c.Hi, c.P = math.Expm1(cs.Estimate), math.Expm1(cs.Lo), math.Expm1(cs.Hi), cs.P
		}
		c.Effect = stats.CohenDz(lx, ly)
		return c
	}
	if len(layouts) > 1 && !layouts[0] {
		cs, err := stats.ShiftByCluster(d, links, opts.Confidence)
		c.Test, c.Layouts, c.layouts = TestLayouts, cs.Clusters, &cs
		if err == nil {
			c.Estimate, c.Lo, c.Hi, c.P = math.Expm1(cs.Estimate), math.Expm1(cs.Lo), math.Expm1(cs.Hi), cs.P
		}
		c.Effect = stats.CohenDz(lx, ly)
		return c
	}
	in, _ := stats.PairedShift(d, opts.Confidence)
	c.Estimate, c.Lo, c.Hi = math.Expm1(in.Estimate), math.Expm1(in.Lo), math.Expm1(in.Hi)
	if _, p, err := stats.WilcoxonSignedRank(lx, ly); err == nil {
		c.P = p
	} else if errors.Is(err, stats.ErrTooFew) && len(d) > 0 {
		// Every round identical on both sides: no evidence of change.
		c.P = 1
	}
	c.Effect = stats.CohenDz(lx, ly)
	return c
}

// layoutKey combines the baseline's and the other side's link of a pair
// into one cluster: old*layoutKey + new.
const layoutKey = 1 << 16

// TestLayouts is the Change.Test of a paired change across several links
// per side: Student's t on the pairs of links' centers.
const TestLayouts = "layouts"

func positive(v []float64) bool {
	for _, x := range v {
		if !(x > 0) {
			return false
		}
	}
	return true
}

func ratio(num, den float64) float64 {
	if den == 0 {
		if num == 0 {
			return 1
		}
		return math.NaN()
	}
	return num / den
}

// layoutSensitiveP is the Kruskal-Wallis test's p-value below which the pairs of links
// of a change across links (TestLayouts) differ by more than its rounds
// vary within each: a benchmark whose speed depends on where the linker
// put its code.
const layoutSensitiveP = 0.01

// layoutNote says, for a time's change across several links per side,
// when the same code moved between its links by more than the noise band
// and by more than its rounds vary within a pair of links: "layout-
// sensitive: the change read -3.9% to +4.4% across 6 pairs of links".
// Nil otherwise.
func layoutNote(key, unit string, c *Change, opts Options) *model.Note {
	if c == nil || c.layouts == nil || !isTime(unit) || len(c.layouts.Centers) < 2 {
		return nil
	}
	cs := c.layouts
	lo, hi := math.Expm1(slices.Min(cs.Centers)), math.Expm1(slices.Max(cs.Centers))
	if !(cs.BetweenP < layoutSensitiveP) || hi-lo <= opts.Noise {
		return nil
	}
	return &model.Note{Kind: model.NoteStatistics, Source: source, Benchmark: key, Side: c.Side, Unit: unit, Topic: TopicLayoutSensitive,
		Finding:  "layout-sensitive: its speed depends on where the linker put its code",
		Evidence: map[string]float64{"layout_lo": lo, "layout_hi": hi, "layouts": float64(cs.Clusters), "between_p": cs.BetweenP},
		Text: fmt.Sprintf("layout-sensitive: the change read %s to %s across %d pairs of links (their rounds differ more than rounds of one pair do, p=%s): where the linker put the code moves this benchmark by more than the %s noise band, which the interval covers",
			signedPct(lo), signedPct(hi), cs.Clusters, formatP(cs.BetweenP), "±"+words.Pct(opts.Noise))}
}

// TopicLayoutSensitive is the Topic of a NoteStatistics note on a change
// whose pairs of links differ (layoutNote).
const TopicLayoutSensitive = "layout-sensitive"
