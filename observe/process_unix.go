//go:build unix

package observe

import (
	"os"
	"runtime"
	"syscall"

	"github.com/rigorbench/rigor/model"
)

// ProcessStats returns the resource usage of an exited process: user and
// system CPU, voluntary and involuntary context switches and peak RSS, from
// the rusage the kernel reported when it was reaped. Pass the ProcessState
// of an exec.Cmd after Wait (a go test binary, say). It returns nil when ps
// is nil or carries no rusage.
func ProcessStats(ps *os.ProcessState) *model.ProcessStats {
	if ps == nil {
		return nil
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return nil
	}
	p := RusageStats(ps.Pid(), ru)
	return &p
}

// RusageStats is ProcessStats from the rusage wait4 reported for process
// pid, for a caller that reaps its processes itself.
func RusageStats(pid int, ru *syscall.Rusage) model.ProcessStats {
	p := fromRusage(ru)
	p.PID = pid
	return p
}

func fromRusage(ru *syscall.Rusage) model.ProcessStats {
	rss := int64(ru.Maxrss)
	if runtime.GOOS != "darwin" && runtime.GOOS != "ios" {
		rss *= 1024 // kilobytes everywhere but Apple's systems
	}
	return model.ProcessStats{
		UserSec:        float64(ru.Utime.Nano()) / 1e9,
		SystemSec:      float64(ru.Stime.Nano()) / 1e9,
		VoluntaryCtx:   int64(ru.Nvcsw),
		InvoluntaryCtx: int64(ru.Nivcsw),
		MaxRSSBytes:    rss,
	}
}

// selfUsage returns this process's resource usage so far.
func selfUsage() *model.ProcessStats {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return nil
	}
	p := RusageStats(os.Getpid(), &ru)
	return &p
}

// selfCPUSec is this process's user plus system CPU time so far, in
// seconds, as selfUsage's UserSec + SystemSec, without allocating: rigor
// exec reads it twice a run. -1 when it cannot be read.
func selfCPUSec() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return float64(ru.Utime.Nano())/1e9 + float64(ru.Stime.Nano())/1e9
}
