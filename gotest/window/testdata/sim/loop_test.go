//go:build go1.24

package simcheck

import "testing"

// BenchmarkLoop uses B.Loop (Go 1.24 and later), after a set-up longer
// than what it measures.
func BenchmarkLoop(b *testing.B) {
	work(500000)
	for b.Loop() {
		work(10000)
	}
}
