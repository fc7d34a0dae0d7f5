package rigor

import (
	"math"
	"runtime"
	"testing"
)

// TestSampleWaits: on Linux a timed sample says how long its working
// threads waited for a CPU, between none and the whole call for each; a counting
// sample does not (its reads would allocate inside the count).
func TestSampleWaits(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("schedstat is Linux's")
	}
	g := NewGroup("waits")
	g.Config = quick()
	g.Bench("spin", func(b *B) {
		Iter(b, func() uint64 {
			x := uint64(1)
			for i := 0; i < 1000; i++ {
				x = x*6364136223846793005 + 1442695040888963407
			}
			return x
		})
	})
	g.BenchParallel("par", 2, func(b *B) { Iter(b, func() int { return 1 }) })
	s := sampler(t, g)
	for cell := range 2 {
		x, err := s.Sample(cell, 2000, false)
		if err != nil {
			t.Fatal(err)
		}
		// Each working thread waits at most the whole call: the test
		// binary's other goroutines may add threads to the benchmark's.
		if math.IsNaN(x.Wait) || x.Wait < 0 || x.Wait > x.Wall*float64(runtime.GOMAXPROCS(0)+4) {
			t.Errorf("cell %d: wait %v s over a %v s call", cell, x.Wait, x.Wall)
		}
		c, err := s.Sample(cell, 100, true)
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsNaN(c.Wait) {
			t.Errorf("cell %d: a counting sample has a wait, %v", cell, c.Wait)
		}
	}
}

// The working threads' filter: a thread that did less than a tenth of the
// process's CPU work (sysmon, a parked worker) does not count, however long
// it waited; a starved one that did most of it does, however little of the
// sample it ran.
func TestWorkingWait(t *testing.T) {
	before := map[string][2]int64{"1": {0, 0}, "2": {0, 0}}
	// Thread 1 ran 8 ms and waited 92 (starved); 2 ran 0.1 ms and
	// waited 30; 3 started meanwhile, ran 2 ms and waited 1.
	after := map[string][2]int64{"1": {8e6, 92e6}, "2": {0.1e6, 30e6}, "3": {2e6, 1e6}}
	if got := workingWait(before, after, 100e6); math.Abs(got-93e-3) > 1e-12 {
		t.Errorf("wait %v s, want 93 ms (threads 1 and 3)", got)
	}
}

// The kernel adds a wait to a thread's run-queue delay when the thread
// gets a CPU again: a thread queued since long before the sample that
// runs in it brings its whole wait in, and a thread new since the first
// reading its wait since it began. Neither waited in the sample longer
// than the sample.
func TestWorkingWaitAtMostTheSpan(t *testing.T) {
	before := map[string][2]int64{"1": {0, 0}, "2": {0, 0}}
	// A 10 ms sample: thread 1 ran 8 ms and waited 2; thread 2, queued
	// 5 s before it, ran 3 ms; thread 3 (new) ran 2 ms after a 3 s wait.
	after := map[string][2]int64{"1": {8e6, 2e6}, "2": {3e6, 5e9}, "3": {2e6, 3e9}}
	if got := workingWait(before, after, 10e6); got > 3*10e-3 {
		t.Errorf("wait %v s over a 10 ms sample, for three threads", got)
	}
}
