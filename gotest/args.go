package gotest

import (
	"fmt"
	"strings"
)

// CheckArgs checks the arguments a side passes to its test binaries
// (Settings.Args, what go test -args passes): rigor sets every -test.*
// flag itself, to calibrate, time, frame and profile the benchmarks, so a
// -test.* argument would silently change what a sample is, or break the
// parsing of its output. Any other argument is the benchmarks' own
// (-benchdataDir=testdata, -size 1024) and is passed as it is.
func CheckArgs(args []string) error {
	for _, a := range args {
		name := strings.TrimLeft(a, "-")
		if len(name) < len(a) && len(a)-len(name) <= 2 && strings.HasPrefix(name, "test.") {
			name, _, _ = strings.Cut(name, "=")
			return fmt.Errorf("test binary argument %q: rigor sets the -test.* flags itself (-%s: use rigor's own flags, such as --bench, --benchtime, --cpu and --timeout)", a, name)
		}
	}
	return nil
}

// withArgs returns rigor's own flags for one run of a test binary followed
// by the side's arguments. rigor's come first: a test binary's flags stop
// at the first argument that is not a flag, and the side's arguments may
// include such words for a TestMain of its own.
func withArgs(own, side []string) []string {
	if len(side) == 0 {
		return own
	}
	return append(append(make([]string, 0, len(own)+len(side)), own...), side...)
}
