package analysis

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// correct applies the multiple-comparison correction across every
// non-exact comparison with a p-value, counting a derived metric with its
// primary: one test.
func (r *Report) correct() {
	var ps []float64
	var cs []*Change
	for i := range r.Benchmarks {
		for j := range r.Benchmarks[i].Metrics {
			m := &r.Benchmarks[i].Metrics[j]
			for _, c := range m.Changes {
				if c == nil {
					continue
				}
				c.PAdjusted = c.P
				if m.Decides() && m.DerivedFrom == "" && c.Test != "exact" && !math.IsNaN(c.P) {
					ps = append(ps, c.P)
					cs = append(cs, c)
				}
			}
		}
	}
	r.Comparisons = len(ps)
	var adj []float64
	switch r.Options.Correction {
	case CorrectionHolm:
		adj = stats.Holm(ps)
	case CorrectionBH:
		adj = stats.BenjaminiHochberg(ps)
	default:
		adj = ps
	}
	for i, c := range cs {
		c.PAdjusted = adj[i]
	}
}

// decide sets c's verdict and reason.
func decide(c *Change, m *Metric, opts Options) {
	worse := func(change float64) bool { return change*float64(-m.Better) > 0 }
	direction := func(change float64) Verdict {
		if worse(change) {
			return Regressed
		}
		return Improved
	}
	ci := fmt.Sprintf("the %s CI [%s, %s]", words.Pct(opts.Confidence), signedPct(c.Lo), signedPct(c.Hi))
	band := "±" + words.Pct(opts.Noise)
	base, other := m.Sides[0], m.side(c.Side)
	switch {
	case isTime(m.Unit) && (base.Center == 0 || other.Center == 0):
		zero := base
		if base.Center != 0 {
			zero = other
		}
		c.Verdict, c.ReasonKind = Inconclusive, ReasonZeroTime
		c.Reason = fmt.Sprintf("the median time on %s is 0 %s, which is not a measurement: the clock did not see the operation, or the loop was optimized away", zero.Side, m.Unit)
		return
	case c.Test == TestInstructions:
		decideInstructions(c, m, opts)
		return
	case c.Test == "exact":
		switch {
		case c.Estimate == 0:
			c.Verdict, c.ReasonKind, c.Reason = Unchanged, ReasonExactIdentical, "identical values on both sides"
		case base.Center == 0:
			c.Verdict, c.ReasonKind = direction(c.Delta), ReasonExactDiffer
			c.Reason = fmt.Sprintf("values are exact: %s on %s, %s on %s, %s (a relative change from zero is undefined)",
				quantity(base.Center, m.Unit), base.Side, quantity(other.Center, m.Unit), other.Side, signedQuantity(c.Delta, m.Unit))
		default:
			c.Verdict, c.ReasonKind, c.Reason = direction(c.Estimate), ReasonExactDiffer, "values are exact and differ"
		}
		return
	case base.Center == 0:
		pText := fmt.Sprintf("p=%s", formatP(c.PAdjusted))
		if c.PAdjusted != c.P && opts.Correction != CorrectionNone {
			pText += " after " + correctionName(opts.Correction)
		}
		medians := fmt.Sprintf("the median on %s is 0 %s, so a relative change is undefined", base.Side, m.Unit)
		if base.Lo == 0 && base.Hi == 0 && other.Lo == 0 && other.Hi == 0 {
			// Both medians are 0 with confidence (most samples allocate
			// nothing, a few amortise a growth): no change of the median,
			// as a relative interval inside the noise band would say.
			c.Verdict, c.ReasonKind = Unchanged, ReasonZeroMedians
			c.Reason = fmt.Sprintf("the medians are 0 %s on both sides, with %s confidence intervals [0, 0]", m.Unit, words.Pct(opts.Confidence))
			return
		}
		if c.PAdjusted < opts.Alpha && c.Delta != 0 {
			c.Verdict, c.ReasonKind = direction(c.Delta), ReasonFromZero
			c.Reason = fmt.Sprintf("%s; the median on %s is %s (%s) and %s < %v", medians, other.Side,
				quantity(other.Center, m.Unit), signedQuantity(c.Delta, m.Unit), pText, opts.Alpha)
			return
		}
		c.Verdict, c.ReasonKind = Inconclusive, ReasonFromZero
		c.Reason = fmt.Sprintf("%s, and %s (medians 0 and %s) is not below %v", medians, pText, quantity(other.Center, m.Unit), opts.Alpha)
		return
	case c.Test == TestSessions && c.SessionLimited && (math.IsNaN(c.Lo) || math.IsNaN(c.Hi)):
		c.Verdict, c.ReasonKind, c.Reason = Inconclusive, ReasonSessions, sessionsReason(m.sessions)
		return
	case math.IsNaN(c.Lo) || math.IsNaN(c.Hi):
		c.Verdict, c.ReasonKind, c.Reason = Inconclusive, ReasonTooFew, "too few samples for a confidence interval on the change"
		return
	case c.Lo >= -opts.Noise && c.Hi <= opts.Noise:
		c.Verdict, c.ReasonKind, c.Reason = Unchanged, ReasonInsideBand, ci+" lies inside the "+band+" noise band"
		return
	}
	clears := c.Lo > opts.Noise || c.Hi < -opts.Noise
	significant := c.PAdjusted < opts.Alpha
	pText := fmt.Sprintf("p=%s", formatP(c.PAdjusted))
	if c.PAdjusted != c.P && opts.Correction != CorrectionNone {
		pText += " after " + correctionName(opts.Correction)
	}
	switch {
	case clears && significant && aboveFloor(c, m, opts):
		c.Verdict, c.ReasonKind = direction(c.Estimate), ReasonClears
		c.Reason = fmt.Sprintf("%s clears the %s noise band and %s < %v", ci, band, pText, opts.Alpha)
	case clears && significant:
		c.Verdict, c.ReasonKind, c.BelowResolution = Inconclusive, ReasonBelowResolution, true
		c.Reason = "the difference is below the timer's resolution"
	case clears:
		c.Verdict, c.ReasonKind = Inconclusive, ReasonNotSignificant
		c.Reason = fmt.Sprintf("%s clears the %s noise band, but %s is not below %v", ci, band, pText, opts.Alpha)
	case (c.Lo > 0 || c.Hi < 0) && !significant:
		// The interval excludes no change, but the test, corrected for
		// the comparisons made, does not: not "a real change" (issue
		// 39: "a real change, but the 95% CI [-14.04%, -0.10%] overlaps
		// the ±1% noise band" where the Holm p was 0.26).
		c.Verdict, c.ReasonKind = Inconclusive, ReasonUnsure
		more := moreRounds(c, opts)
		if c.Test == TestSessions {
			more = sessionsMore(c, m.sessions)
		}
		c.Reason = fmt.Sprintf("%s overlaps the %s noise band, and %s is not below %v: neither a change beyond the band nor a significant one%s", ci, band, pText, opts.Alpha, more)
	case c.Lo > 0 || c.Hi < 0:
		c.Verdict, c.ReasonKind = Inconclusive, ReasonSmall
		more := moreRounds(c, opts)
		if c.Test == TestSessions {
			more = sessionsMore(c, m.sessions)
		}
		c.Reason = fmt.Sprintf("a real change, but %s overlaps the %s noise band: it may be too small to matter%s", ci, band, more)
	default:
		c.Verdict, c.ReasonKind = Inconclusive, ReasonOpen
		var more string
		switch {
		case c.Paired:
			more = moreRounds(c, opts)
		case c.Test == TestSessions:
			more = sessionsMore(c, m.sessions)
		default:
			more = moreSamples(c, m, opts)
		}
		c.Reason = fmt.Sprintf("%s includes no change and reaches beyond the %s noise band%s", ci, band, more)
	}
}

