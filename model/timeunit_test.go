package model

import (
	"math"
	"strings"
	"testing"
)

// Benchmarks that print their time in us/op, µs/op or ms/op compare with
// those in ns/op: benchunit.Tidy turns only ns into sec, and without
// tidying the others the two files had no metric, so no benchmark, in
// common.
func TestTimeUnitsTidied(t *testing.T) {
	for _, tt := range []struct {
		line string
		want float64
		unit string
	}{
		{"BenchmarkA-2 100 1400 ns/op", 1.4e-6, "sec/op"},
		{"BenchmarkA-2 100 1.4 us/op", 1.4e-6, "sec/op"},
		{"BenchmarkA-2 100 1.4 µs/op", 1.4e-6, "sec/op"},      // micro sign U+00B5
		{"BenchmarkA-2 100 1.4 \u03bcs/op", 1.4e-6, "sec/op"}, // Greek mu
		{"BenchmarkA-2 100 2.5 ms/op", 2.5e-3, "sec/op"},
		{"BenchmarkA-2 100 3 s/op", 3, "sec/op"},
		{"BenchmarkA-2 100 0 us/op", 0, "sec/op"},
		{"BenchmarkA-2 100 7 ms/item", 7e-3, "sec/item"},
		{"BenchmarkA-2 100 7 ms", 7e-3, "sec"},
		{"BenchmarkA-2 100 7 mss/op", 7, "mss/op"},   // not a time unit
		{"BenchmarkA-2 100 7 items/s", 7, "items/s"}, // a rate: s is the denominator
		{"BenchmarkA-2 100 7 B/op", 7, "B/op"},
	} {
		run, err := Read(strings.NewReader("pkg: x\n"+tt.line+"\n"), "f", "side")
		if err != nil {
			t.Fatalf("%s: %v", tt.line, err)
		}
		m := run.Benchmarks[0].Metrics[0]
		// benchunit tidies 1400 ns/op to 1.4000000000000001e-06.
		if got := m.Samples[0].Value; m.Unit != tt.unit || math.Abs(got-tt.want) > 1e-15*math.Abs(tt.want) {
			t.Errorf("%s: %v %s, want %v %s", tt.line, m.Samples[0].Value, m.Unit, tt.want, tt.unit)
		}
	}
}
