//go:build !optimized

package benchlab

func Build(parts []string) string {
	var out string
	for _, p := range parts {
		out += p
	}
	return out
}
