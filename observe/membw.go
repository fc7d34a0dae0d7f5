package observe

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/mem"
)

// probeBytes is the size of each buffer of the copy probe: far larger than
// any CPU cache, so the probe measures memory, not a cache.
const probeBytes = 256 << 20

// bandwidthCache is the file MemoryBandwidth caches its result in.
type bandwidthCache struct {
	Machine     string    `json:"machine"`
	BytesPerSec float64   `json:"bytes_per_sec"`
	Measured    time.Time `json:"measured"`
}

// MemoryBandwidth returns this machine's memory copy bandwidth in bytes
// per second: the best of a few copies of a 256 MiB buffer. It is measured
// once per machine (CPU model, core count and memory size) and cached in
// the user cache directory (rigor/membw.json); a cache that cannot be
// written costs a fresh probe next time, nothing more.
//
// A benchmark reporting more bytes per second than this cannot have been
// reading memory: it was measuring a CPU cache.
func MemoryBandwidth(ctx context.Context) (float64, error) {
	key := machineKey(ctx)
	path := ""
	if dir, err := os.UserCacheDir(); err == nil {
		path = filepath.Join(dir, "rigor", "membw.json")
		var c bandwidthCache
		if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &c) == nil &&
			c.Machine == key && c.BytesPerSec > 0 {
			return c.BytesPerSec, nil
		}
	}
	bw, err := probeBandwidth(ctx)
	if err != nil {
		return 0, err
	}
	if path != "" {
		b, _ := json.Marshal(bandwidthCache{Machine: key, BytesPerSec: bw, Measured: time.Now().UTC()})
		if os.MkdirAll(filepath.Dir(path), 0o755) == nil {
			_ = os.WriteFile(path, b, 0o644) // best effort: see the doc comment
		}
	}
	return bw, nil
}

// machineKey identifies the hardware a cached bandwidth belongs to.
func machineKey(ctx context.Context) string {
	model := ""
	if infos, err := cpu.InfoWithContext(ctx); err == nil && len(infos) > 0 {
		model = infos[0].ModelName
	}
	var total uint64
	if vm, err := mem.VirtualMemoryWithContext(ctx); err == nil {
		total = vm.Total
	}
	return fmt.Sprintf("%s/%s %s x%d %d", runtime.GOOS, runtime.GOARCH, model, runtime.NumCPU(), total)
}

// probeBandwidth copies a buffer far larger than the caches a few times
// and returns the best rate. The best, not the mean, because the question
// is what the hardware can do; a busy machine only makes copies slower.
func probeBandwidth(ctx context.Context) (float64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("memory bandwidth probe: %w", err)
	}
	src := make([]byte, probeBytes)
	dst := make([]byte, probeBytes)
	for i := 0; i < len(src); i += 4096 { // fault every page in before timing
		src[i] = byte(i)
		dst[i] = 0
	}
	best := time.Duration(0)
	for range 5 {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("memory bandwidth probe: %w", err)
		}
		start := time.Now()
		copy(dst, src)
		if d := time.Since(start); best == 0 || d < best {
			best = d
		}
	}
	runtime.KeepAlive(dst)
	if best <= 0 {
		return 0, fmt.Errorf("memory bandwidth probe: copy took no measurable time")
	}
	return probeBytes / best.Seconds(), nil
}
