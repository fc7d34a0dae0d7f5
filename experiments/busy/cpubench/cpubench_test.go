package cpubench

import "testing"

// sink keeps each result alive, so the compiler cannot drop the work.
var sink uint64

// BenchmarkOp is the experiment's benchmark. Run it with GOMAXPROCS=1
// (go test -cpu 1, rigor ab --cpu 1): it is single-threaded work.
func BenchmarkOp(b *testing.B) {
	var h uint64
	for i := 0; i < b.N; i++ {
		h ^= Op()
	}
	sink = h
}

// TestPasses checks that each build does the work its tag promises: the
// base side BasePasses passes, the plus1, plus3, plus5 and plus10 sides
// exactly 1%, 3%, 5% and 10% more.
func TestPasses(t *testing.T) {
	want := map[string]int{"base": 100, "plus1": 101, "plus3": 103, "plus5": 105, "plus10": 110}[Variant]
	if Passes != want {
		t.Errorf("variant %s: Passes = %d, want %d", Variant, Passes, want)
	}
}

// TestWorkDependsOnEveryPass checks that the hash changes with the pass
// count and is deterministic, so that the loop is real work whose result
// is used, not a constant.
func TestWorkDependsOnEveryPass(t *testing.T) {
	seen := map[uint64]int{}
	for p := 0; p <= 4; p++ {
		h := Work(p)
		if h2 := Work(p); h2 != h {
			t.Fatalf("Work(%d) not deterministic: %#x then %#x", p, h, h2)
		}
		if q, dup := seen[h]; dup {
			t.Errorf("Work(%d) = Work(%d) = %#x: a pass left no trace", p, q, h)
		}
		seen[h] = p
	}
}
