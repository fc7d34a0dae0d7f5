package analysis

import (
	"math"

	"github.com/rigorbench/rigor/stats"
)

// geomeans returns the geometric mean of each unit's centers over the
// benchmarks that report it with a positive center on every side, as
// benchstat's geomean row, and, where every one of them has a paired
// change against a side, the geometric mean of those changes.
func geomeans(r *Report) []Geomean {
	type acc struct {
		better int
		logs   [][]float64
		// paired[k] holds log(1+change) of each benchmark's change
		// against side k+1; ok[k] is false once one lacks it.
		paired [][]float64
		ok     []bool
	}
	var order []string
	units := map[string]*acc{}
	for _, b := range r.Benchmarks {
		for _, m := range b.Metrics {
			ok := true
			for _, s := range m.Sides {
				if s.N == 0 || !(s.Center > 0) {
					ok = false
				}
			}
			if !ok {
				continue
			}
			a := units[m.Unit]
			if a == nil {
				a = &acc{better: m.Better, logs: make([][]float64, len(r.Sides)),
					paired: make([][]float64, len(r.Sides)-1), ok: make([]bool, len(r.Sides)-1)}
				for k := range a.ok {
					a.ok[k] = true
				}
				units[m.Unit] = a
				order = append(order, m.Unit)
			}
			for i, s := range m.Sides {
				a.logs[i] = append(a.logs[i], s.Center)
			}
			for k := range a.ok {
				if k >= len(m.Changes) || m.Changes[k] == nil || !m.Changes[k].Paired || !(m.Changes[k].Estimate > -1) || math.IsInf(m.Changes[k].Estimate, 0) {
					a.ok[k] = false
					continue
				}
				a.paired[k] = append(a.paired[k], math.Log1p(m.Changes[k].Estimate))
			}
		}
	}
	var out []Geomean
	for _, u := range order {
		a := units[u]
		if len(a.logs[0]) < 2 {
			continue
		}
		g := Geomean{Unit: u, Better: a.better, N: len(a.logs[0])}
		for _, v := range a.logs {
			g.Centers = append(g.Centers, stats.GeoMean(v))
		}
		for _, c := range g.Centers[1:] {
			g.Changes = append(g.Changes, c/g.Centers[0]-1)
		}
		for k, ok := range a.ok {
			p := math.NaN()
			if ok {
				p = math.Expm1(stats.Mean(a.paired[k]))
			}
			g.Paired = append(g.Paired, p)
		}
		out = append(out, g)
	}
	return out
}
