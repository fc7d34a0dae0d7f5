package gotest

import (
	"strings"
	"testing"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// A maximum below the default minimum lowers the minimum, and the run's
// notes say so (issue 13 item 6: "lower the minimum, with a note"); a
// minimum the caller set is left alone.
func TestMaxRoundsLowersMinimum(t *testing.T) {
	for _, tc := range []struct {
		name     string
		min, max int
		wantMin  int
		wantNote bool
		stop     string
		rounds   int
	}{
		{"max below the default", 0, 3, 3, true, experiment.StopMaxRounds, 3},
		{"budget spent first", 0, 3, 3, true, experiment.StopBudget, 2},
		{"max above the default", 0, 12, DefaultMinRounds, false, experiment.StopMaxRounds, 12},
		{"minimum given", 3, 3, 3, false, experiment.StopMaxRounds, 3},
		{"no max", 0, 0, DefaultMinRounds, false, experiment.StopBudget, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Sides: []Side{{Label: "current"}}, Out: t.TempDir(), MinRounds: tc.min, MaxRounds: tc.max}
			if err := cfg.defaults(); err != nil {
				t.Fatal(err)
			}
			if cfg.MinRounds != tc.wantMin {
				t.Errorf("MinRounds %d, want %d", cfg.MinRounds, tc.wantMin)
			}
			s := &session{cfg: cfg, run: &model.Run{}}
			s.roundsNote(experiment.Outcome{Stop: tc.stop, Rounds: tc.rounds})
			notes := strings.Join(model.Texts(s.run.Notes), "\n")
			want := "The maximum of 3 rounds is below the default minimum of 10, so the minimum was 3."
			if got := strings.Contains(notes, want); got != tc.wantNote {
				t.Errorf("note %q present: %v, want %v; notes:\n%s", want, got, tc.wantNote, notes)
			}
		})
	}
}

// The rounds note names benchmarks as the tables do, without their
// package: "example.com/m/p.Add-2" read oddly beside a table of "Add-2".
func TestRoundsNoteShortNames(t *testing.T) {
	s := &session{cfg: Config{MinRounds: 2}, run: &model.Run{},
		units: []*unit{{pkg: "example.com/m/p", key: "example.com/m/p.Add-2"}, {pkg: "example.com/m/p", key: "example.com/m/p.Sub-2"}}}
	s.roundsNote(experiment.Outcome{Stop: experiment.StopBudget, Rounds: 6, Unresolved: []string{"example.com/m/p.Add-2", "example.com/m/p.Sub-2"}, Retired: map[string]int{"example.com/m/p.Sub-2": 4}})
	notes := strings.Join(model.Texts(s.run.Notes), "\n")
	if !strings.Contains(notes, "early-stopping bar (an interval inside the ±0% band, or p < 0.001) at the last look: Add-2; the verdicts") ||
		!strings.Contains(notes, "gave their time to the others: Sub-2 after round 4.") || strings.Contains(notes, "example.com") {
		t.Errorf("notes:\n%s", notes)
	}
}
