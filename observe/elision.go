package observe

import (
	"fmt"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// elisionPrefix starts the note elisionNote writes; ConfirmElision
// replaces that note with its verdict.
const elisionPrefix = "likely optimized away: "

// LikelyElided reports whether some side of b has a sec/op median under a
// nanosecond: a handful of instructions at most, which usually means the
// loop does no work. The variation decides only the wording of Annotate's
// note (steady results are the classic sign; on a noisy machine even an
// empty loop varies), so a driver should check every such benchmark's
// disassembly with ConfirmElision.
func LikelyElided(b *model.Benchmark) bool {
	_, _, ok := elided(b)
	return ok
}

// elided returns the lowest sub-nanosecond median over b's sides and its
// coefficient of variation.
func elided(b *model.Benchmark) (med, cv float64, ok bool) {
	m := b.Metric("sec/op")
	if m == nil {
		return 0, 0, false
	}
	for _, side := range metricSides(m) {
		v := m.Values(side)
		md := stats.Median(v)
		if !(md > 0 && md < model.ElisionSec) { // NaN too: no values
			continue
		}
		if !ok || md < med {
			med, cv, ok = md, 0, true
			if len(v) > 1 {
				cv = stats.CV(v)
			}
		}
	}
	return med, cv, ok
}

func elisionNote(b *model.Benchmark, env *model.Env) string {
	med, cv, ok := elided(b)
	if !ok {
		return ""
	}
	var n string
	if cv <= model.ElisionCV {
		n = fmt.Sprintf("%s%.3g ns/op varying %.1f%% across samples; a loop this fast and this steady usually does no work, so the compiler may have removed what it was meant to measure",
			elisionPrefix, med*1e9, 100*cv)
	} else {
		n = fmt.Sprintf("%s%.3g ns/op (varying %.0f%%, too noisy to call steady); under a nanosecond is a handful of instructions at most, so the compiler may have removed what it was meant to measure",
			elisionPrefix, med*1e9, 100*cv)
	}
	if env != nil && env.Perf != "" && env.Perf != PerfAvailable {
		n += " (instruction counts could settle it but are " + env.Perf + ")"
	}
	return n
}
