package rigor

import (
	"time"

	"github.com/rigorbench/rigor/stats"
)

// A Clock describes the timer samples are taken with, as measured at the
// start of a pass: package harness plans samples with it, and a Sampler
// subtracts its Window from loop-overhead measurements.
type Clock struct {
	// Resolution is the smallest interval the harness can tell apart: the
	// larger of the clock's smallest nonzero step and the cost of reading
	// it. No sample is planned shorter than 1000 times this, and no time
	// difference below it is called significant.
	Resolution time.Duration
	// Tick is the smallest nonzero difference seen between two
	// consecutive readings.
	Tick time.Duration
	// ReadCost is the mean cost of one reading of the clock.
	ReadCost time.Duration
	// Window is the median duration of an empty timed window (two
	// readings back to back): what each timed window adds to a sample.
	Window time.Duration
}

// MeasureClock measures the timer: reading pairs back to back, it takes
// the smallest nonzero step, the mean cost of a reading and the median
// empty window.
func MeasureClock() Clock {
	const pairs = 20000
	tick := time.Duration(1<<63 - 1)
	windows := make([]float64, 0, pairs)
	start := time.Now()
	for range pairs {
		t0 := time.Now()
		d := time.Since(t0)
		windows = append(windows, float64(d))
		if d > 0 && d < tick {
			tick = d
		}
	}
	total := time.Since(start)
	// A clock that never moved between two readings still moved over the
	// whole loop: its step is at most the total.
	if tick == 1<<63-1 {
		tick = total
	}
	c := Clock{
		Tick:     tick,
		ReadCost: total / (2 * pairs),
		Window:   time.Duration(stats.Median(windows)),
	}
	c.Resolution = max(c.Tick, c.ReadCost)
	return c
}
