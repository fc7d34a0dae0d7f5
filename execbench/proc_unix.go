//go:build unix

package execbench

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// sysProcAttr puts a command in a process group of its own, so that a
// time-out or an interrupt stops everything it started, and so that the
// terminal's Ctrl-C reaches rigor, which stops it, rather than the
// command alone.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills p's process group.
func killGroup(p *os.Process) {
	if p == nil {
		return
	}
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		p.Kill()
	}
}

// groupAlive reports whether process group pgid still has a member. A
// group's ID is not reused while it has one, so that after its leader was
// reaped, a live group is what the leader left running.
func groupAlive(pgid int) bool {
	if pgid <= 0 {
		return false
	}
	err := syscall.Kill(-pgid, 0)
	return err == nil || err == syscall.EPERM // EPERM: a member this user may not signal
}

// killPgid kills process group pgid.
func killPgid(pgid int) {
	if pgid > 0 {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// usage returns the CPU time and peak RSS (bytes) wait4 reported for the
// process and the descendants it waited for.
func usage(ps *os.ProcessState) (user, sys time.Duration, maxRSS int64) {
	user, sys = ps.UserTime(), ps.SystemTime()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		maxRSS = int64(ru.Maxrss)
		if runtime.GOOS != "darwin" && runtime.GOOS != "ios" {
			maxRSS *= 1024 // kilobytes everywhere but Apple's systems
		}
	}
	return user, sys, maxRSS
}

// signalName names the signal that ended the process, or "".
func signalName(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
