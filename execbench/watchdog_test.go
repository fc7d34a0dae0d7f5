package execbench

import (
	"testing"
	"time"
)

// TestWatchdog: a run's stop is called once its deadline passes, also
// when the timer was armed for an earlier or a later deadline of a run
// before; a run that is done is not stopped.
func TestWatchdog(t *testing.T) {
	var w watchdog
	defer w.close()
	called := func() (chan struct{}, func()) {
		c := make(chan struct{})
		return c, func() { close(c) }
	}
	wait := func(what string, c chan struct{}) {
		t.Helper()
		select {
		case <-c:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: not stopped 30 s after its deadline", what)
		}
	}

	c, stop := called()
	w.watch(time.Now().Add(time.Millisecond), stop)
	wait("a first run", c)
	w.done()

	// Armed an hour away: a run with a nearer deadline re-arms it.
	never, stopNever := called()
	w.watch(time.Now().Add(time.Hour), stopNever)
	w.done()
	c, stop = called()
	w.watch(time.Now().Add(time.Millisecond), stop)
	wait("a run after a later deadline", c)
	w.done()

	// Armed for a nearer deadline than the run's: it fires, sees the
	// run's deadline ahead and waits for it.
	_, stopEarly := called()
	w.watch(time.Now().Add(time.Millisecond), stopEarly)
	w.done()
	c, stop = called()
	w.watch(time.Now().Add(20*time.Millisecond), stop)
	wait("a run after an earlier deadline", c)
	w.done()

	select {
	case <-never:
		t.Error("a run that was done was stopped")
	default:
	}
}
