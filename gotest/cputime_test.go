package gotest

import (
	"math"
	"testing"
	"time"
)

func TestAddCPU(t *testing.T) {
	for _, tc := range []struct {
		name          string
		iters         int64
		cpu, startCPU time.Duration
		want          float64 // cpu-sec/op; NaN: none added
		line          string
	}{
		// (105 ms - 5 ms) / 1000 ops = 100 µs an op.
		{"start-up removed", 1000, 105 * time.Millisecond, 5 * time.Millisecond, 100e-6, "BenchmarkX 1000 99000 ns/op 100000 cpu-ns/op"},
		// (3 ms - 1 ms) / 400000 = 5 ns an op, printed with two decimals.
		{"short op", 400000, 3 * time.Millisecond, time.Millisecond, 5e-9, "BenchmarkX 1000 99000 ns/op 5.00 cpu-ns/op"},
		// A fixed-cost estimate above the total gives no figure.
		{"start-up above total", 1000, 4 * time.Millisecond, 5 * time.Millisecond, math.NaN(), "BenchmarkX 1000 99000 ns/op"},
	} {
		r := Result{Line: "BenchmarkX 1000 99000 ns/op", Iters: tc.iters}
		addCPU(&r, tc.cpu, tc.startCPU)
		var got = math.NaN()
		for _, v := range r.Values {
			if v.Unit == CPUUnit {
				got = v.Value
			}
		}
		if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("%s: cpu-sec/op %v, want %v", tc.name, got, tc.want)
		}
		if r.Line != tc.line {
			t.Errorf("%s: line %q, want %q", tc.name, r.Line, tc.line)
		}
	}
}

// TestCPUUnitTidy: the unit written to the side's file reads back, through
// benchfmt's tidying as benchstat does it, as CPUUnit in seconds.
func TestCPUUnitTidy(t *testing.T) {
	rs, _ := ParseResults("BenchmarkX-2 \t1000\t99000 ns/op\t100000 cpu-ns/op\n")
	if len(rs) != 1 {
		t.Fatalf("parsed %d results", len(rs))
	}
	for _, v := range rs[0].Values {
		if v.Unit == CPUUnit {
			if math.Abs(v.Value-100e-6) > 1e-15 {
				t.Errorf("cpu-sec/op = %v, want 100e-6", v.Value)
			}
			return
		}
	}
	t.Errorf("no %s among %+v", CPUUnit, rs[0].Values)
}
