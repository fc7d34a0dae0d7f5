package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
	"golang.org/x/perf/benchunit"

	"github.com/rigorbench/rigor/analysis"
)

// spread formats a summary's "± 7%".
func spread(s analysis.Summary) string {
	sp := s.Spread()
	switch {
	case math.IsInf(sp, 1):
		return "∞"
	case math.IsNaN(sp) || sp < 0:
		// A negative spread comes from a negative center: a relative
		// width means nothing there ("± -5%").
		return "?"
	}
	return fmt.Sprintf("%.0f%%", sp*100)
}

// center formats "8107.5n ± 7%" with the table's common scale, or "-"
// when the side has no samples.
func center(s analysis.Summary, sc benchunit.Scaler) string {
	if s.N == 0 {
		return "-"
	}
	return scaled(s.Center, sc) + " ± " + spread(s)
}

func scaled(v float64, sc benchunit.Scaler) string {
	if math.IsNaN(v) {
		return "?"
	}
	if x := v / sc.Factor; math.Abs(x) >= hugeScaled {
		// Far beyond the table's common scale: in exponent form, not
		// hundreds of digits.
		return strconv.FormatFloat(x, 'g', 4, 64) + sc.Prefix
	}
	return sc.Format(v)
}

// hugeScaled is the magnitude from which numbers print in exponent form.
const hugeScaled = 1e15

// scaler returns the scale benchstat would use for every center of unit
// in pkg: one prefix for the whole table, with at least three significant
// digits for each value.
func scaler(rep *analysis.Report, pkg, unit string) benchunit.Scaler {
	var vals []float64
	for _, b := range rep.Benchmarks {
		if b.Pkg != pkg {
			continue
		}
		for _, m := range b.Metrics {
			if m.Unit != unit {
				continue
			}
			for _, s := range m.Sides {
				if s.N > 0 && !math.IsNaN(s.Center) {
					vals = append(vals, s.Center)
				}
			}
		}
	}
	return benchunit.CommonScale(vals, benchunit.ClassOf(unit))
}

// percent formats a relative change: -0.9013 -> "-90.13%".
func percent(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "?"
	}
	if math.Abs(f*100) >= hugeScaled {
		return fmt.Sprintf("%+.4g%%", f*100)
	}
	return fmt.Sprintf("%+.2f%%", f*100)
}

// estimate formats a change's estimate with rel ("-90.13%"), or, when
// the relative change is undefined because the baseline is zero, the
// absolute change with its unit: "+1 allocs/op".
func estimate(c *analysis.Change, unit string, rel func(float64) string) string {
	if math.IsNaN(c.Estimate) && !math.IsNaN(c.Delta) && !math.IsInf(c.Delta, 0) {
		f := "%+.4g"
		if c.Delta == math.Trunc(c.Delta) && math.Abs(c.Delta) < 1e15 {
			f = "%+.0f"
		}
		return strings.TrimSpace(fmt.Sprintf(f, c.Delta) + " " + unit)
	}
	return rel(c.Estimate)
}

// changeCI formats "[-91.20%, -89.02%]".
func changeCI(c *analysis.Change) string {
	if c.Test == "exact" || c.Lo == c.Hi && c.Lo == c.Estimate {
		return "(exact)"
	}
	return "[" + percent(c.Lo) + ", " + percent(c.Hi) + "]"
}

// pValue formats a p-value as benchstat does ("p=0.000") and marks a
// corrected one.
func pValue(c *analysis.Change) string {
	if math.IsNaN(c.PAdjusted) {
		return "p=?"
	}
	return fmt.Sprintf("p=%.3f", c.PAdjusted)
}

// better names a unit's direction for machine formats.
func better(b int) string {
	if b > 0 {
		return "higher"
	}
	return "lower"
}

// width is the display width of s in a terminal.
func width(s string) int { return runewidth.StringWidth(s) }

// pad pads s with spaces to w display columns, left- or right-aligned.
func pad(s string, w int, right bool) string {
	n := w - width(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

// truncate shortens s to at most w display columns, keeping its start
// and end (where sub-benchmark parameters usually are).
func truncate(s string, w int) string {
	if width(s) <= w || w < 5 {
		return s
	}
	keep := w - 1
	head := runewidth.Truncate(s, keep-keep/2, "")
	rs := []rune(s)
	tail := ""
	for i := len(rs) - 1; i >= 0 && width(tail)+runewidth.RuneWidth(rs[i]) <= keep/2; i-- {
		tail = string(rs[i]) + tail
	}
	return head + "…" + tail
}

// pct formats a level: 0.95 -> "95%".
func pct(f float64) string { return fmt.Sprintf("%g%%", f*100) }
