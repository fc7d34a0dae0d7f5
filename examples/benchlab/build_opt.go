//go:build optimized

package benchlab

import "strings"

func Build(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p)
	}
	return b.String()
}
