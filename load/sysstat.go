package load

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"syscall"
	"time"
)

// procSample is a process's cumulative CPU time and context switches.
type procSample struct {
	user, sys     time.Duration
	vol, nonvol   int64
	runq          time.Duration // runnable, waiting for a CPU (schedstat)
	hasRunq       bool
	ok            bool
	whenMonotonic time.Time
}

// selfSample reads the generator's own usage with getrusage.
func selfSample() procSample {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return procSample{}
	}
	return procSample{
		user:          time.Duration(ru.Utime.Nano()),
		sys:           time.Duration(ru.Stime.Nano()),
		vol:           int64(ru.Nvcsw),
		nonvol:        int64(ru.Nivcsw),
		ok:            true,
		whenMonotonic: time.Now(),
	}
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times; 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// pidSample reads another process's CPU time from /proc/PID/stat and its
// context switches summed over /proc/PID/task/*/status (the process's own
// status file counts its main thread only).
func pidSample(pid int) (procSample, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return procSample{}, fmt.Errorf("read target process: %w", err)
	}
	utime, stime, err := parseProcStat(stat)
	if err != nil {
		return procSample{}, fmt.Errorf("read target process %d: %w", pid, err)
	}
	s := procSample{
		user:          time.Duration(utime) * time.Second / clockTicks,
		sys:           time.Duration(stime) * time.Second / clockTicks,
		ok:            true,
		whenMonotonic: time.Now(),
	}
	tasks, err := os.ReadDir(filepath.Join(dir, "task"))
	if err != nil {
		return s, nil // CPU time alone is still useful
	}
	for _, t := range tasks {
		status, err := os.ReadFile(filepath.Join(dir, "task", t.Name(), "status"))
		if err != nil {
			continue // the thread exited
		}
		vol, nonvol := parseCtxSwitches(status)
		s.vol += vol
		s.nonvol += nonvol
		if ss, err := os.ReadFile(filepath.Join(dir, "task", t.Name(), "schedstat")); err == nil {
			if _, wait, ok := parseSchedstat(ss); ok {
				s.runq += time.Duration(wait)
				s.hasRunq = true
			}
		}
	}
	return s, nil
}

// parseProcStat returns utime and stime (fields 14 and 15, in clock
// ticks) from the contents of /proc/PID/stat. The command name, field 2,
// is in parentheses and may itself contain spaces and parentheses.
func parseProcStat(b []byte) (utime, stime int64, err error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("malformed stat: no command name")
	}
	f := bytes.Fields(b[i+1:])
	// After the name come field 3 (state) onwards: utime is field 14.
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("malformed stat: %d fields", len(f)+2)
	}
	utime, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	stime, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil || utime < 0 || stime < 0 {
		return 0, 0, fmt.Errorf("malformed stat: utime %q stime %q", f[11], f[12])
	}
	return utime, stime, nil
}

// parseCtxSwitches returns the voluntary and non-voluntary context
// switches from the contents of a /proc status file.
func parseCtxSwitches(b []byte) (vol, nonvol int64) {
	for _, line := range bytes.Split(b, []byte("\n")) {
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
		if err != nil || n < 0 {
			continue
		}
		switch string(k) {
		case "voluntary_ctxt_switches":
			vol = n
		case "nonvoluntary_ctxt_switches":
			nonvol = n
		}
	}
	return vol, nonvol
}

const schedMetric = "/sched/latencies:seconds"

// schedSample is a copy of the runtime's cumulative scheduler latency
// histogram.
type schedSample struct {
	counts  []uint64
	buckets []float64
}

func readSched() schedSample {
	s := []metrics.Sample{{Name: schedMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return schedSample{}
	}
	h := s[0].Value.Float64Histogram()
	return schedSample{counts: append([]uint64(nil), h.Counts...), buckets: h.Buckets}
}

// schedP99 is the 99th percentile of the goroutine scheduling latencies
// observed between a and b, from the upper edge of its bucket.
func schedP99(a, b schedSample) time.Duration {
	if len(a.counts) != len(b.counts) || len(b.counts) == 0 {
		return 0
	}
	var total uint64
	d := make([]uint64, len(b.counts))
	for i := range d {
		d[i] = b.counts[i] - a.counts[i]
		total += d[i]
	}
	if total == 0 {
		return 0
	}
	want := uint64(math.Ceil(0.99 * float64(total)))
	var cum uint64
	for i, c := range d {
		cum += c
		if cum >= want {
			edge := b.buckets[i+1]
			if math.IsInf(edge, 1) {
				edge = b.buckets[i]
			}
			return time.Duration(edge * 1e9)
		}
	}
	return 0
}

// cpuTimes is the machine's cumulative busy and total CPU time in clock
// ticks, from the first line of /proc/stat.
type cpuTimes struct {
	busy, total uint64
	ok          bool
}

func machineSample() cpuTimes {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTimes{}
	}
	return parseProcStatCPU(b)
}

// parseProcStatCPU reads the aggregate "cpu" line of /proc/stat: user
// nice system idle iowait irq softirq steal ...; idle and iowait are not
// busy, and guest time is already inside user.
func parseProcStatCPU(b []byte) cpuTimes {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 5 || string(f[0]) != "cpu" {
		return cpuTimes{}
	}
	var t cpuTimes
	for i, v := range f[1:] {
		if i >= 8 { // guest and guest_nice are counted in user and nice
			break
		}
		n, err := strconv.ParseUint(string(v), 10, 64)
		if err != nil {
			return cpuTimes{}
		}
		t.total += n
		if i != 3 && i != 4 {
			t.busy += n
		}
	}
	t.ok = true
	return t
}

// parseSchedstat reads /proc/PID/task/TID/schedstat: time on a CPU and
// time runnable but waiting for one, in nanoseconds, then timeslices.
func parseSchedstat(b []byte) (run, wait int64, ok bool) {
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, 0, false
	}
	run, err1 := strconv.ParseInt(string(f[0]), 10, 64)
	wait, err2 := strconv.ParseInt(string(f[1]), 10, 64)
	if err1 != nil || err2 != nil || run < 0 || wait < 0 {
		return 0, 0, false
	}
	return run, wait, true
}
