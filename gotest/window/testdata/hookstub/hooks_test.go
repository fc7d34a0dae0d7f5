package testing

import (
	"strconv"
	"syscall"
	st "testing"
	"time"
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
}

type thread struct {
	tid        int
	exec, wait int64
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
	rigorGettid = func() int { return m.self }
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
		return copy(p, strconv.FormatInt(th.exec, 10)+" "+strconv.FormatInt(th.wait, 10)+" 7\n"), nil
	}
}

// open lists m's threads for the hooks, as rigorWindowOpen does the
// process's before each run of the benchmark function.
func (m *machine) open(b *B) {
	w := &b.rigorWin
	w.waitOK = true
	w.threads = w.threads[:0]
	w.cpuOK = true
	for fd, th := range m.threads {
		w.threads = append(w.threads, rigorThread{fd: fdBase + fd, tid: th.tid, readInWin: true})
	}
	w.sysmon = rigorSysmon(w.threads, rigorGetpid())
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
