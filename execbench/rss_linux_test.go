package execbench

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestRSSProbeReuses: the probe's files stay open, and every floor it
// reads is this process's resident set again.
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

// TestRSSProbeFollows: the floor rises with this process's resident set,
// and once the memory is returned it falls back, rather than keeping the
// high-water mark (of an analysis, say) for the rest of the run.
func TestRSSProbeFollows(t *testing.T) {
	p := newRSSProbe()
	defer p.close()
	if p.clear == nil || p.statm == nil {
		t.Skip("no /proc/self/clear_refs or statm here")
	}
	const big = 64 << 20
	debug.FreeOSMemory()
	before := p.floor()
	buf := make([]byte, big)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	during := p.floor()
	runtime.KeepAlive(buf)
	buf = nil
	debug.FreeOSMemory()
	after := p.floor()
	if during < before+big*9/10 {
		t.Errorf("floor %d MiB before touching 64 MiB, %d MiB after: want it to rise with the resident set", before>>20, during>>20)
	}
	if after > before+big/4 {
		t.Errorf("floor %d MiB before, %d MiB with 64 MiB touched, %d MiB once it was returned: want it back near the first", before>>20, during>>20, after>>20)
	}
}

// TestRSSProbeSpawnedByLarger: a process spawned with CLONE_VM (as Go
// spawns) by one with more memory has that memory in its getrusage
// high-water mark; the probe sees it and reads its own resident set.
func TestRSSProbeSpawnedByLarger(t *testing.T) {
	if os.Getenv("RIGOR_RSS_CHILD") == "1" {
		p := newRSSProbe()
		defer p.close()
		if p.clear == nil || p.statm == nil {
			return
		}
		if !p.statmOnly {
			t.Fatalf("getrusage's mark %d MiB was taken for the floor", maxRSS()>>20)
		}
		if f := p.floor(); f > 100<<20 {
			t.Fatalf("floor %d MiB, want this process's resident set, not its parent's 200 MiB", f>>20)
		}
		return
	}
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		t.Skip("no /proc/self/clear_refs here")
	}
	buf := make([]byte, 200<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestRSSProbeSpawnedByLarger$")
	cmd.Env = append(os.Environ(), "RIGOR_RSS_CHILD=1")
	out, err := cmd.CombinedOutput()
	runtime.KeepAlive(buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// BenchmarkRSSProbe measures the floor read before every timed run.
func BenchmarkRSSProbe(b *testing.B) {
	p := newRSSProbe()
	defer p.close()
	for b.Loop() {
		p.floor()
	}
}
