package rigor

import (
	"fmt"
	"math"
	"reflect"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/rigorbench/rigor/model"
)

// A Sampler takes one sample at a time of a group's variants: it calls a
// variant's function with an iteration count and reads the clock, the
// process's CPU time and the runtime's counters around its timing loop.
//
// Sampler is for package harness, which plans the rounds and analyses,
// streams and reports them; it is not for benchmark authors, who pass a
// Group to harness.Run, harness.Main or harness.Measure. (It is exported
// for the reason testing.MainStart is: another package of the same
// module needs it.)
type Sampler struct {
	cfg   Config
	sides []model.Side
	cells []*bench
	clock Clock
	ms    []metrics.Sample

	mu     sync.Mutex // the goroutines of a parallel sample meet a loop together
	byType map[reflect.Type]*shape
	shapes []*shape // in the order first seen; Sample.Loop is an index + 1
}

// NewSampler checks g and cfg (a configuration for g: its own Config, or
// one derived from it) and returns a sampler of g's variants. The errors
// are those of a group that cannot be measured: an invalid configuration,
// a misused Bench, no variants, an unknown baseline. Call Reset before the
// first sample.
func NewSampler(g *Group, cfg Config) (*Sampler, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("group %q: %w", g.Name, err)
	}
	if g.err != nil {
		return nil, fmt.Errorf("group %q: %w", g.Name, g.err)
	}
	variants, err := g.variants()
	if err != nil {
		return nil, err
	}
	s := &Sampler{cfg: cfg, cells: g.benches, ms: newMetricSamples()}
	for _, v := range variants {
		side := model.Side{Label: v}
		for _, bn := range g.benches {
			if bn.variant == v {
				side.Subgroup = bn.subgroup
				break
			}
		}
		s.sides = append(s.sides, side)
	}
	s.Reset(Clock{})
	return s, nil
}

// Config returns the configuration the sampler was made with, defaults
// filled in.
func (s *Sampler) Config() Config { return s.cfg }

// Sides returns the group's variants, the baseline first, each with its
// subgroup.
func (s *Sampler) Sides() []model.Side { return s.sides }

// Cells returns the number of the group's cells: one per variant and set
// of parameters, in the order Bench added them.
func (s *Sampler) Cells() int { return len(s.cells) }

// Cell describes cell i: its variant, its parameters ("" when none) and,
// for a parallel variant, its goroutines (0 otherwise).
func (s *Sampler) Cell(i int) (variant, params string, goroutines int) {
	c := s.cells[i]
	return c.variant, c.params, c.goroutines
}

// Reset forgets the loop overheads measured so far and measures them
// again against c from now on: c.Window is subtracted from every
// measurement of an empty loop, each of which lasts at least 1000 times
// c.Resolution (and 100µs). Each pass of a measurement starts afresh.
func (s *Sampler) Reset(c Clock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock = c
	s.byType = map[reflect.Type]*shape{}
	s.shapes = nil
}

// A Sample is what one call of a variant's function measured, as a
// Sampler reports it to package harness.
type Sample struct {
	// Iters is the iteration count, per goroutine; Goroutines is 1 but for
	// a parallel variant.
	Iters, Goroutines int
	// Timed is the time in the timing loop's windows, as measured (for a
	// parallel variant, from the goroutines' common start to the last
	// one's end), seconds; Wall the whole call's, setup included.
	Timed, Wall float64
	// CPU is the process's CPU time over the timed windows, seconds; NaN
	// when the system does not report it, and in a counting sample of a
	// parallel variant.
	CPU float64
	// Wait is how long the threads that did the call's work waited for a
	// CPU (runnable, not running) over the whole call, seconds; NaN when
	// not measured (not Linux, a counting sample).
	Wait float64
	// Windows is the number of timed windows (a clock reading each).
	Windows int
	// GCs is the number of garbage collections the call saw, GCCPU the
	// CPU seconds they used (process-wide).
	GCs   uint64
	GCCPU float64
	// Objects and Bytes are the allocations of the timed windows, exact,
	// in a counting sample; 0 otherwise.
	Objects, Bytes uint64
	// Throughput is the work one call of the loop's function does, in
	// ThroughputUnit ("B/s", "elems/s", "<custom>/s"; "" when none).
	Throughput     float64
	ThroughputUnit string
	// Custom is true when the variant timed itself (B.IterCustom):
	// nothing is to be subtracted.
	Custom bool
	// Metrics are the values the variant reported with B.ReportMetric,
	// by unit; nil when none.
	Metrics map[string]float64
	// Loop identifies the timing loop's shape (its kind and types) among
	// those this sampler has seen since Reset, from 1; 0 for IterCustom.
	// See LoopOverhead.
	Loop int
}

