package analysis

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// TestSessions names the comparison of two sessions' medians that counts
// the variation between sessions (see sessionChange).
const TestSessions = "sessions"

// sessionChange compares x, the baseline's samples, with y, measured in
// another session, when run.Sessions says how much medians of the same
// code vary between sessions on this machine (sp; nil when that is not
// known). With d = log(median y / median x), were the code the same d
// would vary as 2 SD^2 (each session's median varies as SD, its samples'
// noise included), plus the excess of this comparison's own sampling
// variance w (stats.MedianVariance of both sides' logs) over that of the
// sessions SD came from (2 Within), when it is larger:
//
//	t = d / sqrt(2 SD^2 + max(0, w - 2 Within))
//
// with DF degrees of freedom, a two-sided p-value and a confidence
// interval for exp(d) - 1. Without sp there is no interval: decide says
// why, and that more samples cannot help (SessionLimited).
func sessionChange(x, y []float64, sp *model.SessionSpread, opts Options) *Change {
	c := &Change{Test: TestSessions, N: min(len(x), len(y)), P: math.NaN(), Effect: math.NaN(),
		Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Delta: math.NaN()}
	mx, my := stats.Median(x), stats.Median(y)
	if !(mx > 0 && my > 0) {
		return c
	}
	d := math.Log(my / mx)
	c.Estimate = math.Expm1(d)
	c.Effect = stats.CohenD(x, y)
	if sp == nil || sp.DF < 1 {
		c.SessionLimited = true
		return c
	}
	w := logMedianVariance(x) + logMedianVariance(y)
	between := 2 * sp.SD * sp.SD
	se := math.Sqrt(between + max(0, w-2*sp.Within))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(sp.DF)}
	h := t.Quantile(1-(1-opts.Confidence)/2) * se
	c.Lo, c.Hi = math.Expm1(d-h), math.Expm1(d+h)
	switch {
	case se == 0 && d == 0:
		c.P = 1
	case se == 0:
		c.P = 0
	default:
		c.P = min(1, 2*t.Survival(math.Abs(d)/se))
	}
	// More samples shrink w only: once it is below the sessions' part,
	// the interval is within a factor sqrt(2) of the narrowest more
	// samples could make it.
	c.SessionLimited = w <= between
	return c
}

// logMedianVariance is the variance of the log of x's median, from its
// samples (0 when it cannot be told).
func logMedianVariance(x []float64) float64 {
	l := make([]float64, 0, len(x))
	for _, v := range x {
		if v > 0 {
			l = append(l, math.Log(v))
		}
	}
	v, _ := stats.MedianVariance(l)
	return v
}

// sessionsReason is decide's reason for a comparison across sessions
// without a known spread.
func sessionsReason(s *model.Sessions) string {
	r := "the baseline was measured in another session, and how much this benchmark varies between sessions here is not known"
	if s != nil && s.Source != "" {
		r += " (" + s.Source + ")"
	}
	if s != nil && s.Remedy != "" {
		r += "; to compare in one session: " + s.Remedy
	}
	return r
}

// sessionsMore ends the reason of an open comparison across sessions:
// more samples of this run would not settle it when the variation
// between sessions dominates.
func sessionsMore(c *Change, s *model.Sessions) string {
	if !c.SessionLimited {
		return ""
	}
	more := "; the variation between sessions dominates its width, which more samples would not narrow much"
	if s != nil && s.Remedy != "" {
		more += ": to compare in one session, " + s.Remedy
	}
	return more
}

// sessionsNote says how a comparison across sessions was made.
func sessionsNote(rep *Report, s *model.Sessions) model.Note {
	known, unknown := 0, 0
	for _, b := range rep.Benchmarks {
		for _, m := range b.Metrics {
			for _, c := range m.Changes {
				switch {
				case c == nil || c.Test != TestSessions:
				case math.IsNaN(c.Lo):
					unknown++
				default:
					known++
				}
			}
		}
	}
	text := "Compared across sessions: the baseline and this run were not measured in the same rounds, so the machine may have changed in between."
	if known > 0 {
		text += fmt.Sprintf(" %d %s the variation between sessions of the same code on this machine", known,
			words.Plural(known, "comparison counts", "comparisons count"))
		if s.Source != "" {
			text += " (" + s.Source + ")"
		}
		text += ": a t-test of the log ratio of the medians."
	}
	if unknown > 0 {
		text += fmt.Sprintf(" %d %s no estimate of it and %s inconclusive.", unknown,
			words.Plural(unknown, "comparison has", "comparisons have"), words.Plural(unknown, "is", "are"))
	}
	if s.Remedy != "" {
		text += " To compare in one session: " + s.Remedy + "."
	}
	return runNote(model.NoteBaseline, text)
}

// AcrossUnknown counts the comparisons of r that could not be decided
// because they are across sessions and how much results vary between
// sessions is not known (ReasonSessions), among the metrics that decide
// a benchmark's verdict. A baseline should not be replaced on the
// strength of such a comparison.
func (r *Report) AcrossUnknown() int {
	n := 0
	for _, b := range r.Benchmarks {
		for _, m := range b.Metrics {
			if !m.Decides() {
				continue
			}
			for _, c := range m.Changes {
				if c != nil && c.ReasonKind == ReasonSessions {
					n++
				}
			}
		}
	}
	return n
}
