//go:build !linux

package load

import "context"

// closedLoopFor returns nil: the event loop is Linux's; elsewhere the
// closed loop runs a goroutine per worker.
func closedLoopFor(context.Context, Target, int) closedLoop { return nil }
