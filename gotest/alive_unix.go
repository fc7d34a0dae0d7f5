//go:build unix

package gotest

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// processAlive reports whether a process with the given id exists. Only
// a definite "no such process" is false: a process of another user
// (EPERM) is alive.
func processAlive(pid int) bool {
	if pid <= 0 {
		return true // not a process id rigor wrote: leave it be
	}
	err := syscall.Kill(pid, 0)
	return !errors.Is(err, syscall.ESRCH)
}

// ownedByMe reports whether the file belongs to the user running rigor.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
