package history

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// FuzzDetect: any series of finite values, any window: Detect and
// Analyze do not panic, return change points strictly inside the series
// in increasing order, and give the same answer twice.
func FuzzDetect(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 240, 63, 0, 0, 0, 0, 0, 0, 0, 64}, uint8(10))
	f.Add(make([]byte, 80), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, window uint8) {
		var v []float64
		for len(data) >= 8 && len(v) < 120 {
			x := math.Float64frombits(binary.LittleEndian.Uint64(data))
			data = data[8:]
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e300 {
				continue
			}
			v = append(v, x)
		}
		opts := Options{WindowLen: int(window)}
		if opts.WindowLen < 2 {
			opts.WindowLen = 2
		}
		cps := Detect(v, opts)
		for i, c := range cps {
			if c.Index <= 0 || c.Index >= len(v) || (i > 0 && c.Index <= cps[i-1].Index) {
				t.Fatalf("change points %v of a series of %d", indexes(cps), len(v))
			}
		}
		if again := Detect(v, opts); !slices.Equal(indexes(again), indexes(cps)) {
			t.Fatalf("not deterministic: %v then %v", indexes(cps), indexes(again))
		}
		s := seriesOf("fuzz", 1, v)
		a := Analyze([]*Series{s}, opts)
		for _, c := range a.Changes {
			if c.Index-c.Outliers <= 0 || c.Index >= len(v) {
				t.Fatalf("change at %d (%d outliers) in %d points", c.Index, c.Outliers, len(v))
			}
		}
	})
}
