// Package bisect is the search of rigor bisect, without git and without
// measuring: which commit to measure next, what a step's intervals say
// about the two halves of a range, and how the whole search keeps its
// chance of a wrong answer within a level alpha.
//
// The commits of a search are numbered 0 (good) to N (bad); a Range
// (Lo, Hi] holds the commits after Lo up to Hi, and says that the change
// measured between Lo and Hi happened in it. A step measures a midpoint M
// against both ends in interleaved rounds and gives two intervals, of the
// change from Lo to M and from M to Hi (as log ratios). Each half is then
// Holds (its interval clears the noise band and reaches beyond a quarter
// of the change being searched for) or None (its interval lies within a
// quarter of that change): a half that holds part of the change is
// searched on, one that holds none is dropped, and a change found in
// both halves is searched for in both, so that a change made in several
// commits is reported as several commits with their shares. A range
// whose halves both hold none is a gradual drift.
//
// Error control is Bonferroni's: a search of N commits decides at most
// MaxSteps(N) steps after the first measurement of good against bad, each
// step reads its two intervals at most Looks times, and every interval
// is read at confidence 1 - IntervalAlpha(alpha, steps, looks), so that
// the chance that any interval the search relied on misses its true
// value, and hence of any wrong turn, is at most alpha.
package bisect

import (
	"fmt"
	"math"
)

// Looks is how many times a step reads its intervals (the interim looks
// of its sequential rule, the last included).
const Looks = 8

// MaxSteps is the number of steps the error budget of a search of n
// commits (good excluded, bad included) allows: twice the ceil(log2 n)
// of a binary search, plus two, so that a change made in two commits
// (two branches of the search) fits. A search that would need more stops
// and says so.
func MaxSteps(n int) int {
	if n <= 1 {
		return 1
	}
	return 2*int(math.Ceil(math.Log2(float64(n)))) + 2
}

// IntervalAlpha is the error of each interval the search reads: alpha
// split over the first measurement and steps steps (steps+1 decisions),
// each reading two intervals (the two halves) at looks looks.
func IntervalAlpha(alpha float64, steps, looks int) float64 {
	return alpha / float64((steps+1)*2*looks)
}

// MinPairs is the fewest pairs whose Wilcoxon signed-rank interval can
// exclude anything at confidence 1-alpha: with n pairs the most extreme
// two-sided p-value is 2/2^n (every pair on one side), so n must have
// 2^(1-n) <= alpha. A look before that many rounds could never decide.
func MinPairs(alpha float64) int {
	n := 1
	for math.Pow(2, float64(1-n)) > alpha {
		n++
	}
	return n
}

// LookRounds returns the rounds after which a step looks: first, then
// each look half as many rounds again as the one before (rounded up),
// Looks looks in all. Growing looks keep the interim looks cheap for a
// change that is plain early and still give a noisy benchmark about 16
// times the first look's rounds (its interval 4 times narrower) before
// the step gives up; the error bound does not depend on the spacing.
func LookRounds(first int) []int {
	r := make([]int, Looks)
	for i := range r {
		if i == 0 {
			r[i] = first
			continue
		}
		r[i] = r[i-1] + (r[i-1]+1)/2
	}
	return r
}

// An Interval is a change as a log ratio (log(after/before)) with its
// confidence interval.
type Interval struct {
	Est, Lo, Hi float64
}

// Ratio returns the change as a relative change, after/before - 1.
func (iv Interval) Ratio() (est, lo, hi float64) {
	return math.Expm1(iv.Est), math.Expm1(iv.Lo), math.Expm1(iv.Hi)
}

// FromRatio makes an Interval of a relative change (0.05 for +5%) and its
// bounds.
func FromRatio(est, lo, hi float64) Interval {
	return Interval{Est: math.Log1p(est), Lo: math.Log1p(lo), Hi: math.Log1p(hi)}
}

// A Part is what a step's interval says of one half of a range.
type Part string

// Parts.
const (
	Undecided Part = "undecided" // more rounds are needed
	Holds     Part = "holds"     // the half holds part of the change
	None      Part = "none"      // the half holds too little of it to search
)

