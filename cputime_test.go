package rigor

import (
	"context"
	"testing"
	"time"

	"github.com/rigorbench/rigor/stats"
)

// TestCPUClock: every timed sample carries the process's CPU time beside
// its wall time; a variant that sleeps spends little of its wall time on
// the CPU, one that computes nearly all of it.
func TestCPUClock(t *testing.T) {
	g := NewGroup("clock")
	g.Config.WarmUp, g.Config.Budget, g.Config.MinRounds, g.Config.MaxRounds = -1, 0, 6, 6
	g.Bench("spin", func(b *B) {
		Iter(b, func() int {
			x := 0
			for i := range 20000 {
				x += i * i
			}
			return x
		})
	})
	g.Bench("sleep", func(b *B) { b.Iter(func() { time.Sleep(50 * time.Microsecond) }) })
	run, err := g.Measure(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	bm := run.Benchmarks[0]
	wall, cpu := bm.Metric(unitTime), bm.Metric(unitCPU)
	if cpu == nil {
		t.Fatalf("no %s among %d metrics", unitCPU, len(bm.Metrics))
	}
	if len(cpu.Samples) != len(wall.Samples) {
		t.Fatalf("%d CPU samples for %d wall samples", len(cpu.Samples), len(wall.Samples))
	}
	for _, s := range cpu.Samples {
		if !(s.Value >= 0) {
			t.Errorf("negative or NaN CPU time %v", s.Value)
		}
	}
	if testing.Short() {
		return // the shares below time the live machine
	}
	share := func(side string) float64 {
		return stats.Median(cpu.Values(side)) / stats.Median(wall.Values(side))
	}
	// A sleep of 50 µs costs a few µs of CPU: well under half; the loop
	// keeps the CPU busy, less what other processes take from it.
	if s := share("sleep"); s > 0.5 {
		t.Errorf("sleep: CPU time %.0f%% of wall time, want under 50%%", 100*s)
	}
	if s := share("spin"); s < 0.5 {
		t.Errorf("spin: CPU time %.0f%% of wall time, want over 50%%", 100*s)
	}
}
