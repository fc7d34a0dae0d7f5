package load

import (
	"fmt"
	"strconv"
	"strings"
)

// ParsePaces parses replay paces: factors by which the recorded pacing is
// sped up, "1x", "0.5x" or a list "1x,2x,4x" (the x is optional).
func ParsePaces(s string) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		t := strings.TrimSuffix(strings.TrimSpace(part), "x")
		v, err := strconv.ParseFloat(t, 64)
		if err != nil || !(v > 0) || v > 1e6 {
			return nil, fmt.Errorf("bad pace %q: want a factor such as 1x, 4x or 0.5x, from 0 to 1e6", strings.TrimSpace(part))
		}
		out = append(out, v)
	}
	if len(out) > maxSteps {
		return nil, fmt.Errorf("%d paces: at most %d steps", len(out), maxSteps)
	}
	return out, nil
}
