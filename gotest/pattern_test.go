package gotest

import (
	"slices"
	"strings"
	"testing"
)

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
