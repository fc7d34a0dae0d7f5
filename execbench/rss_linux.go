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
// that it does not keep the high-water mark of an earlier analysis. It
// returns 0 when it cannot tell.
func rssFloor() int64 {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // best effort
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
