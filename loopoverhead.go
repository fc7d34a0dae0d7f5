package rigor

import (
	"reflect"
	"time"

	"github.com/rigorbench/rigor/stats"
)

// A shape is one kind of timing loop (Iter with a result type, B.Iter,
// IterWithSetup with input and output types) and its overhead.
type shape struct {
	name  string
	index int // in Sampler.shapes
	// measure times n iterations of the loop around a function that does
	// nothing.
	measure func(n int) time.Duration
	// initial is the first estimate of the overhead, seconds per
	// iteration: the median of 31 runs each lasting at least 1000 times
	// the resolution and 100µs.
	initial float64
}

// shapeFor returns the shape key names, measuring its overhead the first
// time it is seen since Reset.
func (s *Sampler) shapeFor(key reflect.Type, measure func(n int) time.Duration) *shape {
	// The goroutines of a parallel sample get here together: one measures,
	// the others wait for it.
	s.mu.Lock()
	defer s.mu.Unlock()
	if sh, ok := s.byType[key]; ok {
		return sh
	}
	sh := &shape{name: key.String(), index: len(s.shapes), measure: measure}
	s.byType[key] = sh
	s.shapes = append(s.shapes, sh)
	if !s.cfg.KeepLoopOverhead {
		sh.initial = s.perOp(sh, s.overheadIters(sh), 31)
	}
	return sh
}

// overheadIters returns an iteration count for which sh's empty loop
// lasts at least 1000 times the resolution and 100µs.
func (s *Sampler) overheadIters(sh *shape) int {
	target := max(1000*s.clock.Resolution, 100*time.Microsecond)
	n := 1000
	for n < 1<<30 && sh.measure(n) < target {
		n *= 2
	}
	return n
}

// perOp returns the median, over runs, of sh's empty loop time per
// iteration at n iterations, less one clock reading.
func (s *Sampler) perOp(sh *shape, n, runs int) float64 {
	per := make([]float64, runs)
	for i := range per {
		d := sh.measure(n) - s.clock.Window
		per[i] = max(d.Seconds(), 0) / float64(n)
	}
	return stats.Median(per)
}
