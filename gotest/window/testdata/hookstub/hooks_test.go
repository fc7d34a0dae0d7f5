package testing

import (
	"encoding/binary"
	"strconv"
	"syscall"
	st "testing"
	"time"
	"unsafe"
)

// A machine is what the hooks see of a starved one: the process's threads'
// schedstat figures, which a test moves as the kernel would (a wait is
// added to a thread's run-queue delay when the thread gets a CPU again),
// and a clock.
type machine struct {
	now     int64
	threads []*thread // by file descriptor, less fdBase
	self    int       // the thread calling the hooks: the benchmark's
	// readDelay is how long the calling thread waits for a CPU, queued
	// behind other processes, while it reads another thread's file.
	readDelay int64
	failStart map[int]bool // threads whose file cannot be read at the timer's start
	failStop  map[int]bool // threads whose file cannot be read once the window began
	started   bool
	pid       int // the main thread's id (0: the first thread's)

	// The hardware counters: perfOpenErr fails a thread's opens, readFail
	// a thread's reads once the window began.
	perfOpens   []perfOpen
	perfOpenErr map[int]error
	perfFail    map[int]bool

	// The status files: status, whether the hooks open them;
	// statusReads, how many times each thread's was read;
	// statusFailStop, threads whose status file cannot be read once the
	// window began.
	status         bool
	statusReads    map[int]int
	statusFailStop map[int]bool
	// rusageCalls is how many times each thread called getrusage.
	rusageCalls map[int]int
	// moves are the threads the calling goroutine is on at the next calls
	// of gettid or getrusage, one a call: the scheduler moving it.
	moves []int
}

type thread struct {
	tid        int
	exec, wait int64
	// pcount is how many times it was scheduled in; vol and inv its
	// voluntary and involuntary context switches (block, wake, preempt
	// move them).
	pcount, vol, inv int64
	// Counted so far by the thread's counters of instructions and cycles,
	// and how long they were enabled and running (on the hardware).
	instr, cycles    uint64
	enabled, running uint64
}

// perfOpen is a call of perf_event_open.
type perfOpen struct {
	attr            rigorPerfAttr
	pid, cpu, group int
	flags           uintptr
}

// perfFDBase is the first simulated counter's file descriptor: above any
// real one. A counter's is perfFDBase + 2*(index of its thread) + k, k 0
// for instructions and 1 for cycles.
const perfFDBase = 1 << 29

// run moves thread tid on by n instructions and 2n cycles, in n ns, its
// counters on the hardware all the while.
func (m *machine) run(tid int, n uint64) {
	th := m.thread(tid)
	th.instr += n
	th.cycles += 2 * n
	th.enabled += n
	th.running += n
}

func (m *machine) thread(tid int) *thread {
	for _, t := range m.threads {
		if t.tid == tid {
			return t
		}
	}
	panic("no thread " + strconv.Itoa(tid))
}

// install makes the hooks read m.
func (m *machine) install(t *st.T, b *B) {
	pread, gettid, getpid, cpu := rigorPread, rigorGettid, rigorGetpid, rigorCPU
	t.Cleanup(func() { rigorPread, rigorGettid, rigorGetpid, rigorCPU = pread, gettid, getpid, cpu })
	rigorGettid = func() int {
		if len(m.moves) > 0 {
			m.self, m.moves = m.moves[0], m.moves[1:]
		}
		return m.self
	}
	rigorGetpid = func() int {
		if m.pid == 0 {
			return m.threads[0].tid
		}
		return m.pid
	}
	// The process's CPU clock: every thread's time on a CPU.
	rigorCPU = func() int64 {
		var sum int64
		for _, th := range m.threads {
			sum += th.exec
		}
		return sum
	}
	rigorPread = func(fd int, p []byte, off int64) (int, error) {
		th := m.threads[fd-fdBase]
		if th.tid != m.self {
			r := m.thread(m.self)
			r.wait += m.readDelay
			m.now += m.readDelay
		}
		if !m.started && m.failStart[th.tid] || m.started && m.failStop[th.tid] {
			return 0, syscall.ESRCH
		}
		return copy(p, strconv.FormatInt(th.exec, 10)+" "+strconv.FormatInt(th.wait, 10)+" "+strconv.FormatInt(th.pcount, 10)+"\n"), nil
	}
	schedstat := rigorPread
	rigorPread = func(fd int, p []byte, off int64) (int, error) {
		if fd < statusFDBase {
			return schedstat(fd, p, off)
		}
		th := m.threads[fd-statusFDBase]
		if m.statusReads == nil {
			m.statusReads = map[int]int{}
		}
		m.statusReads[th.tid]++
		if m.started && m.statusFailStop[th.tid] {
			return 0, syscall.ESRCH
		}
		// The lines around the count as Linux 6 writes them, the
		// involuntary count's name ending in the voluntary one's.
		return copy(p, "Name:\tcheck.test\nState:\tR (running)\nTgid:\t100\nvoluntary_ctxt_switches:\t"+strconv.FormatInt(th.vol, 10)+
			"\nnonvoluntary_ctxt_switches:\t"+strconv.FormatInt(th.inv, 10)+"\n"), nil
	}
	rusage := rigorRusage
	t.Cleanup(func() { rigorRusage = rusage })
	rigorRusage = func(ru *syscall.Rusage) error {
		if m.rusageCalls == nil {
			m.rusageCalls = map[int]int{}
		}
		if len(m.moves) > 0 {
			m.self, m.moves = m.moves[0], m.moves[1:]
		}
		m.rusageCalls[m.self]++
		*ru = syscall.Rusage{Nvcsw: m.thread(m.self).vol, Nivcsw: m.thread(m.self).inv}
		return nil
	}
	perfOpen, perfRead := rigorPerfOpen, rigorPerfRead
	t.Cleanup(func() { rigorPerfOpen, rigorPerfRead = perfOpen, perfRead })
	rigorPerfOpen = m.perfOpen
	rigorPerfRead = m.perfRead
}

