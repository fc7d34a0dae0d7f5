package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestSchedule checks, for a fixed seed, that the phases stay within the
// bounds, that every thread count 0..3 occurs, and that the lengths spread
// over the range (they are drawn, not constant).
func TestSchedule(t *testing.T) {
	c := config{seed: 7, maxThreads: 3, minPhase: 2 * time.Second, maxPhase: 8 * time.Second}
	s := newSchedule(c)
	counts := make([]int, c.maxThreads+1)
	lo, hi := c.maxPhase, c.minPhase
	const n = 400
	for range n {
		p := s.next()
		if p.threads < 0 || p.threads > c.maxThreads {
			t.Fatalf("threads %d outside 0..%d", p.threads, c.maxThreads)
		}
		if p.length < c.minPhase || p.length > c.maxPhase {
			t.Fatalf("length %v outside [%v, %v]", p.length, c.minPhase, c.maxPhase)
		}
		counts[p.threads]++
		lo, hi = min(lo, p.length), max(hi, p.length)
	}
	// Uniform over 4 values: each expects 100 of 400 (sd about 8.7); 60 is
	// more than 4 sd away, so a correct draw never fails this.
	for k, got := range counts {
		if got < 60 {
			t.Errorf("%d threads drawn %d times of %d, want about %d", k, got, n, n/len(counts))
		}
	}
	if lo > 2500*time.Millisecond || hi < 7500*time.Millisecond {
		t.Errorf("lengths span only [%v, %v] of [2s, 8s]", lo, hi)
	}
}

// TestScheduleSeeded checks that a seed fixes the schedule and that
// another seed gives another.
func TestScheduleSeeded(t *testing.T) {
	c := config{seed: 1, maxThreads: 3, minPhase: 2 * time.Second, maxPhase: 8 * time.Second}
	a, b := newSchedule(c), newSchedule(c)
	c.seed = 2
	other := newSchedule(c)
	differ := false
	for range 20 {
		pa, pb, po := a.next(), b.next(), other.next()
		if pa != pb {
			t.Fatalf("same seed, different phases: %+v and %+v", pa, pb)
		}
		differ = differ || pa != po
	}
	if !differ {
		t.Error("seeds 1 and 2 gave the same 20 phases")
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-duration", "-1s"},
		{"-max-threads", "-1"},
		{"-min-phase", "0s"},
		{"-min-phase", "3s", "-max-phase", "2s"},
		{"-nosuchflag"},
		{"extra"},
	} {
		if err := run(context.Background(), args, new(strings.Builder)); err == nil {
			t.Errorf("run(%q) succeeded, want an error", args)
		}
	}
}

// TestRunStops runs a short schedule with zero threads (so it loads
// nothing) and checks that it ends with -duration and prints its phases.
// It asserts no timing beyond ending at all.
func TestRunStops(t *testing.T) {
	var out strings.Builder
	args := []string{"-duration", "30ms", "-max-threads", "0", "-min-phase", "5ms", "-max-phase", "10ms", "-v"}
	if err := run(context.Background(), args, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "phase 0: 0 threads") || !strings.Contains(out.String(), "stopped") {
		t.Errorf("output lacks the phases:\n%s", out.String())
	}
}
