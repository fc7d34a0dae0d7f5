//go:build !unix

package gotest

import "os"

// interrupted reports whether the process was killed by an interrupt; the
// exit status does not say so outside Unix.
func interrupted(*os.ProcessState) bool { return false }

// quit stops the process; outside Unix there is no SIGQUIT to ask a Go
// process for its goroutines.
func quit(p *os.Process) error {
	return p.Kill()
}
