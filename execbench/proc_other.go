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

// usage returns the process's CPU time; the peak RSS is not known here.
func usage(ps *os.ProcessState) (user, sys time.Duration, maxRSS int64) {
	return ps.UserTime(), ps.SystemTime(), 0
}

func signalName(*os.ProcessState) string { return "" }
