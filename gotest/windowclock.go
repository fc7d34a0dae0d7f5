package gotest

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rigorbench/rigor/gotest/window"
	"github.com/rigorbench/rigor/model"
)

// WaitUnit is the unit of the time a benchmark's threads spent waiting for
// a CPU inside its timed window, per operation (run-queue delay, from
// schedstat): written as wait-ns/op in the side's benchmark file, which
// benchstat tidies to this unit. It says how much the machine disturbed a
// sample; it is context, never a result.
const WaitUnit = "wait-sec/op"

// setupWindow makes side sd's timer overlay (package window) in dir, so
// that its samples' CPU time and CPU waits are read inside the benchmark's
// timed window, or, when it cannot be made, notes why the side's CPU time
// is read for the whole process instead.
func (s *session) setupWindow(ctx context.Context, sd *sideState, dir string) {
	s.setClock(sd, model.CPUClockProcess)
	if s.cfg.ProcessClock {
		return
	}
	why := func(err error) {
		s.note(model.NoteClock, "CPU time on %s is read for the whole process, less an estimate of its start-up, not inside the benchmark's timed window: %v.", sd.Label, err)
	}
	out, err := goCmd(ctx, sd.tree.Dir, sd.Settings, "env", "-json", "GOROOT", "GOOS", "GOARCH", "GOFLAGS")
	if err != nil {
		why(fmt.Errorf("go env failed: %s", firstLine(err.Error())))
		return
	}
	var env struct{ GOROOT, GOOS, GOARCH, GOFLAGS string }
	if err := json.Unmarshal(out, &env); err != nil {
		why(fmt.Errorf("reading go env: %w", err))
		return
	}
	if !window.Supported(env.GOOS, env.GOARCH) {
		why(fmt.Errorf("the overlay that reads it is made for linux, and this build is for %s/%s", env.GOOS, env.GOARCH))
		return
	}
	user := overlayFlag(env.GOFLAGS)
	if user != "" && !filepath.IsAbs(user) {
		user = filepath.Join(sd.tree.Dir, user)
	}
	// One overlay per side, keyed by its label: sides with the same
	// toolchain get identical files, so the build cache shares them.
	path, err := window.Make(env.GOROOT, filepath.Join(dir, "window-"+sd.Label), user)
	if err != nil {
		why(err)
		return
	}
	sd.Overlay = path
	s.setClock(sd, model.CPUClockWindow)
}

// setClock records how side sd's CPU time is read.
func (s *session) setClock(sd *sideState, clock string) {
	sd.window = clock == model.CPUClockWindow
	for i := range s.run.Sides {
		if s.run.Sides[i].Label == sd.Label {
			s.run.Sides[i].CPUClock = clock
		}
	}
}

// allWindow reports whether every side reads the timed window.
func (s *session) allWindow() bool {
	for _, sd := range s.sides {
		if !sd.window {
			return false
		}
	}
	return len(s.sides) > 0
}

// overlayFlag returns the -overlay file named in a GOFLAGS value, "" if
// none.
func overlayFlag(goflags string) string {
	var file string
	for _, f := range strings.Fields(goflags) {
		f = strings.TrimPrefix(strings.TrimPrefix(f, "-"), "-")
		if v, ok := strings.CutPrefix(f, "overlay="); ok {
			file = v // the last one wins, as with the go command's flags
		}
	}
	return file
}
