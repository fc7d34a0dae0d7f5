package gotest

import (
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/experiment"
)

// The budget note says how long samples ended up, and never calls a sample
// "shortened" to more than the default it was shortened from: on a busy
// machine (issue 13, the cespare/xxhash run) the floor of 8 process
// start-ups held samples at about 237ms of work and the note read
// "shortened to about 237ms of work (from 100ms)".
func TestBudgetNoteSampleLength(t *testing.T) {
	for _, tc := range []struct {
		name     string
		minIters int64 // the floor, in 1 ms operations
		want     string
		not      string
	}{
		// replan asks for 0.6 of the 100 ms samples; the floor allows it.
		// (About 60 ms: the budget's clock runs during the test.)
		{"shortened", 20, "ms of work (from 100ms) so that 20 rounds would fit, no shorter than 20ms or 8 start-ups", "could not"},
		// The floor (8 start-ups of 37.5 ms of CPU) is above the default.
		{"held by the floor", 300, "samples could not be shortened to fit 20 rounds: none is shorter than 20ms of its own work or 8 process start-ups, which held them at about 300ms of work (the default is 100ms)", "shortened to about"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &session{
				budget: experiment.NewBudget(10*time.Second, time.Now()),
				units: []*unit{{
					iters: 100, perOp: 0.001, minIters: tc.minIters,
					startWall: 40 * time.Millisecond, startCPU: 37500 * time.Microsecond,
				}},
				sides: []*sideState{{}, {}},
				// Each sample took 400 ms of wall time besides its start-up
				// (a busy machine): 18 more rounds need 0.6 of that.
				lastRound: 2 * 440 * time.Millisecond,
			}
			s.replan(3, 2)
			if !s.shortened {
				t.Fatal("replan did not shorten the samples; the test's numbers are off")
			}
			note := s.budgetNote()
			if !strings.Contains(note, tc.want) || tc.not != "" && strings.Contains(note, tc.not) {
				t.Errorf("budget note:\n%s\nwant it to contain\n%s", note, tc.want)
			}
		})
	}
}