// Classify says what iv says of a half, noise being the noise band and
// share the smallest change worth searching for, both as log ratios
// (positive). None wins when both hold: a real change smaller than share
// is not searched for.
func Classify(iv Interval, noise, share float64) Part {
	switch {
	case math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi):
		return Undecided
	case iv.Lo >= -share && iv.Hi <= share:
		return None
	case iv.Lo > noise || iv.Hi < -noise:
		return Holds
	}
	return Undecided
}

// Established says what the first measurement, good against bad, says:
// Holds (a change to search for), None (its interval lies inside the
// noise band: no change) or Undecided.
func Established(iv Interval, noise float64) Part {
	return Classify(iv, noise, noise)
}

// ShareFraction is the smallest part of the change a step searches
// for: a half holding less than a quarter of the change is dropped.
const ShareFraction = 0.25

// Share is the smallest change worth searching for in a search for
// total: ShareFraction of it, and at least the noise band.
func Share(total, noise float64) float64 {
	return math.Max(noise, ShareFraction*math.Abs(total))
}

// A Range is the commits (Lo, Hi] and the change measured between Lo and
// Hi.
type Range struct {
	Lo, Hi int
	Change Interval
}

// A Found is a commit that made (part of) the change: the one after
// Range.Lo, Range.Hi being Lo+1 once no commit between them can be
// measured (or Skipped lists those that could not).
type Found struct {
	Range
	// Skipped are the commits in the range that could not be measured:
	// with any, the change was made by one of them or by Hi.
	Skipped []int `json:",omitempty"`
}

// Unresolved is a range the search could not narrow, and why.
type Unresolved struct {
	Range
	Why string
}

// A Step is one measurement of a midpoint against the ends of a range.
type Step struct {
	Range Range
	Mid   int
	// Left and Right are the changes from Lo to Mid and from Mid to Hi
	// at the interval level of the search (IntervalAlpha); LeftPart and
	// RightPart what they say.
	Left, Right         Interval
	LeftPart, RightPart Part
	// Rounds is how many rounds it took.
	Rounds int
}

// Search is the state of a search; its zero value is not useful (see
// New). It is what rigor bisect keeps in its state file.
type Search struct {
	// N is the number of commits after good; MaxSteps the step budget.
	N, MaxSteps int
	// Total is the change measured between good and bad.
	Total Interval
	// Noise and Share are the noise band and the smallest change
	// searched for, as log ratios.
	Noise, Share float64
	// Skipped are the commits that could not be measured.
	Skipped map[int]bool `json:",omitempty"`
	// Pending are the ranges still to search, the next last.
	Pending    []Range
	Found      []Found      `json:",omitempty"`
	Drift      []Range      `json:",omitempty"`
	Unresolved []Unresolved `json:",omitempty"`
	Steps      []Step       `json:",omitempty"`
}

// New starts a search of n commits for the change total, with noise band
// noise (both log ratios).
func New(n int, total Interval, noise float64) *Search {
	return &Search{
		N: n, MaxSteps: MaxSteps(n), Total: total, Noise: noise, Share: Share(total.Est, noise),
		Skipped: map[int]bool{},
		Pending: []Range{{Lo: 0, Hi: n, Change: total}},
	}
}

// Next returns the next range to measure and its midpoint. It settles
// every range it can without measuring first: one with no commit between
// its ends is a Found commit, one whose commits between are all skipped
// is Found with them, one past the step budget is Unresolved. ok is false
// when the search is over.
func (s *Search) Next() (r Range, mid int, ok bool) {
	for len(s.Pending) > 0 {
		r = s.Pending[len(s.Pending)-1]
		if r.Hi-r.Lo == 1 {
			s.pop()
			s.Found = append(s.Found, Found{Range: r})
			continue
		}
		mid, ok = s.midpoint(r)
		if !ok {
			s.pop()
			f := Found{Range: r}
			for i := r.Lo + 1; i < r.Hi; i++ {
				f.Skipped = append(f.Skipped, i)
			}
			s.Found = append(s.Found, f)
			continue
		}
		if len(s.Steps) >= s.MaxSteps {
			s.pop()
			s.Unresolved = append(s.Unresolved, Unresolved{Range: r, Why: fmt.Sprintf("the search's %d steps were spent", s.MaxSteps)})
			continue
		}
		return r, mid, true
	}
	return Range{}, 0, false
}

