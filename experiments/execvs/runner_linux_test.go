package main

import (
	"context"
	"io"
	"math"
	"os/exec"
	"testing"
)

// TestRunToolSplitsCPU checks the split of a tool's CPU time into its own
// and its children's: a shell that loops itself, and a shell whose child
// loops. wait4's total must be the sum (Linux reports RUSAGE_BOTH) within
// the 10 ms ticks of /proc.
func TestRunToolSplitsCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("burns about a second of CPU in child processes")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	loop := `i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done`
	for _, tc := range []struct {
		name, script string
		selfBusy     bool
	}{
		{"own", loop, true},
		{"child", "sh -c '" + loop + "'; true", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := runTool(context.Background(), ".", io.Discard, io.Discard, "sh", "-c", tc.script)
			if err != nil || tr.ProcErr != nil {
				t.Fatal(err, tr.ProcErr)
			}
			busy, idle := tr.OwnCPUSec, tr.ChildCPUSec
			if !tc.selfBusy {
				busy, idle = idle, busy
			}
			if busy < 0.05 || idle > 0.02 {
				t.Errorf("own %v s, children %v s: the loop's CPU is on the wrong side", tr.OwnCPUSec, tr.ChildCPUSec)
			}
			if d := tr.TotalCPUSec - tr.OwnCPUSec - tr.ChildCPUSec; math.Abs(d) > 0.04 {
				t.Errorf("wait4 total %v s, /proc own %v + children %v", tr.TotalCPUSec, tr.OwnCPUSec, tr.ChildCPUSec)
			}
		})
	}
}
