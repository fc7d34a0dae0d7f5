package observe

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/rigorbench/rigor/model"
)

// DefaultInterval is the Observer's sampling period when Start is given
// none: 4 samples a second. The kernel counts CPU time in ticks of 10 ms
// (USER_HZ=100), so a 250 ms window holds 25 ticks per CPU and resolves the
// CPU split to about 4% of a CPU; sampling faster would mostly add tick
// noise. The load average and pressure figures are kernel-smoothed over
// seconds anyway. One sample costs on the order of 100 µs of CPU, so 4 Hz
// keeps the observer far below its 1% CPU budget (see BenchmarkSnapshot
// and the package's overhead measurement).
const DefaultInterval = 250 * time.Millisecond

// An Observer samples the system in the background while a run measures,
// and attributes what it saw to the intervals the caller marks. Its methods
// are safe for concurrent use.
//
// The counters (CPU time, context switches, bytes moved, stall time) are
// interpolated at each interval's ends, so an interval shorter than the
// sampling period still gets a value: the rate of the period around it.
// A boundary after an interval of a quarter period or more asks for an
// extra sample (at most four per period), so intervals that last a period
// or more have boundaries close to exact.
type Observer struct {
	interval time.Duration
	self     bool
	rd       *reader
	now      chan struct{}
	done     chan struct{}
	exited   chan struct{}

	mu sync.Mutex
	// last is when the sampler last took a sample on a tick or a mark's
	// request: a mark asks for another only a quarter period after it.
	last    time.Time
	snaps   []snapshot
	marks   []mark
	start   time.Time
	stopped bool
	result  []model.Observation
	// interim holds the observations Observations built, of the first
	// built marks' intervals; stale is set when a process or profile was
	// attached to one of those intervals after it was built, so that Stop
	// builds them again.
	interim []model.Observation
	built   int
	stale   bool
	rt      *RuntimeSampler     // self mode
	usage   *model.ProcessStats // self mode: rusage at the last boundary
	io      *selfIO             // nil where /proc/self/io cannot be read
	io0     ioCounts            // the storage counters at Start
	ioEnd   ioCounts            // and at Stop
}

// A mark starts an interval.
type mark struct {
	t         time.Time
	benchmark string
	side      string
	round     int
	paused    bool // the interval belongs to nothing
	proc      *model.ProcessStats
	// rigor is rigor's own CPU time over the interval (not self mode),
	// from rigor0, its CPU time when the interval began.
	rigor, rigor0 float64
	// io0 and io1 are this process's storage counters when the interval
	// began and ended (see model.Observation.StorageIO); unknown (not
	// ok) without them.
	io0, io1 ioCounts
	prof     *model.ProfileStats
	rt       *model.RuntimeStats
}

// Start begins sampling the system every interval (DefaultInterval when
// interval <= 0) until Stop is called or ctx is done. The measured
// processes are separate (go test binaries): attach what they did with
// AddProcess. Where the system cannot be read (not Linux), observations
// carry no system statistics but everything else still works.
func Start(ctx context.Context, interval time.Duration, opts ...Option) *Observer {
	return start(ctx, interval, false, opts)
}

// StartSelf is Start for in-process runs: the measured code runs in this
// process, so at every Mark the Observer also records this process's
// rusage and Go runtime metrics (GC, allocations, scheduling latency,
// mutex wait) for the interval that ends.
func StartSelf(ctx context.Context, interval time.Duration, opts ...Option) *Observer {
	return start(ctx, interval, true, opts)
}

// An Option changes what an Observer records.
type Option func(*options)

type options struct {
	noStorageIO bool
}

// WithoutStorageIO leaves Observation.StorageIO out: no read of
// /proc/self/io (about 2 µs of system time) at every boundary. For a
// caller that marks boundaries often and whose notes never read it:
// rigor exec takes no CPU profile, without which there is no page cache
// note.
func WithoutStorageIO() Option {
	return func(o *options) { o.noStorageIO = true }
}

