package execbench

import (
	"sync"
	"time"
)

// A watchdog calls the current run's stop function once the run's
// deadline has passed. It keeps one timer for all runs, armed at most as
// early as the current deadline and re-armed when it fires before it:
// a timer started and stopped at every run cost about 13 µs of rigor's
// CPU per run of a quick command (BenchmarkExecOverhead's profile, issue
// 28), about a twentieth of its own cost, where the deadline, a run's
// time-out, is usually minutes after the run ends.
type watchdog struct {
	mu    sync.Mutex
	timer *time.Timer
	// armed is when the timer fires (zero: it is not armed); deadline
	// and stop are the current run's (zero and nil between runs).
	armed    time.Time
	deadline time.Time
	stop     func()
}

// watch calls stop at deadline unless done is called before.
func (w *watchdog) watch(deadline time.Time, stop func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline, w.stop = deadline, stop
	if !w.armed.IsZero() && !w.armed.After(deadline) {
		return // it fires first, and re-arms for this deadline
	}
	w.armed = deadline
	if w.timer == nil {
		w.timer = time.AfterFunc(time.Until(deadline), w.fire)
	} else {
		w.timer.Reset(time.Until(deadline))
	}
}

// done ends the watch of the current run.
func (w *watchdog) done() {
	w.mu.Lock()
	w.deadline, w.stop = time.Time{}, nil
	w.mu.Unlock()
}

// close stops the timer.
func (w *watchdog) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.armed, w.deadline, w.stop = time.Time{}, time.Time{}, nil
}

func (w *watchdog) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch now := time.Now(); {
	case w.stop == nil:
		w.armed = time.Time{}
	case now.Before(w.deadline):
		w.armed = w.deadline
		w.timer.Reset(w.deadline.Sub(now))
	default:
		w.armed = time.Time{}
		w.stop()
		w.stop = nil
	}
}
