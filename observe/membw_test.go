package observe

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeBandwidthCache stores bw as this machine's cached bandwidth in the
// user cache directory (point XDG_CACHE_HOME at a temporary one first).
func writeBandwidthCache(t *testing.T, bw float64) {
	t.Helper()
	dir, err := os.UserCacheDir()
	if err != nil {
		t.Skip(err)
	}
	b, _ := json.Marshal(bandwidthCache{Machine: machineKey(context.Background()), BytesPerSec: bw, Measured: time.Now()})
	p := filepath.Join(dir, "rigor", "membw.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMemoryBandwidthCached(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	writeBandwidthCache(t, 3e9)
	if bw, err := MemoryBandwidth(t.Context()); bw != 3e9 || err != nil {
		t.Errorf("got %v, %v; want the cached 3e9 without a probe", bw, err)
	}
}

// A cache written for other hardware is ignored: the probe runs and its
// result replaces the entry.
func TestMemoryBandwidthProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("the probe copies 256 MiB a few times")
	}
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	p := filepath.Join(dir, "rigor", "membw.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"machine":"another machine","bytes_per_sec":1}`), 0o644)
	bw, err := MemoryBandwidth(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if bw <= 1 {
		t.Errorf("bandwidth %v: the stale entry was used", bw)
	}
	var c bandwidthCache
	b, _ := os.ReadFile(p)
	if json.Unmarshal(b, &c) != nil || c.BytesPerSec != bw || c.Machine != machineKey(t.Context()) {
		t.Errorf("cache now holds %s", b)
	}
}

func TestMemoryBandwidthCancelled(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates the probe's buffers")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := MemoryBandwidth(ctx); err == nil {
		t.Error("cancelled context: want an error")
	}
}
