package sortclone

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/harness"
	"github.com/rigorbench/rigor/stats"
)

func group() *rigor.Group {
	data := Input()
	g := rigor.NewGroup("sort_10000")
	g.Elements(int64(len(data)))
	// The clone alone: what IterWithSetup moves out of the timed window.
	g.Bench("clone_only", func(b *rigor.B) {
		rigor.Iter(b, func() []uint64 { return slices.Clone(data) })
	})
	// The wrong way: the clone is timed with the sort.
	g.Bench("clone_inside_iter", func(b *rigor.B) {
		rigor.Iter(b, func() []uint64 {
			v := slices.Clone(data)
			slices.Sort(v)
			return v
		})
	})
	// The right way: setup clones, untimed; only the sort is timed.
	g.Bench("iter_with_setup", func(b *rigor.B) {
		rigor.IterWithSetup(b, func() []uint64 { return slices.Clone(data) },
			func(v []uint64) []uint64 { slices.Sort(v); return v })
	})
	// In Go a clone of 80 KB is mostly allocation (a large object, often
	// on pages the scavenger returned, and its share of GC), which is slow
	// and noisy next to the copy itself. Copying into a reused buffer
	// shows the same subtraction without the allocator.
	g.Subgroup("reused buffer")
	buf := make([]uint64, len(data))
	g.Bench("copy_only", func(b *rigor.B) {
		rigor.Iter(b, func() uint64 { copy(buf, data); return buf[0] })
	})
	g.Bench("copy_sort", func(b *rigor.B) {
		rigor.Iter(b, func() uint64 { copy(buf, data); slices.Sort(buf); return buf[0] })
	})
	return g
}

// BenchmarkSortClone is the full version:
//
//	go test -run '^$' -bench SortClone ./examples/sortclone
//
// Expect iter_with_setup ≈ clone_inside_iter − clone_only, and, without
// the allocator's noise, ≈ copy_sort − copy_only.
func BenchmarkSortClone(b *testing.B) {
	out := harness.Run(b, group())
	if out == nil {
		return
	}
	sec := out.Run.Benchmarks[0].Metric("sec/op")
	med := func(side string) float64 { return 1e6 * stats.Median(sec.Values(side)) }
	clone, inside, setup := med("clone_only"), med("clone_inside_iter"), med("iter_with_setup")
	cp, cpSort := med("copy_only"), med("copy_sort")
	b.Logf("clone_only %.3gµs, clone_inside_iter %.3gµs: difference %.3gµs; iter_with_setup %.3gµs", clone, inside, inside-clone, setup)
	b.Logf("copy_only %.3gµs, copy_sort %.3gµs: difference %.3gµs (%+.1f%% from iter_with_setup)", cp, cpSort, cpSort-cp, 100*((cpSort-cp)/setup-1))
}

// TestSortClone is the brief version CI runs: structure, exact allocation
// counts, and, without -short (it times the live machine), the direction
// of the times with generous bounds.
func TestSortClone(t *testing.T) {
	g := group()
	g.Config.WarmUp = 50 * time.Millisecond
	g.Config.Budget = 300 * time.Millisecond
	run, err := harness.Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	bm := run.Benchmarks[0]
	// A clone of 10000 uint64 is one 80000-byte allocation (a large
	// object: 80 KiB, rounded to whole pages, 81920 bytes); the sort
	// allocates nothing, and IterWithSetup does not count setup's clone.
	for _, tt := range []struct {
		side          string
		allocs, bytes float64
	}{
		{"clone_only", 1, 81920},
		{"clone_inside_iter", 1, 81920},
		{"iter_with_setup", 0, 0},
	} {
		if got := stats.Median(bm.Metric("allocs/op").Values(tt.side)); got != tt.allocs {
			t.Errorf("%s: %v allocs/op, want %v", tt.side, got, tt.allocs)
		}
		if got := stats.Median(bm.Metric("B/op").Values(tt.side)); got != tt.bytes {
			t.Errorf("%s: %v B/op, want %v", tt.side, got, tt.bytes)
		}
	}
	if bm.Metric("elems/s") == nil {
		t.Error("no elems/s metric")
	}
	if testing.Short() {
		return // the directions below time the live machine
	}
	sec := bm.Metric("sec/op")
	clone := stats.Median(sec.Values("clone_only"))
	inside := stats.Median(sec.Values("clone_inside_iter"))
	setup := stats.Median(sec.Values("iter_with_setup"))
	t.Logf("clone %.3gµs, inside %.3gµs, setup %.3gµs, inside-clone %.3gµs", clone*1e6, inside*1e6, setup*1e6, (inside-clone)*1e6)
	// Directions with room to spare (several times apart on any machine):
	// cloning and sorting takes longer than sorting alone, and a copy with
	// a sort longer than the copy. clone_only and clone_inside_iter are
	// too close, next to the allocator's noise, to be ordered here.
	cp, cpSort := stats.Median(sec.Values("copy_only")), stats.Median(sec.Values("copy_sort"))
	if !(inside > setup && cpSort > cp) {
		t.Errorf("clone_inside_iter %v <= iter_with_setup %v, or copy_sort %v <= copy_only %v", inside, setup, cpSort, cp)
	}
}
