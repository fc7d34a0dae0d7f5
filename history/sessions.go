package history

import (
	"math"

	"github.com/rigorbench/rigor/stats"
)

// A Spread is how much the median of one benchmark's metric varies from
// one session to the next when the code does not change, in logs (a
// ratio scale), as SessionSpread estimates it.
type Spread struct {
	// SD is the standard deviation of the log of a session's median
	// across sessions of the same code, pooled over the codes (its square
	// is the sum of squared deviations from each code's mean over DF).
	// It holds the variation between sessions together with each median's
	// own noise from its samples.
	SD float64
	// Within is the mean, over the sessions, of the variance of the log
	// of each median from its own samples (stats.MedianVariance of the
	// samples' logs): the part of SD squared that the samples explain.
	Within float64
	// DF is the degrees of freedom of SD (sessions less codes), Sessions
	// the number of sessions.
	DF, Sessions int
}

// SessionSpread estimates the variation between sessions of the same
// code from groups of results: each group holds the results of one code
// (one commit, its build settings the same), one result a session, each
// result its samples. Groups of one result tell nothing and are left
// out, and so are results without a positive sample (a log needs one).
// ok is false when no group has two results.
//
// In a comparison of two sessions' medians, m_a of the baseline and m_b
// of this run, log(m_b/m_a) then has, were the code the same, a variance
// of about 2 SD^2 (each median varies as SD) and DF degrees of freedom;
// when this run's own samples are noisier than the earlier sessions', the
// excess (their variance less 2 Within) adds to it.
func SessionSpread(groups [][][]float64) (s Spread, ok bool) {
	var ss, within float64
	known := 0
	for _, g := range groups {
		var logs []float64
		var vars []float64
		for _, samples := range g {
			var l []float64
			for _, x := range samples {
				if x > 0 {
					l = append(l, math.Log(x))
				}
			}
			if len(l) == 0 {
				continue
			}
			logs = append(logs, stats.Median(l))
			if v, ok := stats.MedianVariance(l); ok {
				vars = append(vars, v)
			}
		}
		if len(logs) < 2 {
			continue
		}
		m := stats.Mean(logs)
		for _, x := range logs {
			ss += (x - m) * (x - m)
		}
		for _, v := range vars {
			within += v
		}
		known += len(vars)
		s.DF += len(logs) - 1
		s.Sessions += len(logs)
	}
	if s.DF == 0 {
		return Spread{}, false
	}
	s.SD = math.Sqrt(ss / float64(s.DF))
	if known > 0 {
		s.Within = within / float64(known)
	}
	return s, true
}
