package load

import (
	"reflect"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

func TestParseConcurrency(t *testing.T) {
	tests := []struct {
		in   string
		want []int
	}{
		{"1,2,4", []int{1, 2, 4}},
		{"1..64x2", []int{1, 2, 4, 8, 16, 32, 64}},
		{"1..10x3", []int{1, 3, 9}},
		{"8..32+8", []int{8, 16, 24, 32}},
		{"1..4x1.5", []int{1, 2, 3}}, // 1, 1.5→2, 3, 4.5→5 > 4
		{"1..4x2, 6", []int{1, 2, 4, 6}},
		{"5", []int{5}},
	}
	for _, tt := range tests {
		got, err := ParseConcurrency(tt.in)
		if err != nil {
			t.Errorf("ParseConcurrency(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseConcurrency(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "1.5", "1..", "4..1x2", "1..8x1", "1..8+0", "1..8*2", "a,b", "1..100000+1"} {
		if got, err := ParseConcurrency(bad); err == nil {
			t.Errorf("ParseConcurrency(%q) = %v, want an error", bad, got)
		}
	}
}

func TestParseRates(t *testing.T) {
	got, err := ParseRates("500, 1000..4000x2, 2500.5")
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{500, 1000, 2000, 4000, 2500.5}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"0", "-5", "NaN", "Inf", "1e10", "100..50+10"} {
		if got, err := ParseRates(bad); err == nil {
			t.Errorf("ParseRates(%q) = %v, want an error", bad, got)
		}
	}
}

func TestParseSLO(t *testing.T) {
	one := 0.01
	tests := []struct {
		in   string
		want model.RampSLO
	}{
		{"p99=50ms", model.RampSLO{Percentile: 99, Latency: 50 * time.Millisecond}},
		{"p99.9=1s,errors=1%", model.RampSLO{Percentile: 99.9, Latency: time.Second, MaxErrorRate: &one}},
		{"errors=0.01", model.RampSLO{MaxErrorRate: &one}},
		{"max=200ms", model.RampSLO{Percentile: 100, Latency: 200 * time.Millisecond}},
	}
	for _, tt := range tests {
		got, err := ParseSLO(tt.in, nil)
		if err != nil {
			t.Errorf("ParseSLO(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("ParseSLO(%q) = %+v, want %+v", tt.in, *got, tt.want)
		}
	}
	// Repeated flags add up.
	s, err := ParseSLO("p90=10ms", nil)
	if err == nil {
		s, err = ParseSLO("errors=5%", s)
	}
	if err != nil || s.Percentile != 90 || s.MaxErrorRate == nil || *s.MaxErrorRate != 0.05 {
		t.Errorf("accumulated SLO = %+v, %v", s, err)
	}
	for _, bad := range []string{"", "p99", "p99=", "p98=1ms", "p99=-1ms", "p99=fast", "errors=101%", "errors=-1", "latency=5ms", "p99=1ms,p90=2ms"} {
		if got, err := ParseSLO(bad, nil); err == nil {
			t.Errorf("ParseSLO(%q) = %+v, want an error", bad, got)
		}
	}
}

func FuzzParseSteps(f *testing.F) {
	for _, s := range []string{"1,2,4", "1..64x2", "8..64+8", "1000..8000x1.5", "1..4x2,6"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if c, err := ParseConcurrency(s); err == nil {
			if len(c) == 0 || len(c) > maxSteps {
				t.Fatalf("%q: %d steps", s, len(c))
			}
			for _, v := range c {
				if v < 1 {
					t.Fatalf("%q: concurrency %d", s, v)
				}
			}
		}
		if r, err := ParseRates(s); err == nil {
			if len(r) == 0 || len(r) > maxSteps {
				t.Fatalf("%q: %d steps", s, len(r))
			}
			for _, v := range r {
				if !(v > 0) {
					t.Fatalf("%q: rate %v", s, v)
				}
			}
		}
	})
}

func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"p99=50ms", "errors=1%", "p99.9=1s,errors=0.5%", "max=2s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slo, err := ParseSLO(s, nil)
		if err != nil {
			return
		}
		if slo.Latency < 0 || slo.MaxErrorRate != nil && (*slo.MaxErrorRate < 0 || *slo.MaxErrorRate > 1) {
			t.Fatalf("%q: %+v", s, slo)
		}
		if slo.Latency > 0 {
			if _, ok := (model.Latency{}).Percentile(slo.Percentile); !ok {
				t.Fatalf("%q: percentile %v", s, slo.Percentile)
			}
		}
	})
}
