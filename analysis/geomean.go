package analysis

import "github.com/rigorbench/rigor/stats"

func geomeans(r *Report) []Geomean {
	type acc struct {
		better int
		logs   [][]float64
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
				a = &acc{better: m.Better, logs: make([][]float64, len(r.Sides))}
				units[m.Unit] = a
				order = append(order, m.Unit)
			}
			for i, s := range m.Sides {
				a.logs[i] = append(a.logs[i], s.Center)
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
		out = append(out, g)
	}
	return out
}
