package execbench

import "testing"

// TestRSSProbeReuses: the probe's files stay open, and every read of
// them (pread at 0 of /proc/self/statm, after a write of 5 to
// clear_refs) gives this process's resident set again.
func TestRSSProbeReuses(t *testing.T) {
	p := newRSSProbe()
	defer p.close()
	if p.clear == nil || p.statm == nil {
		t.Skip("no /proc/self/clear_refs or statm here")
	}
	for i := range 3 {
		// A Go test binary has more than 1 MiB resident, less than 1 GiB.
		if f := p.floor(); f < 1<<20 || f > 1<<30 {
			t.Fatalf("read %d: floor %d bytes", i, f)
		}
	}
}
