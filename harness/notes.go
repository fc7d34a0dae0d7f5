package harness

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
	"github.com/rigorbench/rigor/stats"
)

// source is the Source of this package's notes.
const source = "harness"

// Thresholds of the harness's footnotes.
const (
	overheadRatio   = 5   // results within 5x of the subtracted overhead
	tinyEffect      = 0.2 // Cohen's d_z below this is tiny
	bimodalMinN     = 20
	bimodalMinShare = 0.15 // each mode holds at least 15% of the samples
)

// notes returns the harness's footnotes for a measured set, about the
// benchmark key.
func (s *setResult) notes(r *runner, key string) []model.Note {
	var notes []model.Note
	res := r.clock.Resolution.Seconds()
	label := func(i int) string {
		if len(s.set.cells) == 1 {
			return ""
		}
		return s.set.cells[i].variant + ": "
	}
	note := func(kind model.NoteKind, topic string, i int, ev map[string]float64, text string) {
		side := ""
		if i >= 0 {
			side = s.set.cells[i].variant
		}
		notes = append(notes, model.Note{Kind: kind, Topic: topic, Source: source, Benchmark: key, Side: side, Evidence: ev, Text: text})
	}
	for i, c := range s.set.cells {
		xs := s.samples[i]
		if len(xs) == 0 {
			continue
		}
		perOp := make([]float64, len(xs))
		clamped, custom := 0, false
		var raw, wall, gcCPU float64
		windows := 0
		ovs := make([]float64, len(xs))
		for k, x := range xs {
			ovs[k] = x.ovPerOp
			perOp[k] = x.net / float64(x.Iters)
			if x.clamped {
				clamped++
			}
			custom = custom || x.Custom
			raw += x.Timed
			wall += x.Wall * float64(x.Goroutines)
			gcCPU += x.GCCPU
			windows += x.Windows
		}
		med := stats.Median(perOp)
		if ov := stats.Median(ovs); ov > 0 && !r.cfg.KeepLoopOverhead && !custom && med < overheadRatio*ov {
			note(model.NoteStatistics, "overhead", i, map[string]float64{"overhead_sec_per_op": ov}, fmt.Sprintf("%swithin %dx of the loop overhead subtracted (%s/op): on an out-of-order CPU the costs do not add exactly, so read small differences with care",
				label(i), overheadRatio, fmtSeconds(ov)))
		}
		if clamped > 0 {
			note(model.NoteStatistics, "clamped", i, map[string]float64{"clamped": float64(clamped)}, fmt.Sprintf("%s%d of %d samples measured at or below the loop overhead and count as 0: the work may have been optimized away, or costs less than a call",
				label(i), clamped, len(xs)))
		}
		if w := raw / float64(windows); windows > len(xs) && w < analysis.ResolutionRatio*res {
			note(model.NoteStatistics, "resolution", i, nil, fmt.Sprintf("%stimed batches average %s, under %dx the timer resolution (%s): reading the clock weighs on every batch; use larger batches",
				label(i), fmtSeconds(w), analysis.ResolutionRatio, fmtSeconds(res)))
		}
		if wall > 0 && gcCPU/wall >= observe.GCShare {
			note(model.NoteBottleneck, "gc", i, map[string]float64{"gc_cpu_share": gcCPU / wall}, fmt.Sprintf("%sgarbage collection used about %.0f%% of the CPU time the variant ran for: its times include GC work",
				label(i), 100*gcCPU/wall))
		}
		if c.goroutines > 0 {
			note(model.NoteProcess, "parallel", i, nil, fmt.Sprintf("%s%d goroutines per sample, started together: sec/op is the time per operation on one goroutine; throughput counts all %d",
				label(i), c.goroutines, c.goroutines))
		}
		if bimodal(perOp) {
			note(model.NoteStatistics, "bimodal", i, nil, fmt.Sprintf("%sthe times are bimodal (two clusters): the code or the machine switches between two states; the median hides one of them", label(i)))
		}
		if i > 0 {
			if d, ok := tinyRealEffect(s.samples[0], xs, s.set.cells[0].variant, c.variant, r.cfg.Confidence); ok {
				note(model.NoteStatistics, "tiny-effect", i, nil, d)
			}
		}
	}
	if s.stop == stopInterrupted {
		note(model.NoteInterrupted, "", -1, nil, fmt.Sprintf("interrupted after %d complete rounds: the results rest on them alone", s.rounds))
	}
	if s.needBudget > 0 {
		note(model.NoteBudget, "plan", -1, map[string]float64{"budget_sec": r.cfg.Budget.Seconds(), "needed_sec": s.needBudget.Seconds()}, r.shortBudgetText(s.needBudget))
	}
	if s.stop == stopBudget || s.stop == stopMaxRounds {
		if s.unresolved {
			what := fmt.Sprintf("the %v budget", r.cfg.Budget)
			if s.stop == stopMaxRounds {
				what = fmt.Sprintf("the limit of %d rounds", r.cfg.MaxRounds)
			}
			note(model.NoteRounds, "", -1, nil, fmt.Sprintf("stopped at %s after %d rounds with a comparison or a precision target still unresolved: a larger budget may resolve it", what, s.rounds))
		}
	}
	return notes
}

