// Package aa is an A/A test of the harness: the same function measured
// twice, as two variants of one group. Nothing differs, so the comparison
// must end unchanged, its confidence interval inside the ±1% noise band,
// within the default budget; a harness that calls an A/A difference
// significant is measuring its own bias.
package aa

// Work sums a small triangle of products: a few microseconds of pure CPU.
func Work(n int) int {
	s := 0
	for i := range n {
		for j := range i {
			s += i*j ^ s>>3
		}
	}
	return s
}
