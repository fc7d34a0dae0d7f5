//go:build go1.24

package windowcheck

import "testing"

// BenchmarkLoop uses B.Loop (Go 1.24 and later).
func BenchmarkLoop(b *testing.B) {
	for b.Loop() {
		work(20000)
	}
}
