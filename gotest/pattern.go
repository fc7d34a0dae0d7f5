package gotest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// leafPattern is the -test.bench expression that selects exactly the
// benchmark name (without "Benchmark" and the GOMAXPROCS suffix): each
// level anchored, as go test matches level by level. A name printed with
// GOMAXPROCS 1 can end in what reads as a suffix ("n=-1"), so with procs
// the last level matches with or without "-procs".
func leafPattern(name string, procs int) string {
	levels := strings.Split("Benchmark"+name, "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l)
		if i == len(levels)-1 && procs > 0 {
			levels[i] += "(-" + strconv.Itoa(procs) + ")?"
		}
		levels[i] += "$"
	}
	return strings.Join(levels, "/")
}

// splitRegexp splits a -bench expression as go test does: into
// alternatives at the top-level '|', and each into per-level parts at the
// slashes outside brackets and parentheses.
func splitRegexp(s string) [][]string {
	var alts [][]string
	var levels []string
	brackets, parens := 0, 0
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			brackets++
		case ']':
			if brackets--; brackets < 0 { // an unmatched ']' is legal
				brackets = 0
			}
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
				levels = append(levels, s[start:i])
				start = i + 1
				if s[i] == '|' {
					alts = append(alts, levels)
					levels = nil
				}
			}
		}
	}
	return append(alts, append(levels, s[start:]))
}

// benchFilter is a -bench expression taken apart to select top-level
// benchmarks and calibrate each with the rest of the expression.
type benchFilter struct {
	alts [][]string
	tops []*regexp.Regexp
}

func newBenchFilter(expr string) (*benchFilter, error) {
	f := &benchFilter{alts: splitRegexp(expr)}
	for _, alt := range f.alts {
		for i, e := range alt {
			re, err := regexp.Compile(e)
			if err != nil {
				return nil, fmt.Errorf("invalid benchmark pattern %q: %w", expr, err)
			}
			if i == 0 {
				f.tops = append(f.tops, re)
			}
		}
	}
	return f, nil
}

// pattern returns the -test.bench expression that runs the top-level
// benchmark name and those of its sub-benchmarks expr selects, or "" when
// expr does not select name.
func (f *benchFilter) pattern(name string) string {
	top := "^" + regexp.QuoteMeta(name) + "$"
	var alts []string
	for i, alt := range f.alts {
		if !f.tops[i].MatchString(name) {
			continue
		}
		if len(alt) == 1 {
			return top // every sub-benchmark
		}
		alts = append(alts, top+"/"+strings.Join(alt[1:], "/"))
	}
	return strings.Join(alts, "|")
}
