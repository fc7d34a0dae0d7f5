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
	started   bool
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
	pread, gettid := rigorPread, rigorGettid
	t.Cleanup(func() { rigorPread, rigorGettid = pread, gettid })
	rigorGettid = func() int { return m.self }
	rigorPread = func(fd int, p []byte, off int64) (int, error) {
		th := m.threads[fd-fdBase]
		if th.tid != m.self {
			r := m.thread(m.self)
			r.wait += m.readDelay
			m.now += m.readDelay
		}
		if !m.started && m.failStart[th.tid] {
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
	for fd, th := range m.threads {
		w.threads = append(w.threads, rigorThread{fd: fdBase + fd, tid: th.tid})
	}
}

// window runs one run of a benchmark function with one timed window, as
// testing's runN, StartTimer and StopTimer do (the hooks, then the wall
// clock; the wall clock, then the hooks), work moving the machine inside
// it, and reports it for n operations.
func (m *machine) window(b *B, n int, work func()) (wait, wall float64) {
	m.open(b)
	b.duration = 0 // as ResetTimer does
	rigorWindowReset(b)
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
