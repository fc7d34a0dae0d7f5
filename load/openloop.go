package load

import (
	"fmt"

	"github.com/rigorbench/rigor/model"
)

// In the open loop the knee is where the target stops keeping up with
// the offered rate: a step whose successful throughput is below
// minAchieved (95%) of its rate left requests queueing, and every higher
// rate only lengthens the queue. Such a step is past the knee whatever
// its latency; the headline is the highest throughput among the steps the
// target kept up with (and that met the SLO, when one is given), as the
// closed loop's is among the steps before its knee.

// keptUp reports whether an open-loop step's target completed at least
// minAchieved of the offered rate successfully; a closed-loop step always
// keeps up with itself.
func keptUp(s model.RampStep) bool {
	return s.Rate <= 0 || s.Throughput >= minAchieved*s.Rate
}

// behind stops an open-loop ramp after two consecutive steps the target
// did not keep up with (with cfg.Knee set, as the closed loop's knee
// rule); it returns why, or "".
func (s *stopper) behind(cfg *Config, st *model.RampStep) string {
	if st.Rate <= 0 || cfg.Knee <= 0 {
		return ""
	}
	if keptUp(*st) {
		s.lagging = 0
		return ""
	}
	if s.lagging++; s.lagging < 2 {
		return ""
	}
	return fmt.Sprintf("past the knee: two consecutive steps completed less than %.0f%% of the offered rate (step %d: %.0f/s of %g/s); higher rates only lengthen the queue",
		100*minAchieved, st.Index+1, st.Throughput, st.Rate)
}

// noteBehind notes each open-loop step the target did not keep up with.
func noteBehind(r *model.Ramp) {
	for i := range r.Steps {
		s := &r.Steps[i]
		if s.Rate > 0 && s.Successes > 0 && !keptUp(*s) {
			s.Notes = append(s.Notes, fmt.Sprintf("past the knee: the target completed %.0f/s of the %g/s offered (%.0f%%, below %.0f%%), so requests queued and latency grew with the window",
				s.Throughput, s.Rate, 100*s.Throughput/s.Rate, 100*minAchieved))
		}
	}
}

// openHeadline is the open loop's headline: the highest throughput of the
// valid steps the target kept up with that met the SLO, or, without an
// SLO, the highest the target kept up with.
func openHeadline(r *model.Ramp, slo *model.RampSLO) *model.RampHeadline {
	h := &model.RampHeadline{Step: -1, Basis: "none"}
	pick, valid, behind := -1, 0, 0
	for i, s := range r.Steps {
		if !s.Valid || s.Successes == 0 {
			continue
		}
		valid++
		h.PeakThroughput = max(h.PeakThroughput, s.Throughput)
		switch {
		case !keptUp(s):
			behind++
		case slo != nil && !s.SLOMet:
		case pick < 0 || s.Throughput > r.Steps[pick].Throughput:
			pick = i
		}
	}
	keep := fmt.Sprintf("completed at least %.0f%% of the offered rate", 100*minAchieved)
	switch {
	case valid == 0:
		h.Reason = "no valid step: every step measured the generator, or nothing succeeded"
		return h
	case pick < 0 && behind == valid:
		h.Reason = fmt.Sprintf("the target kept up with no offered rate (no valid step %s): the knee is below the lowest rate", keep)
		return h
	case pick < 0:
		h.Reason = "no step the target kept up with met the SLO (" + describeSLO(slo) + ")"
		return h
	case slo != nil:
		h.Basis = "slo"
		h.Reason = "the highest throughput whose step met the SLO (" + describeSLO(slo) + ") and " + keep
	default:
		h.Basis = "knee"
		h.Reason = fmt.Sprintf("no SLO given: the highest offered rate the target kept up with (it %s; beyond it requests queue; give --slo to quote the point whose latency is acceptable)", keep)
	}
	quoteStep(h, r, pick, slo)
	return h
}
