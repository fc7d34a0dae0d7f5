package experiment

import (
	"math"
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

func TestShrink(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name            string
		left, last      time.Duration
		want, perRound  int
		overhead, floor time.Duration
		f               float64
	}{
		// Rounds of 2 samples took 240 ms: 120 ms a sample, 10 ms of it
		// start-up, so 110 ms of sampling. 10 more rounds in 1.2 s leave
		// 60 ms a sample, 50 ms of sampling: 50/110.
		{"busy machine", 1200 * ms, 240 * ms, 10, 2, 10 * ms, 10 * ms, 50.0 / 110},
		// The same with 3 s left: 150 ms a sample is more than 120 ms.
		{"fits", 3000 * ms, 240 * ms, 10, 2, 10 * ms, 10 * ms, 1},
		// 0.3 s for 10 rounds: 15 ms less 10 ms is 5 ms, under the 20 ms floor.
		{"floor", 300 * ms, 240 * ms, 10, 2, 10 * ms, 20 * ms, 20.0 / 110},
		{"enough rounds already", 100 * ms, 240 * ms, 0, 2, 10 * ms, 10 * ms, 1},
		{"samples at the floor", 100 * ms, 40 * ms, 10, 2, 10 * ms, 10 * ms, 1},
	} {
		if f := Shrink(tc.left, tc.last, tc.want, tc.perRound, tc.overhead, tc.floor); math.Abs(f-tc.f) > 1e-12 {
			t.Errorf("%s: Shrink = %v, want %v", tc.name, f, tc.f)
		}
	}
}
