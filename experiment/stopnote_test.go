package experiment

import (
	"testing"
	"time"
)

func TestStopReportWords(t *testing.T) {
	bench := StopReport{Budget: 10 * time.Second, MinRounds: 20, Noise: 0.01, Noun: [2]string{"benchmark", "benchmarks"}}
	exec := bench
	exec.Anonymous = true
	runs := bench
	runs.Runs = 50
	unrec := bench
	unrec.Unrecorded = []string{"true"}
	for _, tc := range []struct {
		name string
		r    StopReport
		out  Outcome
		want string
	}{
		{"resolved", bench, Outcome{Rounds: 30, Stop: StopResolved},
			"Stopped after 30 rounds: every comparison resolved."},
		{"resolved, one side recorded nothing", unrec, Outcome{Rounds: 30, Stop: StopResolved},
			"Stopped after 30 rounds: every comparison that could be made resolved; nothing was recorded of true, so it was not compared."},
		// A benchmark retired before the end is not left over, even
		// when the last look saw it unresolved.
		{"budget, two left", bench, Outcome{Rounds: 12, Stop: StopBudget, Unresolved: []string{"A", "B", "C"}, Retired: map[string]int{"B": 9}},
			"Stopped when the 10s time budget was spent, after 12 rounds (fewer than the minimum of 20); 2 benchmarks had not met the early-stopping bar (an interval inside the ±1% band, or p < 0.001) at the last look: A and C; the verdicts use every round."},
		{"budget, one anonymous comparison", exec, Outcome{Rounds: 2522, Stop: StopBudget, Unresolved: []string{"exec"}},
			"Stopped when the 10s time budget was spent, after 2522 rounds; the comparison had not met the early-stopping bar (an interval inside the ±1% band, or p < 0.001) at the last look; the verdict uses every round."},
		{"budget, nothing left", bench, Outcome{Rounds: 40, Stop: StopBudget},
			"Stopped when the 10s time budget was spent, after 40 rounds."},
		{"max rounds", bench, Outcome{Rounds: 40, Stop: StopMaxRounds, Unresolved: []string{"A"}},
			"Stopped at the maximum number of rounds, after 40 rounds; 1 benchmark had not met the early-stopping bar (an interval inside the ±1% band, or p < 0.001) at the last look: A; the verdicts use every round."},
		// With --runs the rule was off: nothing was "unresolved" by it.
		{"runs", runs, Outcome{Rounds: 50, Stop: StopMaxRounds, Unresolved: []string{"A"}},
			"Ran the 50 rounds --runs asked for: the stopping rule was off, so a verdict may be inconclusive where more rounds would have resolved it."},
		{"runs cut short", runs, Outcome{Rounds: 30, Stop: StopBudget},
			"Stopped when the 10s time budget was spent, after 30 rounds (fewer than the 50 --runs asked for)."},
		{"failed", bench, Outcome{Rounds: 3, Stop: StopFailed},
			"Stopped because every benchmark failed, after 3 rounds (fewer than the minimum of 20)."},
		{"interrupted", bench, Outcome{Rounds: 3}, ""},
	} {
		if got := tc.r.Words(tc.out); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestEarlyWords(t *testing.T) {
	out := Outcome{Rounds: 20, Retired: map[string]int{"pkg.B": 8, "pkg.A": 12, "pkg.C": 20}}
	got := EarlyWords(out, []string{"pkg.A", "pkg.B", "pkg.C"}, func(k string) string { return k[4:] })
	// C ran in the last round: it did not leave early.
	want := "Resolved benchmarks left the rounds early and gave their time to the others: A after round 12 and B after round 8."
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := EarlyWords(Outcome{Rounds: 5}, []string{"a"}, func(k string) string { return k }); got != "" {
		t.Errorf("nothing retired: %q", got)
	}
}
