package load

import (
	"context"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rigorbench/rigor/model"
)

type stepConfig struct {
	index            int
	workers          int     // closed loop
	rate             float64 // open loop
	maxWorkers       int
	warmup, duration time.Duration
	pid              int
	inProcess        bool
}

// observation is the generator's and target's state at one instant.
type observation struct {
	machine cpuTimes
	self    procSample
	target  procSample
	sched   schedSample
}

func observe(sc stepConfig) observation {
	o := observation{machine: machineSample(), self: selfSample(), sched: readSched()}
	switch {
	case sc.pid > 0 && sc.pid != os.Getpid():
		o.target, _ = pidSample(sc.pid)
	case sc.pid > 0 || sc.inProcess:
		// The target is this process: getrusage's CPU times are finer
		// than /proc's clock ticks; /proc adds the run-queue wait.
		o.target = o.self
		if p, err := pidSample(os.Getpid()); err == nil {
			o.target.runq, o.target.hasRunq = p.runq, p.hasRunq
		}
	}
	return o
}

// runStep runs one step: a warm-up, then the measured window.
func runStep(parent context.Context, t Target, sc stepConfig) (model.RampStep, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	open := sc.rate > 0
	var loop closedLoop
	if !open {
		// Before the step's clock starts: resolving a host name takes
		// time that is not the step's.
		loop = closedLoopFor(ctx, t, sc.workers)
	}
	ws := int64(sc.warmup)
	we := ws + int64(sc.duration)
	base := time.Now()
	rec := newStepRecorder(open, ws, we)
	rec.index = sc.index
	recordRequests(rec, t)

	// Observe the processes at the window's edges from their own goroutine.
	var obs [2]observation
	obsDone := make(chan struct{})
	go func() {
		defer close(obsDone)
		for i, at := range []int64{ws, we} {
			if !sleepUntil(ctx, base, at) {
				return
			}
			obs[i] = observe(sc)
		}
	}()

	var (
		wg       sync.WaitGroup
		stop     atomic.Bool  // closed loop: stop sending
		giveUp   atomic.Bool  // stop waiting for requests in flight
		giveUpAt atomic.Int64 // when, ns since base
		mu       sync.Mutex
		clients  []Client
		workers  int
	)
	startWorker := func(run func(c Client, w *workerRecorder)) {
		c := t.NewClient()
		mu.Lock()
		clients = append(clients, c)
		workers++
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := rec.worker()
			run(c, w)
			w.flush()
		}()
	}
	// finish records a request the worker made: an abandoned one (the
	// step gave up and it failed, cancelled) at its age when abandoned.
	finish := func(w *workerRecorder, intended, sent, end int64, out Outcome) {
		if out.Class != "" && giveUp.Load() {
			w.abandon(intended, sent, min(end, giveUpAt.Load()))
			return
		}
		w.add(intended, sent, end, out)
	}

	var notSent int64
	switch {
	case loop != nil:
		// The event loop: the same closed loop on a few threads, each
		// worker's requests recorded by its own workerRecorder.
		mu.Lock()
		workers = sc.workers
		mu.Unlock()
		ws := make([]*workerRecorder, sc.workers)
		for i := range ws {
			ws[i] = rec.worker()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			loop.run(ctx, sc.workers, base, we, &stop, func(i int, sent, end int64, out Outcome) {
				finish(ws[i], sent, sent, end, out)
			})
			for _, w := range ws {
				w.flush()
			}
			rec.loopCPU = loop.busiest()
			rec.loopSpun = loop.spun()
		}()
		sleepUntil(ctx, base, we)
		stop.Store(true)
	case !open:
		for i := 0; i < sc.workers; i++ {
			startWorker(func(c Client, w *workerRecorder) {
				for !stop.Load() {
					s := int64(time.Since(base))
					if s >= we {
						return // the window is over: send nothing into the next step
					}
					out := c.Do(ctx)
					finish(w, s, s, int64(time.Since(base)), out)
					think(ctx, c, base, we)
				}
			})
		}
		sleepUntil(ctx, base, we)
		stop.Store(true)
	default:
		queue := make(chan int64, 1<<16)
		var busy atomic.Int64 // workers with a request in hand
		work := func(c Client, w *workerRecorder) {
			for intended := range queue {
				s := int64(time.Since(base))
				switch {
				case s >= we:
					// Sent now, it would load the next step or the
					// drain: the generator did not keep the schedule.
					w.skip(intended)
					continue
				case intended < ws && s >= ws:
					// The warm-up's backlog: the window measures its
					// own schedule, not this one, which is not measured.
					continue
				}
				busy.Add(1)
				out := c.Do(ctx)
				e := int64(time.Since(base))
				busy.Add(-1)
				finish(w, intended, s, e, out)
			}
		}
		initial := min(sc.maxWorkers, max(1, int(sc.rate/1000)))
		for i := 0; i < initial; i++ {
			startWorker(work)
		}
		notSent = dispatch(ctx, base, ws, we, sc.rate, queue, func(backlog int) {
			mu.Lock()
			n := 0
			if int(busy.Load()) >= workers { // every worker is busy: add some
				n = min(backlog, sc.maxWorkers-workers)
			}
			mu.Unlock()
			for i := 0; i < n; i++ {
				startWorker(work)
			}
		})
		close(queue)
	}

	// Wait for requests in flight until drainGrace after the window's
	// end, then abandon them.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	grace := time.NewTimer(time.Duration(we) + drainGrace - time.Since(base))
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
		giveUpAt.Store(int64(time.Since(base)))
		giveUp.Store(true)
		cancel()
		mu.Lock()
		for _, c := range clients {
			c.Close()
		}
		mu.Unlock()
		if loop != nil {
			loop.Close()
		}
		<-done
	}
	for _, c := range clients {
		c.Close()
	}
	<-obsDone
	if err := parent.Err(); err != nil {
		return model.RampStep{}, err
	}
	rec.counts.notSent += notSent
	st := buildStep(sc, rec, obs, workers)
	keepForMerge(&st, rec, base.Add(time.Duration(ws)))
	return st, nil
}

