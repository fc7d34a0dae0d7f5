package execbench

import (
	"slices"
	"strings"
	"testing"
)

func TestScanValues(t *testing.T) {
	for _, tc := range []struct {
		lo, hi, step string
		want         []string
	}{
		{"1", "4", "", []string{"1", "2", "3", "4"}},
		// hyperfine's own example: -P delay 0.3 0.7 -D 0.2.
		{"0.3", "0.7", "0.2", []string{"0.3", "0.5", "0.7"}},
		// 0.1 three times is 0.30000000000000004 in binary floating
		// point; the scan is exact.
		{"0", "0.3", "0.1", []string{"0.0", "0.1", "0.2", "0.3"}},
		{"-2", "2", "2", []string{"-2", "0", "2"}},
		{"1", "10", "4", []string{"1", "5", "9"}},
		{"5", "5", "", []string{"5"}},
		{"1.50", "2", "0.25", []string{"1.50", "1.75", "2.00"}},
	} {
		got, err := ScanValues(tc.lo, tc.hi, tc.step)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ScanValues(%s, %s, %q) = %q, %v; want %q", tc.lo, tc.hi, tc.step, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ lo, hi, step, want string }{
		{"5", "1", "", "empty"},
		{"1", "1000000000000", "", "1000000000000 values"},
		{"0", "1", "0.0001", "10001 values"},
		{"1", "2", "0", "not positive"},
		{"1", "2", "-1", "not positive"},
		{"1e3", "2", "", "not a decimal"},
		{"1/2", "2", "", "not a decimal"},
		{"x", "2", "", "not a decimal"},
	} {
		_, err := ScanValues(tc.lo, tc.hi, tc.step)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ScanValues(%s, %s, %q) error %v, want one mentioning %q", tc.lo, tc.hi, tc.step, err, tc.want)
		}
	}
}

func TestListValues(t *testing.T) {
	if got, err := ListValues(",-O2"); err != nil || !slices.Equal(got, []string{"", "-O2"}) {
		t.Errorf("ListValues(,-O2) = %q, %v", got, err)
	}
	if _, err := ListValues("a,b,a"); err == nil {
		t.Error("a repeated value is accepted")
	}
	if _, err := ListValues(strings.Repeat("x,", MaxBenchmarks) + "y"); err == nil {
		t.Error("a list longer than MaxBenchmarks is accepted")
	}
}

func TestCombinations(t *testing.T) {
	got, err := combinations([]Param{{"a", []string{"1", "2"}}, {"b", []string{"x", "y", "z"}}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range got {
		names = append(names, b.name())
	}
	want := []string{"a=1/b=x", "a=1/b=y", "a=1/b=z", "a=2/b=x", "a=2/b=y", "a=2/b=z"}
	if !slices.Equal(names, want) {
		t.Errorf("combinations %q, want %q", names, want)
	}
	if s := got[5].substitute("run {a} {b} {a}{c}"); s != "run 2 z 2{c}" {
		t.Errorf("substitute = %q", s)
	}
	if got, _ := combinations(nil); len(got) != 1 || got[0].name() != DefaultName {
		t.Errorf("no parameters: %v", got)
	}
	many := []Param{{"a", make([]string, 100)}, {"b", make([]string, 100)}}
	if _, err := combinations(many); err == nil || !strings.Contains(err.Error(), "combinations") {
		t.Errorf("10000 combinations: %v", err)
	}
}

func FuzzScanValues(f *testing.F) {
	f.Add("0.3", "0.7", "0.2")
	f.Add("1", "8", "")
	f.Add("-1.5", "1e3", "0")
	f.Fuzz(func(t *testing.T, lo, hi, step string) {
		values, err := ScanValues(lo, hi, step)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		if len(values) == 0 || len(values) > MaxBenchmarks {
			t.Fatalf("%d values", len(values))
		}
		if !slices.Equal(slices.Compact(slices.Clone(values)), values) {
			t.Fatalf("repeated values %q", values)
		}
	})
}

// TestSubstituteOnce: a value that holds another parameter's {name} is
// substituted as given, never substituted again (hyperfine's
// test_get_command_line_nonoverlapping: -L foo 'a,{bar}' -L bar baz
// never runs 'echo baz baz').
func TestSubstituteOnce(t *testing.T) {
	for _, tc := range []struct {
		b          binding
		line, want string
	}{
		{binding{{"foo", "{bar}"}, {"bar", "baz"}}, "echo {foo} {bar}", "echo {bar} baz"},
		{binding{{"bar", "baz"}, {"foo", "{bar}"}}, "echo {foo} {bar}", "echo {bar} baz"},
		{binding{{"a", "{a}"}}, "x {a}{a}", "x {a}{a}"},
		{binding{{"a", "1"}, {"ab", "2"}}, "{ab}{a}", "21"},
	} {
		if got := tc.b.substitute(tc.line); got != tc.want {
			t.Errorf("%v.substitute(%q) = %q, want %q", tc.b, tc.line, got, tc.want)
		}
	}
}
