package gotest

import (
	"context"
	"errors"
)

// The bridge to package window's simulation and hardware counters: until
// they are there, a simulation fails saying so, and no machine has
// counters.

// errNoValgrind is returned by Run, before anything is built, when
// InstructionsSimulate finds no valgrind command.
var errNoValgrind = errors.New("valgrind not found on PATH: install it (Debian's valgrind package: apt-get install valgrind)")

func countersAvailable() (bool, string) {
	return false, "this rigor's timer overlay does not read them yet"
}

func valgrindVersion(string) (string, error) { return "", errors.New("not yet") }

func windowSimulate(context.Context, simRequest) ([]simWindow, error) {
	return nil, errors.New("this rigor's timer overlay cannot be simulated yet")
}
