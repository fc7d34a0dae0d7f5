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

// A time unit beside another value that has the unit it would take keeps
// its own: go test prints b.ReportMetric(x, "ms/op") after its own ns/op,
// and benchstat reads that as two metrics, sec/op and ms/op. Before,
// both became sec/op and every such line was skipped as repeating a
// unit: a file of them read as "no benchmark results".
func TestTimeUnitBesideNs(t *testing.T) {
	type mv struct {
		unit  string
		value float64
	}
	eight := " 1 a/op 1 b/op 1 c/op 1 d/op 1 e/op 1 f/op 1 g/op"
	for _, tt := range []struct {
		line string
		want []mv // nil: the line is skipped
	}{
		{"BenchmarkA-2 100 12345 ns/op 0.5 ms/op", []mv{{"sec/op", 12345e-9}, {"ms/op", 0.5}}},
		{"BenchmarkA-2 100 0.5 ms/op 12345 ns/op", []mv{{"ms/op", 0.5}, {"sec/op", 12345e-9}}},
		{"BenchmarkA-2 100 12345 ns/op 7 us/op 64 B/op", []mv{{"sec/op", 12345e-9}, {"us/op", 7}, {"B/op", 64}}},
		{"BenchmarkA-2 100 12345 ns/op 7 us/item", []mv{{"sec/op", 12345e-9}, {"sec/item", 7e-6}}},
		{"BenchmarkA-2 100 7 us/op 0.5 ms/op", []mv{{"sec/op", 7e-6}, {"ms/op", 0.5}}},
		{"BenchmarkA-2 100 12345 ns/op 0 ms/op", []mv{{"sec/op", 12345e-9}, {"ms/op", 0}}},
		// More than eight values (the long-line path), same answer.
		{"BenchmarkA-2 100 12345 ns/op 0.5 ms/op" + eight, []mv{{"sec/op", 12345e-9}, {"ms/op", 0.5},
			{"a/op", 1}, {"b/op", 1}, {"c/op", 1}, {"d/op", 1}, {"e/op", 1}, {"f/op", 1}, {"g/op", 1}}},
		{"BenchmarkA-2 100 7 us/op" + eight + " 0.5 ms/op", []mv{{"sec/op", 7e-6},
			{"a/op", 1}, {"b/op", 1}, {"c/op", 1}, {"d/op", 1}, {"e/op", 1}, {"f/op", 1}, {"g/op", 1}, {"ms/op", 0.5}}},
		// A unit written twice is still a malformed line, however long.
		{"BenchmarkA-2 100 7 us/op 8 us/op", nil},
		{"BenchmarkA-2 100 12345 ns/op 12.345 us/op 12.345 us/op", nil},
		{"BenchmarkA-2 100 7 us/op" + eight + " 8 us/op", nil},
	} {
		run, err := Read(strings.NewReader("pkg: x\n"+tt.line+"\n"), "f", "side")
		if tt.want == nil {
			if err == nil || !strings.Contains(err.Error(), "appears twice") {
				t.Errorf("%s: err %v, want the line skipped for a repeated unit", tt.line, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.line, err)
			continue
		}
		var got []mv
		for _, m := range run.Benchmarks[0].Metrics {
			got = append(got, mv{m.Unit, m.Samples[0].Value})
		}
		ok := len(got) == len(tt.want)
		for i := 0; ok && i < len(got); i++ {
			ok = got[i].unit == tt.want[i].unit && math.Abs(got[i].value-tt.want[i].value) <= 1e-15*math.Abs(tt.want[i].value)
		}
		if !ok {
			t.Errorf("%s: %v, want %v", tt.line, got, tt.want)
		}
	}
}
