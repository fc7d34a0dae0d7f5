package rigor

import (
	"reflect"
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/rigorbench/rigor/stats"
)

// A Clock describes the timer the harness measures with, as measured at
// the start of a pass.
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

// A shape is one kind of timing loop (Iter with a result type, B.Iter,
// IterWithSetup with input and output types) and its overhead.
type shape struct {
	name string
	// measure times n iterations of the loop around a function that does
	// nothing.
	measure func(n int) time.Duration
	// initial is the first estimate of the overhead, seconds per
	// iteration: the median of 31 runs each lasting at least 1000 times
	// the resolution and 100µs.
	initial float64
}

// shapeFor returns the shape key names, measuring its overhead the first
// time it is seen in this pass.
func (r *runner) shapeFor(key reflect.Type, measure func(n int) time.Duration) *shape {
	// The goroutines of a parallel sample get here together: one measures,
	// the others wait for it.
	r.shapesMu.Lock()
	defer r.shapesMu.Unlock()
	if sh, ok := r.shapes[key]; ok {
		return sh
	}
	sh := &shape{name: key.String(), measure: measure}
	r.shapes[key] = sh
	if !r.keepOverhead {
		sh.initial = r.perOp(sh, r.overheadIters(sh), 31)
	}
	return sh
}

// overheadIters returns an iteration count for which sh's empty loop
// lasts at least 1000 times the resolution and 100µs.
func (r *runner) overheadIters(sh *shape) int {
	target := max(1000*r.clock.Resolution, 100*time.Microsecond)
	n := 1000
	for n < 1<<30 && sh.measure(n) < target {
		n *= 2
	}
	return n
}

// perOp returns the median, over runs, of sh's empty loop time per
// iteration at n iterations, less one clock reading.
func (r *runner) perOp(sh *shape, n, runs int) float64 {
	per := make([]float64, runs)
	for i := range per {
		d := sh.measure(n) - r.clock.Window
		per[i] = max(d.Seconds(), 0) / float64(n)
	}
	return stats.Median(per)
}

// Names of the runtime/metrics the harness reads.
const (
	mAllocObjects = "/gc/heap/allocs:objects"
	mTinyObjects  = "/gc/heap/tiny/allocs:objects"
	mAllocBytes   = "/gc/heap/allocs:bytes"
	mGCCycles     = "/gc/cycles/total:gc-cycles"
	mGCCPU        = "/cpu/classes/gc/total:cpu-seconds"
	mTotalCPU     = "/cpu/classes/total:cpu-seconds"
)

// A reading is one read of the runtime metrics the harness uses.
type reading struct {
	objects, bytes, gcs uint64
	gcCPU, totalCPU     float64
}

func readMetrics(s []metrics.Sample) reading {
	metrics.Read(s)
	u := func(i int) uint64 {
		if s[i].Value.Kind() == metrics.KindUint64 {
			return s[i].Value.Uint64()
		}
		return 0
	}
	f := func(i int) float64 {
		if s[i].Value.Kind() == metrics.KindFloat64 {
			return s[i].Value.Float64()
		}
		return 0
	}
	// testing.B's allocs/op counts MemStats.Mallocs, which adds tiny
	// objects to the heap's object count; so does the harness.
	return reading{
		objects:  u(0) + u(1),
		bytes:    u(2),
		gcs:      u(3),
		gcCPU:    f(4),
		totalCPU: f(5),
	}
}

func newMetricSamples() []metrics.Sample {
	names := []string{mAllocObjects, mTinyObjects, mAllocBytes, mGCCycles, mGCCPU, mTotalCPU}
	s := make([]metrics.Sample, len(names))
	for i, n := range names {
		s[i].Name = n
	}
	return s
}

// An allocDelta counts the allocations of timed windows exactly.
//
// runtime/metrics counts a small allocation only when the span it came
// from leaves its P's cache, so a plain reading lags by up to a span's
// worth of objects (hundreds for small sizes). A garbage collection
// flushes every P's cache, so a window bracketed by runtime.GC and a
// reading on both sides counts exactly the window's allocations (plus any
// made meanwhile by other goroutines, as testing.B's counts do).
type allocDelta struct {
	s              []metrics.Sample
	r0             reading
	objects, bytes uint64
}

func (a *allocDelta) start() {
	if a.s == nil {
		a.s = newMetricSamples()
	}
	runtime.GC()
	a.r0 = readMetrics(a.s)
}

func (a *allocDelta) stop() {
	runtime.GC()
	r1 := readMetrics(a.s)
	a.objects += r1.objects - a.r0.objects
	a.bytes += r1.bytes - a.r0.bytes
}
