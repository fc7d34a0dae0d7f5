package rigor

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
)

// B is passed to a variant's function, once per sample. The function calls
// exactly one timing loop, which runs the sample's iterations:
//
//   - Iter(b, f) or b.Iter(f): time iterations of f, the everyday loop;
//   - IterWithSetup(b, setup, routine): prepare inputs untimed, in batches
//     (see BatchSize), and time only routine;
//   - b.IterCustom(f): f runs the iterations and returns the time they took,
//     for work the harness cannot time itself (goroutine pools, external
//     processes).
//
// # Loop overhead
//
// Iter calls f through a function value in a loop that cannot be inlined,
// which is what keeps f's work from being optimized away, and costs about
// a nanosecond per iteration. The harness measures that cost for each loop
// shape (result type) by timing the same loop around a function that
// returns the zero value: once when it first sees the shape, then in every
// round, interleaved with the variants so that it runs under the same
// conditions. The median of the per-round measurements, per iteration, is
// subtracted from every sample, together with the cost of one clock
// reading per timed window. A sample's time never goes below zero; a
// result within a few times the subtracted overhead gets a footnote, since
// on an out-of-order CPU the costs do not add exactly.
// Config.KeepLoopOverhead keeps the raw times instead. IterCustom
// subtracts nothing: the caller times.
type B struct {
	s     *Sampler
	iters int
	gid   int
	par   *parallelSample // non-nil in a parallel sample
	// counting is true in allocation rounds: every timed window is then
	// bracketed by a garbage collection and a runtime/metrics reading so
	// that allocation counts are exact.
	counting bool

	loops   int
	timed   time.Duration // sum of the timed windows
	windows int
	// cpu is the process's CPU time over the timed windows, read just
	// outside each (so the reading's cost is not in timed); cpuOK is
	// false when the system does not report it.
	cpu, cpu0 time.Duration
	cpuOK     bool
	shape     *shape // the loop's shape, for its overhead; nil for IterCustom
	custom    bool
	allocs    allocDelta
	tp        throughput
	tpSet     bool
	batch     BatchSize
	err       error
	// metrics are the values ReportMetric reported, by unit.
	metrics map[string]float64

	entered, finished bool // parallel barrier state
}

// Goroutine returns the index, from 0, of the goroutine running b in a
// parallel variant; 0 otherwise.
func (b *B) Goroutine() int { return b.gid }

// SetBytes declares that one call of the timing loop's function processes
// n bytes, overriding the group's Bytes, as testing.B.SetBytes does.
func (b *B) SetBytes(n int64) { b.tp, b.tpSet = throughput{float64(n), "B/s"}, true }

// SetElements declares that one call processes n elements.
func (b *B) SetElements(n int64) { b.tp, b.tpSet = throughput{float64(n), "elems/s"}, true }

// SetThroughput declares that one call processes n units of unit.
func (b *B) SetThroughput(n float64, unit string) {
	b.tp, b.tpSet = throughput{n, unit + "/s"}, true
}

// ReportMetric reports a metric of this sample besides its time, as
// testing.B.ReportMetric does: n in unit, taken as given. For a
// per-operation unit ("/op") divide a total by the iteration count the
// timing loop was given (B.Iters); in a parallel variant each goroutine
// reports its own and the sample's value is their mean (each ran Iters
// iterations, so the mean of per-operation values is the sample's per
// operation). The harness compares the metric between variants with the
// same paired statistics, estimates and verdicts as time, in every format;
// whether more is better follows the unit as benchstat's does (".../s"
// higher, anything else lower). Call it after the timing loop; a later
// call with the same unit replaces the value.
//
// ReportMetric is for what the work itself counts or measures (bytes
// written, cache misses read from a counter, a time a B.IterCustom
// function measured on another clock): the harness measures time, CPU
// time and allocations itself, and their units are refused, as is the
// variant's own throughput unit (SetBytes, SetElements, SetThroughput, the
// group's). Another variant's throughput unit is the same metric, as in go
// test's output: each variant's samples come from its throughput or its
// report.
func (b *B) ReportMetric(n float64, unit string) {
	switch {
	case unit == "" || strings.ContainsAny(unit, " \t\n"):
		b.fail(fmt.Errorf("ReportMetric: unit %q is empty or holds white space", unit))
		return
	case reservedUnits[unit]:
		b.fail(fmt.Errorf("ReportMetric: unit %q is one the harness measures itself", unit))
		return
	case math.IsNaN(n) || math.IsInf(n, 0):
		b.fail(fmt.Errorf("ReportMetric: %s is %v", unit, n))
		return
	}
	if b.metrics == nil {
		b.metrics = map[string]float64{}
	}
	b.metrics[unit] = n
}

// reservedUnits are the units of the harness's own metrics (and
// testing's spellings of them), which ReportMetric refuses.
var reservedUnits = map[string]bool{
	"sec/op": true, "ns/op": true, "cpu-sec/op": true, "wait-sec/op": true,
	"B/op": true, "allocs/op": true, "GCs/op": true,
}

// Iters returns the iteration count of the sample: what the timing loop
// runs, and what a total passed to ReportMetric is divided by for a
// per-operation unit.
func (b *B) Iters() int { return b.iters }

var (
	errTwoLoops   = errors.New("called more than one timing loop in one sample")
	errParallelIO = errors.New("parallel variants must use Iter or B.Iter")
)

