package gotest

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
			o := sideOrder(tc.order, round, 2)
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
	if got := sideOrder(OrderThueMorse, 5, 1); !slices.Equal(got, []int{0}) {
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
				for slot, side := range sideOrder(tc.order, r, 2) {
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
	rng := newRand(7)
	lo, hi := int64(1<<62), int64(0)
	for range 10000 {
		j := jitter(rng, 1000)
		if j < 800 || j > 1200 {
			t.Fatalf("jitter(1000) = %d, outside [800, 1200]", j)
		}
		lo, hi = min(lo, j), max(hi, j)
	}
	// Uniform on ±20%: 10000 draws come within 1% of both ends.
	if lo > 810 || hi < 1190 {
		t.Errorf("10000 draws spanned [%d, %d], want nearly [800, 1200]", lo, hi)
	}
	if j := jitter(rng, 1); j != 1 {
		t.Errorf("jitter(1) = %d, want 1", j)
	}
	a, b := newRand(3), newRand(3)
	for range 100 {
		if x, y := jitter(a, 5000), jitter(b, 5000); x != y {
			t.Fatalf("same seed, different jitter: %d and %d", x, y)
		}
	}
}

func TestShuffleDeterministic(t *testing.T) {
	order := func(seed uint64) []int {
		rng := newRand(seed)
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

func TestSplitRegexp(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [][]string
	}{
		{".", [][]string{{"."}}},
		{"Build", [][]string{{"Build"}}},
		{"Build/size=1", [][]string{{"Build", "size=1"}}},
		{"A/B/C", [][]string{{"A", "B", "C"}}},
		{"A|B/x", [][]string{{"A"}, {"B", "x"}}},
		{"(A|B)/x", [][]string{{"(A|B)", "x"}}},
		{"[/|]x/y", [][]string{{"[/|]x", "y"}}},
		{`a\/b/c`, [][]string{{`a\/b`, "c"}}},
		{"a]/b", [][]string{{"a]", "b"}}},
		{"", [][]string{{""}}},
	} {
		if got := splitRegexp(tc.in); !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("splitRegexp(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBenchFilterPattern(t *testing.T) {
	for _, tc := range []struct {
		expr, name, want string
	}{
		{".", "BenchmarkBuild", "^BenchmarkBuild$"},
		{"Build", "BenchmarkBuild", "^BenchmarkBuild$"},
		{"Build", "BenchmarkKept", ""},
		{"Build/size=1$", "BenchmarkBuild", "^BenchmarkBuild$/size=1$"},
		{"Kept|Build/x", "BenchmarkBuild", "^BenchmarkBuild$/x"},
		{"Kept|Build/x", "BenchmarkKept", "^BenchmarkKept$"},
		{"Build/x|Build/y", "BenchmarkBuild", "^BenchmarkBuild$/x|^BenchmarkBuild$/y"},
		{"Build|Build/y", "BenchmarkBuild", "^BenchmarkBuild$"},
		{"B.ild", "BenchmarkA.B", ""},
	} {
		f, err := newBenchFilter(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.pattern(tc.name); got != tc.want {
			t.Errorf("pattern(%q) under -bench %q = %q, want %q", tc.name, tc.expr, got, tc.want)
		}
	}
	if _, err := newBenchFilter("a/(b"); err == nil {
		t.Error("a/(b accepted")
	}
}

func TestLeafPattern(t *testing.T) {
	for _, tc := range []struct {
		name  string
		procs int
		want  string
	}{
		{"Build", 0, "^BenchmarkBuild$"},
		{"Build", 2, "^BenchmarkBuild(-2)?$"},
		{"Build/size=1024", 0, "^BenchmarkBuild$/^size=1024$"},
		{"Sort/n=10/algo=quick+sort", 0, `^BenchmarkSort$/^n=10$/^algo=quick\+sort$`},
		{"X/a.b(c)", 0, `^BenchmarkX$/^a\.b\(c\)$`},
	} {
		if got := leafPattern(tc.name, tc.procs); got != tc.want {
			t.Errorf("leafPattern(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func FuzzSplitRegexp(f *testing.F) {
	for _, s := range []string{".", "A/B", "A|B/x", "(A|B)/x", "[/|]x/y", `a\/b/c`, "a]/b", `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		alts := splitRegexp(s)
		var parts []string
		for _, levels := range alts {
			if len(levels) == 0 {
				t.Fatalf("splitRegexp(%q): an alternative with no levels", s)
			}
			parts = append(parts, strings.Join(levels, "/"))
		}
		if got := strings.Join(parts, "|"); got != s {
			t.Fatalf("splitRegexp(%q) = %q does not join back (%q)", s, alts, got)
		}
	})
}
