package stats

import (
	"math"
	"slices"
)

// Holm returns Holm's step-down adjusted p-values, in the order of p: with
// the m p-values sorted ascending, the i-th (1-based) becomes
// max over j <= i of min(1, (m-j+1) p(j)). Rejecting where the adjusted
// value is below α controls the family-wise error rate at α. NaN entries
// stay NaN and do not count in m (as R's p.adjust).
func Holm(p []float64) []float64 {
	order, m := sortedValid(p)
	adj := nanSlice(len(p))
	run := 0.0
	for i, k := range order {
		run = max(run, min(1, float64(m-i)*p[k]))
		adj[k] = run
	}
	return adj
}

// BenjaminiHochberg returns the Benjamini-Hochberg adjusted p-values, in the
// order of p: with the m p-values sorted ascending, the i-th (1-based)
// becomes min over j >= i of min(1, m p(j)/j). Rejecting where the adjusted
// value is below q controls the false discovery rate at q. NaN entries stay
// NaN and do not count in m.
func BenjaminiHochberg(p []float64) []float64 {
	order, m := sortedValid(p)
	adj := nanSlice(len(p))
	run := 1.0
	for i := len(order) - 1; i >= 0; i-- {
		k := order[i]
		run = min(run, float64(m)*p[k]/float64(i+1))
		adj[k] = run
	}
	return adj
}

// sortedValid returns the indices of the non-NaN p-values, by increasing
// value, and their count.
func sortedValid(p []float64) ([]int, int) {
	var order []int
	for i, v := range p {
		if !math.IsNaN(v) {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	return order, len(order)
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}
