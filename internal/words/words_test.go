package words

import (
	"math"
	"strings"
	"testing"
)

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "benchmarks"}, {1, "benchmark"}, {2, "benchmarks"}, {-1, "benchmarks"}} {
		if got := Plural(tc.n, "benchmark", "benchmarks"); got != tc.want {
			t.Errorf("Plural(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := Count(int64(1), "request was", "requests were"); got != "1 request was" {
		t.Errorf("Count(1) = %q", got)
	}
	if got := Count(int64(3), "request was", "requests were"); got != "3 requests were" {
		t.Errorf("Count(3) = %q", got)
	}
}

func TestPct(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0%"},
		{1, "100%"},
		{0.95, "95%"},
		{0.999, "99.9%"},
		{0.9996, "100%"}, // three significant digits: 99.96 rounds to 100
		{0.09996, "10%"},
		{0.1234, "12.3%"},
		{0.84, "84%"},
		{0.025, "2.5%"},
		{0.005, "0.5%"},
		{0.00123, "0.123%"},
		{22.65, "2265%"}, // never 2.26e+03%
		{1e6, "100000000%"},
		{-0.05, "-5%"},
		{-0.1234, "-12.3%"},
	} {
		if got := Pct(tc.f); got != tc.want {
			t.Errorf("Pct(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

// TestPctUp checks that a bound is rounded up to two significant digits,
// never down: 2.341% is 2.4%, not 2.3%.
func TestPctUp(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0.02341, "2.4%"},
		{0.0231, "2.4%"},
		{0.023, "2.3%"}, // exactly two digits stays
		{0.02, "2%"},
		{0.07, "7%"}, // 0.07 × 100 is 7.000000000000001
		{0.0051, "0.51%"},
		{0.00501, "0.51%"},
		{0.123, "13%"},
		{0.0999, "10%"},
		{0.991, "100%"},
		{1.234, "130%"},
		{0, "0%"},
	} {
		if got := PctUp(tc.f); got != tc.want {
			t.Errorf("PctUp(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestPctSetting(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0.95, "95%"},
		{0.07, "7%"},       // 0.07*100 is 7.000000000000001
		{0.57, "57%"},      // 0.57*100 is 56.99999999999999
		{0.9999, "99.99%"}, // Pct says 100%
		{0.1234, "12.34%"}, // Pct says 12.3%
		{0.005, "0.5%"},
		{0.00001, "0.001%"},
		{1e-9, "0.0000001%"}, // never 1e-07%
		{1e4, "1000000%"},    // never 1e+06%
		{0, "0%"},
		{math.Copysign(0, -1), "0%"},
		{-0.05, "-5%"},
	} {
		if got := PctSetting(tc.f); got != tc.want {
			t.Errorf("PctSetting(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestJoinList(t *testing.T) {
	for _, tc := range []struct {
		items []string
		max   int
		want  string
	}{
		{nil, 5, ""},
		{[]string{"a"}, 5, "a"},
		{[]string{"a", "b"}, 5, "a and b"},
		{[]string{"a", "b", "c"}, 5, "a, b and c"},
		{[]string{"a", "b", "c"}, 3, "a, b and c"},
		{[]string{"a", "b", "c", "d"}, 2, "a, b and 2 more"},
		{[]string{"x (failed: a, b)", "y"}, 5, "x (failed: a, b) and y"},
		{[]string{"x (failed: a, b)", "y", "z"}, 5, "x (failed: a, b); y and z"},
		{[]string{"x", "y", "z (a, b)"}, 2, "x, y and 1 more"}, // only the items shown decide
	} {
		if got := JoinList(tc.items, tc.max); got != tc.want {
			t.Errorf("JoinList(%q, %d) = %q, want %q", tc.items, tc.max, got, tc.want)
		}
	}
}

func TestTail(t *testing.T) {
	var lines []string
	for i := range 30 {
		lines = append(lines, strings.Repeat("x", i))
	}
	got := Tail(strings.Join(lines, "\n")+"\n", 3)
	if want := "...\n" + lines[27] + "\n" + lines[28] + "\n" + lines[29]; got != want {
		t.Errorf("Tail = %q, want %q", got, want)
	}
	if got := Tail("a\nb\n", 5); got != "a\nb" {
		t.Errorf("short Tail = %q", got)
	}
}

func TestCodeSpan(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"go test", "`go test`"},
		{"a`b", "`` a`b ``"},
		{"x ``y``", "``` x ``y`` ```"},
		{" lead", "`  lead `"},
	} {
		if got := CodeSpan(tc.in); got != tc.want {
			t.Errorf("CodeSpan(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
