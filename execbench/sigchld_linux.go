//go:build linux && (amd64 || arm64)

package execbench

import (
	"sync"
	"syscall"
	"unsafe"
)

// quietChildren sets SIGCHLD's disposition to the default for as long as
// a runner runs commands, and returns the function that puts back what
// it was (Go's handler) once no runner needs it any more.
//
// The Go runtime installs a handler for every signal, SIGCHLD among
// them, so that every command's exit interrupts one of this process's
// threads with a signal it then ignores: a signal frame, the handler and
// sigreturn, and a thread woken from its sleep, per run. With the
// default disposition the kernel discards SIGCHLD at once, as it does
// for a process that never handled it (hyperfine). It still reports the
// child to wait4 and keeps it as a zombie until then: the default is not
// SIG_IGN, which would reap children unasked and lose their rusage.
// Nothing in rigor waits for SIGCHLD (os/signal is never told to
// deliver it), and the handler goes back when the last runner closes.
// A bare loop of syscall.ForkExec and Wait4 of true cost 168 µs of its
// own CPU a run with the default disposition against 173 µs with Go's
// handler (medians of 6 alternating runs, 2-core VM); with yieldSlice
// as well, 150 µs.
//
// The kernel's sigaction is set with the system call itself, with a
// zeroed struct (the default handler, no flags, an empty mask) and the
// old one kept byte for byte, so that nothing of its layout is assumed
// but its size, at most that of old.
func quietChildren() (restore func()) {
	quietMu.Lock()
	defer quietMu.Unlock()
	if quietUsers == 0 {
		var dfl [8]uint64
		if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGCHLD),
			uintptr(unsafe.Pointer(&dfl)), uintptr(unsafe.Pointer(&quietOld)), sigsetSize, 0, 0); e != 0 {
			return func() {}
		}
	}
	quietUsers++
	var once sync.Once
	return func() {
		once.Do(func() {
			quietMu.Lock()
			defer quietMu.Unlock()
			if quietUsers--; quietUsers == 0 {
				syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGCHLD),
					uintptr(unsafe.Pointer(&quietOld)), 0, sigsetSize, 0, 0)
			}
		})
	}
}

// sigsetSize is the kernel's signal mask size on these architectures.
const sigsetSize = 8

var (
	quietMu    sync.Mutex
	quietUsers int
	quietOld   [8]uint64 // SIGCHLD's action before the first runner
)

// childSignalHandled reports whether SIGCHLD has a handler (not the
// default disposition): for the tests.
func childSignalHandled() bool {
	var cur [8]uint64
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGCHLD), 0, uintptr(unsafe.Pointer(&cur)), sigsetSize, 0, 0)
	return cur[0] != 0 // sa_handler comes first on amd64 and arm64
}
