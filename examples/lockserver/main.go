// Command lockserver is an HTTP server whose handler holds one global lock
// for part of each request: the Go twin of the ramp.c program in the
// Systems Performance chapter on benchmarking. Ramped with rigor, its
// throughput rises until the lock is busy all the time and then stays
// flat or falls, however many connections are added:
//
//	go run ./examples/lockserver -addr 127.0.0.1:8080 &
//	rigor ramp --ramp 1..64x2 --pid $! http://127.0.0.1:8080/
//
// Each request first does work that runs in parallel (-work, a wait such
// as a call to another service, plus -spin of CPU), then takes the global
// lock and holds it for -locked (a sleep, as for a synchronous write to a
// shared file, or CPU work with -locked-spin).
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"sync"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	work := flag.Duration("work", time.Millisecond, "parallel wait per request, outside the lock")
	spin := flag.Duration("spin", 0, "parallel CPU work per request, outside the lock")
	locked := flag.Duration("locked", 250*time.Microsecond, "time each request holds the global lock")
	lockedSpin := flag.Bool("locked-spin", false, "burn CPU while holding the lock instead of sleeping")
	flag.Parse()
	h := &handler{work: *work, spin: *spin, locked: *locked, lockedSpin: *lockedSpin}
	fmt.Fprintf(os.Stderr, "lockserver: pid %d listening on %s (work %v, spin %v, locked %v)\n", os.Getpid(), *addr, *work, *spin, *locked)
	log.Fatal(http.ListenAndServe(*addr, h))
}

// handler serves every request by working in parallel, then serially
// under mu.
type handler struct {
	work, spin, locked time.Duration
	lockedSpin         bool

	mu    sync.Mutex
	table [64]uint64 // shared state the lock protects
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.work > 0 {
		time.Sleep(h.work)
	}
	x := burn(h.spin, uint64(time.Now().UnixNano()))
	h.mu.Lock()
	if h.lockedSpin {
		x = burn(h.locked, x)
	} else if h.locked > 0 {
		time.Sleep(h.locked)
	}
	h.table[x%64] += x
	h.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain")
	w.Write([]byte("ok\n"))
}

// burn spins the CPU for about d, returning a value that depends on the
// work so the compiler keeps it.
func burn(d time.Duration, x uint64) uint64 {
	if d <= 0 {
		return x
	}
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		for i := 0; i < 100; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	return x
}
