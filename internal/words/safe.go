package words

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text from the input (benchmark names, side labels, command lines, what a
// command printed) reaches terminals, Markdown and spreadsheets. A name
// like "X\x1b]0;pwned\x07" must not retitle the terminal.

// Escapable reports whether a terminal would act on r rather than show
// it: C0 and C1 control characters, DEL, and the bidirectional controls
// that reorder what is shown ("Trojan Source").
func Escapable(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// NeedsEscape reports whether TerminalSafe would change s.
func NeedsEscape(s string) bool { return needsEscape(s, false) }

func needsEscape(s string, lines bool) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (Escapable(r) && !(lines && (r == '\n' || r == '\t'))) || (r == utf8.RuneError && n == 1) {
			return true
		}
		i += n
	}
	return false
}

// TerminalSafe returns s with what a terminal would act on shown as Go
// escapes: control characters as \x1b, \n, \t; bidirectional controls as
// \u202e; bytes that are not UTF-8 as \xff. Other text, wide runes and
// emoji included, is returned as is.
func TerminalSafe(s string) string { return terminalSafe(s, false) }

// TerminalSafeLines is TerminalSafe for text of several lines, such as a
// message quoting a compiler's output: line breaks and tabs are kept.
func TerminalSafeLines(s string) string { return terminalSafe(s, true) }

func terminalSafe(s string, lines bool) string {
	if !needsEscape(s, lines) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case lines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case Escapable(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case Escapable(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
