package main

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// clockTicks is USER_HZ, the unit of the times in /proc/PID/stat: 100 on
// every Linux architecture Go runs on (sysconf(_SC_CLK_TCK)).
const clockTicks = 100

// procTimes are a process's CPU times from /proc/PID/stat, in clock
// ticks: its own user and system time, and those of its children that
// it waited for.
type procTimes struct{ Utime, Stime, Cutime, Cstime int64 }

// own and children are the two sums in seconds.
func (p procTimes) own() float64      { return float64(p.Utime+p.Stime) / clockTicks }
func (p procTimes) children() float64 { return float64(p.Cutime+p.Cstime) / clockTicks }

// parseProcStat reads fields 14 to 17 (utime, stime, cutime, cstime) of a
// /proc/PID/stat line (proc(5)). The second field, the command name in
// parentheses, may hold spaces and parentheses itself, so the fields are
// counted from the last ')'.
func parseProcStat(data []byte) (procTimes, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 || !bytes.Contains(data[:i], []byte("(")) {
		return procTimes{}, errors.New("/proc stat: no (command name)")
	}
	f := bytes.Fields(data[i+1:])
	// f[0] is field 3 (state), so field k is f[k-3].
	if len(f) < 17-3+1 {
		return procTimes{}, fmt.Errorf("/proc stat: %d fields after the command name, want at least 15", len(f))
	}
	var v [4]int64
	for j := range v {
		x, err := strconv.ParseInt(string(f[14-3+j]), 10, 64)
		if err != nil || x < 0 {
			return procTimes{}, fmt.Errorf("/proc stat: field %d is %q, not a count of clock ticks", 14+j, f[14-3+j])
		}
		v[j] = x
	}
	return procTimes{Utime: v[0], Stime: v[1], Cutime: v[2], Cstime: v[3]}, nil
}
