package experiment

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"
)

// fakeSampler resolves unit u from round settle[u] on (0: never) and
// records which units each round ran.
type fakeSampler struct {
	units  []string
	settle map[string]int
	ran    [][]string
	round  int
	fail   error
}

func (f *fakeSampler) Units() []string { return slices.Clone(f.units) }

func (f *fakeSampler) Round(_ context.Context, k int, active []string) error {
	f.round = k
	f.ran = append(f.ran, slices.Clone(active))
	return f.fail
}

func (f *fakeSampler) Unresolved() ([]string, error) {
	var u []string
	for _, k := range f.units {
		if r := f.settle[k]; r == 0 || f.round < r {
			u = append(u, k)
		}
	}
	return u, nil
}

func (f *fakeSampler) Checkpoint() error { return nil }

func TestLoopRetiresResolvedUnits(t *testing.T) {
	f := &fakeSampler{units: []string{"a", "b", "c"}, settle: map[string]int{"a": 3, "b": 6}}
	out, err := Loop(context.Background(), Design{MinRounds: 4, MaxRounds: 10}, f)
	if err != nil {
		t.Fatal(err)
	}
	// Looks start at round 4 (the minimum): a is resolved at 4 and 5 and
	// retires after 5; b at 6 and 7, retiring after 7; c never.
	want := map[string]int{"a": 5, "b": 7}
	if !maps.Equal(out.Retired, want) {
		t.Errorf("retired %v, want %v", out.Retired, want)
	}
	if out.Stop != StopMaxRounds || out.Rounds != 10 {
		t.Errorf("stopped %q after %d rounds, want %q after 10", out.Stop, out.Rounds, StopMaxRounds)
	}
	for k, active := range f.ran {
		round := k + 1
		for u, last := range want {
			if slices.Contains(active, u) != (round <= last) {
				t.Errorf("round %d ran %v: %s retired after round %d", round, active, u, last)
			}
		}
	}
	if !slices.Equal(out.Unresolved, []string{"c"}) {
		t.Errorf("unresolved %v, want [c]", out.Unresolved)
	}
}

func TestLoopStopsWhenAllRetired(t *testing.T) {
	f := &fakeSampler{units: []string{"a", "b"}, settle: map[string]int{"a": 1, "b": 1}}
	out, err := Loop(context.Background(), Design{MinRounds: 3}, f)
	if err != nil {
		t.Fatal(err)
	}
	// Resolved at the looks after rounds 3 and 4: every unit retires and
	// round 5 never runs.
	if out.Stop != StopResolved || out.Rounds != 4 || len(f.ran) != 4 {
		t.Errorf("stopped %q after %d rounds (%d run), want %q after 4", out.Stop, out.Rounds, len(f.ran), StopResolved)
	}
}

func TestLoopBudget(t *testing.T) {
	f := &fakeSampler{units: []string{"a"}}
	b := NewBudget(time.Nanosecond, time.Now())
	out, err := Loop(context.Background(), Design{MinRounds: 10, Budget: b}, f)
	if err != nil {
		t.Fatal(err)
	}
	// Two rounds always run; the budget stops the third.
	if out.Stop != StopBudget || out.Rounds != 2 {
		t.Errorf("stopped %q after %d rounds, want %q after 2", out.Stop, out.Rounds, StopBudget)
	}
	if b.Spent("rounds") <= 0 {
		t.Error("the rounds' time is not recorded in the budget")
	}
}

func TestLoopRoundError(t *testing.T) {
	boom := errors.New("boom")
	f := &fakeSampler{units: []string{"a"}, fail: boom}
	if _, err := Loop(context.Background(), Design{MinRounds: 2}, f); !errors.Is(err, boom) {
		t.Errorf("err = %v, want %v", err, boom)
	}
	f = &fakeSampler{}
	if out, _ := Loop(context.Background(), Design{MinRounds: 2}, f); out.Stop != StopFailed || out.Rounds != 0 {
		t.Errorf("no units: stopped %q after %d rounds, want %q after 0", out.Stop, out.Rounds, StopFailed)
	}
}

