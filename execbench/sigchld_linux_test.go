//go:build linux && (amd64 || arm64)

package execbench

import (
	"context"
	"testing"
	"time"
)

// TestQuietChildren: while a runner is open SIGCHLD has the default
// disposition, and runs are still reaped with their rusage; Go's
// handler is back once the last of two runners closes, not before.
func TestQuietChildren(t *testing.T) {
	if !childSignalHandled() {
		t.Fatal("SIGCHLD has no handler before any runner: Go's should be there")
	}
	a, err := newRunner(&Config{Input: InputNull, Output: OutputNull})
	if err != nil {
		t.Fatal(err)
	}
	b, err := newRunner(&Config{Input: InputNull, Output: OutputNull})
	if err != nil {
		t.Fatal(err)
	}
	if childSignalHandled() {
		t.Error("SIGCHLD still handled while runners are open")
	}
	m, err := a.run(context.Background(), []string{helper, "-exit", "3"}, time.Minute, false)
	if err != nil || m.exit != 3 || m.usage.PID <= 0 || m.usage.MaxRSSBytes <= 0 {
		t.Errorf("run: %+v, %v; want exit 3 with its pid and peak RSS", m, err)
	}
	a.close()
	if childSignalHandled() {
		t.Error("SIGCHLD handled again while a runner is still open")
	}
	b.close()
	if !childSignalHandled() {
		t.Error("SIGCHLD's handler not put back after the last runner closed")
	}
}
