package harness

import (
	"flag"
	"regexp"
	"strings"
)

// A benchFilter is go test's -bench pattern as it applies to the
// variants of a group run by the benchmark named name: testing matches
// sub-benchmarks element by element ("Fib/fib20$" is "Fib" for the
// benchmark function and "fib20$" for its sub-benchmarks), and Run's
// sub-benchmarks are the group's variant[/params]. So the elements past
// the benchmark's own select the cells measured, and the comparison is
// among them, as with testing's own sub-benchmarks.
type benchFilter struct {
	// alts are the pattern's alternatives (split at a top-level '|')
	// that match the benchmark's own name, each cut to the elements
	// past it: nil keeps every cell.
	alts [][]*regexp.Regexp
	// rest is the text of the first such alternative's elements, for a
	// child process's -test.bench.
	rest []string
}

// newBenchFilter returns the filter of the flag set's test.bench for the
// benchmark named name (testing.B.Name), or nil when it keeps everything
// (no pattern, or one that says nothing past the benchmark's name).
func newBenchFilter(fs *flag.FlagSet, name string) *benchFilter {
	f := fs.Lookup("test.bench")
	if f == nil {
		return nil
	}
	return parseBenchFilter(f.Value.String(), name)
}

func parseBenchFilter(pattern, name string) *benchFilter {
	if pattern == "" {
		return nil
	}
	own := strings.Split(name, "/")
	bf := &benchFilter{}
	for _, alt := range splitPattern(pattern) {
		if len(alt) <= len(own) {
			// This alternative says nothing about the variants: every
			// cell it reaches runs.
			if matchElems(alt, own) {
				return nil
			}
			continue
		}
		if !matchElems(alt[:len(own)], own) {
			continue
		}
		var res []*regexp.Regexp
		for _, e := range alt[len(own):] {
			re, err := regexp.Compile(e)
			if err != nil {
				return nil // testing rejects the pattern before any benchmark runs
			}
			res = append(res, re)
		}
		if bf.alts == nil {
			bf.rest = alt[len(own):]
		}
		bf.alts = append(bf.alts, res)
	}
	if bf.alts == nil {
		return nil
	}
	return bf
}

// matchElems reports whether each pattern element matches the name
// element at its position.
func matchElems(pats, names []string) bool {
	for i, p := range pats {
		if i >= len(names) {
			return true
		}
		ok, err := regexp.MatchString(p, names[i])
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// keep reports whether the cell variant[/params] runs.
func (f *benchFilter) keep(variant, params string) bool {
	if f == nil {
		return true
	}
	name := rewriteName(variant)
	if params != "" {
		name += "/" + rewriteName(params)
	}
	elems := strings.Split(name, "/")
	for _, alt := range f.alts {
		ok := true
		for i, re := range alt {
			if i < len(elems) && !re.MatchString(elems[i]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// rewriteName is testing's rewrite of a sub-benchmark's name: spaces
// become underscores.
func rewriteName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' {
			return '_'
		}
		return r
	}, s)
}

// splitPattern splits a -bench pattern as testing does: alternatives at
// a top-level '|', elements at a top-level '/', brackets and parentheses
// protecting both.
func splitPattern(s string) [][]string {
	var alts [][]string
	var elems []string
	brackets, parens, start := 0, 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			brackets++
		case ']':
			brackets = max(brackets-1, 0)
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets == 0 && parens == 0 {
				elems = append(elems, s[start:i])
				start = i + 1
				if s[i] == '|' {
					alts = append(alts, elems)
					elems = nil
				}
			}
		}
	}
	return append(alts, append(elems, s[start:]))
}
