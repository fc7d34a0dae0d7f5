package analysis

import (
	"fmt"
	"math"
	"strings"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// source is the Source of this package's notes.
const source = "analysis"

// runNote is a run-level note of this package.
func runNote(kind model.NoteKind, text string) model.Note {
	return model.Note{Kind: kind, Source: source, Text: text}
}

// Thresholds for footnotes. They are deliberately conservative: a footnote
// should point at something a person would want to know.
const (
	highCV          = 0.05 // a time CV above 5% is worth a remark
	driftRho        = 0.6  // |Spearman rho| between round and value
	driftMinSamples = 10
)

// ResolutionRatio is how many timer resolutions a timed interval must last
// for reading the clock to weigh little on it: samples are planned at least
// this long (package harness), and a sample or timed batch shorter is
// noted. A reading is uncertain by about one resolution: on the development
// machine (2-CPU KVM guest, Go 1.26) rigor.MeasureClock gave a resolution
// of 54-85 ns (20 ns ticks, the rest the cost of a reading), and 200,000
// empty timed windows lasted 20-31 ns (1st to 99.9th percentile). At 1000
// resolutions the clock's share of an interval is at most 0.1%, a tenth of
// the default ±1% noise band; at 100 it could fill the band alone.
const ResolutionRatio = 1000

// metricNotes returns the footnotes for one metric of benchmark key, whose
// samples by side are samples, and ciErrs the errors of their medians'
// confidence intervals.
func metricNotes(key string, m *model.Metric, am *Metric, sides []string, samples [][]model.Sample, ciErrs []error, opts Options, elisionJudged bool) []model.Note {
	var notes []model.Note
	note := func(kind model.NoteKind, topic, side string, ev map[string]float64, text string) {
		notes = append(notes, model.Note{Kind: kind, Topic: topic, Source: source, Benchmark: key, Side: side, Unit: m.Unit, Evidence: ev, Text: text})
	}
	if am.Exact {
		if len(sides) > 1 {
			note(model.NoteExact, "", "", nil, "values never vary within a side: compared exactly")
		}
		return notes
	}
	label := func(side string) string {
		if len(sides) == 1 {
			return ""
		}
		return side + ": "
	}
	isTime := m.Unit == "sec/op"
	for i, s := range am.Sides {
		if s.N == 0 {
			continue
		}
		side := sides[i]
		if err := ciErrs[i]; err != nil {
			note(model.NoteStatistics, "too-few", side, map[string]float64{"n": float64(s.N)}, fmt.Sprintf("%stoo few samples (n=%d): %v", label(side), s.N, err))
		}
		if e := s.Estimates; e != nil && e.Slope != nil && e.Headline != HeadlineSlope {
			note(model.NoteStatistics, "slope-fit", side, map[string]float64{"fit_r2": e.FitR2, "min_fit_r2": MinFitR2},
				fmt.Sprintf("%sthe slope of linear sampling is set aside for the median: a line fits the (iterations, time) points poorly (R² %.4f, under %.2f), so the time per iteration depends on more than the iteration count", label(side), e.FitR2, MinFitR2))
		}
		if isTime && s.CV > highCV {
			note(model.NoteStatistics, "variation", side, map[string]float64{"cv": s.CV}, fmt.Sprintf("%shigh variation (CV %s): the machine or the benchmark is noisy", label(side), words.Pct(s.CV)))
		}
		if n := s.Outliers.Total(); n > 0 && s.N >= 4 {
			note(model.NoteStatistics, "outliers", side, map[string]float64{"outliers": float64(n)}, fmt.Sprintf("%s%d %s (%s) kept in the analysis", label(side), n,
				words.Plural(n, "outlier", "outliers"), outlierWords(s.Outliers)))
		}
		if isTime && !elisionJudged && s.Center < model.ElisionSec && s.CV < model.ElisionCV {
			note(model.NoteElision, "", side, map[string]float64{"sec_per_op": s.Center, "cv": s.CV}, fmt.Sprintf("%sunder 1 ns/op with almost no variation: the loop is likely optimized away", label(side)))
		}
		if isTime && opts.TimerResolution > 0 && s.Center*s.Iters < ResolutionRatio*opts.TimerResolution {
			note(model.NoteStatistics, "resolution", side, nil, fmt.Sprintf("%seach sample lasts under %dx the timer resolution: raise the iteration count", label(side), ResolutionRatio))
		}
		if rho, ok := drift(samples[i]); ok {
			note(model.NoteStatistics, "drift", side, map[string]float64{"spearman_rho": rho}, fmt.Sprintf("%svalues drift across rounds (Spearman ρ=%.2f between round and value): the machine changed during the run", label(side), rho))
		}
	}
	return notes
}

// drift reports a monotone trend of the values over rounds.
func drift(samples []model.Sample) (float64, bool) {
	if len(samples) < driftMinSamples {
		return 0, false
	}
	rounds := make([]float64, len(samples))
	values := make([]float64, len(samples))
	for i, s := range samples {
		rounds[i], values[i] = float64(s.Round), s.Value
	}
	rho := stats.Spearman(rounds, values)
	return rho, math.Abs(rho) >= driftRho
}

func outlierWords(o stats.Outliers) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(o.LowSevere, "low severe")
	add(o.LowMild, "low mild")
	add(o.HighMild, "high mild")
	add(o.HighSevere, "high severe")
	return strings.Join(parts, ", ")
}

func chanceNote(n int, opts Options) string {
	expect := float64(n) * opts.Alpha
	s := fmt.Sprintf("%d comparisons: at α=%v about %.2g would look significant by chance alone", n, opts.Alpha, expect)
	switch opts.Correction {
	case CorrectionNone:
		return s + "; p-values are not corrected (--correction none)."
	default:
		return s + "; p-values are " + correctionName(opts.Correction) + "-adjusted."
	}
}

func correctionName(c string) string {
	switch c {
	case CorrectionHolm:
		return "Holm"
	case CorrectionBH:
		return "Benjamini-Hochberg"
	}
	return c
}
