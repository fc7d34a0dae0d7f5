package load

import (
	"context"
	"sync/atomic"
	"time"
)

// A closedLoop runs a step's closed loop itself, instead of a goroutine
// per worker (h1loop_linux.go).
type closedLoop interface {
	// run sends requests on workers connections from base until the
	// window's end at we (ns after base) or stop, then waits for those in
	// flight, recording each request through rec by worker: one worker's
	// requests are recorded by one goroutine at a time.
	run(ctx context.Context, workers int, base time.Time, we int64, stop *atomic.Bool, rec func(worker int, sent, end int64, out Outcome))
	// Close abandons the requests in flight, which are recorded as
	// cancelled; run returns soon after.
	Close() error
	// busiest is the largest share of one CPU used by one of the loop's
	// threads, after run returns.
	busiest() float64
	// spun is the time its threads spent polling for events instead of
	// blocking, after run returns: CPU used waiting, not working.
	spun() time.Duration
}

// noEventLoop turns the event loop off, for tests of the goroutines'
// closed loop on Linux.
var noEventLoop bool