func (s *Search) pop() { s.Pending = s.Pending[:len(s.Pending)-1] }

// StepsLeft is how many steps the ranges still pending would take as a
// binary search, ceil(log2(commits)) each, and at least 1: what a budget
// of time is shared among.
func (s *Search) StepsLeft() int {
	n := 0
	for _, r := range s.Pending {
		n += CeilLog2(r.Hi - r.Lo)
	}
	return max(n, 1)
}

// CeilLog2 is ceil(log2 n), the steps a binary search of n commits takes
// (0 for n <= 1).
func CeilLog2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// midpoint is the commit nearest the middle of (r.Lo, r.Hi) that is not
// skipped, as git bisect skip would try: the middle, then its neighbours
// alternately, later first.
func (s *Search) midpoint(r Range) (int, bool) {
	m := r.Lo + (r.Hi-r.Lo)/2
	for d := 0; d < r.Hi-r.Lo; d++ {
		for _, c := range []int{m + d, m - d} {
			if c > r.Lo && c < r.Hi && !s.Skipped[c] {
				return c, true
			}
		}
	}
	return 0, false
}

// Skip marks commit c as one that cannot be measured (it does not build,
// or its benchmark is missing or fails); Next then tries its neighbours.
func (s *Search) Skip(c int) {
	s.Skipped[c] = true
}

// Parts classifies a step's two intervals.
func (s *Search) Parts(left, right Interval) (Part, Part) {
	return Classify(left, s.Noise, s.Share), Classify(right, s.Noise, s.Share)
}

// Done reports whether a look at left and right can end the step.
func (s *Search) Done(left, right Interval) bool {
	l, r := s.Parts(left, right)
	return l != Undecided && r != Undecided
}

// Progress reports whether a look at left and right finds a half that
// holds part of the change: a step that has to end before it is Done
// still takes the search on into that half (the other is reported
// unresolved), where a step that has found neither would leave its whole
// range unresolved.
func (s *Search) Progress(left, right Interval) bool {
	l, r := s.Parts(left, right)
	return l == Holds || r == Holds
}

// Apply records the step that measured mid against the ends of the range
// Next returned (the last pending), with its intervals at the search's
// level (left, right) and the changes to report for each half
// (leftReport, rightReport), and takes the range apart: a half that holds
// part of the change is searched next, one that holds none is dropped; a
// range both of whose halves hold none is a drift, and one whose halves
// stayed undecided after the last look is Unresolved.
func (s *Search) Apply(mid int, left, right, leftReport, rightReport Interval, rounds int) Step {
	r := s.Pending[len(s.Pending)-1]
	s.pop()
	lp, rp := s.Parts(left, right)
	st := Step{Range: r, Mid: mid, Left: left, Right: right, LeftPart: lp, RightPart: rp, Rounds: rounds}
	s.Steps = append(s.Steps, st)
	l := Range{Lo: r.Lo, Hi: mid, Change: leftReport}
	h := Range{Lo: mid, Hi: r.Hi, Change: rightReport}
	switch {
	case lp == None && rp == None:
		s.Drift = append(s.Drift, r)
		return st
	case lp == Undecided && rp == Undecided:
		s.Unresolved = append(s.Unresolved, Unresolved{Range: r, Why: "neither half could be told to hold the change or not within the step's rounds"})
		return st
	}
	// The right half first onto the stack, so that the left is searched
	// first.
	for _, p := range []struct {
		part Part
		r    Range
	}{{rp, h}, {lp, l}} {
		switch p.part {
		case Holds:
			s.Pending = append(s.Pending, p.r)
		case Undecided:
			s.Unresolved = append(s.Unresolved, Unresolved{Range: p.r, Why: "it could not be told whether this half holds part of the change within the step's rounds"})
		}
	}
	return st
}

// ShareOf returns the share of the total change that r's change is.
func (s *Search) ShareOf(r Range) float64 {
	if s.Total.Est == 0 {
		return math.NaN()
	}
	return r.Change.Est / s.Total.Est
}
