//go:build unix

package gotest

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// processAlive reports whether a process with the given id runs. Only a
// definite "no such process", or on Linux a zombie (killed, not yet
// reaped: in a container whose init does not reap, it stays), is false;
// a process of another user (EPERM) is alive.
func processAlive(pid int) bool {
	if pid <= 0 {
		return true // not a process id rigor wrote: leave it be
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	state := procState(string(stat))
	return state != 'Z' && state != 'X'
}

// ownedByMe reports whether the file belongs to the user running rigor.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
