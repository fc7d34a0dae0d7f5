package ext_test

import (
	"testing"

	"example.com/cases/ext"
)

// Square's body is read by purity: it has results and is short.
func BenchmarkSquare(b *testing.B) {
	for i := 0; i < b.N; i++ {
		ext.Square(i) // finding: elided
	}
}
