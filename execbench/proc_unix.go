//go:build unix

package execbench

import (
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/rigorbench/rigor/observe"
)

// sysProcAttr puts a command in a process group of its own, so that a
// time-out or an interrupt stops everything it started, and so that the
// terminal's Ctrl-C reaches rigor, which stops it, rather than the
// command alone.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// A spawner starts commands with syscall.ForkExec and reaps them with
// wait4, whose rusage is the measurement: os.StartProcess and
// Process.Wait cost about 10-20 µs more of this process's CPU per run of
// true on the 2-core VM (a pidfd opened, polled and closed, a cleanup
// registered, a Process and a ProcessState allocated; issue 28), a
// seventh of what hyperfine spends on a whole run. The attributes are
// made once; only the standard streams change from run to run.
type spawner struct {
	attr syscall.ProcAttr
	fds  [3]uintptr
}

func (sp *spawner) init(env []string) {
	sp.attr = syscall.ProcAttr{Env: env, Files: sp.fds[:], Sys: sysProcAttr()}
}

// A child is a started command: its pid, which is also its process
// group's ID.
type child struct{ pid int }

// start starts path with argv, its standard streams files.
func (sp *spawner) start(path string, argv []string, files []*os.File) (child, error) {
	for i, f := range files {
		sp.fds[i] = f.Fd()
	}
	pid, err := syscall.ForkExec(path, argv, &sp.attr)
	runtime.KeepAlive(files)
	if err != nil {
		return child{}, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	return child{pid}, nil
}

// wait reaps the child and records in m how it ended and what wait4
// reported: its CPU time (and that of the children it waited for), its
// peak RSS and, for the observer, its usage.
func (c child) wait(m *measurement) error {
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		_, err := syscall.Wait4(c.pid, &ws, 0, &ru)
		if err == nil {
			break
		}
		if err != syscall.EINTR {
			return os.NewSyscallError("wait4", err)
		}
	}
	m.exit = ws.ExitStatus() // -1 when a signal ended it
	if ws.Signaled() {
		m.signal = ws.Signal().String()
	}
	m.usage = observe.RusageStats(c.pid, &ru)
	m.user, m.sys = time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
	m.maxRSS = m.usage.MaxRSSBytes
	return nil
}

// kill kills the child's process group, or the child alone when that
// fails.
func (c child) kill() {
	if c.pid <= 0 {
		return
	}
	if err := syscall.Kill(-c.pid, syscall.SIGKILL); err != nil {
		syscall.Kill(c.pid, syscall.SIGKILL)
	}
}

// group is the child's process group.
func (c child) group() int { return c.pid }

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