// failingSampler reports every unit unresolved, and unit "b" fails in
// round 2: Loop must not count a failed unit as waiting to be settled.
type failingSampler struct{ rounds int }

func (f *failingSampler) Units() []string {
	if f.rounds >= 2 {
		return []string{"a"}
	}
	return []string{"a", "b"}
}
func (f *failingSampler) Round(context.Context, int, []string) error { f.rounds++; return nil }
func (f *failingSampler) Unresolved() ([]string, error)              { return []string{"a", "b"}, nil }
func (f *failingSampler) Checkpoint() error                          { return nil }

func TestLoopIgnoresFailedUnits(t *testing.T) {
	out, err := Loop(context.Background(), Design{MaxRounds: 3}, &failingSampler{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Unresolved, []string{"a"}) {
		t.Errorf("unresolved %q, want only the live unit a", out.Unresolved)
	}
}

// costlySampler is a fakeSampler on a fake clock: a round takes round, a
// look takes lookFor(k) at round k; it records the rounds it was looked
// at.
type costlySampler struct {
	fakeSampler
	clock   time.Time
	round   time.Duration
	lookFor func(k int) time.Duration
	looks   []int
}

func (c *costlySampler) Round(ctx context.Context, k int, active []string) error {
	c.clock = c.clock.Add(c.round)
	return c.fakeSampler.Round(ctx, k, active)
}

func (c *costlySampler) Unresolved() ([]string, error) {
	c.looks = append(c.looks, c.fakeSampler.round)
	c.clock = c.clock.Add(c.lookFor(c.fakeSampler.round))
	return c.fakeSampler.Unresolved()
}

// TestLoopLookShare: with LookShare, a look waits until the rounds since
// the last have taken the last look's cost over the share; without it,
// or when looks are cheap, the looks follow LookGrowth alone.
func TestLoopLookShare(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name   string
		share  float64
		growth float64
		look   func(k int) time.Duration
		want   []int
	}{
		{"no share: every round", 0, 0, func(int) time.Duration { return 5 * ms }, []int{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}},
		// A 5 ms look, 1 ms rounds, a tenth: 50 rounds until the next.
		{"costly looks spaced", 0.1, 0, func(int) time.Duration { return 5 * ms }, []int{4}},
		// 0.25 ms looks: 2.5 ms of rounds, 3 rounds apart.
		{"cheaper looks", 0.1, 0, func(int) time.Duration { return 250 * time.Microsecond }, []int{4, 7, 10, 13, 16, 19}},
		// 0.05 ms looks wait half a round: growth decides (ceil(k*1.25)).
		{"cheap looks: growth decides", 0.1, 0.25, func(int) time.Duration { return 50 * time.Microsecond }, []int{4, 5, 7, 9, 12, 15, 19}},
		// A look's cost grows with the rounds, 0.09 ms per round so far:
		// 0.36 ms at 4 waits 4 rounds, 0.72 ms at 8 waits 8, 1.44 ms at
		// 16 would wait 15.
		{"growing looks", 0.1, 0, func(k int) time.Duration { return time.Duration(k) * 90 * time.Microsecond }, []int{4, 8, 16}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &costlySampler{fakeSampler: fakeSampler{units: []string{"a"}}, round: ms, lookFor: tc.look}
			d := Design{MinRounds: 4, MaxRounds: 20, LookGrowth: tc.growth, LookShare: tc.share, now: func() time.Time { return c.clock }}
			out, err := Loop(context.Background(), d, c)
			if err != nil {
				t.Fatal(err)
			}
			if out.Rounds != 20 || !slices.Equal(c.looks, tc.want) {
				t.Errorf("%d rounds, looks after rounds %v, want 20 and %v", out.Rounds, c.looks, tc.want)
			}
		})
	}
}
