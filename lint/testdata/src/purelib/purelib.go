// Package purelib is imported by elided's tests: its pure functions are
// known through facts.
package purelib

func Double(x int) int { return 2 * x }

func Sum(s []int) int { // a loop: not deleted
	t := 0
	for _, v := range s {
		t += v
	}
	return t
}
