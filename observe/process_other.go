//go:build !unix

package observe

import (
	"os"

	"github.com/rigorbench/rigor/model"
)

// ProcessStats returns the CPU time of an exited process; context switches
// and peak RSS are not available on this system.
func ProcessStats(ps *os.ProcessState) *model.ProcessStats {
	if ps == nil {
		return nil
	}
	return &model.ProcessStats{
		PID:       ps.Pid(),
		UserSec:   ps.UserTime().Seconds(),
		SystemSec: ps.SystemTime().Seconds(),
	}
}

func selfUsage() *model.ProcessStats { return nil }

func selfCPUSec() float64 { return -1 }
