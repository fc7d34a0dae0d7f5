package experiment

import (
	"slices"
	"strings"
	"testing"
)

func TestSideOrder(t *testing.T) {
	// The first 16 terms of the Thue-Morse sequence are
	// 0110100110010110 (OEIS A010060); ABBA alternates.
	for _, tc := range []struct {
		order string
		want  string
	}{
		{OrderThueMorse, "0110100110010110"},
		{OrderABBA, "0101010101010101"},
	} {
		var got strings.Builder
		for round := 1; round <= 16; round++ {
			o := SideOrder(tc.order, round, 2)
			switch {
			case slices.Equal(o, []int{0, 1}):
				got.WriteByte('0')
			case slices.Equal(o, []int{1, 0}):
				got.WriteByte('1')
			default:
				t.Fatalf("%s round %d: order %v", tc.order, round, o)
			}
		}
		if got.String() != tc.want {
			t.Errorf("%s: rounds 1..16 flipped as %s, want %s", tc.order, got.String(), tc.want)
		}
	}
	if got := SideOrder(OrderThueMorse, 5, 1); !slices.Equal(got, []int{0}) {
		t.Errorf("one side: %v", got)
	}
}

// Counterbalancing cancels drift: under a linear trend (round r's first
// slot at time 2r, second at 2r+1), both schemes give each side the same
// total time over every block of two rounds; Thue-Morse also cancels a
// quadratic trend over every block of four.
func TestSideOrderCancelsDrift(t *testing.T) {
	for _, tc := range []struct {
		order string
		block int
		power int
	}{
		{OrderABBA, 2, 1},
		{OrderThueMorse, 2, 1},
		{OrderThueMorse, 4, 2},
	} {
		for start := 1; start <= 16; start += tc.block {
			var sum [2]int
			for r := start; r < start+tc.block; r++ {
				for slot, side := range SideOrder(tc.order, r, 2) {
					x := 2*(r-1) + slot
					v := x
					if tc.power == 2 {
						v = x * x
					}
					sum[side] += v
				}
			}
			// A linear trend leaves a constant offset of one slot per
			// round within a block only if unbalanced.
			if tc.power == 1 && sum[0] != sum[1] {
				t.Errorf("%s rounds %d..%d: linear drift sums %v differ", tc.order, start, start+tc.block-1, sum)
			}
			if tc.power == 2 && sum[0] != sum[1] {
				t.Errorf("%s rounds %d..%d: quadratic drift sums %v differ", tc.order, start, start+tc.block-1, sum)
			}
		}
	}
}

func TestJitter(t *testing.T) {
	rng := NewRand(7)
	lo, hi := int64(1<<62), int64(0)
	for range 10000 {
		j := Jitter(rng, 1000)
		if j < 800 || j > 1200 {
			t.Fatalf("Jitter(1000) = %d, outside [800, 1200]", j)
		}
		lo, hi = min(lo, j), max(hi, j)
	}
	// Uniform on ±20%: 10000 draws come within 1% of both ends.
	if lo > 810 || hi < 1190 {
		t.Errorf("10000 draws spanned [%d, %d], want nearly [800, 1200]", lo, hi)
	}
	if j := Jitter(rng, 1); j != 1 {
		t.Errorf("Jitter(1) = %d, want 1", j)
	}
	a, b := NewRand(3), NewRand(3)
	for range 100 {
		if x, y := Jitter(a, 5000), Jitter(b, 5000); x != y {
			t.Fatalf("same seed, different jitter: %d and %d", x, y)
		}
	}
}

func TestShuffleDeterministic(t *testing.T) {
	order := func(seed uint64) []int {
		rng := NewRand(seed)
		var all []int
		for range 5 { // five rounds
			x := []int{0, 1, 2, 3, 4, 5, 6, 7}
			rng.Shuffle(len(x), func(i, j int) { x[i], x[j] = x[j], x[i] })
			all = append(all, x...)
		}
		return all
	}
	if a, b := order(1), order(1); !slices.Equal(a, b) {
		t.Errorf("seed 1 gave %v then %v", a, b)
	}
	if a, b := order(1), order(2); slices.Equal(a, b) {
		t.Errorf("seeds 1 and 2 gave the same schedule %v", a)
	}
	// Rounds differ from one another.
	if a := order(1); slices.Equal(a[:8], a[8:16]) && slices.Equal(a[8:16], a[16:24]) {
		t.Errorf("every round in the same order: %v", a[:8])
	}
}
