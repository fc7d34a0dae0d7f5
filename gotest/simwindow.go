package gotest

import (
	"context"
	"errors"
	"strings"

	"github.com/rigorbench/rigor/gotest/window"
)

// The bridge to package window's simulation and hardware counters.

// errNoValgrind is returned by Run, before anything is built, when
// InstructionsSimulate finds no valgrind command.
var errNoValgrind = window.ErrNoValgrind

// countersAvailable reports whether the timer overlay can read hardware
// counters here, or why not.
func countersAvailable() (bool, string) { return window.CountersAvailable() }

// valgrindVersion is what the valgrind command at path says it is:
// "valgrind-3.19.0".
func valgrindVersion(path string) (string, error) { return window.ValgrindVersion(path) }

// windowSimulate runs one process of the simulation pass with package
// window's Simulate.
func windowSimulate(ctx context.Context, req simRequest) ([]simWindow, error) {
	rs, err := window.Simulate(ctx, window.SimConfig{
		Valgrind: req.valgrind,
		Binary:   req.bin.Path,
		Dir:      req.bin.Pkg.Dir,
		Pattern:  req.pattern,
		Iters:    int(req.iters),
		Count:    req.count,
		Args:     req.bin.Args,
		Env:      req.bin.Env,
	})
	ws := make([]simWindow, len(rs))
	for i, r := range rs {
		ws[i] = simWindow{name: r.Name, iters: int64(r.Iters), perOp: r.PerOp, segments: r.Segments, parallel: r.Parallel}
	}
	return ws, simFailure(err)
}

// simFailure is a simulated run's failure as a *RunError: the process's
// exit, and what the benchmarks and valgrind printed; other errors as they
// are.
func simFailure(err error) error {
	var se *window.SimError
	if !errors.As(err, &se) {
		return err
	}
	return &RunError{Reason: se.Err.Error(), Tail: strings.TrimSpace(se.Output + "\n" + se.Stderr)}
}
