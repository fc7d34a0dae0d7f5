package analysis

import (
	"fmt"
	"math"
	"slices"

	"github.com/rigorbench/rigor/stats"
)

// TestMachines is the Change.Test of a paired change measured on several
// machines (result directories merged by rigor merge, Sample.Machine):
// Student's t on the machines' centers.
const TestMachines = "machines"

// machineShift is the change, in logs, of the per-round log ratios d
// measured on several machines (machine[i] is d[i]'s, link[i] its pair of
// links, 0 when the sides were linked once): the machine is a random
// effect, as the link is (stats.ShiftByCluster). Each machine's pairs
// were made on it alone, so each machine has its own center: the mean of
// its pairs of links' Hodges-Lehmann centers when its rounds span
// several, else the Hodges-Lehmann center of its pairs. The change is the
// mean of the machines' centers, with Student's t interval on their
// spread on k-1 degrees of freedom, k the number of machines: what a
// machine moves the change by is inside the interval, and more rounds on
// the same machines never narrow it below their spread. Pooling the
// machines' rounds as if from one would leave that out.
//
// When the machines ran the same pairs of links (the same shard run
// again: its layouts' seeds follow --seed, which shards share), a link's
// layout effect is common to every machine and their spread cannot show
// it: the interval is then crossedShift's, which adds the links' spread.
//
// The t interval on k centers is stats.ShiftByCluster given one center
// per cluster (the Hodges-Lehmann center of one value is that value).
func machineShift(d []float64, machine, link []int, confidence float64) (stats.ClusteredShift, error) {
	var order []int
	byMachine := map[int][]int{} // machine -> indices into d
	for i, m := range machine {
		if _, ok := byMachine[m]; !ok {
			order = append(order, m)
		}
		byMachine[m] = append(byMachine[m], i)
	}
	if shared := sharedLinks(order, byMachine, link); len(shared) > 1 {
		return crossedShift(d, machine, link, confidence)
	}
	return nestedShift(d, order, byMachine, link, confidence)
}

// nestedShift is machineShift for machines that share no pair of links:
// Student's t on the machines' centers. byMachine lists each machine's
// indices into d, order the machines.
func nestedShift(d []float64, order []int, byMachine map[int][]int, link []int, confidence float64) (stats.ClusteredShift, error) {
	centers := make([]float64, 0, len(order))
	ids := make([]int, 0, len(order))
	for j, m := range order {
		idx := byMachine[m]
		dm := make([]float64, len(idx))
		lm := make([]int, len(idx))
		links := map[int]bool{}
		for k, i := range idx {
			dm[k], lm[k] = d[i], link[i]
			links[link[i]] = true
		}
		var c float64
		if len(links) > 1 && !links[0] {
			cs, err := stats.ShiftByCluster(dm, lm, confidence)
			if err != nil {
				return cs, fmt.Errorf("machine %d: %w", m, err)
			}
			c = cs.Estimate
		} else {
			c = stats.HodgesLehmannCenter(dm)
		}
		centers = append(centers, c)
		ids = append(ids, j)
	}
	cs, err := stats.ShiftByCluster(centers, ids, confidence)
	cs.BetweenP = math.NaN() // one value per machine: no test between them
	return cs, err
}

// sharedLinks returns the pairs of links (not 0: linked once) that more
// than one machine ran.
func sharedLinks(order []int, byMachine map[int][]int, link []int) []int {
	on := map[int]int{}
	for _, m := range order {
		seen := map[int]bool{}
		for _, i := range byMachine[m] {
			if l := link[i]; l != 0 && !seen[l] {
				seen[l] = true
				on[l]++
			}
		}
	}
	var shared []int
	for l, n := range on {
		if n > 1 {
			shared = append(shared, l)
		}
	}
	slices.Sort(shared)
	return shared
}

// crossedShift is machineShift for machines that ran the same pairs of
// links: machine and link are crossed random effects. Each cell (a
// machine's rounds of one pair of links) has its Hodges-Lehmann center
// c[m][l]; the change is the mean of the machines' means a[m] (the mean
// of their cells). The variance of that mean is sM²/M + sL²/L + se²/(ML)
// (machine, link and cell components); the machines' means vary by
// sM² + se²/L (the links' effects, common to all, cancel) and the links'
// means b[l] by sL² + se²/M, so var(a)/M + var(b)/L estimates it with
// se²/(ML) counted twice: a little wide, never too narrow. Student's t
// on min(M, L) - 1 degrees of freedom gives the interval, the
// conservative bound of Satterthwaite's (which lies between that and
// M+L-2): in simulation (2 machines 3% apart, links alike, 4 pairs of
// links, 16 rounds, 2,000 trials) Satterthwaite's covered a +2% change
// 90.1% of the time, min(M, L) - 1 99.4%; with layouts varying by 2-3%
// and machines by 0.5-1%, 98-100%, where the machines' spread alone
// covered 80-90% (TestCrossedMachines).
// Centers are the machines' means.
func crossedShift(d []float64, machine, link []int, confidence float64) (stats.ClusteredShift, error) {
	type key struct{ m, l int }
	cells := map[key][]float64{}
	var ms, ls []int
	for i := range d {
		k := key{machine[i], link[i]}
		if _, ok := cells[k]; !ok {
			if !slices.Contains(ms, k.m) {
				ms = append(ms, k.m)
			}
			if !slices.Contains(ls, k.l) {
				ls = append(ls, k.l)
			}
		}
		cells[k] = append(cells[k], d[i])
	}
	out := stats.ClusteredShift{Interval: stats.Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Confidence: confidence},
		P: math.NaN(), BetweenP: math.NaN(), Clusters: len(ms)}
	center := map[key]float64{}
	for k, v := range cells {
		center[k] = stats.HodgesLehmannCenter(v)
	}
	means := func(outer, inner []int, at func(o, i int) key) []float64 {
		var out []float64
		for _, o := range outer {
			var sum float64
			n := 0
			for _, i := range inner {
				if c, ok := center[at(o, i)]; ok {
					sum += c
					n++
				}
			}
			if n > 0 {
				out = append(out, sum/float64(n))
			}
		}
		return out
	}
	a := means(ms, ls, func(m, l int) key { return key{m, l} })
	b := means(ls, ms, func(l, m int) key { return key{m, l} })
	out.Centers = a
	if len(a) < 2 || len(b) < 2 {
		return out, stats.ErrTooFew
	}
	va := variance(a) / float64(len(a))
	vb := variance(b) / float64(len(b))
	mean := stats.Mean(a)
	out.Estimate = mean
	out.Lo, out.Hi, out.P = stats.TInterval(mean, math.Sqrt(va+vb), float64(min(len(a), len(b))-1), confidence)
	return out, nil
}

// variance is the sample variance of x (n-1 in the denominator).
func variance(x []float64) float64 {
	sd := stats.StdDev(x)
	return sd * sd
}

// moreMachines is moreRounds for a change across machines (TestMachines):
// its interval narrows with more machines, not with more rounds on these.
func moreMachines(c *Change, opts Options) string {
	k := c.Machines
	need, ok := moreClusters(c, k, opts)
	if !ok {
		return ""
	}
	return fmt.Sprintf("; it was measured on %d machines, and at their spread about %d would likely settle it: more rounds on these cannot", k, need)
}
