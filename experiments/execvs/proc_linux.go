package main

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// timesAtExit waits until process pid has ended, without reaping it, and
// reads its CPU times from /proc while it is a zombie: its own, and its
// waited-for children's. (wait4's rusage, the only other way from
// outside, is the sum of both: Linux fills it with RUSAGE_BOTH.) The
// caller reaps it afterwards (exec.Cmd.Wait).
func timesAtExit(pid int) (procTimes, error) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return procTimes{}, fmt.Errorf("waitid: %w", err)
		}
		break
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procTimes{}, err
	}
	return parseProcStat(data)
}
