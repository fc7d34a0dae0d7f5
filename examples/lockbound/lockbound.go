// Package lockbound is the Go twin of seed 001's ramp.c: every operation
// does a little local work that could run in parallel, then updates a shared
// table under one global mutex, which cannot. Past a small number of
// goroutines throughput stops growing and falls, and the time goes to the
// lock. Where pthreads sleep in futex (system time, voluntary context
// switches), Go's sync.Mutex first spins in user space and parks goroutines
// in its own scheduler, so the evidence is mostly CPU spent in
// sync.(*Mutex).lockSlow (a CPU profile) and the runtime's mutex wait time;
// system time and switches climb only when Ps run out of work. rigor uses
// it to show a benchmark named lock-bound with that evidence, and as a ramp
// target.
package lockbound

import (
	"context"
	"sync"
	"sync/atomic"
)

// Work is the number of local steps per operation, outside the lock, as in
// ramp.c.
const Work = 150

var (
	mu    sync.Mutex
	table [64]uint64 // the shared data guarded by mu
)

// Op performs one operation from local state x: Work steps of a linear
// congruential generator outside the lock, then one update of the shared
// table under the global lock. It returns the new local state.
func Op(x uint32) uint32 {
	for range Work {
		x = x*1103515245 + 12345
	}
	mu.Lock()
	table[x%64] += uint64(x)
	mu.Unlock()
	return x
}

// Run starts goroutines workers that call Op until ctx is done and returns
// the number of operations they completed.
func Run(ctx context.Context, goroutines int) uint64 {
	var total atomic.Uint64
	var wg sync.WaitGroup
	for id := range goroutines {
		wg.Go(func() {
			x, n := uint32(id+1), uint64(0)
			for ctx.Err() == nil {
				for range 64 { // check ctx once per 64 operations
					x = Op(x)
				}
				n += 64
			}
			total.Add(n)
		})
	}
	wg.Wait()
	return total.Load()
}
