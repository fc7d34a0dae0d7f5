package execbench

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/stats"
)

// A Summary is the table hyperfine's --export-csv, --export-markdown,
// --export-asciidoc and --export-orgmode write, with rigor's numbers
// beside hyperfine's: one row per command and parameter combination, in
// hyperfine's order.
type Summary struct {
	Rows []Row
	// Confidence is the level of every interval in the rows.
	Confidence float64
}

// A Row is one command in one parameter combination. Times are in
// seconds over the recorded runs (the shell's start-up subtracted).
type Row struct {
	// Command is the name as --export-json has it; Title adds the
	// parameters the command line does not show, " (x = 1)", as
	// hyperfine's tables do.
	Command, Title string
	Parameters     map[string]string
	// hyperfine's columns: the mean wall time and its sample standard
	// deviation (nil after a single run), median, minimum and maximum,
	// and the mean CPU time as User (System is 0: rigor records user
	// plus system).
	Mean                           float64
	StdDev                         *float64
	Median, Min, Max, User, System float64
	// MedianLo and MedianHi are the median's confidence interval
	// (order statistics, as benchstat's); NaN with too few runs.
	MedianLo, MedianHi float64
	// Relative is the wall time relative to the reference, with its
	// confidence interval RelativeLo, RelativeHi:
	//   - when the run compares commands, this command against the
	//     reference command in the same parameter combination: one plus
	//     the paired change (the Hodges-Lehmann center of the per-round
	//     ratios and the interval that inverts Wilcoxon's signed-rank
	//     test); exactly 1, without an interval, for the reference;
	//   - with one command, its median over the smallest median of the
	//     table, as hyperfine relates every row to the fastest, without
	//     an interval (rigor does not compare parameter values).
	// NaN when there is nothing to relate to.
	Relative, RelativeLo, RelativeHi float64
	// Reference marks the reference command's rows when commands are
	// compared.
	Reference bool
	// Verdict is the comparison's verdict against the reference (""
	// without one), taken on Clock: WallUnit, or CPUUnit when the machine
	// was busy and the command CPU-bound (Relative stays on wall time).
	Verdict analysis.Verdict
	Clock   string
}

// Summary returns the run's table, its intervals and verdicts read from
// rep, the run's analysis.
func (r *Result) Summary(rep *analysis.Report) *Summary {
	s := r.sess
	sum := &Summary{Confidence: rep.Options.Confidence}
	nan := math.NaN()
	for _, c := range s.cells() {
		row := Row{
			Command:    c.res.Command,
			Title:      c.res.Command + s.unusedParams(c.u, c.si),
			Parameters: c.res.Parameters,
			Mean:       c.res.Mean, StdDev: c.res.StdDev,
			Median: c.res.Median, Min: c.res.Min, Max: c.res.Max,
			User: c.res.User, System: c.res.System,
			MedianLo: nan, MedianHi: nan,
			Relative: nan, RelativeLo: nan, RelativeHi: nan,
		}
		b := reportBenchmark(rep, c.u)
		side := slices.Index(rep.Sides, s.labels[c.si])
		if b != nil && side >= 0 {
			wall := metric(b, WallUnit)
			if wall != nil && side < len(wall.Sides) {
				row.MedianLo, row.MedianHi = wall.Sides[side].Lo, wall.Sides[side].Hi
			}
			if len(rep.Sides) > 1 {
				row.Reference = side == 0
				row.Clock = WallUnit
				if b.Clock != nil && b.Clock.Unit != "" {
					row.Clock = b.Clock.Unit
				}
				switch {
				case side == 0:
					row.Relative = 1
				case wall != nil && side-1 < len(wall.Changes) && wall.Changes[side-1] != nil:
					ch := wall.Changes[side-1]
					row.Relative, row.RelativeLo, row.RelativeHi = 1+ch.Estimate, 1+ch.Lo, 1+ch.Hi
				}
				if m := metric(b, row.Clock); side > 0 && m != nil && side-1 < len(m.Changes) && m.Changes[side-1] != nil {
					row.Verdict = m.Changes[side-1].Verdict
				}
			}
		}
		sum.Rows = append(sum.Rows, row)
	}
	if len(rep.Sides) == 1 {
		var medians []float64
		for _, row := range sum.Rows {
			medians = append(medians, row.Median)
		}
		if fastest := stats.Min(medians); fastest > 0 {
			for i := range sum.Rows {
				sum.Rows[i].Relative = sum.Rows[i].Median / fastest
			}
		}
	}
	return sum
}

