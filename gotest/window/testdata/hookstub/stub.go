// Package testing is a stand-in for the fields of package testing's B that
// the overlay's hooks (hooks.go.txt, copied here by the test that runs this
// package) read and write, so that the hooks can be run against a
// simulated machine whose schedstat files and clocks a test controls.
package testing

import "time"

// B has what the hooks use of testing.B.
type B struct {
	N        int
	duration time.Duration
	extra    map[string]float64
	rigorWin rigorWindowState
}
