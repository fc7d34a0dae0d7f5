package main

import (
	"context"
	"io"
	"math"
	"os"
	"os/exec"
	"time"
)

// toolRun is what one run of a tool (rigor or hyperfine) cost, measured
// from outside.
type toolRun struct {
	// WallSec runs from just before the start to the process's end.
	WallSec float64
	// TotalCPUSec is the user plus system time wait4 reported for the
	// tool: on Linux its own and that of every descendant it waited for
	// (the commands it timed, and anything else it ran).
	TotalCPUSec float64
	// OwnCPUSec and ChildCPUSec split it, from /proc/PID/stat read while
	// the tool was a zombie (clock ticks, 10 ms); NaN when not measured
	// (ProcErr says why).
	OwnCPUSec, ChildCPUSec float64
	ProcErr                error
}

// runTool runs name with args in dir, its standard output and error to
// the given writers (files, so that no copying goroutine is timed). On
// Ctrl-C the tool gets SIGINT (rigor then stops its own children) and is
// killed 10 s later if still running.
func runTool(ctx context.Context, dir string, stdout, stderr io.Writer, name string, args ...string) (toolRun, error) {
	tr := toolRun{WallSec: math.NaN(), TotalCPUSec: math.NaN(), OwnCPUSec: math.NaN(), ChildCPUSec: math.NaN()}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return tr, err
	}
	pt, perr := timesAtExit(cmd.Process.Pid)
	tr.WallSec = time.Since(start).Seconds()
	err := cmd.Wait()
	if perr != nil {
		tr.WallSec = time.Since(start).Seconds()
		tr.ProcErr = perr
	} else {
		tr.OwnCPUSec, tr.ChildCPUSec = pt.own(), pt.children()
	}
	if cmd.ProcessState != nil {
		tr.TotalCPUSec = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	}
	return tr, err
}