// block makes thread tid block n times (sleep and be woken, or wait on I/O
// or a futex): n voluntary switches, and as many times scheduled in again.
func (m *machine) block(tid int, n int64) {
	th := m.thread(tid)
	th.vol += n
	th.pcount += n
}

// preempt makes another process take thread tid's CPU n times: n
// involuntary switches.
func (m *machine) preempt(tid int, n int64) {
	th := m.thread(tid)
	th.inv += n
	th.pcount += n
}

// statusFDBase is the file descriptor of the first simulated thread's
// status file, above the schedstat files'.
const statusFDBase = fdBase + 1<<20

// perfOpen is perf_event_open on m: counters of instructions and cycles.
func (m *machine) perfOpen(attr *rigorPerfAttr, pid, cpu, group int, flags uintptr) (int, error) {
	m.perfOpens = append(m.perfOpens, perfOpen{*attr, pid, cpu, group, flags})
	if err := m.perfOpenErr[pid]; err != nil {
		return -1, err
	}
	for i, th := range m.threads {
		if th.tid == pid {
			switch attr.config {
			case 1:
				return perfFDBase + 2*i, nil
			case 0:
				return perfFDBase + 2*i + 1, nil
			}
			return -1, syscall.ENOENT
		}
	}
	return -1, syscall.ESRCH
}

// perfRead reads a counter on m: its value, time enabled, time running.
func (m *machine) perfRead(fd int, p []byte) (int, error) {
	th := m.threads[(fd-perfFDBase)/2]
	if m.started && m.perfFail[th.tid] {
		return 0, syscall.EIO
	}
	v := th.instr
	if (fd-perfFDBase)%2 == 1 {
		v = th.cycles
	}
	if len(p) < 24 {
		return 0, syscall.EINVAL
	}
	binary.NativeEndian.PutUint64(p, v)
	binary.NativeEndian.PutUint64(p[8:], th.enabled)
	binary.NativeEndian.PutUint64(p[16:], th.running)
	return 24, nil
}

// open lists m's threads for the hooks, as rigorWindowOpen does the
// process's before each run of the benchmark function.
func (m *machine) open(b *B) {
	w := &b.rigorWin
	w.waitOK = true
	w.threads = w.threads[:0]
	w.cpuOK = true
	for fd, th := range m.threads {
		w.threads = append(w.threads, rigorThread{fd: fdBase + fd, tid: th.tid, readInWin: true,
			sfd: statusFDBase + fd, statusOpen: m.status})
	}
	if w.status == nil {
		w.status = new([4096]byte)
	}
	w.sysmon = rigorSysmon(w.threads, rigorGetpid())
	rigorCloseSysmonStatus(w)
}

// window runs one run of a benchmark function with one timed window, as
// testing's runN, StartTimer and StopTimer do (the hooks, then the wall
// clock; the wall clock, then the hooks), work moving the machine inside
// it, and reports it for n operations.
func (m *machine) window(b *B, n int, work func()) (wait, wall float64) {
	m.open(b)
	b.duration = 0 // as ResetTimer does
	rigorWindowReset(b)
	m.started = false
	rigorWindowStart(b)
	m.started = true
	t0 := m.now
	work()
	b.duration += time.Duration(m.now - t0)
	rigorWindowStop(b)
	b.N = n
	b.extra = map[string]float64{}
	rigorWindowReport(b)
	v, ok := b.extra["wait-ns/op"]
	if !ok {
		panic("no wait-ns/op")
	}
	return v * float64(n), float64(b.duration)
}

const ms = int64(time.Millisecond)

// fdBase is the file descriptor of the first simulated thread's file:
// above any real one, so that the hooks closing them closes nothing.
const fdBase = 1 << 30

