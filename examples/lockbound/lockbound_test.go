package lockbound

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestOp(t *testing.T) {
	// 150 steps of x = x*1103515245 + 12345 (mod 2^32) from 1, computed
	// by hand with Python: x=1; exec("x=(x*1103515245+12345)%2**32;"*150).
	const want = 1526854643
	before := table
	got := Op(1)
	if got != want {
		t.Fatalf("Op(1) = %d, want %d", got, want)
	}
	for i := range table {
		d := table[i] - before[i]
		if (i == want%64 && d != want) || (i != want%64 && d != 0) {
			t.Errorf("table[%d] grew by %d", i, d)
		}
	}
}

func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if n := Run(ctx, 4); n == 0 || n%64 != 0 {
		t.Errorf("Run completed %d operations, want a positive multiple of 64", n)
	}
}

// BenchmarkGlobalMutex runs b.N operations split across a number of
// goroutines that all contend for the one global mutex.
func BenchmarkGlobalMutex(b *testing.B) {
	for _, g := range []int{1, 2, 4, 16, 64} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			var wg sync.WaitGroup
			for id := range g {
				n := b.N / g
				if id < b.N%g {
					n++
				}
				wg.Go(func() {
					x := uint32(id + 1)
					for range n {
						x = Op(x)
					}
				})
			}
			wg.Wait()
		})
	}
}