func start(ctx context.Context, interval time.Duration, self bool, opts []Option) *Observer {
	if interval <= 0 {
		interval = DefaultInterval
	}
	var opt options
	for _, f := range opts {
		f(&opt)
	}
	o := &Observer{
		interval: interval,
		self:     self,
		now:      make(chan struct{}, 1),
		done:     make(chan struct{}),
		exited:   make(chan struct{}),
		start:    time.Now(),
	}
	if self {
		o.rt = NewRuntimeSampler()
		o.usage = selfUsage()
	}
	if rd, err := newReader(); err == nil {
		o.rd = rd
	}
	if !opt.noStorageIO {
		o.io = openSelfIO()
		o.io0 = o.io.read()
	}
	ready := make(chan struct{})
	go o.loop(ctx, ready)
	<-ready // the first snapshot exists before Start returns
	return o
}

// loop runs on its own OS thread, so that the thread's CPU clock is the
// observer's own cost.
func (o *Observer) loop(ctx context.Context, ready chan struct{}) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(o.exited)
	o.sample()
	close(ready)
	if o.rd == nil {
		<-o.done
		return
	}
	tick := time.NewTicker(o.interval)
	defer tick.Stop()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.done:
			o.sample()
			return
		case <-tick.C:
			last = o.sample()
			o.setLast(last)
		case <-o.now:
			if time.Since(last) >= o.interval/4 {
				last = o.sample()
				o.setLast(last)
			}
		}
	}
}

func (o *Observer) setLast(t time.Time) {
	o.mu.Lock()
	o.last = t
	o.mu.Unlock()
}

// sample takes a snapshot and keeps it; it returns the snapshot's time.
func (o *Observer) sample() time.Time {
	if o.rd == nil {
		return time.Now()
	}
	s, err := o.rd.read()
	if err != nil {
		return time.Now()
	}
	o.mu.Lock()
	o.snaps = append(o.snaps, s)
	o.mu.Unlock()
	return s.t
}

// Mark says that from now until the next Mark, Pause or Stop, the run is
// measuring benchmark (a model.Benchmark's Key, or "" for all benchmarks
// of a process) on side in round. It is cheap: it records the time and,
// when the interval it ends lasted a quarter period or more, asks the
// sampler for a fresh sample without waiting for it.
func (o *Observer) Mark(benchmark, side string, round int) {
	o.boundary(mark{benchmark: benchmark, side: side, round: round})
}

// Pause ends the current interval without starting another: what happens
// until the next Mark (building, parsing, waiting) belongs to no benchmark.
func (o *Observer) Pause() {
	o.boundary(mark{paused: true})
}

func (o *Observer) boundary(m mark) {
	m.t = time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return
	}
	o.closeSelf()
	o.closeRigor(&m)
	o.closeIO(&m)
	// Ask for a sample only when the interval that ends lasted a quarter
	// period or more, and the sampler would take one (a quarter period
	// after its last). A short interval gets the rate of the period
	// around it whatever the samples' spacing, so samples asked for
	// between the short intervals of a quick command make no boundary
	// more exact; they cost rigor exec, marking two boundaries per run of
	// a 1 ms command, about half a millisecond of CPU each, four per
	// period instead of one (BenchmarkSnapshot). Waking the sampler's
	// thread at every boundary cost two futex wake-ups and thread
	// switches per run besides.
	var prev time.Time
	if n := len(o.marks); n > 0 {
		prev = o.marks[n-1].t
	}
	o.marks = append(o.marks, m)
	if !wantsSample(prev, o.last, m.t, o.interval) {
		return
	}
	select {
	case o.now <- struct{}{}:
	default:
	}
}

// wantsSample reports whether a boundary at now, the previous one at prev
// (zero: none) and the sampler's last sample at last, asks for a sample:
// when the interval that ends lasted a quarter period or more, and the
// last sample is a quarter period old.
func wantsSample(prev, last, now time.Time, interval time.Duration) bool {
	q := interval / 4
	return (prev.IsZero() || now.Sub(prev) >= q) && now.Sub(last) >= q
}

// closeRigor records, when the measured processes are separate, rigor's
// own CPU time over the interval that ends now, and where the next, m,
// starts from. o.mu is held.
func (o *Observer) closeRigor(m *mark) {
	if o.self {
		return
	}
	now := selfCPUSec()
	if n := len(o.marks); n > 0 && !o.marks[n-1].paused && now >= 0 && o.marks[n-1].rigor0 >= 0 {
		o.marks[n-1].rigor = now - o.marks[n-1].rigor0
	}
	if m != nil {
		m.rigor0 = now
	}
}

