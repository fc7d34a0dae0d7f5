package rigor

import (
	"runtime"
	"runtime/metrics"
)

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
