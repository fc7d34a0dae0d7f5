package load

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// bothLoops runs f with the closed loop on the event loop (where the
// platform has one) and on a goroutine per worker.
func bothLoops(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	t.Run("event loop", f)
	t.Run("goroutines", func(t *testing.T) {
		noEventLoop = true
		defer func() { noEventLoop = false }()
		f(t)
	})
}

// A step whose event-loop thread used a whole CPU measured the generator,
// though the process used a fraction of the machine's CPUs.
func TestBuildStepSaturatedLoopThread(t *testing.T) {
	for _, tt := range []struct {
		cpu   float64
		valid bool
	}{{0.5, true}, {0.89, true}, {0.95, false}} {
		rec := newStepRecorder(false, 0, int64(time.Second))
		rec.successes = 1000
		rec.loopCPU = tt.cpu
		st := buildStep(stepConfig{workers: 32, duration: time.Second}, rec, [2]observation{}, 32)
		if st.Valid != tt.valid || !tt.valid && !strings.Contains(st.Invalid, "event-loop thread") {
			t.Errorf("thread at %.0f%% of a CPU: valid %v (%q), want %v", 100*tt.cpu, st.Valid, st.Invalid, tt.valid)
		}
	}
}

// The event loop's spinning is CPU spent waiting: a step whose process
// used 95% of the CPUs, most of it polling for events, did not saturate
// the generator; the same CPU without the spinning did.
func TestBuildStepSpinningIsNotSaturation(t *testing.T) {
	cpus := runtime.NumCPU()
	t0 := time.Now()
	wall := time.Second
	used := time.Duration(0.95 * float64(cpus) * float64(wall))
	for _, tt := range []struct {
		spun  time.Duration
		valid bool
	}{{0, false}, {used / 2, true}, {2 * used, true}} {
		rec := newStepRecorder(false, 0, int64(time.Second))
		rec.successes = 1000
		rec.loopSpun = tt.spun
		obs := [2]observation{
			{self: procSample{ok: true, whenMonotonic: t0}},
			{self: procSample{ok: true, user: used, whenMonotonic: t0.Add(wall)}},
		}
		st := buildStep(stepConfig{workers: 32, duration: time.Second}, rec, obs, 32)
		if st.Valid != tt.valid || !tt.valid && !strings.Contains(st.Invalid, "95%") {
			t.Errorf("spun %v of %v used: valid %v (%q), want %v", tt.spun, used, st.Valid, st.Invalid, tt.valid)
		}
		if st.Generator.CPU < 0.94 || st.Generator.CPU > 0.96 {
			t.Errorf("spun %v: generator CPU %.3f, want the CPU used, 0.95", tt.spun, st.Generator.CPU)
		}
	}
}