// aboveFloor reports whether a time difference is above the timer
// resolution: the per-sample total of the difference must exceed it.
func aboveFloor(c *Change, m *Metric, opts Options) bool {
	if opts.TimerResolution <= 0 || m.Unit != "sec/op" {
		return true
	}
	base := m.Sides[0]
	diff := math.Abs(c.Estimate * base.Center)
	return diff*base.Iters >= opts.TimerResolution
}

// settlePower is the chance moreRounds plans for: the rounds it names
// settle the comparison in about four runs of five.
const settlePower = 0.8

// settleMost is the most rounds, in times this run's, moreRounds would
// name.
const settleMost = 100

// moreRounds says, for a paired change the noise band leaves unsettled,
// about how many rounds would settle it at the variation this run saw:
// clear the band when the estimate lies beyond it, or fit inside it when
// the estimate lies within. The interval's half-width w shrinks as
// 1/sqrt(rounds); settling with probability settlePower needs a half-width
// w' with |estimate - band edge| = w' (1 + z_power/z_confidence), so
// n' = n (w/w')^2. It reads the run's own interval, not a per-side
// coefficient of variation: pairing cancels what the sides share (a
// machine that slowed both), and the per-side spread would ask for
// thousands of samples where tens of rounds suffice. It sets
// c.SettleRounds or c.SettleBeyond, and returns the words that end
// c.Reason.
func moreRounds(c *Change, opts Options) string {
	if c.Layouts > 0 {
		return moreLayouts(c, opts)
	}
	if c.Machines > 0 {
		return moreMachines(c, opts)
	}
	n := c.N
	w, target, ok := settleTarget(c, opts)
	if n < 2 || !ok {
		return ""
	}
	if target*math.Sqrt(settleMost) < w {
		// More than settleMost times the rounds for an even chance of
		// four in five: said with the number, which is true however
		// large, and not as "would not settle", which 100 times the
		// rounds often would (a +0.31% [-5.44%, +5.31%] of 22 rounds
		// needs 2,760; at 2,200 it settles two times in three).
		c.SettleBeyond = settleMost * n
		need := float64(n) * (w / target) * (w / target)
		return fmt.Sprintf("; its estimate sits near the band's edge: settling it would take more than %d times this run's %d rounds (about %s for a four-in-five chance at this run's variation)",
			settleMost, n, roundCount(need))
	}
	need := int(math.Ceil(float64(n) * (w / target) * (w / target)))
	if need <= n {
		return "" // the interval is as narrow as settling needs: chance, not rounds, left it open
	}
	c.SettleRounds = need
	return fmt.Sprintf("; at this run's variation about %d rounds (%.1f times this run's %d) would likely settle it", need, float64(need)/float64(n), n)
}

