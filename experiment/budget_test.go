package experiment

import (
	"strings"
	"testing"
	"time"
)

func TestSampleTime(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name                   string
		want, floor, left, ovh time.Duration
		perRound               int
		got                    time.Duration
		short                  bool
	}{
		// 60 s for 20 samples a round: 60/(20*20) = 150 ms a sample, less
		// 15 ms start-up = 135 ms >= 100 ms: the default stands.
		{"long budget", 100 * ms, 10 * ms, 60 * time.Second, 15 * ms, 20, 100 * ms, false},
		// 2 s for 2 samples a round: 2000/(20*2) = 50 ms, less 15 ms = 35 ms.
		{"short budget", 100 * ms, 10 * ms, 2 * time.Second, 15 * ms, 2, 35 * ms, true},
		// 0.5 s: 500/40 = 12.5 ms less 15 ms is negative: the floor.
		{"floor", 100 * ms, 10 * ms, 500 * ms, 15 * ms, 2, 10 * ms, true},
		// A requested time at or below the floor is never changed.
		{"want below floor", 5 * ms, 10 * ms, 100 * ms, 15 * ms, 2, 5 * ms, false},
		{"nothing left", 100 * ms, 10 * ms, 0, 15 * ms, 2, 100 * ms, false},
	} {
		got, short := SampleTime(tc.want, tc.floor, tc.left, tc.ovh, tc.perRound)
		if got != tc.got || short != tc.short {
			t.Errorf("%s: SampleTime = %v, %v; want %v, %v", tc.name, got, short, tc.got, tc.short)
		}
	}
}

func TestBudgetSummary(t *testing.T) {
	b := NewBudget(2500*time.Millisecond, time.Now())
	b.Spend("calibration", 400*time.Millisecond, "")
	b.Spend("rounds", 1900*time.Millisecond, "23 rounds")
	b.Spend("rounds", 50*time.Millisecond, "")
	if got := b.Spent("rounds"); got != 1950*time.Millisecond {
		t.Errorf("Spent(rounds) = %v, want 1.95s", got)
	}
	want := "time budget 2.5s: calibration 400ms, rounds 1.95s (23 rounds); 150ms left"
	if got := b.Summary(); got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	b.Spend("profiling", 500*time.Millisecond, "")
	if got := b.Summary(); !strings.HasSuffix(got, "; 350ms over") {
		t.Errorf("over budget: %q", got)
	}
}
