package observe

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// A mutex profile (-test.mutexprofile) records, at the Unlock that ended
// it, how long goroutines waited for a sync.Mutex or sync.RWMutex they
// could not take by spinning: the mutex wait of runtime/metrics, with the
// stacks that caused it. It says nothing of the time spent spinning, which
// the CPU profile shows.

// ReadMutexProfile returns the time goroutines waited on sync mutexes and
// the number of contentions a mutex profile records. The Go runtime
// writes both already scaled by the sampling fraction, so they estimate
// the totals. Contention on the runtime's internal locks counts only when
// a sync mutex caused it (a sync frame is on its stack); the rest belongs
// to the scheduler, allocator or GC.
func ReadMutexProfile(r io.Reader) (wait time.Duration, contentions int64, err error) {
	p, err := profile.Parse(r)
	if err != nil {
		return 0, 0, fmt.Errorf("reading mutex profile: %w", err)
	}
	di, ci := valueIndex(p, "delay", "nanoseconds"), valueIndex(p, "contentions", "count")
	if di < 0 || ci < 0 {
		return 0, 0, fmt.Errorf("reading mutex profile: no contentions/count and delay/nanoseconds values (is it a mutex profile?)")
	}
	var ns int64
	for _, s := range p.Sample {
		if di >= len(s.Value) || ci >= len(s.Value) || s.Value[di] < 0 || s.Value[ci] < 0 || !syncStack(s) {
			continue
		}
		ns = addSat(ns, s.Value[di])
		contentions = addSat(contentions, s.Value[ci])
	}
	return time.Duration(ns), contentions, nil
}

// addSat adds two non-negative counts, saturating at the largest int64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// syncStack reports whether a frame of s is in package sync.
func syncStack(s *profile.Sample) bool {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			if f := line.Function.Name; strings.HasPrefix(f, "sync.") || strings.HasPrefix(f, "internal/sync.") {
				return true
			}
		}
	}
	return false
}
