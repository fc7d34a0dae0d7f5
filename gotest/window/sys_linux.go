package window

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// countersAvailable opens, for this process's thread, the counter of
// instructions the overlay's hooks open for a test binary's threads, with
// the same attributes, and reads it.
func countersAvailable() (bool, string) {
	attr := unix.PerfEventAttr{
		Type:        unix.PERF_TYPE_HARDWARE,
		Size:        unix.PERF_ATTR_SIZE_VER0,
		Config:      unix.PERF_COUNT_HW_INSTRUCTIONS,
		Read_format: unix.PERF_FORMAT_TOTAL_TIME_ENABLED | unix.PERF_FORMAT_TOTAL_TIME_RUNNING,
		Bits:        unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv,
	}
	fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return false, perfOpenWhy(err)
	}
	defer unix.Close(fd)
	// The Go runtime's bookkeeping around the system calls runs a few
	// hundred instructions between the open and the read.
	var v [3]uint64 // value, time enabled, time running
	n, err := unix.Read(fd, (*[unsafe.Sizeof(v)]byte)(unsafe.Pointer(&v))[:])
	switch {
	case err != nil:
		return false, fmt.Sprintf("the counter of instructions opens but cannot be read (%v)", err)
	case n != int(unsafe.Sizeof(v)):
		return false, fmt.Sprintf("the counter of instructions opens but reads %d bytes, not %d", n, unsafe.Sizeof(v))
	case v[2] == 0:
		return false, "the counter of instructions opens but never counts: another program holds the hardware counters, or the hypervisor does not pass them on"
	case v[0] == 0:
		return false, "the counter of instructions opens but counts nothing: the hypervisor does not pass the hardware counters on"
	}
	return true, ""
}

// perfOpenWhy says in plain words why perf_event_open failed.
func perfOpenWhy(err error) string {
	switch {
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENODEV):
		return fmt.Sprintf("this machine has no hardware counters for instructions (perf_event_open: %v, as on most VMs)", err)
	case errors.Is(err, syscall.ENOSYS):
		return "this kernel has no perf_event_open (built without CONFIG_PERF_EVENTS, or a sandbox such as gVisor)"
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		p, perr := paranoid()
		switch {
		case perr != nil:
			return fmt.Sprintf("perf_event_open is not permitted (%v), and %v", err, perr)
		case p >= 3:
			return fmt.Sprintf("perf_event_paranoid is %d, which lets no unprivileged process count its instructions (as Debian's and Ubuntu's kernels do by default): sysctl kernel.perf_event_paranoid=2 lets a process count its own threads in user space", p)
		default:
			return fmt.Sprintf("perf_event_open is not permitted (%v) though perf_event_paranoid is %d: a container's seccomp profile or missing CAP_PERFMON, most likely", err, p)
		}
	}
	return fmt.Sprintf("perf_event_open refused the counter of instructions (%v)", err)
}

// paranoid reads kernel.perf_event_paranoid.
func paranoid() (int, error) {
	data, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
	if err != nil {
		return 0, fmt.Errorf("perf_event_paranoid cannot be read: %w", err)
	}
	p, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 0, fmt.Errorf("perf_event_paranoid reads %q", strings.TrimSpace(string(data)))
	}
	return p, nil
}

// killGroup makes cmd start a process group of its own, and ending it
// (when its context ends) kill the group: the test binary and whatever it
// started.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