// settleTarget returns the half-width w of c's interval and the
// half-width target an interval needs to settle c with probability
// settlePower (see moreRounds); false when c cannot be settled so.
func settleTarget(c *Change, opts Options) (w, target float64, ok bool) {
	w = (c.Hi - c.Lo) / 2
	gap := math.Abs(math.Abs(c.Estimate) - opts.Noise)
	if !(w > 0) || math.IsNaN(gap) || opts.Noise <= 0 {
		return 0, 0, false
	}
	zc := distuv.UnitNormal.Quantile(1 - (1-opts.Confidence)/2)
	zp := distuv.UnitNormal.Quantile(settlePower)
	return w, gap / (1 + zp/zc), true
}

// roundCount says a large count of rounds: "2,760", "4.3 million".
func roundCount(n float64) string {
	switch {
	case n >= 1e9:
		return "billions"
	case n >= 1e6:
		return strconv.FormatFloat(n/1e6, 'f', 1, 64) + " million"
	}
	s := strconv.Itoa(int(math.Ceil(n)))
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// moreClusters is how many clusters (pairs of links, machines) a change
// across k of them, whose interval narrows as 1/sqrt(k), would likely
// need to settle; false when k < 2, when it is already enough, or when it
// would take more than settleMost times k.
func moreClusters(c *Change, k int, opts Options) (int, bool) {
	w, target, ok := settleTarget(c, opts)
	if k < 2 || !ok {
		return 0, false
	}
	need := int(math.Ceil(float64(k) * (w / target) * (w / target)))
	return need, need > k && need <= settleMost*k
}

// moreLayouts is moreRounds for a change across several links per side
// (TestLayouts): its interval narrows as 1/sqrt(pairs of links), and
// rounds alone cannot narrow it below the spread between links. It sets
// c.SettleLayouts, and returns the words that end c.Reason.
func moreLayouts(c *Change, opts Options) string {
	k := c.Layouts
	need, ok := moreClusters(c, k, opts)
	if !ok {
		return ""
	}
	c.SettleLayouts = need
	return fmt.Sprintf("; it spans %d pairs of links, and at this run's spread between them about %d (--layouts %d) would likely settle it: more rounds alone cannot, the links' layouts varying as much", k, need, need)
}

// moreSamples says, for an unpaired change the noise band leaves open,
// about how many samples per side would resolve a change the size of the
// band at the larger CV of the sides. It sets c.SettleSamples, and
// returns the words that end c.Reason.
func moreSamples(c *Change, m *Metric, opts Options) string {
	cv := 0.0
	for _, s := range m.Sides {
		cv = math.Max(cv, s.CV)
	}
	if !(cv > 0) || opts.Noise <= 0 {
		return ""
	}
	n := stats.SampleSize(opts.Noise, cv, opts.Alpha, 0.8)
	if n <= 0 {
		return ""
	}
	c.SettleSamples = n
	return fmt.Sprintf("; about %d samples per side would resolve a %s change at this variation (CV %s)", n, words.Pct(opts.Noise), words.Pct(cv))
}
