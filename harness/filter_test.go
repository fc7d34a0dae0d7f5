package harness

import (
	"slices"
	"testing"
)

// TestBenchFilter checks which cells of a group run by BenchmarkFib (or a
// sub-benchmark of it) a -bench pattern selects, by testing's rules:
// element by element, unanchored, alternatives at a top-level '|',
// brackets and parentheses protecting '/' and '|'.
func TestBenchFilter(t *testing.T) {
	cells := [][2]string{{"fib20", ""}, {"fib21", ""}, {"fib20", "n=1"}, {"my var", "n=2"}}
	for _, tc := range []struct {
		pattern, name string
		want          []int // indexes of the cells kept; nil: no filter
	}{
		{"", "BenchmarkFib", nil},
		{".", "BenchmarkFib", nil},
		{"Fib", "BenchmarkFib", nil},
		{"Fib/fib20$", "BenchmarkFib", []int{0, 2}},
		{"Fib/fib2", "BenchmarkFib", []int{0, 1, 2}},
		{"Fib/fib20/n=1", "BenchmarkFib", []int{0, 2}}, // fib20 alone has no second element: kept
		{"Fib/^fib2[01]$/n=2", "BenchmarkFib", []int{0, 1}},
		{"Fib/my_var", "BenchmarkFib", []int{3}},
		{"Fib/(fib21|my_var)", "BenchmarkFib", []int{1, 3}},
		{"Fib/fib21|Other", "BenchmarkFib", []int{1}},
		{"Other/x|Fib", "BenchmarkFib", nil},
		{"X/Fib/fib21", "BenchmarkX/Fib", []int{1}},
	} {
		f := parseBenchFilter(tc.pattern, tc.name)
		if tc.want == nil {
			if f != nil {
				t.Errorf("%q in %s: a filter %+v, want none", tc.pattern, tc.name, f)
			}
			continue
		}
		var got []int
		for i, c := range cells {
			if f.keep(c[0], c[1]) {
				got = append(got, i)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q in %s: keeps cells %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
	if f := parseBenchFilter("Fib/fib20$", "BenchmarkFib"); !slices.Equal(f.rest, []string{"fib20$"}) {
		t.Errorf("child pattern elements %q, want [fib20$]", f.rest)
	}
}
