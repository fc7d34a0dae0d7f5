// Package sortclone follows the iter_batched example of Criterion.rs's
// user guide ("Timing Loops") in Go: sorting a clone of 10000 reversed
// integers, measured three ways. Timing the clone
// alone; timing clone and sort together inside Iter; and timing the sort
// alone with IterWithSetup, which clones outside the timed window. The
// third should come out at about the second minus the first.
package sortclone

// Input returns the 10000 integers 9999, 9998, ..., 0, as Rust's
// (0..10_000).rev().collect().
func Input() []uint64 {
	v := make([]uint64, 10000)
	for i := range v {
		v[i] = uint64(len(v) - 1 - i)
	}
	return v
}
