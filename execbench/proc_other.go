//go:build !unix

package execbench

import (
	"os"
)

// A spawner starts commands with os.StartProcess.
type spawner struct{ attr os.ProcAttr }

func (sp *spawner) init(env []string) { sp.attr = os.ProcAttr{Env: env} }

// A child is a started command.
type child struct{ p *os.Process }

// start starts path with argv, its standard streams files.
func (sp *spawner) start(path string, argv []string, files []*os.File) (child, error) {
	attr := sp.attr
	attr.Files = files
	p, err := os.StartProcess(path, argv, &attr)
	return child{p}, err
}

// wait waits for the child and records in m how it ended and its CPU
// time; the peak RSS is not known here.
func (c child) wait(m *measurement) error {
	state, err := c.p.Wait()
	if err != nil {
		return err
	}
	m.exit = state.ExitCode()
	m.user, m.sys = state.UserTime(), state.SystemTime()
	m.usage.PID = state.Pid()
	m.usage.UserSec, m.usage.SystemSec = m.user.Seconds(), m.sys.Seconds()
	return nil
}

func (c child) kill() {
	if c.p != nil {
		c.p.Kill()
	}
}

// group is 0: there are no process groups here.
func (c child) group() int { return 0 }

// groupAlive reports whether a process group still has a member: there
// are no process groups here.
func groupAlive(int) bool { return false }

func killPgid(int) {}
