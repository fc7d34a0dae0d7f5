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
			c = hlCenter(dm)
		}
		centers = append(centers, c)
		ids = append(ids, j)
	}
	cs, err := stats.ShiftByCluster(centers, ids, confidence)
	cs.BetweenP = math.NaN() // one value per machine: no test between them
	return cs, err
}

// hlCenter is the Hodges-Lehmann center of d: the median of its Walsh
// averages.
func hlCenter(d []float64) float64 {
	w := make([]float64, 0, len(d)*(len(d)+1)/2)
	for i := range d {
		for j := i; j < len(d); j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	slices.Sort(w)
	return stats.Median(w)
}

// moreMachines is moreRounds for a change across machines (TestMachines):
// its interval narrows with more machines, not with more rounds on these.
func moreMachines(c *Change, opts Options) string {
	k := c.Machines
	w, target, ok := settleTarget(c, opts)
	if k < 2 || !ok {
		return ""
	}
	need := int(math.Ceil(float64(k) * (w / target) * (w / target)))
	if need <= k || need > settleMost*k {
		return ""
	}
	return fmt.Sprintf("; it was measured on %d machines, and at their spread about %d would likely settle it: more rounds on these cannot", k, need)
}
