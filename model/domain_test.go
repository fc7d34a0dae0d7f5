package model

import (
	"math"
	"strings"
	"testing"
)

func TestImplausible(t *testing.T) {
	tests := []struct {
		v    float64
		unit string
		want string // "" for a value that can be a measurement
	}{
		{0, "sec/op", ""},
		{1e-9, "sec/op", ""},
		{1.5, "allocs/op", ""},
		{1e-150, "B/op", ""},
		{1e150, "B/op", ""},
		{-1e150, "score", ""},
		{-5, "ns/op", "is negative, which a time cannot be"},
		{-5e-9, "sec/op", "is negative, which a time cannot be"},
		{-1, "user-sec/op", "is negative, which a time cannot be"},
		{-1, "B/op", "is negative, which a byte count cannot be"},
		{-1, "MB/s", "is negative, which a byte count cannot be"},
		{-1, "allocs/op", "is negative, which an allocation count cannot be"},
		{-1, "items/s", ""},
		{-0.5, "delta", ""},
		{math.NaN(), "sec/op", "is not a finite number"},
		{math.Inf(-1), "score", "is not a finite number"},
		{5e-324, "ns/op", "smaller in magnitude than 1e-150"},
		{1e-320, "B/op", "smaller in magnitude than 1e-150"},
		{-1e-151, "score", "smaller in magnitude than 1e-150"},
		{1.7e308, "B/op", "larger in magnitude than 1e+150"},
		{-1.1e150, "score", "larger in magnitude than 1e+150"},
	}
	for _, tt := range tests {
		got := Implausible(tt.v, tt.unit)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("Implausible(%v, %q) = %q, want %q", tt.v, tt.unit, got, tt.want)
		}
	}
}

// TestReadSkipsImplausibleValues: a line with a value that cannot be a
// measurement is skipped and noted, as a malformed line is; the others
// are kept. Before, -5 ns/op was read (and printed "± -5%"), 5e-324 ns/op
// became 0 sec/op, and 1.7e308 B/op overflowed every statistic.
func TestReadSkipsImplausibleValues(t *testing.T) {
	in := `BenchmarkA 1 -5 ns/op
BenchmarkA 1 5e-324 ns/op
BenchmarkA 1 1e-320 ns/op
BenchmarkA 1 7 ns/op 1.7e308 B/op
BenchmarkA 1 8 ns/op 16 B/op -3 delta
BenchmarkA 1 0 ns/op 0 B/op
BenchmarkA 1 9 ns/op 1e150 B/op
BenchmarkA 1 1e-149 ns/op
BenchmarkA 1 10 ns/op 1e145 MB/s
`
	run := readString(t, in, "input")
	want := []string{
		"input.txt:1: value -5 ns/op is negative, which a time cannot be; line skipped",
		"input.txt:2: value 5e-324 ns/op is nonzero but smaller in magnitude than 1e-150",
		"input.txt:3: value 1e-320 ns/op is nonzero but smaller",
		"input.txt:4: value 1.7e+308 B/op is larger in magnitude than 1e+150",
		// Within the bounds as written, beyond them in the unit rigor
		// computes with: the note says both, or it would claim that
		// 1e-149 is smaller than 1e-150.
		"input.txt:8: value 1e-149 ns/op (1e-158 sec/op) is nonzero but smaller in magnitude than 1e-150",
		"input.txt:9: value 1e+145 MB/s (1e+151 B/s) is larger in magnitude than 1e+150",
	}
	if len(run.Notes) != len(want) {
		t.Fatalf("notes %q, want %d", run.Notes, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(run.Notes[i].Text, w) {
			t.Errorf("note %d = %q, want it to start %q", i, run.Notes[i], w)
		}
	}
	b := run.Benchmarks[0]
	got := map[string][]float64{}
	for _, m := range b.Metrics {
		got[m.Unit] = m.Values("input")
	}
	ns := 1e-9 // benchunit.Tidy's factor, applied in float64
	if v := got["sec/op"]; len(v) != 3 || v[0] != 8*ns || v[1] != 0 || v[2] != 9*ns {
		t.Errorf("sec/op = %v, want 8, 0 and 9 ns", v)
	}
	if v := got["delta"]; len(v) != 1 || v[0] != -3 {
		t.Errorf("delta = %v, want [-3]: a custom unit may be negative", v)
	}
}
