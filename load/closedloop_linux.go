//go:build linux

package load

import "context"

// closedLoopFor returns the event loop that runs t's closed loop of
// workers, or nil for the goroutines: t is not plain HTTP/1.1 of one
// request (a workload, a replay, TLS, HTTP/2, a Func), or its host does
// not resolve (the goroutines report the error as before).
func closedLoopFor(ctx context.Context, t Target, workers int) closedLoop {
	h, ok := t.(*h1Target)
	if !ok || noEventLoop || workers <= 0 || workers > maxLoopWorkers {
		return nil
	}
	if l := newEventLoop(ctx, h); l != nil {
		return l
	}
	return nil
}

// maxLoopWorkers keeps every thread's connections within an event's index.
const maxLoopWorkers = 1 << idxBits
