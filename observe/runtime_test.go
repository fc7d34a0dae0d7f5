package observe

import (
	"math"
	"runtime"
	"testing"
)

func TestHistQuantile(t *testing.T) {
	inf := math.Inf(1)
	// 100 latencies: 90 in [0,1), 9 in [1,2), 1 in [2,+Inf). The 99th
	// (rank ceil(0.99*100) = 99) is in [1,2): upper bound 2. The 100th is
	// in the open bucket: its lower bound, 2.
	counts := []uint64{90, 9, 1}
	buckets := []float64{0, 1, 2, inf}
	for _, tt := range []struct {
		q    float64
		want float64
	}{{0.5, 1}, {0.9, 1}, {0.91, 2}, {0.99, 2}, {1, 2}} {
		if got := histQuantile(counts, buckets, tt.q); got != tt.want {
			t.Errorf("q=%v: got %v, want %v", tt.q, got, tt.want)
		}
	}
	if got := histQuantile([]uint64{0, 0}, []float64{math.Inf(-1), 0, inf}, 0.99); got != 0 {
		t.Errorf("empty histogram: got %v, want 0", got)
	}
	if got := histQuantile([]uint64{5}, []float64{math.Inf(-1), 1e-6}, 0.99); got != 1e-6 {
		t.Errorf("first bucket from -Inf: got %v, want its upper bound 1e-6", got)
	}
	if got := histQuantile([]uint64{1, 2}, []float64{0, 1}, 0.5); got != 0 {
		t.Errorf("mismatched buckets: got %v, want 0", got)
	}
}

var sink [][]byte

// The sampler reports what happened between readings: allocations made
// and GC cycles forced between two Samples show up in the second.
func TestRuntimeSampler(t *testing.T) {
	r := NewRuntimeSampler()
	for range 64 {
		sink = append(sink, make([]byte, 64<<10))
	}
	runtime.GC()
	s := r.Sample()
	if s.HeapAllocBytes < 64*64<<10 {
		t.Errorf("heap allocs %d bytes, want at least the 4 MiB allocated", s.HeapAllocBytes)
	}
	if s.HeapAllocObjects < 64 {
		t.Errorf("heap objects %d, want at least 64", s.HeapAllocObjects)
	}
	if s.GCCycles < 1 {
		t.Errorf("GC cycles %d, want at least the forced one", s.GCCycles)
	}
	if s.GOMAXPROCS != runtime.GOMAXPROCS(0) {
		t.Errorf("GOMAXPROCS %d, want %d", s.GOMAXPROCS, runtime.GOMAXPROCS(0))
	}
	if s.GCCPUFraction < 0 || s.GCCPUFraction > 1 {
		t.Errorf("GC CPU fraction %v outside [0,1]", s.GCCPUFraction)
	}
	sink = nil
	// Nothing allocated in between: the next delta is small, not the
	// cumulative total.
	if s2 := r.Sample(); s2.HeapAllocBytes >= s.HeapAllocBytes {
		t.Errorf("second sample reports %d bytes, want a delta below the first's %d", s2.HeapAllocBytes, s.HeapAllocBytes)
	}
}