// closeIO records this process's storage I/O over the interval that
// ends now, and where the next, m, starts from; it returns the counters
// it read. o.mu is held.
func (o *Observer) closeIO(m *mark) ioCounts {
	if o.io == nil {
		return ioCounts{}
	}
	now := o.io.read()
	if n := len(o.marks); n > 0 && !o.marks[n-1].paused {
		o.marks[n-1].io1 = now
	}
	if m != nil {
		m.io0 = now
	}
	return now
}

// closeSelf records, in self mode, this process's usage and runtime
// metrics for the interval that ends now. o.mu is held.
func (o *Observer) closeSelf() {
	if !o.self {
		return
	}
	usage := selfUsage()
	rt := o.rt.Sample()
	if n := len(o.marks); n > 0 && !o.marks[n-1].paused {
		m := &o.marks[n-1]
		m.rt = rt
		if usage != nil && o.usage != nil {
			m.proc = &model.ProcessStats{
				PID:            usage.PID,
				UserSec:        usage.UserSec - o.usage.UserSec,
				SystemSec:      usage.SystemSec - o.usage.SystemSec,
				VoluntaryCtx:   usage.VoluntaryCtx - o.usage.VoluntaryCtx,
				InvoluntaryCtx: usage.InvoluntaryCtx - o.usage.InvoluntaryCtx,
				MaxRSSBytes:    usage.MaxRSSBytes,
			}
		}
	}
	o.usage = usage
}

// AddProcess attaches a measured process's resource usage (see
// ProcessStats) to the current interval. Several processes in one interval
// add up: CPU and context switches are summed, the peak RSS is the largest.
// Call it after the process exits and before the next Mark.
func (o *Observer) AddProcess(ps *model.ProcessStats) {
	if ps == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	i := o.current()
	if i < 0 {
		return
	}
	o.touch(i)
	m := &o.marks[i]
	if m.proc == nil {
		c := *ps
		m.proc = &c
		return
	}
	m.proc.PID = 0 // several processes
	m.proc.UserSec += ps.UserSec
	m.proc.SystemSec += ps.SystemSec
	m.proc.VoluntaryCtx += ps.VoluntaryCtx
	m.proc.InvoluntaryCtx += ps.InvoluntaryCtx
	m.proc.MaxRSSBytes = max(m.proc.MaxRSSBytes, ps.MaxRSSBytes)
}

// AddProfile attaches a CPU profile summary (see ReadCPUProfile) of the
// measured process to the current interval, replacing any earlier one.
func (o *Observer) AddProfile(p *model.ProfileStats) {
	if p == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if i := o.current(); i >= 0 {
		o.touch(i)
		o.marks[i].prof = p
	}
}

// touch notes that o.marks[i] changes: an observation built of it
// before is stale. o.mu is held.
func (o *Observer) touch(i int) {
	if i < o.built {
		o.stale = true
	}
}

// current is the index of the last labelled interval in o.marks, or -1.
// o.mu is held.
func (o *Observer) current() int {
	for i := len(o.marks) - 1; i >= 0; i-- {
		if !o.marks[i].paused {
			return i
		}
	}
	return -1
}