// A starved machine keeps the benchmark's thread waiting while it reads the
// other threads' files, outside the window (a second each here, beside
// 10 ms of work, the 195x of a starved A/A run): that wait is not the
// window's.
func TestReadPhaseWaitIsNotTheWindows(t *st.T) {
	m := &machine{self: 11, readDelay: 1000 * ms}
	for _, tid := range []int{11, 12, 13, 14} { // the benchmark's thread first, as /proc lists the main thread
		m.threads = append(m.threads, &thread{tid: tid})
	}
	b := &B{}
	m.install(t, b)
	wait, wall := m.window(b, 1000, func() {
		m.thread(11).exec += 10 * ms
		m.now += 10 * ms
	})
	if wait > 0.01*wall {
		t.Errorf("wait %.0f ns in a window of %.0f ns (%.0fx): the reads' own waits, outside the window, were counted", wait, wall, wait/wall)
	}
}

// A thread queued since long before the window that gets a CPU inside it
// has its whole wait added to its run-queue delay there: no thread waits
// in a window longer than the window.
func TestNoThreadWaitsLongerThanTheWindow(t *st.T) {
	m := &machine{self: 11}
	m.threads = []*thread{{tid: 11}, {tid: 12}}
	b := &B{}
	m.install(t, b)
	wait, wall := m.window(b, 1000, func() {
		m.thread(11).exec += 10 * ms
		w := m.thread(12)
		w.wait += 5000*ms + 2*ms // queued 5 s before the window, 2 ms in it
		w.exec += 5 * ms
		m.now += 10 * ms
	})
	if wait > wall {
		t.Errorf("wait %.0f ns in a window of %.0f ns", wait, wall)
	}
	if wait < 2*float64(ms) {
		t.Errorf("wait %.0f ns, want at least the 2 ms thread 12 waited in the window", wait)
	}
}

// A thread whose file could not be read as the timer started has no
// baseline: its figures since it began are not the window's.
func TestNoBaselineNoWait(t *st.T) {
	m := &machine{self: 11, failStart: map[int]bool{12: true}}
	m.threads = []*thread{{tid: 11}, {tid: 12, exec: 50000 * ms, wait: 90000 * ms}}
	b := &B{}
	m.install(t, b)
	wait, wall := m.window(b, 1000, func() {
		m.thread(11).exec += 10 * ms
		m.thread(12).exec += 5 * ms
		m.now += 10 * ms
	})
	if wait > wall {
		t.Errorf("wait %.0f ns in a window of %.0f ns: a thread's wait since it began was counted", wait, wall)
	}
}

// What the window's working threads waited in it is counted in full:
// the benchmark's thread preempted for 3 ms, a second working thread for
// 4 ms, summed; an idle thread's wait is not.
func TestWindowWaitCounted(t *st.T) {
	m := &machine{self: 11, readDelay: 1000 * ms}
	m.threads = []*thread{{tid: 11}, {tid: 12}, {tid: 13}}
	b := &B{}
	m.install(t, b)
	for i := 0; i < 2; i++ { // two windows: the second counts only its own
		wait, _ := m.window(b, 1000, func() {
			self, other, idle := m.thread(11), m.thread(12), m.thread(13)
			self.exec += 7 * ms
			self.wait += 3 * ms
			other.exec += 6 * ms
			other.wait += 4 * ms
			idle.exec += ms / 10
			idle.wait += 9 * ms
			m.now += 10 * ms
		})
		if want := float64(7 * ms); wait != want {
			t.Errorf("wait %.0f ns, want %.0f", wait, want)
		}
	}
}

// cpu is the CPU time per operation the last window reported, times n.
func cpu(b *B, n int) float64 { return b.extra["cpu-ns/op"] * float64(n) }

// The Go runtime's sysmon runs beside the benchmark, not for it: in a
// fresh test binary it wakes every 20 µs, 0.3-0.4 ms of CPU in a 5 ms
// window at GOMAXPROCS 1 (cpu-sec/op 6.6% above sec/op). The window's CPU
// time is the process's less sysmon's, the thread the runtime starts first
// (the smallest id above the main thread's); another thread's is counted.
func TestSysmonNotTheBenchmarks(t *st.T) {
	m := &machine{self: 500}
	m.threads = []*thread{{tid: 500}, {tid: 503}, {tid: 501}, {tid: 502}} // /proc lists ids as strings: 500, 501, ... in any order here
	b := &B{}
	m.install(t, b)
	m.window(b, 1000, func() {
		m.thread(500).exec += 5 * ms
		m.thread(501).exec += 4 * ms / 10 // sysmon
		m.thread(503).exec += ms          // a thread of the benchmark's (RunParallel, a GC worker)
		m.now += 5 * ms
	})
	if got, want := cpu(b, 1000), float64(6*ms); got != want {
		t.Errorf("the window's CPU time %.0f ns, want %.0f: the process's (6.4 ms) less sysmon's (0.4 ms)", got, want)
	}
	// Its figures unread at the stop: nothing is taken off (the process's).
	m.failStop = map[int]bool{501: true}
	m.window(b, 1000, func() {
		m.thread(500).exec += 5 * ms
		m.thread(501).exec += 4 * ms / 10
		m.now += 5 * ms
	})
	if got, want := cpu(b, 1000), float64(54*ms/10); got != want {
		t.Errorf("sysmon's figures unread: CPU time %.0f ns, want the process's %.0f", got, want)
	}
}

