package load

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// Thresholds behind a step's validity and the headline.
const (
	// A step whose generator used this fraction of its CPUs may have
	// measured the generator.
	saturatedCPU = 0.90
	// An open-loop step that sent less than this fraction of the offered
	// rate did not apply the load it claims.
	minAchieved = 0.95
	// Without an SLO the headline is the first step within this fraction
	// of the best throughput: more load bought less than this.
	kneeHeadlineGain = 0.10
	// How long a step waits for requests in flight after its window.
	drainGrace = 2 * time.Second
)

// inProcessTarget is implemented by targets that run in the generator's
// process, whose CPU is therefore both the generator's and the target's.
type inProcessTarget interface{ inProcess() bool }

func isInProcess(t Target) bool {
	ip, ok := t.(inProcessTarget)
	return ok && ip.inProcess()
}

// Ramp runs cfg's steps against t, one after another, and returns the
// measurements with the fitted models, the headline and the bottleneck.
// When ctx is cancelled it returns the steps completed so far, with
// Stopped saying so.
func Ramp(ctx context.Context, t Target, cfg Config) (*model.Ramp, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	warm := cfg.Warmup
	if warm == 0 {
		warm = DefaultWarmup
	} else if warm < 0 {
		warm = 0
	}
	dur := cfg.Duration
	if dur == 0 {
		dur = DefaultDuration
	}
	r := &model.Ramp{
		Target:       t.Name(),
		Protocol:     t.Protocol(),
		Mode:         model.RampClosed,
		Warmup:       warm,
		StepDuration: dur,
		CPUs:         runtime.NumCPU(),
		SLO:          cfg.SLO,
	}
	if cfg.Name != "" {
		r.Target = cfg.Name
	}
	n := len(cfg.Concurrency)
	if len(cfg.Rates) > 0 {
		r.Mode = model.RampOpen
		n = len(cfg.Rates)
	}
	if cfg.PID > 0 {
		if _, err := pidSample(cfg.PID); err != nil {
			return nil, err
		}
	}

	var stop stopper
	for i := 0; i < n; i++ {
		sc := stepConfig{index: i, warmup: warm, duration: dur, pid: cfg.PID, inProcess: isInProcess(t)}
		if r.Mode == model.RampOpen {
			sc.rate = cfg.Rates[i]
			sc.maxWorkers = cfg.MaxWorkers
			if sc.maxWorkers <= 0 {
				sc.maxWorkers = DefaultMaxWorkers
			}
		} else {
			sc.workers = cfg.Concurrency[i]
		}
		st, err := runStep(ctx, t, sc)
		if err != nil {
			if ctx.Err() != nil {
				r.Stopped = fmt.Sprintf("interrupted during step %d of %d", i+1, n)
				break
			}
			return nil, err
		}
		why := stop.after(&cfg, &st, n)
		r.Steps = append(r.Steps, st)
		if cfg.Progress != nil {
			cfg.Progress(st)
		}
		if why != "" {
			r.Stopped = why
			break
		}
	}
	if r.Mode == model.RampClosed {
		fitRamp(r)
	} else if len(r.Steps) > 0 {
		r.Notes = append(r.Notes, "open loop: the scalability models are fitted to closed-loop (--concurrency) steps only")
	}
	r.Headline = headline(r, cfg.SLO)
	r.Bottleneck = diagnose(r)
	return r, nil
}

// stopper decides after each step whether the ramp goes on.
type stopper struct {
	best    float64 // the best throughput so far
	lowGain int     // consecutive steps that gained less than the knee
}

