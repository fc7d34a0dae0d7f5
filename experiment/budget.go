package experiment

import (
	"fmt"
	"strings"
	"time"
)

// A Budget is the time an experiment may take (calibration, rounds and any
// later pass such as profiling) and a record of how it was spent.
type Budget struct {
	Total  time.Duration
	start  time.Time
	paused time.Duration
	spent  []phase
}

type phase struct {
	name string
	d    time.Duration
	what string
}

// NewBudget starts a budget of total now.
func NewBudget(total time.Duration, now time.Time) *Budget {
	return &Budget{Total: total, start: now}
}

// Start returns when the budget started.
func (b *Budget) Start() time.Time { return b.start }

// Elapsed returns the time since the budget started, less the time
// spent paused.
func (b *Budget) Elapsed() time.Duration { return time.Since(b.start) - b.paused }

// Pause stops the budget's clock (for writing results, say) until the
// function it returns is called.
func (b *Budget) Pause() (resume func()) {
	t0 := time.Now()
	return func() { b.paused += time.Since(t0) }
}

// Left returns what is left of the budget, never below zero.
func (b *Budget) Left() time.Duration { return max(b.Total-b.Elapsed(), 0) }

// Spend records that phase took d; what, when not empty, says more
// ("23 rounds, 46 samples"). Spending the same phase again adds to it.
func (b *Budget) Spend(name string, d time.Duration, what string) {
	for i := range b.spent {
		if b.spent[i].name == name {
			b.spent[i].d += d
			if what != "" {
				b.spent[i].what = what
			}
			return
		}
	}
	b.spent = append(b.spent, phase{name, d, what})
}

// Spent returns the time recorded for phase.
func (b *Budget) Spent(name string) time.Duration {
	for _, p := range b.spent {
		if p.name == name {
			return p.d
		}
	}
	return 0
}

// Summary says how the budget was spent, in the order phases were first
// recorded: "time budget 2.5s: calibration 0.41s, rounds 1.98s (23 rounds);
// 0.11s left".
func (b *Budget) Summary() string {
	var parts []string
	var sum time.Duration
	for _, p := range b.spent {
		s := p.name + " " + roundDur(p.d).String()
		if p.what != "" {
			s += " (" + p.what + ")"
		}
		parts = append(parts, s)
		sum += p.d
	}
	msg := fmt.Sprintf("time budget %v: %s", b.Total, strings.Join(parts, ", "))
	switch over := sum - b.Total; {
	case over > b.Total/20:
		msg += fmt.Sprintf("; %v over", roundDur(over))
	case over < 0:
		msg += fmt.Sprintf("; %v left", roundDur(-over))
	}
	return msg
}

func roundDur(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	default:
		return d.Round(time.Millisecond)
	}
}

// TargetPairs is how many paired rounds a budget should fit before samples
// are shortened: with 20 pairs the signed-rank interval around the change
// is about as wide as the per-round spread divided by 4 (its width shrinks
// like 1/sqrt(n)), and a change of a few percent clears a ±1% band at the
// per-round spread a busy machine leaves on the CPU clock (1-2%, measured
// in experiments/busy).
const TargetPairs = 20

// SampleTime returns how long one sample should last so that TargetPairs
// rounds fit in left, each round taking perRound samples that each cost
// overhead (process start-up) on top of their own time: want when that
// fits; otherwise shorter, but never below floor. The second result is
// true when the sample time was shortened.
func SampleTime(want, floor, left, overhead time.Duration, perRound int) (time.Duration, bool) {
	if perRound <= 0 || left <= 0 {
		return want, false
	}
	per := left/time.Duration(TargetPairs*perRound) - overhead
	if per >= want || want <= floor {
		return want, false
	}
	return max(per, floor), true
}

// Shrink returns the factor, at most 1, by which samples should shorten
// so that want more rounds fit in left, when the last round took last:
// a round is perRound samples, each costing overhead (process start-up)
// besides its own time, and a sample never shortens below floor. It
// returns 1 when want rounds fit already, or when nothing can be said
// (no round yet, or a round no longer than its overheads).
func Shrink(left, last time.Duration, want, perRound int, overhead, floor time.Duration) float64 {
	if want <= 0 || perRound <= 0 || last <= 0 || left <= 0 {
		return 1
	}
	now := last/time.Duration(perRound) - overhead
	if now <= 0 || now <= floor {
		return 1
	}
	target := left/time.Duration(want*perRound) - overhead
	if target >= now {
		return 1
	}
	return float64(max(target, floor)) / float64(now)
}
