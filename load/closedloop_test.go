package load

import (
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
