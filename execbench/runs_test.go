package execbench

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// TestRunsExact: Runs is hyperfine's --runs: exactly that many rounds,
// even past a time budget that the stopping rule would have obeyed
// (unless RunsTimed), and the rounds note says the rule was off.
func TestRunsExact(t *testing.T) {
	for _, tc := range []struct {
		name      string
		runs      int
		timed     bool
		budget    time.Duration
		wantExact bool
		wantNote  string
	}{
		// A budget of 1 ns is spent before the first round: the rule
		// would stop after 2 rounds, --runs goes on to 5.
		{"over budget", 5, false, time.Nanosecond, true, "Ran the 5 rounds --runs asked for: the stopping rule was off"},
		{"within budget", 4, false, time.Minute, true, "Ran the 4 rounds --runs asked for"},
		// With an explicit --time, the budget still ends the rounds.
		{"timed", 5, true, time.Nanosecond, false, "(fewer than the 5 --runs asked for)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config(t, 0, h("-print", "a"), h("-print", "b"))
			cfg.MinRounds, cfg.MaxRounds = 0, 0
			cfg.Runs, cfg.RunsTimed, cfg.Time = tc.runs, tc.timed, tc.budget
			res, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			n := len(res.Run.Benchmarks[0].Metric(WallUnit).BySide(res.Run.Sides[0].Label))
			if tc.wantExact && n != tc.runs {
				t.Errorf("%d rounds, want exactly %d", n, tc.runs)
			}
			if !tc.wantExact && n >= tc.runs {
				t.Errorf("%d rounds: the budget did not end them before %d", n, tc.runs)
			}
			if !slices.ContainsFunc(res.Run.Notes, func(n model.Note) bool {
				return n.Kind == model.NoteRounds && strings.Contains(n.Text, tc.wantNote)
			}) {
				t.Errorf("no rounds note with %q: %q", tc.wantNote, model.Texts(res.Run.Notes))
			}
		})
	}
}

func TestRunsBad(t *testing.T) {
	for _, runs := range []int{1, -3} {
		cfg := config(t, 0, "true")
		cfg.Runs = runs
		var ce *ConfigError
		if _, err := Run(context.Background(), cfg); !errors.As(err, &ce) {
			t.Errorf("Runs %d: error %v, want a ConfigError", runs, err)
		}
	}
}

// TestRoundsNoteUnrecorded: when every run of a side was too short to
// record (no longer than the shell's start-up), the stopping rule has no
// comparison to make; the note must not say every comparison resolved.
func TestRoundsNoteUnrecorded(t *testing.T) {
	s := &session{
		cfg:    Config{MinRounds: 10, Commands: []Command{{Line: "true"}, {Line: "true"}}},
		labels: []string{"true", "true (2)"},
		run:    &model.Run{},
		units: []*unit{{key: DefaultName, runs: [][]runRecord{
			{{round: 1, wall: math.NaN()}, {round: 2, wall: math.NaN()}},
			{{round: 1, wall: 0.001}, {round: 2, wall: math.NaN()}},
		}}},
	}
	s.roundsNote(experiment.Outcome{Stop: experiment.StopResolved, Rounds: 11})
	text := model.Texts(s.run.Notes)
	if len(text) != 1 || strings.Contains(text[0], "every comparison resolved") || !strings.Contains(text[0], "nothing was recorded of true") {
		t.Errorf("rounds note %q", text)
	}
}