// Which thread is sysmon: the smallest id above the main thread's; none
// when the ids wrapped around (one below the main thread's).
func TestSysmonThread(t *st.T) {
	for _, c := range []struct {
		tids []int
		pid  int
		want int // index, or -1
	}{
		{[]int{100, 101, 102}, 100, 1},
		{[]int{100, 105, 103, 104}, 100, 2},
		{[]int{100}, 100, -1},
		{[]int{100, 7, 101}, 100, -1},
	} {
		var th []rigorThread
		for _, tid := range c.tids {
			th = append(th, rigorThread{tid: tid})
		}
		if got := rigorSysmon(th, c.pid); got != c.want {
			t.Errorf("threads %v, pid %d: sysmon at %d, want %d", c.tids, c.pid, got, c.want)
		}
	}
}

// setEnv gives the hooks env as a fresh process's environment.
func setEnv(t *st.T, env map[string]string) {
	getenv, read, sim, dumps, perf := rigorGetenv, rigorModeRead, rigorSim, rigorSimDumps, rigorPerf
	t.Cleanup(func() {
		rigorGetenv, rigorModeRead, rigorSim, rigorSimDumps, rigorPerf = getenv, read, sim, dumps, perf
	})
	rigorGetenv = func(k string) string { return env[k] }
	rigorModeRead, rigorSim, rigorSimDumps, rigorPerf = false, false, 0, [2]int8{}
	rigorReadMode()
}

// A timer drives the hooks as testing.B's timer does.
type timer struct {
	m  *machine
	b  *B
	on bool
	t0 int64
}

func (tm *timer) start() {
	if !tm.on {
		rigorWindowStart(tm.b)
		tm.t0, tm.on = tm.m.now, true
	}
}

func (tm *timer) stop() {
	if tm.on {
		tm.b.duration += time.Duration(tm.m.now - tm.t0)
		rigorWindowStop(tm.b)
		tm.on = false
	}
}

func (tm *timer) reset() {
	if tm.on {
		rigorWindowStart(tm.b)
		tm.t0 = tm.m.now
	}
	tm.b.duration = 0
	rigorWindowReset(tm.b)
}

// open opens a run of the benchmark function on the simulated machine, as
// rigorWindowOpen does on a real one, counters included, and resets the
// timer, as runN does.
func (tm *timer) open() {
	tm.m.open(tm.b)
	rigorOpenCounters(&tm.b.rigorWin)
	tm.m.started = false
	tm.reset()
}

// report ends the run, of n operations, and returns what it reported.
func (tm *timer) report(n int) map[string]float64 {
	tm.stop()
	tm.b.N = n
	tm.b.extra = map[string]float64{}
	rigorWindowReport(tm.b)
	return tm.b.extra
}

// counting is a machine of four threads, 101 the runtime's sysmon, and a
// timer on it.
func counting(t *st.T) (*machine, *timer) {
	m := &machine{self: 100}
	m.threads = []*thread{{tid: 100}, {tid: 101}, {tid: 102}, {tid: 103}}
	b := &B{}
	m.install(t, b)
	setEnv(t, nil)
	return m, &timer{m: m, b: b}
}

// work runs the benchmark's thread for n instructions, a second thread
// for n/2, sysmon for 777 and 103 not at all.
func (m *machine) work(n uint64) {
	m.started = true
	m.run(100, n)
	m.run(102, n/2)
	m.run(101, 777)
	m.thread(100).exec += int64(n)
	m.now += int64(n)
}

// checkCounted checks a window's instructions and cycles per operation,
// absent when want is 0.
func checkCounted(t *st.T, what string, got map[string]float64, want float64) {
	t.Helper()
	for _, c := range []struct {
		unit string
		want float64
	}{{"instructions/op", want}, {"cycles/op", 2 * want}} {
		v, ok := got[c.unit]
		switch {
		case c.want == 0 && ok:
			t.Errorf("%s: %s %v, want none", what, c.unit, v)
		case c.want != 0 && (!ok || v != c.want):
			t.Errorf("%s: %s %v (reported %v), want %v", what, c.unit, v, ok, c.want)
		}
	}
	if _, ok := got["cpu-ns/op"]; !ok {
		t.Errorf("%s: no cpu-ns/op", what)
	}
}

