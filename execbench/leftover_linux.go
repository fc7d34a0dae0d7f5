package execbench

import (
	"fmt"
	"strings"

	"github.com/prometheus/procfs"
)

// groupMembers names the processes of process group pgid, by command
// line (or name) and pid: "sleep 1000 (pid 4242)", zombies (ended, not
// yet reaped) left out. Nil when none is left or /proc cannot be read.
func groupMembers(pgid int) []string {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil
	}
	procs, err := fs.AllProcs()
	if err != nil {
		return nil
	}
	var names []string
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil || st.PGRP != pgid || st.State == "Z" {
			continue
		}
		name := st.Comm
		if args, err := p.CmdLine(); err == nil && len(args) > 0 {
			name = strings.Join(args, " ")
		}
		if r := []rune(name); len(r) > 80 {
			name = string(r[:77]) + "..."
		}
		names = append(names, fmt.Sprintf("%s (pid %d)", name, p.PID))
	}
	return names
}

// canName is true where groupMembers can name a process group's members.
const canName = true
