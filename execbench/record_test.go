package execbench

import (
	"math"
	"testing"
	"time"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// TestRecordSubtractsShell: with a shell, its start-up is subtracted from
// the wall and CPU time of every run (3 ms - 1 ms = 2 ms); a run no
// longer than it is not recorded at all, and a CPU time that would not
// be positive is left out.
func TestRecordSubtractsShell(t *testing.T) {
	ms := time.Millisecond
	s := &session{
		labels:    []string{"a"},
		shellWall: 1 * ms, shellCPU: 500 * time.Microsecond,
		run: &model.Run{Sides: []model.Side{{Label: "a"}}, Benchmarks: []model.Benchmark{{Name: DefaultName}}},
	}
	u := &unit{key: DefaultName, runs: make([][]runRecord, 1)}
	s.record(u, 0, 1, &measurement{wall: 3 * ms, user: 1 * ms, sys: 1 * ms, maxRSS: 100 << 20, rssFloor: 10 << 20})
	s.record(u, 0, 2, &measurement{wall: 900 * time.Microsecond, user: 1 * ms})                                         // shorter than the shell
	s.record(u, 0, 3, &measurement{wall: 2 * ms, user: 400 * time.Microsecond, maxRSS: 10<<20 + 1, rssFloor: 10 << 20}) // CPU below the shell's; RSS at the floor
	b := s.run.Benchmarks[0]
	check := func(unit string, want []float64) {
		t.Helper()
		m := b.Metric(unit)
		var got []float64
		if m != nil {
			got = m.Values("a")
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", unit, got, want)
		}
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("%s: %v, want %v", unit, got, want)
			}
		}
	}
	check(WallUnit, []float64{0.002, 0.001})
	check(CPUUnit, []float64{0.0015})
	check(RSSUnit, []float64{100 << 20})
	if r := u.runs[0][1]; !math.IsNaN(r.wall) || !math.IsNaN(r.cpu) || r.rss != 0 {
		t.Errorf("the run shorter than the shell is kept: %+v", r)
	}
}

func TestLookGrowth(t *testing.T) {
	for _, tc := range []struct {
		round time.Duration
		want  float64
	}{
		{500 * time.Microsecond, 0.25},
		{20 * time.Millisecond, 0.1},
		{2 * time.Second, 0},
	} {
		if got := lookGrowth(tc.round); got != tc.want {
			t.Errorf("lookGrowth(%v) = %v, want %v", tc.round, got, tc.want)
		}
	}
}

// TestDesignLooks: the rounds' design spaces the looks by the warm-up's
// round time (two 3 ms runs a round: 6 ms, by a quarter; 30 ms runs: by
// a tenth; no warm-up: short rounds assumed) and always bounds their
// share of the time.
func TestDesignLooks(t *testing.T) {
	for _, tc := range []struct {
		warmRuns int
		spent    time.Duration
		want     float64
	}{
		{0, 0, 0.25},
		{2, 6 * time.Millisecond, 0.25},
		{2, 60 * time.Millisecond, 0.1},
		{4, 2 * time.Second, 0},
	} {
		s := &session{cfg: Config{MinRounds: 10}, labels: []string{"a", "b"}, units: []*unit{{}}, warmRuns: tc.warmRuns, budget: experiment.NewBudget(time.Minute, time.Now())}
		s.budget.Spend("warm-up", tc.spent, "")
		d := s.design()
		if d.LookGrowth != tc.want || d.LookShare != lookShare || d.MinRounds != 10 {
			t.Errorf("%d warm-up runs in %v: growth %v, share %v, min rounds %d; want %v, %v, 10", tc.warmRuns, tc.spent, d.LookGrowth, d.LookShare, d.MinRounds, tc.want, lookShare)
		}
	}
	if lookShare <= 0 || lookShare >= 1 {
		t.Errorf("lookShare %v: want a share of the time, in (0, 1)", lookShare)
	}
}

// TestCheckpointDue: run.json is rewritten five seconds after the last
// write, or checkpointCost times the last write's duration when that is
// longer (a 200 ms write: 10 s).
func TestCheckpointDue(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	for _, tc := range []struct {
		cost, since time.Duration
		want        bool
	}{
		{ms, 4999 * ms, false},
		{ms, 5 * time.Second, true},
		{100 * ms, 5 * time.Second, true},
		{200 * ms, 5 * time.Second, false},
		{200 * ms, 9999 * ms, false},
		{200 * ms, 10 * time.Second, true},
	} {
		s := &session{lastWrite: t0, writeCost: tc.cost}
		if got := s.checkpointDue(t0.Add(tc.since)); got != tc.want {
			t.Errorf("a write of %v, %v ago: due %v, want %v", tc.cost, tc.since, got, tc.want)
		}
	}
}
