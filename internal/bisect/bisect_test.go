package bisect

import (
	"math"
	"slices"
	"testing"
)

func TestMinPairs(t *testing.T) {
	// The exact two-sided p-value of the signed-rank test with every
	// pair on one side is 2/2^n: R's wilcox.test(1:5)$p.value is 0.0625,
	// wilcox.test(1:6)$p.value 0.03125.
	for _, c := range []struct {
		alpha float64
		want  int
	}{{0.0625, 5}, {0.05, 6}, {0.03125, 6}, {0.03, 7}, {0.05 / 180, 13}} {
		if got := MinPairs(c.alpha); got != c.want {
			t.Errorf("MinPairs(%v) = %d, want %d", c.alpha, got, c.want)
		}
	}
}

func TestBudget(t *testing.T) {
	// 64 commits: a binary search takes 6 steps; the budget is 2*6+2.
	for _, c := range []struct{ n, want int }{{1, 1}, {2, 4}, {3, 6}, {64, 14}, {65, 16}} {
		if got := MaxSteps(c.n); got != c.want {
			t.Errorf("MaxSteps(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	// 15 decisions, 2 intervals each, 8 looks: 240 intervals.
	if got, want := IntervalAlpha(0.05, 14, 8), 0.05/240; math.Abs(got-want) > 1e-15 {
		t.Errorf("IntervalAlpha = %v, want %v", got, want)
	}
	// Each look half as many rounds again as the last, rounded up:
	// 13 + 7 = 20, 20 + 10 = 30, 30 + 15 = 45, 45 + 23 = 68, ...
	if got, want := LookRounds(14), []int{14, 21, 32, 48, 72, 108, 162, 243}; !slices.Equal(got, want) {
		t.Errorf("LookRounds(14) = %v, want %v", got, want)
	}
}

func TestClassify(t *testing.T) {
	noise, share := math.Log1p(0.01), 0.25*math.Log(2)
	for _, c := range []struct {
		iv   Interval
		want Part
	}{
		{Interval{0.69, 0.6, 0.75}, Holds},
		{Interval{-0.69, -0.75, -0.6}, Holds},
		{Interval{0.01, -0.05, 0.05}, None},
		{Interval{0.1, 0.02, 0.3}, Holds},   // clears the band and reaches past the share
		{Interval{0.02, 0.015, 0.03}, None}, // real, but smaller than a quarter of the change
		{Interval{0.3, -0.1, 0.6}, Undecided},
		{Interval{math.NaN(), math.NaN(), math.NaN()}, Undecided},
	} {
		if got := Classify(c.iv, noise, share); got != c.want {
			t.Errorf("Classify(%+v) = %s, want %s", c.iv, got, c.want)
		}
	}
}

// simulate runs a search over commits 1..len(changes) whose own log
// changes are changes (changes[i-1] made by commit i), with the commits
// in skip unmeasurable; each step's intervals are the true changes of
// the halves ± width.
func simulate(t *testing.T, changes []float64, skip map[int]bool, width float64) *Search {
	t.Helper()
	n := len(changes)
	sum := func(lo, hi int) Interval { // change from commit lo to hi
		var s float64
		for _, c := range changes[lo:hi] {
			s += c
		}
		return Interval{s, s - width, s + width}
	}
	s := New(n, sum(0, n), math.Log1p(0.01))
	for {
		r, mid, ok := s.Next()
		if !ok {
			return s
		}
		if skip[mid] {
			s.Skip(mid)
			continue
		}
		l, h := sum(r.Lo, mid), sum(mid, r.Hi)
		if !s.Done(l, h) {
			t.Fatalf("step on (%d, %d] mid %d: not done with exact halves %v %v", r.Lo, r.Hi, mid, l, h)
		}
		s.Apply(mid, l, h, l, h, 13)
	}
}

func found(s *Search) []int {
	var f []int
	for _, x := range s.Found {
		f = append(f, x.Hi)
	}
	return f
}

func TestSearchOneCommit(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 40, 64} {
		for c := 1; c <= n; c++ {
			changes := make([]float64, n)
			changes[c-1] = math.Log(2)
			s := simulate(t, changes, nil, 0.05)
			if got := found(s); !slices.Equal(got, []int{c}) || len(s.Drift)+len(s.Unresolved) > 0 {
				t.Fatalf("n %d, change at %d: found %v, drift %v, unresolved %v", n, c, got, s.Drift, s.Unresolved)
			}
			if want := int(math.Ceil(math.Log2(float64(n)))); len(s.Steps) > want {
				t.Errorf("n %d, change at %d: %d steps, want at most %d", n, c, len(s.Steps), want)
			}
			if sh := s.ShareOf(s.Found[0].Range); math.Abs(sh-1) > 1e-12 {
				t.Errorf("share %v, want 1", sh)
			}
		}
	}
}

func TestSearchImprovement(t *testing.T) {
	changes := make([]float64, 30)
	changes[17] = -math.Log(2)
	s := simulate(t, changes, nil, 0.05)
	if got := found(s); !slices.Equal(got, []int{18}) {
		t.Errorf("found %v, want [18]", got)
	}
}

func TestSearchSkips(t *testing.T) {
	changes := make([]float64, 16)
	changes[9] = math.Log(2) // commit 10
	// The first midpoint (8) does not build: its neighbours are tried.
	s := simulate(t, changes, map[int]bool{8: true}, 0.05)
	if got := found(s); !slices.Equal(got, []int{10}) {
		t.Errorf("found %v, want [10]", got)
	}
	// The commit before the culprit cannot be measured: the change is
	// in (9-1, 10], one of 9 and 10.
	s = simulate(t, changes, map[int]bool{9: true}, 0.05)
	if len(s.Found) != 1 || s.Found[0].Lo != 8 || s.Found[0].Hi != 10 || !slices.Equal(s.Found[0].Skipped, []int{9}) {
		t.Errorf("found %+v, want (8, 10] with 9 skipped", s.Found)
	}
}

func TestSearchTwoCommits(t *testing.T) {
	changes := make([]float64, 40)
	changes[4] = math.Log(1.5)  // commit 5
	changes[30] = math.Log(1.5) // commit 31
	s := simulate(t, changes, nil, 0.02)
	if got := found(s); !slices.Equal(got, []int{5, 31}) {
		t.Fatalf("found %v, want [5 31]", got)
	}
	for _, f := range s.Found {
		if sh := s.ShareOf(f.Range); math.Abs(sh-0.5) > 1e-9 {
			t.Errorf("commit %d: share %v, want 0.5", f.Hi, sh)
		}
	}
	if len(s.Steps) > s.MaxSteps {
		t.Errorf("%d steps, budget %d", len(s.Steps), s.MaxSteps)
	}
}

func TestSearchDrift(t *testing.T) {
	changes := make([]float64, 32)
	for i := range changes {
		changes[i] = math.Log(2) / 32
	}
	s := simulate(t, changes, nil, 0.001)
	if len(s.Found) != 0 || len(s.Drift) == 0 {
		t.Errorf("drift over 32 commits: found %v, drift %v", found(s), s.Drift)
	}
}

func TestSearchUndecided(t *testing.T) {
	s := New(8, Interval{0.69, 0.6, 0.75}, 0.01)
	_, mid, _ := s.Next()
	wide := Interval{0.3, -0.5, 1}
	if s.Done(wide, wide) {
		t.Fatal("wide intervals ended the step")
	}
	s.Apply(mid, wide, wide, wide, wide, 48)
	if _, _, ok := s.Next(); ok || len(s.Unresolved) != 1 {
		t.Errorf("after an undecided step: unresolved %v", s.Unresolved)
	}
}

func TestStepsLeft(t *testing.T) {
	for _, c := range []struct{ n, want int }{{0, 0}, {1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {32, 5}, {33, 6}} {
		if got := CeilLog2(c.n); got != c.want {
			t.Errorf("CeilLog2(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	// Ranges of 16 and 2 commits: 4 + 1 steps; none pending: still 1.
	s := &Search{Pending: []Range{{Lo: 0, Hi: 16}, {Lo: 20, Hi: 22}}}
	if got := s.StepsLeft(); got != 5 {
		t.Errorf("StepsLeft = %d, want 5", got)
	}
	if got := (&Search{}).StepsLeft(); got != 1 {
		t.Errorf("StepsLeft of no range = %d, want 1", got)
	}
}

func TestProgress(t *testing.T) {
	// A change of log(2); share a quarter of it, noise 1%.
	s := New(8, Interval{Est: math.Log(2), Lo: 0.6, Hi: 0.8}, math.Log1p(0.01))
	holds, none, undecided := Interval{0.69, 0.6, 0.75}, Interval{0.01, -0.05, 0.05}, Interval{0.2, -0.1, 0.5}
	for _, c := range []struct {
		l, r           Interval
		done, progress bool
	}{
		{holds, none, true, true},
		{holds, undecided, false, true},
		{undecided, holds, false, true},
		{undecided, none, false, false},
		{undecided, undecided, false, false},
		{none, none, true, false},
	} {
		if got := s.Done(c.l, c.r); got != c.done {
			t.Errorf("Done(%v, %v) = %v, want %v", c.l, c.r, got, c.done)
		}
		if got := s.Progress(c.l, c.r); got != c.progress {
			t.Errorf("Progress(%v, %v) = %v, want %v", c.l, c.r, got, c.progress)
		}
	}
}
