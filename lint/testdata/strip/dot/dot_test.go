package dot

import . "testing"

func square(x int) int { return x * x }

// B is testing.B, dot-imported.
func helperDot(b *B) {
	for i := 0; i < b.N; i++ {
		square(i) // finding: elided
	}
}
