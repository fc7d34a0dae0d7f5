//go:build !linux

package main

import "errors"

// timesAtExit needs Linux's /proc; elsewhere the split of the tool's CPU
// time into its own and its children's is not measured.
func timesAtExit(int) (procTimes, error) {
	return procTimes{}, errors.New("the tool's own CPU time is measured on Linux only")
}