// after sets step st's gain over the best earlier step and whether it met
// cfg's SLO, and returns why the ramp stops after it, or "" to go on. n
// is the number of planned steps.
func (s *stopper) after(cfg *Config, st *model.RampStep, n int) string {
	i := st.Index
	if i > 0 && s.best > 0 {
		st.Gain = st.Throughput/s.best - 1
	}
	checkSLO(st, cfg.SLO)
	if i == n-1 {
		return ""
	}
	if cfg.SLO != nil && st.Valid && !st.SLOMet && !cfg.KeepGoing {
		return fmt.Sprintf("step %d broke the SLO (%s); later steps would only break it further", i+1, st.SLOMiss)
	}
	if i > 0 && cfg.Knee > 0 && s.best > 0 {
		if st.Gain < cfg.Knee {
			s.lowGain++
		} else {
			s.lowGain = 0
		}
		if s.lowGain >= 2 {
			return fmt.Sprintf("past the knee: two consecutive steps raised throughput by less than %.0f%%", cfg.Knee*100)
		}
	}
	s.best = max(s.best, st.Throughput)
	return ""
}

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
	ws := int64(sc.warmup)
	we := ws + int64(sc.duration)
	base := time.Now()
	rec := newStepRecorder(open, ws, we)

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
	if !open {
		for i := 0; i < sc.workers; i++ {
			startWorker(func(c Client, w *workerRecorder) {
				for !stop.Load() {
					s := int64(time.Since(base))
					if s >= we {
						return // the window is over: send nothing into the next step
					}
					out := c.Do(ctx)
					finish(w, s, s, int64(time.Since(base)), out)
				}
			})
		}
		sleepUntil(ctx, base, we)
		stop.Store(true)
	} else {
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
	return buildStep(sc, rec, obs, workers), nil
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

// buildStep turns a step's recordings into a RampStep, judging whether it
// measured the target or the generator.
func buildStep(sc stepConfig, rec *stepRecorder, obs [2]observation, workers int) model.RampStep {
	secs := sc.duration.Seconds()
	completed := rec.successes + rec.failures
	st := model.RampStep{
		Index:       sc.index,
		Concurrency: workers,
		Rate:        sc.rate,
		Duration:    sc.duration,
		Requests:    completed,
		Successes:   rec.successes,
		Errors:      rec.errorCounts(),
		InFlight:    rec.counts.inFlight,
		Unfinished:  rec.counts.unfinished,
		NotSent:     rec.counts.notSent,
		Throughput:  float64(rec.successes) / secs,
		Achieved:    float64(completed) / secs,
		BytesPerSec: float64(rec.bytes) / secs,
		Latency:     summarize(rec.lat),
		Valid:       true,
	}
	st.Offered = st.Achieved
	if sc.rate > 0 {
		st.Offered = sc.rate
		st.Achieved = float64(rec.sent) / secs
		svc := summarize(rec.svc)
		st.ServiceLatency = &svc
	}
	if completed > 0 {
		st.ErrorRate = float64(rec.failures) / float64(completed)
	}
	if rec.errLat.TotalCount() > 0 {
		e := summarize(rec.errLat)
		st.ErrorLatency = &e
	}

	cpus := float64(runtime.NumCPU())
	a, b := obs[0], obs[1]
	st.Generator.Workers = workers
	if a.self.ok && b.self.ok {
		st.Generator.UserSec = (b.self.user - a.self.user).Seconds()
		st.Generator.SystemSec = (b.self.sys - a.self.sys).Seconds()
		wall := b.self.whenMonotonic.Sub(a.self.whenMonotonic).Seconds()
		if wall > 0 {
			st.Generator.CPU = (st.Generator.UserSec + st.Generator.SystemSec) / wall / cpus
		}
	}
	st.Generator.SchedLatencyP99 = schedP99(a.sched, b.sched)
	if a.machine.ok && b.machine.ok && b.machine.total > a.machine.total {
		st.MachineCPU = float64(b.machine.busy-a.machine.busy) / float64(b.machine.total-a.machine.total)
	}
	if a.target.ok && b.target.ok {
		ts := &model.TargetStats{}
		ts.PID = sc.pid
		ts.UserSec = (b.target.user - a.target.user).Seconds()
		ts.SystemSec = (b.target.sys - a.target.sys).Seconds()
		ts.VoluntaryCtx = b.target.vol - a.target.vol
		ts.InvoluntaryCtx = b.target.nonvol - a.target.nonvol
		if wall := b.target.whenMonotonic.Sub(a.target.whenMonotonic).Seconds(); wall > 0 {
			ts.CPU = (ts.UserSec + ts.SystemSec) / wall / cpus
			if a.target.hasRunq && b.target.hasRunq {
				ts.RunQueueSec = max(0, (b.target.runq - a.target.runq).Seconds())
				ts.Demand = ts.CPU + ts.RunQueueSec/wall/cpus
			}
		}
		if completed > 0 {
			ts.CtxPerRequest = float64(ts.VoluntaryCtx) / float64(completed)
		}
		st.Target = ts
	}

	// Did this step measure the target, or the generator?
	switch {
	case completed == 0:
		st.Valid = false
		st.Invalid = "no request completed in the measured window"
	case sc.rate > 0 && st.Achieved < minAchieved*sc.rate:
		st.Valid = false
		st.Invalid = fmt.Sprintf("sent %.0f/s of the %.0f/s offered (%.0f%%, below %.0f%%): the schedule was not kept, so the load was not what it claims",
			st.Achieved, sc.rate, 100*st.Achieved/sc.rate, 100*minAchieved)
	case st.Generator.CPU >= saturatedCPU && !sc.inProcess:
		st.Valid = false
		st.Invalid = fmt.Sprintf("the generator used %.0f%% of %d CPUs: it was saturated, so this step may have measured the generator", 100*st.Generator.CPU, int(cpus))
	}
	if st.Generator.CPU >= saturatedCPU && sc.inProcess {
		st.Notes = append(st.Notes, fmt.Sprintf("the process used %.0f%% of %d CPUs; the target runs in the generator's process, so this is both", 100*st.Generator.CPU, int(cpus)))
	}
	if t := st.Target; t != nil && sc.pid > 0 && completed > 100 && t.UserSec+t.SystemSec == 0 && t.VoluntaryCtx+t.InvoluntaryCtx < completed/100 {
		st.Notes = append(st.Notes, fmt.Sprintf("process %d used no CPU while %d requests were served: is it the target?", sc.pid, completed))
	}
	if c := rec.counts; c.unfinished > 0 || c.inFlight > 0 && c.inFlightMax > c.doneMax {
		// Only when they set the maximum: every closed-loop step ends
		// with its workers' requests in flight, most of them ordinary.
		abandoned := ""
		if c.unfinished > 0 {
			abandoned = fmt.Sprintf(", %d of them abandoned %v after it", c.unfinished, drainGrace)
		}
		st.Notes = append(st.Notes, fmt.Sprintf("%s still in flight when the window ended, the slowest for %v, longer than any request completed in the window%s: they are in the latency at their age (at least their age at the window's end), not in the throughput",
			words.Count(c.inFlight, "request was", "requests were"), fmtDur(time.Duration(c.inFlightMax)), abandoned))
	}
	if n := rec.counts.notSent; n > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("%s scheduled in the window never sent: the generator could not offer %s/s (it sent %.0f/s); they are in no latency",
			words.Count(n, "request", "requests"), strconv.FormatFloat(sc.rate, 'f', -1, 64), st.Achieved))
	}
	if n, classes := redirects(st.Errors); n > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("%s (%s): rigor does not follow redirects, and a response counts as a success only when its status is a success code (by default 2xx; see --success-codes)",
			words.Count(n, "response was a redirect", "responses were redirects"), classes))
	}
	if p := st.Generator.SchedLatencyP99; p > 0 && st.Latency.P50 > 0 && p > st.Latency.P50/2 && p > 100*time.Microsecond {
		st.Notes = append(st.Notes, fmt.Sprintf("the generator's goroutines waited up to %v (p99) to run, against a median latency of %v: latencies include time spent queued in the generator",
			fmtDur(p), fmtDur(st.Latency.P50)))
	}
	if st.ErrorLatency != nil && st.Successes > 0 && st.ErrorLatency.P50 < st.Latency.P50 {
		st.Notes = append(st.Notes, fmt.Sprintf("failed requests were faster than successful ones (median %v vs %v): they are left out of throughput and latency, which they would flatter",
			fmtDur(st.ErrorLatency.P50), fmtDur(st.Latency.P50)))
	}
	return st
}