// The counters' attributes are those of the kernel's struct
// perf_event_attr (include/uapi/linux/perf_event.h, PERF_ATTR_SIZE_VER0):
// user-space instructions and cycles of each thread but sysmon, on any CPU,
// closed on exec.
func TestCountersOpened(t *st.T) {
	m, tm := counting(t)
	tm.open()
	if got := unsafe.Sizeof(rigorPerfAttr{}); got != 64 {
		t.Errorf("perf_event_attr is %d bytes, want 64", got)
	}
	var a rigorPerfAttr
	for _, f := range []struct {
		name      string
		off, want uintptr
	}{
		{"type", unsafe.Offsetof(a.typ), 0}, {"size", unsafe.Offsetof(a.size), 4},
		{"config", unsafe.Offsetof(a.config), 8}, {"read_format", unsafe.Offsetof(a.readFormat), 32},
		{"flags", unsafe.Offsetof(a.bits), 40}, {"config1", unsafe.Offsetof(a.config1), 56},
	} {
		if f.off != f.want {
			t.Errorf("perf_event_attr.%s at %d, want %d", f.name, f.off, f.want)
		}
	}
	excl := uint64(1<<5 | 1<<6) // exclude_kernel, exclude_hv
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		excl = 1<<(63-5) | 1<<(63-6)
	}
	opened := map[int]map[uint64]bool{}
	for _, o := range m.perfOpens {
		if o.attr.typ != 0 || o.attr.size != 64 || o.attr.readFormat != 3 || o.attr.bits != excl || o.cpu != -1 || o.group != -1 || o.flags != 8 {
			t.Errorf("perf_event_open(%+v, pid %d, cpu %d, group %d, flags %#x)", o.attr, o.pid, o.cpu, o.group, o.flags)
		}
		if opened[o.pid] == nil {
			opened[o.pid] = map[uint64]bool{}
		}
		opened[o.pid][o.attr.config] = true
	}
	for _, tid := range []int{100, 102, 103} {
		if !opened[tid][0] || !opened[tid][1] {
			t.Errorf("thread %d: counters opened %v, want cycles (0) and instructions (1)", tid, opened[tid])
		}
	}
	if len(opened[101]) > 0 {
		t.Errorf("sysmon's counters opened: %v", opened[101])
	}
}

// A window counts what its threads retire while the timer runs, summed
// over them but sysmon, per operation: not before the timer starts, not
// while it is stopped, not before ResetTimer.
func TestCountersWindow(t *st.T) {
	m, tm := counting(t)
	tm.open()
	m.work(5000) // set-up, before the timer starts
	tm.start()
	m.work(6000)
	checkCounted(t, "one segment", tm.report(1000), 9)

	tm.open()
	tm.start()
	m.work(1000)
	tm.stop()
	m.work(50000) // the timer stopped
	tm.start()
	m.work(3000)
	checkCounted(t, "two segments", tm.report(100), 60)

	tm.open()
	tm.start()
	m.work(1000)
	tm.stop()
	tm.start()
	m.work(7777)
	tm.reset() // while it runs: the window starts again
	m.work(2000)
	checkCounted(t, "reset", tm.report(10), 300)
}

// A counter that cannot be read, or that shared the hardware with others
// for part of the window (the kernel counts in turns: the count is short),
// leaves the window's figure unreported: not under-counted. The next
// window is reported again.
func TestCountersIncomplete(t *st.T) {
	m, tm := counting(t)
	tm.open()
	tm.start()
	m.perfFail = map[int]bool{102: true}
	m.work(4000)
	checkCounted(t, "a counter unread at the stop", tm.report(1000), 0)
	m.perfFail = nil

	tm.open()
	tm.start()
	m.work(4000)
	m.thread(102).enabled += 1000 // on the CPU, not on the hardware
	checkCounted(t, "a counter that shared the hardware", tm.report(1000), 0)

	tm.open()
	tm.start()
	m.work(4000)
	checkCounted(t, "the next window", tm.report(1000), 6)

	tm.open()
	tm.start()
	m.perfFail = map[int]bool{102: true}
	m.work(4000)
	tm.stop()
	m.perfFail = nil
	tm.start()
	tm.reset() // the window starts again, its counters read
	m.work(4000)
	checkCounted(t, "a counter unread before ResetTimer", tm.report(1000), 6)

	tm.open()
	tm.start()
	m.now += 1000 // nothing retired: a counter that does not count
	checkCounted(t, "a window without instructions", tm.report(1000), 0)
}

// A counter whose first open in the process fails (no counters on the
// machine, or not for the process) is off for the process: no figure, no
// further opens. A thread that exited has nothing to count; another thread
// whose counter cannot be opened leaves the window unreported.
func TestCountersOpenFails(t *st.T) {
	for _, errno := range []syscall.Errno{syscall.ENOENT, syscall.EOPNOTSUPP, syscall.EACCES} {
		m, tm := counting(t)
		m.perfOpenErr = map[int]error{100: errno}
		tm.open()
		tm.start()
		m.work(4000)
		checkCounted(t, errno.Error(), tm.report(1000), 0)
		opens := len(m.perfOpens)
		m.perfOpenErr = nil
		tm.open()
		tm.start()
		m.work(4000)
		checkCounted(t, errno.Error()+", the next window", tm.report(1000), 0)
		if len(m.perfOpens) != opens {
			t.Errorf("%v: %d opens after the first failed, want none", errno, len(m.perfOpens)-opens)
		}
	}

	m, tm := counting(t)
	m.perfOpenErr = map[int]error{103: syscall.ESRCH}
	tm.open()
	tm.start()
	m.work(4000)
	checkCounted(t, "a thread that exited", tm.report(1000), 6)

	m.perfOpenErr = map[int]error{102: syscall.EMFILE}
	tm.open()
	tm.start()
	m.work(4000)
	checkCounted(t, "a thread without counters", tm.report(1000), 0)

	m.perfOpenErr = nil
	tm.open()
	tm.start()
	m.work(4000)
	checkCounted(t, "the next window", tm.report(1000), 6)
}

