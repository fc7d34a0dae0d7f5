package rigor

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A waitReader reads how long this process's threads waited for a CPU
// (runnable but not running: the run-queue delay in
// /proc/self/task/*/schedstat) over a sample, as the timer overlay of
// package gotest/window reads it for a go test binary's timed window: the
// wait of the threads that did its work (see workingWait). An idle thread
// the runtime wakes now and then waits on a busy machine without delaying
// anything.
type waitReader struct {
	exec0 map[string][2]int64 // thread id -> CPU time, run-queue delay (ns) at the start
	t0    time.Time           // just after the start's readings
}

// startWaits begins a sample's reading; nil when schedstat is unreadable.
// The calling thread (the one about to run the sample) reads its own
// figures last: on a starved machine it may wait for a CPU for seconds
// while it reads the others', and that wait, before the sample, is not
// the sample's.
func startWaits() *waitReader {
	m := threadStats(true)
	if len(m) == 0 {
		return nil
	}
	return &waitReader{exec0: m, t0: time.Now()}
}

// stop returns the working threads' wait over the sample, in seconds, or
// -1 when it cannot be read. The calling thread reads its own figures
// first.
func (w *waitReader) stop() float64 {
	if w == nil {
		return -1
	}
	span := time.Since(w.t0)
	now := threadStats(false)
	if len(now) == 0 {
		return -1
	}
	return workingWait(w.exec0, now, span.Nanoseconds())
}

// threadStats reads every thread's CPU time and run-queue delay (ns): the
// calling thread's last when selfLast, else first.
func threadStats(selfLast bool) map[string][2]int64 {
	runtime.LockOSThread() // the thread read as its own stays the caller's
	defer runtime.UnlockOSThread()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	self := strconv.Itoa(syscall.Gettid())
	m := make(map[string][2]int64, len(tasks))
	read := func(tid string) {
		data, err := os.ReadFile("/proc/self/task/" + tid + "/schedstat")
		if err != nil {
			return
		}
		f := strings.Fields(string(data))
		if len(f) < 2 {
			return
		}
		exec, err1 := strconv.ParseInt(f[0], 10, 64)
		wait, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 == nil && err2 == nil {
			m[tid] = [2]int64{exec, wait}
		}
	}
	if !selfLast {
		read(self)
	}
	for _, t := range tasks {
		if t.Name() != self {
			read(t.Name())
		}
	}
	if selfLast {
		read(self)
	}
	return m
}
