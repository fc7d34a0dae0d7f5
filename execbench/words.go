package execbench

import (
	"errors"
	"fmt"
	"strings"
)

// A SyntaxError is a command that needs a shell to mean what it says
// (a pipe, a redirection, a variable, a pattern), given to run without
// one.
type SyntaxError struct {
	Command string
	What    string // "a pipe (|)"
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%q uses shell syntax, %s, which only a shell understands; run it with --shell sh, or quote the character", e.Command, e.What)
}

// shellSyntax names the characters that mean something to a POSIX shell
// outside quotes, where a command run without a shell would take them
// literally.
var shellSyntax = map[rune]string{
	'|':  "a pipe (|)",
	'&':  "a background or and-list operator (&)",
	';':  "a command separator (;)",
	'<':  "a redirection (<)",
	'>':  "a redirection (>)",
	'(':  "a subshell (()",
	')':  "a subshell ())",
	'$':  "an expansion ($)",
	'`':  "a command substitution (`)",
	'*':  "a pattern (*)",
	'?':  "a pattern (?)",
	'[':  "a pattern ([)",
	'\n': "a second line",
}

// SplitWords splits a command line into words as a POSIX shell would,
// without running one: blanks separate words; single quotes keep
// everything literally; double quotes keep everything but \" \\ \$ and \`,
// and a backslash outside quotes keeps the next character. What only a
// shell can do (pipes, redirections, expansions, patterns, ~, comments,
// variable assignments) is a *SyntaxError, so that a command is never
// run with its operators passed as arguments. An unterminated quote is an
// error too.
func SplitWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	syntax := func(what string) error { return &SyntaxError{Command: line, What: what} }
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("%q has an unterminated single quote", line)
			}
			cur.WriteString(string(rs[i+1 : j]))
			inWord, i = true, j
		case c == '"':
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				switch rs[j] {
				case '$':
					return nil, syntax("an expansion ($) inside double quotes")
				case '`':
					return nil, syntax("a command substitution (`) inside double quotes")
				case '\\':
					if j+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[j+1]) {
						j++
						if rs[j] == '\n' {
							continue // a line continuation
						}
					}
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, fmt.Errorf("%q has an unterminated double quote", line)
			}
			inWord, i = true, j
		case c == '\\':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("%q ends in a backslash", line)
			}
			i++
			if rs[i] != '\n' { // backslash-newline joins lines
				cur.WriteRune(rs[i])
				inWord = true
			}
		default:
			if what, ok := shellSyntax[c]; ok {
				return nil, syntax(what)
			}
			if !inWord && c == '~' {
				return nil, syntax("a home directory (~)")
			}
			if !inWord && c == '#' {
				return nil, syntax("a comment (#)")
			}
			if c == '=' && len(words) == 0 && inWord && isName(cur.String()) {
				return nil, syntax("a variable assignment (" + cur.String() + "=)")
			}
			cur.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errEmpty
	}
	return words, nil
}

var errEmpty = errors.New("empty command")

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}
