package mutexmap

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/harness"
)

// group scales both maps over 1..GOMAXPROCS goroutines. Each goroutine
// bumps its own key: for the locked map every one of them still takes the
// same lock.
func group() *rigor.Group {
	g := rigor.NewGroup("counters")
	g.Elements(1) // one increment per call: elems/s is increments per second
	locked := NewLocked()
	g.BenchScaling("mutex", func(b *rigor.B) {
		key := b.Goroutine()
		rigor.Iter(b, func() int { return locked.Inc(key) })
	})
	sharded := NewSharded()
	g.BenchScaling("sharded", func(b *rigor.B) {
		key := b.Goroutine()
		rigor.Iter(b, func() int { return sharded.Inc(key) })
	})
	return g
}

// BenchmarkCounters is the full version:
//
//	go test -run '^$' -bench Counters ./examples/mutexmap
//
// Every variant is compared with mutex_1t. sec/op is the time per
// increment as one goroutine sees it; elems/s counts the increments of all
// goroutines.
func BenchmarkCounters(b *testing.B) {
	harness.Run(b, group())
}

// TestCounters is the brief version CI runs: it checks the scaled
// variants and that throughput counts every goroutine.
func TestCounters(t *testing.T) {
	g := group()
	g.Config.WarmUp = 50 * time.Millisecond
	g.Config.Budget = 200 * time.Millisecond
	run, err := harness.Measure(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	procs := runtime.GOMAXPROCS(0)
	var want []string
	for _, name := range []string{"mutex", "sharded"} {
		for n := 1; n < procs; n *= 2 {
			want = append(want, name+"_"+strconv.Itoa(n)+"t")
		}
		want = append(want, name+"_"+strconv.Itoa(procs)+"t")
	}
	if len(run.Sides) != len(want) {
		t.Fatalf("sides %v, want %v", run.Sides, want)
	}
	bm := run.Benchmarks[0]
	for i, s := range run.Sides {
		if s.Label != want[i] {
			t.Errorf("side %d is %s, want %s", i, s.Label, want[i])
		}
		n := goroutines(bm.Config["goroutines"], s.Label)
		if n < 1 {
			t.Errorf("%s: no goroutine count in config %q", s.Label, bm.Config["goroutines"])
			continue
		}
		// elems/s = 1 element × goroutines / (sec/op), round by round.
		rates := map[int]float64{}
		for _, x := range bm.Metric("elems/s").BySide(s.Label) {
			rates[x.Round] = x.Value
		}
		for _, x := range bm.Metric("sec/op").BySide(s.Label) {
			if x.Value <= 0 {
				continue
			}
			want := float64(n) / x.Value
			if got := rates[x.Round]; got < want*0.999 || got > want*1.001 {
				t.Errorf("%s round %d: %v elems/s, want %d goroutines / %v s = %v", s.Label, x.Round, got, n, x.Value, want)
			}
		}
	}
}

// goroutines reads variant's goroutine count from the "goroutines"
// configuration value, a list of variant=count.
func goroutines(list, variant string) int {
	for _, f := range strings.Fields(list) {
		if v, n, ok := strings.Cut(f, "="); ok && v == variant {
			c, _ := strconv.Atoi(n)
			return c
		}
	}
	return 0
}
