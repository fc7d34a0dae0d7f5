package report

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/rigorbench/rigor/analysis"
)

var csvHeader = []string{
	"pkg", "benchmark", "unit", "better", "base", "side",
	"base_center", "base_lo", "base_hi", "base_n",
	"center", "lo", "hi", "n", "mean", "stddev", "mad", "cv", "min", "max",
	"change", "change_lo", "change_hi", "p", "p_adjusted", "test", "effect_size", "verdict", "reason",
	"change_of", "decides", "benchmark_verdict", "context",
}

// changeOf says what a change was computed from, for the change_of
// column: "paired" for the center of the per-round ratios (Hodges-Lehmann),
// which can point the other way from the medians beside it;
// "medians" for the ratio of medians; "exact" for values that never
// vary within a side.
func changeOf(c *analysis.Change) string {
	switch {
	case c.Test == "exact":
		return "exact"
	case c.Paired:
		return "paired"
	}
	return "medians"
}

// renderCSV writes one row per benchmark, metric and side, with every
// number; for the baseline the comparison columns are empty.
func renderCSV(w io.Writer, rep *analysis.Report, _ Options) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, b := range rep.Benchmarks {
		for j, m := range b.Metrics {
			base := m.Sides[0]
			for i, s := range m.Sides {
				row := []string{csvSafe(b.Pkg), csvSafe(b.FullName), csvSafe(m.Unit), better(m.Better), csvSafe(base.Side), csvSafe(s.Side),
					csvNum(base.Center), csvNum(base.Lo), csvNum(base.Hi), strconv.Itoa(base.N),
					csvNum(s.Center), csvNum(s.Lo), csvNum(s.Hi), strconv.Itoa(s.N),
					csvNum(s.Mean), csvNum(s.StdDev), csvNum(s.MAD), csvNum(s.CV), csvNum(s.Min), csvNum(s.Max)}
				var c *analysis.Change
				if i > 0 {
					c = m.Changes[i-1]
				}
				if c == nil {
					row = append(row, "", "", "", "", "", "", "", "", "", "")
				} else {
					row = append(row, csvNum(c.Estimate), csvNum(c.Lo), csvNum(c.Hi), csvNum(c.P), csvNum(c.PAdjusted),
						c.Test, csvNum(c.Effect), string(c.Verdict), csvSafe(c.Reason), changeOf(c))
				}
				// Whether this row's metric decides the benchmark's verdict
				// against its side, and that verdict; on the baseline's rows,
				// whether it decides by default.
				decides, verdict := b.Decider(j), ""
				if i > 0 && i-1 < len(b.Decisions) {
					d := b.Decisions[i-1]
					decides, verdict = d.Metric == j, string(d.Verdict)
				}
				row = append(row, strconv.FormatBool(decides), verdict, csvSafe(m.Context))
				if err := cw.Write(row); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvNum(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