// redirects counts the failed requests whose status was a redirect (3xx)
// and names their classes.
func redirects(errs []model.ErrorCount) (int64, string) {
	var n int64
	var classes []string
	for _, e := range errs {
		if code, ok := strings.CutPrefix(e.Class, "status 3"); ok && len(code) == 2 {
			n += e.Count
			classes = append(classes, e.Class)
		}
	}
	return n, strings.Join(classes, ", ")
}

// checkSLO sets whether a step met the SLO and, if not, why.
func checkSLO(st *model.RampStep, slo *model.RampSLO) {
	if slo == nil {
		return
	}
	var miss []string
	if !st.Valid {
		miss = append(miss, "the step is invalid")
	}
	if st.Successes == 0 {
		miss = append(miss, "no request succeeded")
	}
	if slo.Latency > 0 && st.Successes > 0 {
		got, _ := st.Latency.Percentile(slo.Percentile)
		if got > slo.Latency {
			miss = append(miss, fmt.Sprintf("%s %v > %v", percentileName(slo.Percentile), fmtDur(got), slo.Latency))
		}
	}
	if slo.MaxErrorRate != nil && st.ErrorRate > *slo.MaxErrorRate {
		miss = append(miss, fmt.Sprintf("errors %.2f%% > %.2f%%", 100*st.ErrorRate, 100**slo.MaxErrorRate))
	}
	st.SLOMet = len(miss) == 0
	st.SLOMiss = joinPlain(miss)
}

func percentileName(p float64) string {
	if p == 100 {
		return "max"
	}
	return fmt.Sprintf("p%g", p)
}

func joinPlain(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}
