//go:build unix

package observe

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
)

func TestFromRusage(t *testing.T) {
	ru := &syscall.Rusage{
		Utime:  syscall.Timeval{Sec: 1, Usec: 500000},
		Stime:  syscall.Timeval{Sec: 0, Usec: 250000},
		Maxrss: 2048,
		Nvcsw:  7,
		Nivcsw: 3,
	}
	p := fromRusage(ru)
	wantRSS := int64(2048 * 1024) // Linux reports kilobytes
	if runtime.GOOS == "darwin" {
		wantRSS = 2048
	}
	if p.UserSec != 1.5 || p.SystemSec != 0.25 || p.VoluntaryCtx != 7 || p.InvoluntaryCtx != 3 || p.MaxRSSBytes != wantRSS {
		t.Errorf("got %+v, want user 1.5 s, system 0.25 s, 7/3 switches, %d bytes", p, wantRSS)
	}
}

func TestProcessStats(t *testing.T) {
	if ProcessStats(nil) != nil {
		t.Error("ProcessStats(nil) is not nil")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	p := ProcessStats(cmd.ProcessState)
	if p == nil {
		t.Fatal("no stats for an exited process")
	}
	if p.PID != cmd.Process.Pid || p.MaxRSSBytes <= 0 || p.UserSec < 0 || p.SystemSec < 0 {
		t.Errorf("got %+v for pid %d", p, cmd.Process.Pid)
	}
}
