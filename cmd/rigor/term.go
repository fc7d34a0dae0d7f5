package main

import (
	"io"
	"os"
	"strconv"

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

// terminalWidth is w's width in columns when it is a terminal ($COLUMNS,
// else 100, when the terminal does not say), or 0 when it is not: a file
// or a pipe, where the renderers never shorten a name.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
		return cols
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 100
}
