package rigor

import (
	"os"
	"strconv"
	"strings"
)

// A waitReader reads how long this process's threads waited for a CPU
// (runnable but not running: the run-queue delay in
// /proc/self/task/*/schedstat) over a sample, as the timer overlay of
// package gotest/window reads it for a go test binary's timed window: the
// wait of the threads that did its work (see workingWait). An idle thread the runtime wakes now and
// then waits on a busy machine without delaying anything.
type waitReader struct {
	exec0 map[string][2]int64 // thread id -> CPU time, run-queue delay (ns) at the start
}

// startWaits begins a sample's reading; nil when schedstat is unreadable.
func startWaits() *waitReader {
	m := threadStats()
	if len(m) == 0 {
		return nil
	}
	return &waitReader{exec0: m}
}

// stop returns the working threads' wait over the sample, in seconds, or
// -1 when it cannot be read.
func (w *waitReader) stop() float64 {
	if w == nil {
		return -1
	}
	now := threadStats()
	if len(now) == 0 {
		return -1
	}
	return workingWait(w.exec0, now)
}

// threadStats reads every thread's CPU time and run-queue delay (ns).
func threadStats() map[string][2]int64 {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	m := make(map[string][2]int64, len(tasks))
	for _, t := range tasks {
		data, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(data))
		if len(f) < 2 {
			continue
		}
		exec, err1 := strconv.ParseInt(f[0], 10, 64)
		wait, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 == nil && err2 == nil {
			m[t.Name()] = [2]int64{exec, wait}
		}
	}
	return m
}