// begin checks that this is the sample's first timing loop.
func (b *B) begin(parallelOK bool) bool {
	b.loops++
	switch {
	case b.loops > 1:
		b.fail(errTwoLoops)
		return false
	case b.par != nil && !parallelOK:
		b.fail(errParallelIO)
		return false
	}
	return true
}

func (b *B) fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// startWindow opens a timed window.
func (b *B) startWindow() time.Time {
	if b.counting {
		b.allocs.start()
	} else {
		b.cpu0, b.cpuOK = processCPU()
	}
	return time.Now()
}

// stopWindow closes the window opened at t0.
func (b *B) stopWindow(t0 time.Time) {
	d := time.Since(t0)
	if b.counting {
		b.allocs.stop()
	} else if c, ok := processCPU(); ok && b.cpuOK {
		b.cpu += c - b.cpu0
	} else {
		b.cpuOK = false
	}
	b.timed += d
	b.windows++
}

// Iter runs the sample's iterations of f and times them. f's result is
// returned across a call the compiler cannot inline, so the work that
// produces it cannot be optimized away; return the result of the work
// rather than discarding it.
func Iter[T any](b *B, f func() T) {
	if !b.begin(true) {
		return
	}
	b.shape = b.s.shapeFor(reflect.TypeFor[func() T](), func(n int) time.Duration {
		zero := func() T { var z T; return z }
		t0 := time.Now()
		loop(n, zero)
		return time.Since(t0)
	})
	if b.par != nil {
		b.parWait()
		loop(b.iters, f)
		b.parFinish()
	} else {
		t0 := b.startWindow()
		loop(b.iters, f)
		b.stopWindow(t0)
	}
}

//go:noinline
func loop[T any](n int, f func() T) {
	for range n {
		f()
	}
}

// Iter runs the sample's iterations of f and times them, for work whose
// effect is a side effect. Work that computes a value should return it
// through the generic Iter instead, or pass it to Sink.
func (b *B) Iter(f func()) {
	if !b.begin(true) {
		return
	}
	b.shape = b.s.shapeFor(reflect.TypeFor[func()](), func(n int) time.Duration {
		t0 := time.Now()
		loopFunc(n, func() {})
		return time.Since(t0)
	})
	if b.par != nil {
		b.parWait()
		loopFunc(b.iters, f)
		b.parFinish()
	} else {
		t0 := b.startWindow()
		loopFunc(b.iters, f)
		b.stopWindow(t0)
	}
}

//go:noinline
func loopFunc(n int, f func()) {
	for range n {
		f()
	}
}

// IterWithSetup times routine alone: setup prepares one input per
// iteration outside the timed window, in batches (SmallInput unless
// SetBatchSize says otherwise), and routine's outputs are released after
// the window, so neither setup nor the release is measured. Its cost is
// Criterion.rs's iter_batched: the clock is read twice per batch.
//
// Allocation counts (B/op, allocs/op) are those of routine alone.
func IterWithSetup[I, O any](b *B, setup func() I, routine func(I) O) {
	if !b.begin(false) {
		return
	}
	per := b.batch.perBatch(b.iters)
	b.shape = b.s.shapeFor(reflect.TypeFor[func(I) O](), func(n int) time.Duration {
		const m = 256
		in, out := make([]I, m), make([]O, m)
		zero := func(I) O { var z O; return z }
		t0 := time.Now()
		for done := 0; done < n; done += m {
			loopIO(in, out, zero)
		}
		return time.Since(t0) * time.Duration(n) / time.Duration((n+m-1)/m*m)
	})
	in, out := make([]I, per), make([]O, per)
	for done := 0; done < b.iters; {
		k := min(per, b.iters-done)
		for i := range in[:k] {
			in[i] = setup()
		}
		t0 := b.startWindow()
		loopIO(in[:k], out[:k], routine)
		b.stopWindow(t0)
		clear(in[:k])
		clear(out[:k])
		done += k
	}
}

//go:noinline
func loopIO[I, O any](in []I, out []O, f func(I) O) {
	out = out[:len(in)]
	for i := range in {
		out[i] = f(in[i])
	}
}

// IterCustom hands the sample's iteration count to f, which runs that many
// iterations and returns the time they took. Nothing is subtracted: f's
// timing is taken as it is.
//
// A measurement other than time (cycles read from a counter, a device's
// own clock, bytes a server sent) is reported after IterCustom with
// B.ReportMetric, per operation (divided by B.Iters) when its unit ends in
// "/op": it is then compared with the same statistics and verdicts as the
// time, as Criterion.rs's Measurement is.
func (b *B) IterCustom(f func(iters int) time.Duration) {
	if !b.begin(false) {
		return
	}
	b.custom = true
	if b.counting {
		b.allocs.start()
	}
	d := f(b.iters)
	if b.counting {
		b.allocs.stop()
	}
	if d < 0 {
		b.fail(fmt.Errorf("IterCustom returned a negative duration %v", d))
		d = 0
	}
	b.timed += d
	b.windows++
}

// Sink marks v as used, so that the computation of v cannot be optimized
// away. It does not allocate and costs one function call.
//
//go:noinline
func Sink[T any](v T) {}

// Opaque returns v through a call the compiler cannot see through, so that
// a constant input cannot be folded into the code under test: as Rust's
// black_box.
//
//go:noinline
func Opaque[T any](v T) T { return v }