// logRatios returns the per-round log ratios of xs's times to base's,
// over the rounds where both are positive.
func logRatios(base, xs []result) []float64 {
	var logs []float64
	for k := range min(len(base), len(xs)) {
		if x, y := xs[k].net, base[k].net; x > 0 && y > 0 {
			logs = append(logs, math.Log(x/y))
		}
	}
	return logs
}

// tinyRealEffect reports a difference that is real (the analysis's
// interval, the signed-rank interval around the Hodges-Lehmann center of
// the per-round log ratios, excludes zero) but whose standardized effect,
// that center over the ratios' robust spread (1.4826 MAD), is under 0.2,
// the customary threshold of a small effect (Cohen's d).
func tinyRealEffect(base, xs []result, baseName, name string, conf float64) (string, bool) {
	logs := logRatios(base, xs)
	if len(logs) < 10 {
		return "", false
	}
	ci, err := stats.PairedShift(logs, conf)
	if err != nil || (ci.Lo <= 0 && ci.Hi >= 0) {
		return "", false
	}
	spread := stats.MAD(logs)
	if !(spread > 0) {
		return "", false
	}
	d := math.Abs(ci.Estimate) / spread
	if d >= tinyEffect {
		return "", false
	}
	return fmt.Sprintf("%s vs %s: a real but tiny effect (shift %.2f robust standard deviations, under %.1f): it shows only because of the number of rounds, and is unlikely to matter",
		name, baseName, d, tinyEffect), true
}

// bimodal reports whether x has two or more clear modes: a Gaussian
// kernel density estimate with Silverman's bandwidth (analysis's
// KernelDensity, which over-smooths multimodal data, so errs towards one
// mode) has at least two peaks, each holding at least 15% of the samples,
// separated by a valley under half the lower peak.
func bimodal(x []float64) bool {
	n := len(x)
	if n < bimodalMinN || stats.Min(x) == stats.Max(x) {
		return false
	}
	d := analysis.KernelDensity(x, 512)
	// Split the grid at local minima into modes; keep modes with enough
	// samples and check their valleys.
	type mode struct {
		peak  float64
		lo    float64 // the mode's region starts here
		count int
	}
	var modes []mode
	cur := mode{lo: math.Inf(-1)}
	var valleys []float64
	for j := 1; j < len(d.Y)-1; j++ {
		cur.peak = math.Max(cur.peak, d.Y[j])
		if d.Y[j] < d.Y[j-1] && d.Y[j] <= d.Y[j+1] {
			modes = append(modes, cur)
			valleys = append(valleys, d.Y[j])
			cur = mode{lo: d.X[j]}
		}
	}
	modes = append(modes, cur)
	for k := range modes {
		hiEdge := math.Inf(1)
		if k+1 < len(modes) {
			hiEdge = modes[k+1].lo
		}
		for _, v := range x {
			if v >= modes[k].lo && v < hiEdge {
				modes[k].count++
			}
		}
	}
	// Merge small modes into their neighbours by looking only at the big
	// ones: two big modes with a deep valley between them.
	prev := -1
	for k, md := range modes {
		if float64(md.count) < bimodalMinShare*float64(n) {
			continue
		}
		if prev >= 0 {
			valley := math.Inf(1)
			for j := prev; j < k; j++ {
				valley = math.Min(valley, valleys[j])
			}
			if valley < 0.5*math.Min(modes[prev].peak, md.peak) {
				return true
			}
		}
		prev = k
	}
	return false
}

// fmtSeconds formats seconds with a unit: 1.23ns, 45.6µs, 1.5s.
func fmtSeconds(s float64) string {
	switch a := math.Abs(s); {
	case a == 0:
		return "0s"
	case a < 1e-6:
		return strconv.FormatFloat(s*1e9, 'g', 3, 64) + "ns"
	case a < 1e-3:
		return strconv.FormatFloat(s*1e6, 'g', 3, 64) + "µs"
	case a < 1:
		return strconv.FormatFloat(s*1e3, 'g', 3, 64) + "ms"
	}
	return strconv.FormatFloat(s, 'g', 3, 64) + "s"
}