// Sample runs one sample of cell with iters iterations (per goroutine).
// A counting sample brackets every timed window with a garbage
// collection and runtime/metrics readings so that its allocation counts
// are exact (and its times are not worth keeping). The error reports a
// misused B: no timing loop or two, IterWithSetup in a parallel variant,
// a negative IterCustom duration.
func (s *Sampler) Sample(cell, iters int, counting bool) (Sample, error) {
	bn := s.cells[cell]
	if bn.goroutines > 0 {
		return s.parallel(bn, iters, counting)
	}
	b := &B{s: s, iters: iters, counting: counting}
	if counting {
		// Exact counts need few windows: one batch of setups at a time.
		b.batch = NumIterations(1000)
	}
	g0 := readMetrics(s.ms)
	var waits *waitReader
	if !counting {
		waits = startWaits()
	}
	w0 := time.Now()
	bn.fn(b)
	wall := time.Since(w0)
	wait := waits.stop()
	g1 := readMetrics(s.ms)
	res := Sample{
		Iters:      iters,
		Goroutines: 1,
		Timed:      b.timed.Seconds(),
		Wall:       wall.Seconds(),
		CPU:        cpuSeconds(b.cpu, b.cpuOK),
		Wait:       waitSeconds(wait, counting),
		Windows:    b.windows,
		GCs:        g1.gcs - g0.gcs,
		GCCPU:      g1.gcCPU - g0.gcCPU,
		Objects:    b.allocs.objects,
		Bytes:      b.allocs.bytes,
		Custom:     b.custom,
		Metrics:    b.metrics,
		Loop:       s.loopIndex(b.shape),
	}
	res.setThroughput(bn, b)
	return res, sampleErr(bn, b)
}

func (x *Sample) setThroughput(bn *bench, b *B) {
	tp := bn.tp
	if b.tpSet {
		tp = b.tp
	}
	x.Throughput, x.ThroughputUnit = tp.n, tp.unit
}

func sampleErr(bn *bench, b *B) error {
	switch {
	case b.err != nil:
		return fmt.Errorf("variant %q: %w", bn.variant, b.err)
	case b.loops == 0:
		return fmt.Errorf("variant %q did not call a timing loop (Iter, B.Iter, IterWithSetup or B.IterCustom)", bn.variant)
	}
	tp := bn.tp
	if b.tpSet {
		tp = b.tp
	}
	if _, ok := b.metrics[tp.unit]; ok && tp.unit != "" {
		return fmt.Errorf("variant %q: ReportMetric: unit %q is the variant's throughput, which the harness measures itself", bn.variant, tp.unit)
	}
	return nil
}

// waitSeconds is a waitReader's reading, or NaN when it was not measured
// or the sample counted allocations (its garbage collections are not the
// machine's doing).
func waitSeconds(w float64, counting bool) float64 {
	if w < 0 || counting {
		return math.NaN()
	}
	return w
}

// cpuSeconds is d in seconds, or NaN when it was not measured.
func cpuSeconds(d time.Duration, ok bool) float64 {
	if !ok {
		return math.NaN()
	}
	return d.Seconds()
}

// LoopOverhead measures, once, the overhead of a timing loop's shape
// (Sample.Loop, from 1) at iters iterations: the time of the same loop
// around a function that returns the zero value, less one empty timed
// window, in seconds per iteration.
func (s *Sampler) LoopOverhead(loop, iters int) float64 {
	return s.perOp(s.shapes[loop-1], iters, 1)
}

// FirstLoopOverhead returns the overhead of a loop's shape measured when
// the sampler first saw it, seconds per iteration: the median of 31
// measurements, each lasting at least 1000 timer resolutions and 100µs.
// It is 0 when the configuration keeps the loop overhead.
func (s *Sampler) FirstLoopOverhead(loop int) float64 {
	return s.shapes[loop-1].initial
}

// loopIndex returns sh's Sample.Loop.
func (s *Sampler) loopIndex(sh *shape) int {
	if sh == nil {
		return 0
	}
	return sh.index + 1
}
