package experiment

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/rigorbench/rigor/internal/words"
)

// A Sampler measures the units of an experiment (benchmarks, each on every
// side) for Loop.
type Sampler interface {
	// Units returns the keys of the units that can still be measured
	// (those that have not failed).
	Units() []string
	// Round measures each of active once on every side: round k, from 1.
	Round(ctx context.Context, k int, active []string) error
	// Unresolved returns the keys of the units more rounds could settle
	// (the stopping rule: see Unresolved); Loop ignores those Units no
	// longer returns.
	Unresolved() ([]string, error)
	// Checkpoint keeps what was measured so far (run.json), after every
	// round.
	Checkpoint() error
}

// A Design says how many rounds an experiment runs.
type Design struct {
	// MinRounds rounds always run, time permitting (or whatever the time
	// when MinOverBudget is set); no unit retires and the experiment does
	// not stop before them.
	MinRounds     int
	MinOverBudget bool
	// MaxRounds stops the rounds; 0 means no limit.
	MaxRounds int
	// Budget is the time budget; rounds stop when the next one would not
	// fit in it, leaving Reserve(last round's duration) for what follows.
	Budget  *Budget
	Reserve func(last time.Duration) time.Duration
	// LookGrowth spaces the stopping rule's looks: after MinRounds, the
	// next look comes when the rounds have grown by this fraction (0.1:
	// 10%), for samplers whose rounds are short next to a look. Zero
	// looks after every round.
	LookGrowth float64
	// LookShare, when positive, also keeps the looks to about this share
	// of the time the rounds take: after a look that took L, the next
	// waits until the rounds since have taken L/LookShare. An interim
	// analysis grows with the rounds, and one round of a quick command
	// is short next to it. Fewer looks only make the rule more
	// conservative (each look tests at InterimAlpha).
	LookShare float64
	// Progress, when set, hears the unresolved units after every look.
	Progress func(round int, unresolved []string)
	// now is the clock of the rounds and looks (time.Now when nil), for
	// tests.
	now func() time.Time
}

// Why the rounds stopped.
const (
	StopResolved  = "resolved"
	StopBudget    = "budget"
	StopMaxRounds = "max-rounds"
	StopFailed    = "failed"
)

// An Outcome is how Loop ended.
type Outcome struct {
	Rounds int    // rounds run
	Stop   string // why: StopResolved, StopBudget, StopMaxRounds or StopFailed
	// Unresolved are the units still unresolved at the last look.
	Unresolved []string
	// Retired maps a unit retired before the end to the last round it
	// ran in.
	Retired map[string]int
	// Last is how long the last round took.
	Last time.Duration
}

// Loop runs rounds of s until the design stops them: every unit resolved,
// the budget spent, the maximum reached, or every unit failed. A unit
// resolved at two consecutive looks (one lucky round settles nothing)
// retires: later rounds leave it out and give its time to the others. The
// experiment stops when every unit has retired.
//
// Loop returns the error of a round or a checkpoint, and ctx's error when
// it is cancelled; the Outcome is valid either way.
func Loop(ctx context.Context, d Design, s Sampler) (Outcome, error) {
	out := Outcome{Retired: map[string]int{}}
	resolvedOnce := map[string]bool{}
	nextLook := d.MinRounds
	now := d.now
	if now == nil {
		now = time.Now
	}
	// The last look's cost, and the time the rounds have taken since.
	var lookCost, sinceLook time.Duration
	start := time.Now()
	defer func() {
		if d.Budget != nil {
			d.Budget.Spend("rounds", time.Since(start), words.Count(out.Rounds, "round", "rounds"))
		}
	}()
	for k := 1; ; k++ {
		active := slices.DeleteFunc(s.Units(), func(u string) bool { _, ok := out.Retired[u]; return ok })
		switch {
		case len(s.Units()) == 0:
			out.Stop = StopFailed
		case len(active) == 0:
			out.Stop = StopResolved
		case d.MaxRounds > 0 && k > d.MaxRounds:
			out.Stop = StopMaxRounds
		case k > 2 && d.Budget != nil && !(d.MinOverBudget && k <= d.MinRounds) &&
			d.Budget.Elapsed()+out.Last+reserve(d, out.Last) > d.Budget.Total:
			out.Stop = StopBudget
		}
		if out.Stop != "" {
			return out, nil
		}
		t0 := now()
		if err := s.Round(ctx, k, active); err != nil {
			return out, err
		}
		out.Rounds, out.Last = k, now().Sub(t0)
		sinceLook += out.Last
		if err := s.Checkpoint(); err != nil {
			return out, err
		}
		if k < nextLook || d.LookShare > 0 && float64(sinceLook) < float64(lookCost)/d.LookShare {
			continue
		}
		nextLook = max(k+1, int(math.Ceil(float64(k)*(1+d.LookGrowth))))
		t1 := now()
		unresolved, err := s.Unresolved()
		if err != nil {
			return out, err
		}
		lookCost, sinceLook = now().Sub(t1), 0
		// A unit that failed is not waiting to be settled.
		live := s.Units()
		unresolved = slices.DeleteFunc(unresolved, func(u string) bool { return !slices.Contains(live, u) })
		out.Unresolved = unresolved
		if d.Progress != nil {
			d.Progress(k, unresolved)
		}
		for _, u := range active {
			settled := !slices.Contains(unresolved, u)
			if settled && resolvedOnce[u] {
				out.Retired[u] = k
			}
			resolvedOnce[u] = settled
		}
	}
}

func reserve(d Design, last time.Duration) time.Duration {
	if d.Reserve == nil {
		return 0
	}
	return d.Reserve(last)
}