// RIGOR_COUNTERS=off: rigorWindowOpen opens no counter. Without it, one of
// each kind for each of the process's threads but sysmon.
func TestCountersOff(t *st.T) {
	perfOpen := rigorPerfOpen
	t.Cleanup(func() { rigorPerfOpen = perfOpen })
	for _, off := range []bool{true, false} {
		env := map[string]string{}
		if off {
			env["RIGOR_COUNTERS"] = "off"
		}
		setEnv(t, env)
		var pids []int
		rigorPerfOpen = func(attr *rigorPerfAttr, pid, cpu, group int, flags uintptr) (int, error) {
			pids = append(pids, pid)
			return perfFDBase + len(pids), nil
		}
		b := &B{}
		rigorWindowOpen(b)
		w := &b.rigorWin
		want := 2 * (len(w.threads) - 1)
		if w.sysmon < 0 {
			want = 2 * len(w.threads)
		}
		if off {
			want = 0
		}
		if len(pids) != want || w.counting != !off {
			t.Errorf("RIGOR_COUNTERS=off %v: %d threads, counters opened for %v (counting %v), want %d", off, len(w.threads), pids, w.counting, want)
		}
		rigorWindowClose(b)
	}
}

// Reading the counters does not allocate: the hooks run inside the
// window's allocation count.
func TestCountersNoAllocs(t *st.T) {
	m, tm := counting(t)
	tm.open()
	tm.b.rigorWin.waitOK = false // the simulated schedstat files allocate
	if n := st.AllocsPerRun(100, func() {
		tm.start()
		m.work(10)
		tm.stop()
	}); n != 0 {
		t.Errorf("%v allocations a window", n)
	}
	if v := tm.report(1); v["instructions/op"] == 0 {
		t.Errorf("nothing counted: %v", v)
	}
}

// In simulation the hooks read nothing: no clock, file or counter.
// Callgrind dumps at every stop of the timer and zeroes at every start, so
// that each timed segment has a dump of its own and what the benchmark did
// with the timer stopped is in none; each run reports the number of its
// first segment's dump (rigorSimDump's calls before it opened or was
// reset, plus one), how many times its timer started since it opened or
// was reset, and whether it called RunParallel. A run that encloses
// others (a parent benchmark's, never printed) reports a number its inner
// runs' dumps took.
func TestSimulation(t *st.T) {
	m := &machine{self: 100}
	m.threads = []*thread{{tid: 100}}
	outer, inner := &timer{m: m, b: &B{}}, &timer{m: m, b: &B{}}
	m.install(t, outer.b)
	setEnv(t, map[string]string{"RIGOR_INSTRUCTIONS": "simulate"})
	read := func(string) { t.Fatal("a read in simulation") }
	rigorCPU = func() int64 { read("cpu"); return 0 }
	rigorPread = func(int, []byte, int64) (int, error) { read("schedstat"); return 0, nil }
	rigorPerfOpen = func(*rigorPerfAttr, int, int, int, uintptr) (int, error) { read("perf open"); return 0, nil }
	rigorPerfRead = func(int, []byte) (int, error) { read("perf read"); return 0, nil }

	run := func(tm *timer, n int, f func()) map[string]float64 {
		rigorWindowOpen(tm.b)
		if len(tm.b.rigorWin.threads) > 0 || tm.b.rigorWin.counting {
			t.Errorf("threads opened in simulation")
		}
		tm.reset()
		tm.start()
		f()
		return tm.report(n)
	}
	check := func(what string, got map[string]float64, window, segments, parallel float64) {
		t.Helper()
		want := map[string]float64{"rigor-window": window, "rigor-segments": segments, "rigor-parallel": parallel}
		if len(got) != len(want) {
			t.Errorf("%s: reported %v, want %v", what, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s %v, want %v (%v)", what, k, got[k], v, got)
			}
		}
	}

	check("a run", run(inner, 100, func() {}), 1, 1, 0)
	// Four segments, dumps 2 to 5.
	check("StopTimer, StartTimer", run(inner, 100, func() {
		for i := 0; i < 3; i++ {
			inner.stop()
			inner.start()
		}
	}), 2, 4, 0)
	// Dump 6 is the segment before the reset; the run's is 7.
	check("ResetTimer while it runs", run(inner, 100, func() {
		inner.stop()
		inner.start()
		inner.reset()
	}), 7, 1, 0)
	// Dumps 8 and 9 before the reset; the run's is 10.
	check("ResetTimer while it is stopped", run(inner, 100, func() {
		inner.stop()
		inner.start()
		inner.stop()
		inner.reset()
		inner.start()
	}), 10, 1, 0)
	check("RunParallel", run(inner, 100, func() { rigorWindowParallel(inner.b) }), 11, 1, 1)
	check("a run after", run(inner, 100, func() {}), 12, 1, 0)
	check("RunParallel before ResetTimer", run(inner, 100, func() {
		rigorWindowParallel(inner.b)
		inner.reset()
	}), 13, 1, 0)
	var sub map[string]float64
	check("the outer run", run(outer, 1, func() {
		sub = run(inner, 100, func() {})
	}), 14, 1, 0)
	check("the inner run", sub, 14, 1, 0)

	// A benchmark that stops its timer in every iteration: the first
	// rigorSimSegments segments have a dump each, the others none.
	before := rigorSimDumps
	check("a stop in every iteration", run(inner, 100, func() {
		for i := 0; i < 20; i++ {
			inner.stop()
			inner.start()
		}
	}), float64(before+1), 21, 0)
	if got := rigorSimDumps - before; got != rigorSimSegments {
		t.Errorf("%d dumps for 21 segments, want %d", got, rigorSimSegments)
	}
}

