package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// A ClusteredShift is the center of paired differences measured in
// clusters that share a random effect (the rounds of one pair of linked
// binaries, say), estimated so that its interval covers the variation
// between clusters as well as within them.
type ClusteredShift struct {
	Interval
	// P is the two-sided p-value of Student's t test that the clusters'
	// centers average zero, on Clusters-1 degrees of freedom.
	P float64
	// Clusters is the number of clusters, Centers each one's center (the
	// Hodges-Lehmann estimate of its differences), in the order of their
	// first difference.
	Clusters int
	Centers  []float64
	// BetweenP is the p-value of the Kruskal-Wallis test that the
	// clusters' differences come from one distribution: small when the
	// clusters differ by more than their differences vary within them.
	// NaN with no cluster of two differences or more.
	BetweenP float64
}

// ShiftByCluster returns the center of the differences d, d[i] measured
// in cluster[i], as the mean of the clusters' centers (each the
// Hodges-Lehmann estimate of its differences, which one outlying
// difference cannot drag), with Student's t interval on the spread of
// those centers, on k-1 degrees of freedom for k clusters. Each center
// carries its cluster's random effect once, so the interval covers the
// variation between clusters: however many differences each cluster has,
// the interval narrows only with more clusters. It is the standard
// analysis of a one-way random-effects design by its cluster means
// (exact for normal cluster means of equal size).
//
// With fewer than 2 clusters, or len(cluster) != len(d), it returns NaN
// bounds and ErrTooFew; NaN in d gives ErrNaN.
func ShiftByCluster(d []float64, cluster []int, confidence float64) (ClusteredShift, error) {
	out := ClusteredShift{Interval: Interval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Confidence: confidence},
		P: math.NaN(), BetweenP: math.NaN()}
	if len(d) != len(cluster) || len(d) == 0 {
		return out, ErrTooFew
	}
	if hasNaN(d) {
		return out, ErrNaN
	}
	if !(confidence > 0 && confidence < 1) {
		return out, errConfidence(confidence)
	}
	var order []int
	members := map[int][]float64{}
	for i, c := range cluster {
		if _, ok := members[c]; !ok {
			order = append(order, c)
		}
		members[c] = append(members[c], d[i])
	}
	k := len(order)
	out.Clusters = k
	if k < 2 {
		return out, ErrTooFew
	}
	for _, c := range order {
		out.Centers = append(out.Centers, HodgesLehmannCenter(members[c]))
	}
	mean, sd := Mean(out.Centers), StdDev(out.Centers)
	out.Estimate = mean
	out.Lo, out.Hi, out.P = TInterval(mean, sd/math.Sqrt(float64(k)), float64(k-1), confidence)
	out.BetweenP = kruskalWallisP(order, members)
	return out, nil
}

// TInterval is Student's t interval at confidence around an estimate
// mean with standard error se on df degrees of freedom, and the two-sided
// p-value of the t test that the true value is 0 (1 for a zero estimate
// without spread, 0 for a nonzero one).
func TInterval(mean, se, df, confidence float64) (lo, hi, p float64) {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	q := t.Quantile(1 - (1-confidence)/2)
	switch {
	case se > 0:
		p = 2 * t.Survival(math.Abs(mean)/se)
	case mean == 0:
		p = 1
	}
	return mean - q*se, mean + q*se, p
}

// HodgesLehmannCenter is the Hodges-Lehmann estimate of the center of
// d: the median of its Walsh averages (d[i]+d[j])/2, i <= j.
func HodgesLehmannCenter(d []float64) float64 {
	w := make([]float64, 0, len(d)*(len(d)+1)/2)
	for i := range d {
		for j := i; j < len(d); j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	slices.Sort(w)
	return quantileSorted(w, 0.5)
}

// kruskalWallisP is the p-value of the Kruskal-Wallis test that the
// groups come from one distribution (H on k-1 degrees of freedom of the
// chi-square, corrected for ties): a one-way analysis of variance on
// ranks, which one preempted round cannot sway. NaN when no group has two
// values or every value is the same.
func kruskalWallisP(order []int, members map[int][]float64) float64 {
	type obs struct {
		v float64
		g int
	}
	var all []obs
	for gi, c := range order {
		for _, x := range members[c] {
			all = append(all, obs{x, gi})
		}
	}
	n, k := len(all), len(order)
	if n-k < 1 {
		return math.NaN()
	}
	slices.SortFunc(all, func(a, b obs) int { return cmpFloat(a.v, b.v) })
	rankSum := make([]float64, k)
	count := make([]int, k)
	ties := 0.0
	for i := 0; i < n; {
		j := i
		for j < n && all[j].v == all[i].v {
			j++
		}
		r := float64(i+j+1) / 2 // the mean of ranks i+1..j
		for _, o := range all[i:j] {
			rankSum[o.g] += r
			count[o.g]++
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	nf := float64(n)
	h := 0.0
	for g := range rankSum {
		h += rankSum[g] * rankSum[g] / float64(count[g])
	}
	h = 12/(nf*(nf+1))*h - 3*(nf+1)
	corr := 1 - ties/(nf*nf*nf-nf)
	if corr <= 0 {
		return math.NaN()
	}
	return distuv.ChiSquared{K: float64(k - 1)}.Survival(h / corr)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