// Stop ends sampling and returns one Observation per marked interval, in
// order (paused intervals are left out). Without any Mark it returns one
// unlabelled Observation for the whole time since Start. Later calls
// return the same result.
func (o *Observer) Stop() []model.Observation {
	o.mu.Lock()
	if o.stopped {
		defer o.mu.Unlock()
		return o.result
	}
	end := time.Now()
	o.closeSelf()
	o.closeRigor(nil)
	o.ioEnd = o.closeIO(nil)
	o.io.close()
	o.stopped = true
	o.mu.Unlock()

	close(o.done)
	<-o.exited

	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.snaps); o.rd != nil && (n == 0 || o.snaps[n-1].t.Before(end)) {
		// The sampler ended early (ctx done): close the record here. The
		// observer's CPU counter belongs to the sampler's thread, so the
		// last known value carries over.
		if s, err := o.rd.read(); err == nil {
			if n > 0 {
				s.c[cObserver] = o.snaps[n-1].c[cObserver]
			} else {
				s.c[cObserver] = 0
			}
			o.snaps = append(o.snaps, s)
		}
	}
	marks := o.marks
	if len(marks) == 0 {
		marks = []mark{{t: o.start, io0: o.io0, io1: o.ioEnd}}
	}
	// The intervals Observations built are final (the sampler had read
	// past their ends), unless something was attached to one since.
	from := 0
	if !o.stale {
		o.result, from = slices.Clip(o.interim), o.built
	}
	for i := from; i < len(marks); i++ {
		m := marks[i]
		if m.paused {
			continue
		}
		t1 := end
		if i+1 < len(marks) {
			t1 = marks[i+1].t
		}
		o.result = append(o.result, o.observation(m, t1))
	}
	return o.result
}

// Observations returns, without stopping, an Observation for every
// interval that has ended and that the sampler has read past: what an
// interim look of a stopping rule can know of the system so far. An
// interval still open, or one whose end came after the last sample, waits
// for a later call (or Stop), so its numbers are never extrapolated.
// After Stop it returns what Stop did.
func (o *Observer) Observations() []model.Observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return slices.Clone(o.result)
	}
	var read time.Time
	if n := len(o.snaps); n > 0 {
		read = o.snaps[n-1].t
	}
	// An interval read past is final: build each once, not at every look
	// (a long run looks after every round).
	for ; o.built+1 < len(o.marks); o.built++ {
		m, t1 := o.marks[o.built], o.marks[o.built+1].t
		if o.rd != nil && t1.After(read) {
			break // the sampler has not read past its end yet
		}
		if !m.paused {
			o.interim = append(o.interim, o.observation(m, t1))
		}
	}
	return slices.Clone(o.interim)
}

// observation is mark m's interval, ending at t1. o.mu is held.
func (o *Observer) observation(m mark, t1 time.Time) model.Observation {
	obs := model.Observation{
		Start:     m.t,
		Duration:  t1.Sub(m.t),
		Benchmark: m.benchmark,
		Side:      m.side,
		Round:     m.round,
		System:    systemStats(o.snaps, m.t, t1),
		Process:   m.proc,
		Runtime:   m.rt,
		Profile:   m.prof,
		StorageIO: storageIO(m.io0, m.io1),
	}
	if !o.self {
		obs.RigorCPUSec = max(m.rigor, 0)
	}
	obs.OtherCPU = otherCPU(&obs, o.self)
	return obs
}

// otherCPU is the fraction of all CPUs that processes other than the
// measured one and rigor's own kept busy during the observation; 0 when it
// cannot be told.
func otherCPU(obs *model.Observation, self bool) float64 {
	busy, capacity, ok := otherCPUSec(obs, self)
	if !ok {
		return 0
	}
	return min(1, max(0, busy/capacity))
}

// otherCPUSec is the CPU time (seconds) that processes other than the
// measured one and rigor's own used during obs, and the CPU time the
// machine had, or false when it cannot be told. The first may be below
// zero: the system's counters are ticks of 10 ms interpolated between
// snapshots, so over a short interval some of a neighbouring interval's
// work lands in this one and some of this one's in the next; a sum over
// many intervals (aggregateOf) evens that out, where clamping each would
// not.
func otherCPUSec(obs *model.Observation, self bool) (busy, capacity float64, ok bool) {
	s, p := obs.System, obs.Process
	dur := obs.Duration.Seconds()
	if s == nil || p == nil || s.CPUs <= 0 || dur <= 0 {
		return 0, 0, false
	}
	capacity = float64(s.CPUs) * dur
	busy = (s.User + s.System) * capacity
	busy -= p.UserSec + p.SystemSec
	switch {
	case self: // the observer's thread is part of p
	case obs.RigorCPUSec > 0: // the observer's thread is part of rigor's process
		busy -= obs.RigorCPUSec
	default:
		busy -= s.ObserverCPUSec
	}
	return busy, capacity, true
}