// The voluntary switches of the window's working threads are counted,
// summed: the benchmark's thread's 3 and another working thread's 4; not
// sysmon's (it sleeps between its checks whatever the benchmark does),
// not an idle thread's, not involuntary ones (another process taking the
// CPU is a wait, not the benchmark blocking). Each window counts only its
// own.
func TestSwitchesCounted(t *st.T) {
	m := &machine{self: 11, status: true}
	m.threads = []*thread{{tid: 11, vol: 40, pcount: 90}, {tid: 12, vol: 1000}, {tid: 13}, {tid: 14}} // 12 is sysmon
	b := &B{}
	m.install(t, b)
	for i := 0; i < 2; i++ {
		m.window(b, 1000, func() {
			m.thread(11).exec += 7 * ms
			m.block(11, 3)
			m.preempt(11, 5)
			// A fresh process's sysmon wakes every 20 µs: in a short
			// window it can do a tenth of the work.
			m.thread(12).exec += 2 * ms
			m.block(12, 50)
			m.thread(13).exec += 6 * ms
			m.block(13, 4)
			m.thread(14).exec += ms / 10
			m.block(14, 9)
			m.now += 10 * ms
		})
		if got, ok := b.extra["vcsw/op"]; !ok || got*1000 != 7 {
			t.Errorf("window %d: vcsw/op %v (reported %v), want 7 switches over 1000 ops", i+1, got, ok)
		}
	}
}

// Reading a status file costs about ten times a schedstat file's, so it
// is read only for a thread scheduled in since its last read: in a window
// whose timer stops and starts 100 times, threads that never ran (idle, or
// the benchmark's own running on) are read once each; one that blocked
// twice between two stops is read again, and its switches counted;
// sysmon's is never read; the calling thread's count comes from getrusage.
func TestSwitchesReadWhenScheduled(t *st.T) {
	m := &machine{self: 11, status: true}
	m.threads = []*thread{{tid: 11}, {tid: 12}, {tid: 13}}
	b := &B{}
	m.install(t, b)
	tm := &timer{m: m, b: b}
	tm.open()
	for i := 0; i < 100; i++ {
		tm.start()
		m.started = true
		m.thread(11).exec += ms
		m.thread(13).exec += ms / 2
		if i == 50 {
			m.block(13, 2)
		}
		m.now += ms
		tm.stop()
	}
	got := tm.report(100)
	if v := got["vcsw/op"]; v*100 != 2 {
		t.Errorf("vcsw/op %v, want 2 switches over 100 ops", v)
	}
	if n := m.statusReads; n[11] != 0 || n[12] != 0 || n[13] != 2 {
		t.Errorf("status files read %v times by thread, want 13's twice, 12's (sysmon) never, 11's never (the calling thread asks getrusage)", n)
	}
	if n := m.rusageCalls; n[11] != 200 {
		t.Errorf("getrusage called %v times by thread, want by 11 at each of its 100 starts and stops (0.2 µs a call)", n)
	}
}

// sysmon's switches are never the benchmark's, and it wakes often: its
// status file is not opened, so never read.
func TestSwitchesNotSysmons(t *st.T) {
	m := &machine{self: 11, status: true}
	m.threads = []*thread{{tid: 11}, {tid: 12}, {tid: 13}} // 12 is sysmon
	b := &B{}
	m.install(t, b)
	tm := &timer{m: m, b: b}
	tm.m.open(tm.b)
	if th := b.rigorWin.threads[1]; th.tid != 12 || th.statusOpen {
		t.Fatalf("thread %d: status open %v; want sysmon's (12) closed", th.tid, th.statusOpen)
	}
}

