package harness

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Configuration keys of the per-variant settings in a benchmark's
// model.Benchmark.Config. Each value lists variant=value pairs separated by
// spaces, in the group's variant order ("mutex_1t=1 mutex_2t=2"), a
// variant's name quoted as a Go string when it holds a space, '=', '"',
// or anything unprintable.
// Go benchmark format allows only lower-case keys without spaces or
// colons, so variant names cannot be part of a key.
const (
	// configGoroutines lists each parallel variant's goroutine count.
	configGoroutines = "goroutines"
	// configScale lists the variants too fast for the shared iteration
	// count, with the multiple of it they ran.
	configScale = "scale"
	// configLoopOverhead lists the loop overhead per iteration subtracted
	// from each variant's samples: the median of its loop's measurements,
	// one per round.
	configLoopOverhead = "loop-overhead"
)

// A variantList builds a per-variant configuration value.
type variantList []string

func (l *variantList) add(variant, value string) {
	name := variant
	if !utf8.ValidString(name) || strings.ContainsAny(name, "=\"") || strings.IndexFunc(name, func(r rune) bool {
		return unicode.IsSpace(r) || !unicode.IsPrint(r)
	}) >= 0 {
		name = strconv.Quote(name)
	}
	*l = append(*l, name+"="+value)
}

// set stores the list under key, unless it is empty.
func (l variantList) set(cfg map[string]string, key string) {
	if len(l) > 0 {
		cfg[key] = strings.Join(l, " ")
	}
}

// parseVariantList parses a per-variant configuration value into a map
// from variant to value. It skips what it cannot parse.
func parseVariantList(s string) map[string]string {
	m := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		var name string
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return m
			}
			name, _ = strconv.Unquote(q)
			s = s[len(q):]
			if !strings.HasPrefix(s, "=") {
				return m
			}
			s = s[1:]
		} else {
			var ok bool
			name, s, ok = strings.Cut(s, "=")
			if !ok {
				return m
			}
		}
		value, rest, _ := strings.Cut(s, " ")
		m[name] = value
		s = rest
	}
	return m
}
