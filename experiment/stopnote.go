package experiment

import (
	"fmt"
	"time"

	"github.com/rigorbench/rigor/internal/words"
)

// A StopReport is what the note on why the rounds stopped needs besides
// the Outcome: one wording for every engine.
type StopReport struct {
	// Budget is the time budget (--time).
	Budget time.Duration
	// MinRounds is the minimum number of rounds; Runs, when positive, is
	// the fixed number asked for with the stopping rule off (exec's
	// --runs).
	MinRounds, Runs int
	// Noise is the half-width of the noise band, a fraction (0.01: ±1%).
	Noise float64
	// Noun names one unit and many ("benchmark", "benchmarks").
	Noun [2]string
	// Anonymous is set when the run has a single unit whose name says
	// nothing to the reader (one comparison of commands): the note then
	// speaks of "the comparison".
	Anonymous bool
	// Unrecorded names the units no side recorded a sample of, which the
	// stopping rule leaves out and nothing compares.
	Unrecorded []string
}

// Words says why the rounds of out stopped and, when some had not met
// the early-stopping bar at the last look, which; it is empty when the
// run was interrupted (the interruption is noted where it is handled).
// The verdicts never rest on the bar: they use every round, which the
// note says, so a benchmark that had not met it may still have a verdict.
func (r StopReport) Words(out Outcome) string {
	var msg string
	switch out.Stop {
	case StopResolved:
		msg = fmt.Sprintf("Stopped after %d rounds: every comparison resolved", out.Rounds)
		if len(r.Unrecorded) > 0 {
			msg = fmt.Sprintf("Stopped after %d rounds: every comparison that could be made resolved; nothing was recorded of %s, so it was not compared", out.Rounds, words.JoinList(r.Unrecorded, 3))
		}
	case StopBudget:
		msg = fmt.Sprintf("Stopped when the %v time budget was spent, after %d rounds", r.Budget, out.Rounds)
	case StopMaxRounds:
		msg = fmt.Sprintf("Stopped at the maximum number of rounds, after %d rounds", out.Rounds)
		if r.Runs > 0 {
			msg = fmt.Sprintf("Ran the %d rounds --runs asked for: the stopping rule was off, so a verdict may be inconclusive where more rounds would have resolved it", out.Rounds)
		}
	case StopFailed:
		msg = fmt.Sprintf("Stopped because every %s failed, after %d rounds", r.Noun[0], out.Rounds)
	default:
		return ""
	}
	switch {
	case out.Stop == StopResolved:
	case r.Runs > 0 && out.Rounds < r.Runs:
		msg += fmt.Sprintf(" (fewer than the %d --runs asked for)", r.Runs)
	case r.Runs == 0 && out.Rounds < r.MinRounds:
		msg += fmt.Sprintf(" (fewer than the minimum of %d)", r.MinRounds)
	}
	if out.Stop == StopResolved || r.Runs > 0 {
		return msg + "."
	}
	var left []string
	for _, k := range out.Unresolved {
		if _, retired := out.Retired[k]; !retired {
			left = append(left, k)
		}
	}
	bar := fmt.Sprintf("the early-stopping bar (an interval inside the ±%s band, or p < %g)", words.PctSetting(r.Noise), InterimAlpha)
	switch {
	case len(left) == 0:
	case r.Anonymous:
		msg += fmt.Sprintf("; the comparison had not met %s at the last look; the verdict uses every round", bar)
	default:
		msg += fmt.Sprintf("; %d %s had not met %s at the last look: %s; the verdicts use every round",
			len(left), words.Plural(len(left), r.Noun[0], r.Noun[1]), bar, words.JoinList(left, 5))
	}
	return msg + "."
}

// EarlyWords names the units that retired before the last round, in the
// order given, each shown as name(key) says; empty when none did.
func EarlyWords(out Outcome, order []string, name func(key string) string) string {
	var early []string
	for _, k := range order {
		if last, ok := out.Retired[k]; ok && last < out.Rounds {
			early = append(early, fmt.Sprintf("%s after round %d", name(k), last))
		}
	}
	if len(early) == 0 {
		return ""
	}
	return fmt.Sprintf("Resolved benchmarks left the rounds early and gave their time to the others: %s.", words.JoinList(early, 5))
}