// A working thread whose switches could not be read at a stop leaves the
// window's unreported: a count short of one thread's would pass for a
// benchmark that never blocks. An idle thread's does not matter.
func TestSwitchesUnread(t *st.T) {
	for _, c := range []struct {
		fail     int
		reported bool
	}{{13, false}, {14, true}} {
		m := &machine{self: 11, status: true, statusFailStop: map[int]bool{c.fail: true}}
		m.threads = []*thread{{tid: 11}, {tid: 12}, {tid: 13}, {tid: 14}}
		b := &B{}
		m.install(t, b)
		m.window(b, 1000, func() {
			m.thread(11).exec += 7 * ms
			m.thread(13).exec += 6 * ms
			m.block(13, 4)
			m.block(14, 9)
			m.now += 10 * ms
		})
		if _, ok := b.extra["vcsw/op"]; ok != c.reported {
			t.Errorf("thread %d's status unread at the stop: vcsw/op reported %v, want %v", c.fail, ok, c.reported)
		}
	}
}

// The status file's count is found by its line's name, not inside
// nonvoluntary_ctxt_switches'.
func TestStatusField(t *st.T) {
	f := []byte("Name:\tx\nnonvoluntary_ctxt_switches:\t9\nvoluntary_ctxt_switches:\t 42\n")
	if v, ok := rigorStatusField(f, "\nvoluntary_ctxt_switches:"); !ok || v != 42 {
		t.Errorf("got %d, %v; want 42", v, ok)
	}
	if _, ok := rigorStatusField([]byte("Name:\tx\nnonvoluntary_ctxt_switches:\t9\n"), "\nvoluntary_ctxt_switches:"); ok {
		t.Error("found a count in a file without the line")
	}
}

// A helper thread woken while the timer is stopped (testing's ReadMemStats
// stops the world at each StopTimer and StartTimer) has its status read at
// neither the next start nor the stop when it does not run in the
// segment, and no switch counted; one that also blocks inside a segment
// has its count read at the stop, from the last read's: the stretch
// before counts too, more than the window's, never fewer.
func TestSwitchesWokenWhileStopped(t *st.T) {
	m := &machine{self: 11, status: true}
	m.threads = []*thread{{tid: 11}, {tid: 12}, {tid: 13}} // 12 is sysmon, 13 the helper
	b := &B{}
	m.install(t, b)
	tm := &timer{m: m, b: b}
	tm.open()
	for i := 0; i < 100; i++ {
		m.block(13, 1) // woken and asleep again, in the gap
		tm.start()
		m.started = true
		m.thread(11).exec += ms
		m.thread(13).exec += ms / 5 // a working thread: a fifth of the benchmark's CPU
		m.now += ms
		tm.stop()
	}
	got := tm.report(100)
	if v := got["vcsw/op"]; v != 0 {
		t.Errorf("vcsw/op %v, want 0: every switch was in the untimed gaps", v)
	}
	if n := m.statusReads[13]; n != 1 {
		t.Errorf("the helper's status read %d times, want once (the first start)", n)
	}

	// Blocking in a gap and in the segment after it: both counted (the
	// run's first start reads every thread's count; the second finds the
	// helper scheduled in since).
	tm.open()
	for i := 0; i < 2; i++ {
		tm.start()
		m.thread(11).exec += ms
		m.thread(13).exec += ms / 5
		if i == 1 {
			m.block(13, 2)
		}
		m.now += ms
		tm.stop()
		m.block(13, 1)
	}
	if v := tm.report(2)["vcsw/op"]; v*2 != 3 {
		t.Errorf("vcsw/op %v, want 3 over 2 ops: the segment's 2 and the gap's 1 before it", v)
	}
}

// The scheduler may move the calling goroutine to another thread between
// the hook's read of its thread and its getrusage, which then counts the
// other thread's switches: the count is taken only when the goroutine is
// still on the thread, locked to it for the call, else from the status
// file. (Counts read that way went from 117 to 2 inside one window.)
func TestSwitchesCallerMoved(t *st.T) {
	m := &machine{self: 11, status: true}
	m.threads = []*thread{{tid: 11, vol: 100}, {tid: 12}, {tid: 13, vol: 5}}
	b := &B{}
	m.install(t, b)
	tm := &timer{m: m, b: b}
	tm.open()
	// The start's first gettid reads 11, the goroutine then runs on 13.
	m.moves = []int{11, 13}
	tm.start()
	m.started = true
	m.thread(11).exec += ms
	m.thread(13).exec += ms
	m.block(11, 2)
	m.now += ms
	m.moves = []int{13, 13}
	tm.stop()
	if v := tm.report(1)["vcsw/op"]; v != 2 {
		t.Errorf("vcsw/op %v, want 2: thread 11's switches, not the difference of two threads' counts", v)
	}
}
