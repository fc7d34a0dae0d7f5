package execbench

import (
	"bytes"
	"os"
	"strconv"
)

// rssFloor returns the peak RSS wait4 will report for a command that
// uses less: Linux folds the memory the process had before its exec into
// its peak, and a child this process spawns (Go spawns with CLONE_VM)
// has this process's memory until it execs. The floor is reset to this
// process's current RSS first (clear_refs 5, Linux 4.0 and later), so
// that it does not keep the high-water mark of an earlier analysis; when
// that fails, the high-water mark is the floor. It returns 0 when it
// cannot tell.
func rssFloor() int64 {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err == nil {
		// The peak is now the current RSS: statm's second field, in
		// pages, is cheaper to read than status.
		b, err := os.ReadFile("/proc/self/statm")
		if err == nil {
			if f := bytes.Fields(b); len(f) > 1 {
				if pages, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
					return pages * int64(os.Getpagesize())
				}
			}
		}
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(b, []byte("\nVmHWM:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(line), []byte("kB")))), 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
}
