// Package other holds a pure function for measure's benchmarks to call
// from another package.
package other

// Mix is pure and small: inlined, and deleted when its result is unused.
func Mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}