// sleepUntil sleeps until at ns after base, or ctx is done; it reports
// whether it reached at.
func sleepUntil(ctx context.Context, base time.Time, at int64) bool {
	d := time.Duration(at) - time.Since(base)
	if d <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-tm.C:
		return true
	}
}

// schedule is the open loop's timetable: request i is intended to start
// at i/rate seconds after the step's base time.
type schedule float64 // ns between requests

func (s schedule) at(i int64) int64 { return int64(float64(i) * float64(s)) }

// first returns the index of the first request intended at or after t.
func (s schedule) first(t int64) int64 {
	i := int64(math.Ceil(float64(t) / float64(s)))
	for i > 0 && s.at(i-1) >= t {
		i--
	}
	for s.at(i) < t {
		i++
	}
	return i
}

// dispatch puts the intended start of each request, at rate per second
// from base until we, on queue, sleeping between sends. When requests
// are waiting for a worker it calls grow with the backlog.
//
// It never runs past the window's end (we): what it has not queued by
// then, because it could not keep up with the rate or the queue was
// full, is not sent, and it returns how many of those were scheduled in
// the measured window (from ws). Behind schedule when the window opens,
// it skips what was left of the warm-up, which is not measured.
func dispatch(ctx context.Context, base time.Time, ws, we int64, rate float64, queue chan<- int64, grow func(backlog int)) (notSent int64) {
	sched := schedule(1e9 / rate)
	end, first := sched.first(we), sched.first(ws)
	left := func(i int64) int64 { return end - max(i, first) }
	windowEnd := time.NewTimer(time.Duration(we) - time.Since(base))
	defer windowEnd.Stop()
	for i := int64(0); i < end; i++ {
		now := int64(time.Since(base))
		if now >= we {
			return left(i)
		}
		if i < first && now >= ws {
			if i = first; i >= end {
				return 0
			}
		}
		intended := sched.at(i)
		if d := time.Duration(intended - now); d > 50*time.Microsecond {
			if !sleepUntil(ctx, base, intended) {
				return 0
			}
		} else if ctx.Err() != nil {
			return 0
		}
		if b := len(queue); b > 0 {
			grow(b)
		}
		select {
		case queue <- intended:
		case <-windowEnd.C:
			return left(i)
		case <-ctx.Done():
			return 0
		}
	}
	return 0
}
