package main

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal and colour is allowed
// (https://no-color.org: a non-empty NO_COLOR disables it).
func isTerminal(f *os.File) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}
