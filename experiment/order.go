package experiment

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Orders in which the sides of a round run. Both balance every pair of
// consecutive rounds, so a linear drift of the machine affects both sides
// alike; Thue-Morse also cancels quadratic and higher trends over 4, 8, ...
// rounds.
const (
	OrderABBA      = "abba"       // AB, BA, AB, BA, ...
	OrderThueMorse = "thue-morse" // AB, BA, BA, AB, BA, AB, AB, BA, ...
)

// Flipped reports whether round (counted from 1) runs its sides in reverse
// order under the given counterbalancing scheme.
func Flipped(order string, round int) bool {
	i := uint(round - 1)
	switch order {
	case OrderABBA:
		return i%2 == 1
	default:
		// The Thue-Morse sequence: the parity of the number of ones in
		// the binary expansion of i.
		return bits.OnesCount(i)%2 == 1
	}
}

// SideOrder returns the indices of n sides in the order round runs them.
// With two sides it alternates as order says; with more it rotates.
func SideOrder(order string, round, n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if n == 2 && Flipped(order, round) {
		idx[0], idx[1] = 1, 0
	} else if n > 2 {
		k := (round - 1) % n
		idx = append(idx[k:], idx[:k]...)
	}
	return idx
}

// ValidOrder returns an error naming order when it is not a known order.
func ValidOrder(order string) error {
	if order != OrderABBA && order != OrderThueMorse {
		return fmt.Errorf("unknown order %q (want %s or %s)", order, OrderABBA, OrderThueMorse)
	}
	return nil
}

// JitterFraction is the relative spread of the per-round iteration count.
const JitterFraction = 0.2

// Jitter returns n scaled by a factor drawn uniformly from [0.8, 1.2], at
// least 1, so that periodic noise cannot lock in with the sampling period.
func Jitter(rng *rand.Rand, n int64) int64 {
	f := 1 - JitterFraction + 2*JitterFraction*rng.Float64()
	j := int64(math.Round(float64(n) * f))
	return max(j, 1)
}

// NewRand returns the deterministic generator of a schedule.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}
