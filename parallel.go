package rigor

import (
	"sync"
	"time"
)

// parallel runs one sample of a parallel variant: bn.goroutines
// goroutines each run n iterations, released together.
func (s *Sampler) parallel(bn *bench, n int, counting bool) (Sample, error) {
	g := bn.goroutines
	p := newParallelSample(g)
	bs := make([]*B, g)
	var wg sync.WaitGroup
	g0 := readMetrics(s.ms)
	w0 := time.Now()
	for i := range bs {
		b := &B{s: s, iters: n, gid: i, par: p}
		bs[i] = b
		wg.Go(func() {
			defer b.parRelease()
			bn.fn(b)
		})
	}
	p.ready.Wait()
	var allocs allocDelta
	if counting {
		allocs.start()
	}
	var waits *waitReader
	if !counting { // its reads allocate
		waits = startWaits()
	}
	c0, cok := processCPU()
	t0 := time.Now()
	close(p.start)
	p.done.Wait()
	d := time.Since(t0)
	c1, cok1 := processCPU()
	wait := waits.stop()
	if counting {
		allocs.stop()
	}
	wg.Wait()
	wall := time.Since(w0)
	g1 := readMetrics(s.ms)
	res := Sample{
		Iters:      n,
		Goroutines: g,
		Timed:      d.Seconds(),
		Wall:       wall.Seconds(),
		CPU:        cpuSeconds(c1-c0, cok && cok1 && !counting),
		Wait:       waitSeconds(wait, counting),
		Windows:    1,
		GCs:        g1.gcs - g0.gcs,
		GCCPU:      g1.gcCPU - g0.gcCPU,
		Objects:    allocs.objects,
		Bytes:      allocs.bytes,
		Loop:       s.loopIndex(bs[0].shape),
	}
	res.setThroughput(bn, bs[0])
	res.Metrics = meanMetrics(bs)
	for _, b := range bs {
		if err := sampleErr(bn, b); err != nil {
			return res, err
		}
	}
	return res, nil
}

// A parallelSample starts a parallel sample's goroutines together.
type parallelSample struct {
	ready sync.WaitGroup // each goroutine is at its loop
	start chan struct{}
	done  sync.WaitGroup // each goroutine finished its loop
}

func newParallelSample(goroutines int) *parallelSample {
	p := &parallelSample{start: make(chan struct{})}
	p.ready.Add(goroutines)
	p.done.Add(goroutines)
	return p
}

// parWait reports that b's goroutine is at its loop and waits for the
// common start.
func (b *B) parWait() {
	b.entered = true
	b.par.ready.Done()
	<-b.par.start
}

// parFinish reports that b's goroutine finished its loop.
func (b *B) parFinish() {
	b.finished = true
	b.par.done.Done()
}

// parRelease balances the barrier for a goroutine that returned (or
// panicked) without running its loop, so the sample cannot hang.
func (b *B) parRelease() {
	if !b.entered {
		b.entered = true
		b.par.ready.Done()
	}
	if !b.finished {
		b.finished = true
		b.par.done.Done()
	}
}

// meanMetrics is the mean, by unit, of the values the goroutines reported
// with B.ReportMetric (over those that reported the unit); nil when none
// did.
func meanMetrics(bs []*B) map[string]float64 {
	var sum map[string]float64
	n := map[string]int{}
	for _, b := range bs {
		for u, v := range b.metrics {
			if sum == nil {
				sum = map[string]float64{}
			}
			sum[u] += v
			n[u]++
		}
	}
	for u := range sum {
		sum[u] /= float64(n[u])
	}
	return sum
}
