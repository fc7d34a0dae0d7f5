package harness

import (
	"math"
	"testing"

	"github.com/rigorbench/rigor"
)

// TestWaitShareOfNetTime: wait-sec/op over sec/op is the share of the
// sample's time its threads waited for a CPU (the analysis's busy rule
// reads it so), also when the loop's overhead is most of the timed time:
// sec/op is the net time, so the wait is scaled to it, not to the timed.
func TestWaitShareOfNetTime(t *testing.T) {
	for _, c := range []struct {
		name             string
		wall, timed, net float64
		wait, wantShare  float64
	}{
		// A near-empty body: 70% of the timed 100 ms was the loop.
		{"overhead-heavy", 0.100, 0.100, 0.030, 0.002, 0.02},
		{"no overhead", 0.100, 0.100, 0.100, 0.002, 0.02},
		// The timed windows took half the call: its wait, half of it.
		{"half timed", 0.200, 0.100, 0.100, 0.004, 0.02},
	} {
		x := result{Sample: rigor.Sample{Iters: 1000, Wall: c.wall, Timed: c.timed, Wait: c.wait, CPU: c.net}, net: c.net, cpuNet: c.net}
		s := &setResult{set: &set{cells: []cell{{variant: "a"}}}, samples: [][]result{{x}}}
		sec, tps, _, _ := s.timedMetrics(0, 1)
		var wait float64 = math.NaN()
		for _, m := range tps {
			if m.Unit == unitWait {
				wait = m.Samples[0].Value
			}
		}
		if got := wait / sec.Samples[0].Value; math.Abs(got-c.wantShare) > 1e-12 {
			t.Errorf("%s: wait-sec/op over sec/op %.4f, want %.4f (the wait's share of the sample's time)", c.name, got, c.wantShare)
		}
	}
}