// reportBenchmark returns u's benchmark in rep, which analyses the run's
// benchmarks in order.
func reportBenchmark(rep *analysis.Report, u *unit) *analysis.Benchmark {
	if u.index < len(rep.Benchmarks) && rep.Benchmarks[u.index].FullName == u.key {
		return &rep.Benchmarks[u.index]
	}
	return nil
}

func metric(b *analysis.Benchmark, unit string) *analysis.Metric {
	for i := range b.Metrics {
		if b.Metrics[i].Unit == unit {
			return &b.Metrics[i]
		}
	}
	return nil
}

// Orders of the summary's rows (hyperfine's --sort).
const (
	SortAuto       = "auto"        // as SortCommand: hyperfine's auto orders its tables by command
	SortCommand    = "command"     // the order the commands and parameters were given
	SortMeanTime   = "mean-time"   // hyperfine's name; rigor sorts by the median
	SortMedianTime = "median-time" // fastest median first
)

// SortOrders lists the --sort values.
func SortOrders() []string { return []string{SortAuto, SortCommand, SortMeanTime, SortMedianTime} }

// Sorted returns the rows in the order by names: SortAuto and SortCommand
// as given, SortMeanTime and SortMedianTime by median wall time, fastest
// first (ties as given).
func (s *Summary) Sorted(by string) ([]Row, error) {
	rows := slices.Clone(s.Rows)
	switch by {
	case "", SortAuto, SortCommand:
	case SortMeanTime, SortMedianTime:
		slices.SortStableFunc(rows, func(a, b Row) int { return cmp.Compare(a.Median, b.Median) })
	default:
		return nil, fmt.Errorf("unknown sort order %q (want %s)", by, strings.Join(SortOrders(), ", "))
	}
	return rows, nil
}

// A TimeUnit is the unit of the times in a markup table (hyperfine's
// --time-unit).
type TimeUnit struct {
	Name, Short string
	Scale       float64 // units per second
	Decimals    int
}

// TimeUnits are hyperfine's units, with their precision in its tables,
// and the nanosecond, which hyperfine does not have.
var TimeUnits = []TimeUnit{
	{"second", "s", 1, 3},
	{"millisecond", "ms", 1e3, 1},
	{"microsecond", "µs", 1e6, 1},
	{"nanosecond", "ns", 1e9, 0},
}

// ParseTimeUnit returns the unit named name ("second", "millisecond",
// "microsecond" or "nanosecond").
func ParseTimeUnit(name string) (TimeUnit, error) {
	for _, u := range TimeUnits {
		if u.Name == name {
			return u, nil
		}
	}
	var names []string
	for _, u := range TimeUnits {
		names = append(names, u.Name)
	}
	return TimeUnit{}, fmt.Errorf("unknown time unit %q (want %s)", name, strings.Join(names, ", "))
}

// autoUnit is hyperfine's choice of unit for a table: from the first
// row's mean, microseconds below a millisecond, milliseconds below a
// second, else seconds.
func autoUnit(rows []Row) TimeUnit {
	switch {
	case len(rows) == 0:
		return TimeUnits[0]
	case rows[0].Mean < 0.001:
		return TimeUnits[2]
	case rows[0].Mean < 1:
		return TimeUnits[1]
	}
	return TimeUnits[0]
}
