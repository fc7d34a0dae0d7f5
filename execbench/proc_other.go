//go:build !unix

package execbench

import (
	"os"
	"syscall"
	"time"
)

func sysProcAttr() *syscall.SysProcAttr { return nil }

func killGroup(p *os.Process) {
	if p != nil {
		p.Kill()
	}
}

// groupAlive reports whether a process group still has a member: there
// are no process groups here.
func groupAlive(int) bool { return false }

func killPgid(int) {}

// usage returns the process's CPU time; the peak RSS is not known here.
func usage(ps *os.ProcessState) (user, sys time.Duration, maxRSS int64) {
	return ps.UserTime(), ps.SystemTime(), 0
}

func signalName(*os.ProcessState) string { return "" }
