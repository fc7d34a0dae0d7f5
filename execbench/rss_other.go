//go:build !linux

package execbench

// rssFloor is 0 where a spawned child's peak RSS is its own.
func rssFloor() int64 { return 0 }
