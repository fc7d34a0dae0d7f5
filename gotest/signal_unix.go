//go:build unix

package gotest

import (
	"os"
	"syscall"
)

// interrupted reports whether the process was killed by SIGINT or SIGTERM,
// as when the user presses Ctrl-C.
func interrupted(ps *os.ProcessState) bool {
	if ps == nil {
		return false
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && (ws.Signal() == syscall.SIGINT || ws.Signal() == syscall.SIGTERM)
}

// quit asks a Go process to print its goroutines and exit.
func quit(p *os.Process) error {
	return p.Signal(syscall.SIGQUIT)
}
