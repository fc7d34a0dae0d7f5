package observe

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// diskBench writes 1 MiB blocks to a file with SetBytes, rewinding every
// 256 MiB so the file stays small; with sync, f.Sync() follows each write.
const diskBench = `package disk

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkWrite(b *testing.B) { write(b, false) }

func BenchmarkWriteSync(b *testing.B) { write(b, true) }

func write(b *testing.B, sync bool) {
	f, err := os.Create(filepath.Join(b.TempDir(), "data"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%256 == 0 {
			if _, err := f.Seek(0, 0); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := f.Write(buf); err != nil {
			b.Fatal(err)
		}
		if sync {
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
`

// TestDiskBenchmarksEndToEnd runs a write benchmark through the path rigor
// run takes (package gotest's rounds and profiling pass, the Observer,
// Annotate): without fsync it must get the page cache note, with fsync it
// must not, and must not be called a lock. The temporary directory must
// be on a block device for the second half: on tmpfs fsync moves nothing.
//
// The note compares what the benchmark's timed loops claim with what its
// own processes moved to and from storage (Observation.StorageIO), so
// another process writing to the disk beside it changes nothing (it did
// when the note read the machine's disk counters: dd with O_DIRECT beside
// it hid the note). One neighbour still can: one that keeps the machine's
// dirty pages at the kernel's background writeback threshold makes the
// flusher write the benchmark's pages to the device too, so its data did
// reach a device, and throttles its writes (its profile thins: 5 CPU
// samples once, under the 20 the note needs), so the note may rightly be
// absent; the test then skips, saying so.
func TestDiskBenchmarksEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two real write benchmarks for about 20 s and writes some GB to the temporary directory's disk")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the Observer reads the disks' counters (/proc/diskstats) only on Linux")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module example.com/disk\n\ngo 1.22\n", "disk_test.go": diskBench} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var fs unix.Statfs_t
	onTmpfs := unix.Statfs(dir, &fs) == nil && fs.Type == unix.TMPFS_MAGIC
	ctx := t.Context()
	// measure runs bench and returns it with the most the machine's
	// dirty and writeback pages reached meanwhile, and what its rounds
	// claimed and its processes moved to and from storage. It fails the test
	// when the profiling pass did not run: without a profile the note
	// says nothing, so neither half would test it.
	measure := func(t *testing.T, bench string, budget time.Duration) (b model.Benchmark, dirty, claimed, net float64) {
		cfg := gotest.Config{
			Dir:       dir,
			Sides:     []gotest.Side{{Label: "current", Rev: gotest.WorkingTree}},
			Bench:     "^" + bench + "$",
			MinRounds: 3,
			Time:      budget,
			Timeout:   time.Minute,
			Seed:      1,
			Out:       filepath.Join(t.TempDir(), "out"),
		}
		cfg.Observer, cfg.ProcessStats = Start(ctx, 0), ProcessStats
		// A second of profile asked for: half a second left as few as
		// 15 samples on a busy machine, under minProfileSamples. The
		// rounds leave it a tenth of the budget (gotest's
		// profileShare), and a run shorter than half of Time is not
		// made, so the budget is 10 s: 1 s left, a run of about 0.8 s.
		// At 6 s the 0.6 s left made a run only when the rounds
		// happened to end early (3 of 3 times not, on a quiet machine).
		cfg.Profile = &gotest.Profiling{Time: time.Second, ReadCPU: ReadCPUProfile, ReadMutex: ReadMutexProfile}
		cfg.Annotate = func(_ context.Context, run *model.Run, _ func(pkg, side string) string) { Annotate(run) }
		stopDirty := watchDirty()
		run, err := gotest.Run(ctx, cfg)
		dirty = stopDirty()
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Benchmarks) != 1 {
			t.Fatalf("want one benchmark, got %d", len(run.Benchmarks))
		}
		b = run.Benchmarks[0]
		t.Logf("%s notes:\n  %s", b.Name, strings.Join(model.Texts(b.Notes), "\n  "))
		// What the rounds claimed and moved, to read a failure by.
		var disks float64
		rounds, profiled := 0, false
		for _, o := range run.Observations {
			if o.Round == 0 {
				if p := o.Profile; p != nil {
					profiled = true
					t.Logf("profile: %d samples, %s of them in file I/O", p.Samples, words.Pct(p.FileIO))
				}
				continue
			}
			if t, v := sampleAt(b.Metric("sec/op"), o.Side, o.Round), sampleAt(b.Metric("B/s"), o.Side, o.Round); t != nil && v != nil {
				claimed += float64(t.Iters) * t.Value * v.Value
			}
			if io := o.StorageIO; io != nil {
				net += float64(max(0, io.WriteBytes-io.CancelledWriteBytes) + io.ReadBytes)
			}
			if sys := o.System; sys != nil {
				disks += (sys.DiskWriteBps + sys.DiskReadBps) * o.Duration.Seconds()
			}
			rounds++
		}
		t.Logf("%d rounds claimed %s; its processes moved %s to and from storage, the machine's disks %s; dirty and writeback pages reached %s",
			rounds, bytesIEC(claimed), bytesIEC(net), bytesIEC(disks), bytesIEC(dirty))
		if !profiled {
			t.Fatalf("no profiling pass, so no note could say anything; the run's notes:\n  %s", strings.Join(model.Texts(run.Notes), "\n  "))
		}
		return b, dirty, claimed, net
	}
	has := func(b model.Benchmark, prefix string) bool {
		return slices.ContainsFunc(model.Texts(b.Notes), func(n string) bool { return strings.HasPrefix(n, prefix) })
	}
	t.Run("nosync", func(t *testing.T) {
		b, dirty, claimed, net := measure(t, "BenchmarkWrite", 10*time.Second)
		if !has(b, "likely measuring the page cache: the benchmark reported ") {
			if limit := backgroundDirtyLimit(); limit > 0 && dirty >= 0.9*limit {
				t.Skipf("no page cache note, but the machine's dirty pages reached %s, at the kernel's background writeback threshold (about %s): the kernel wrote the benchmark's pages to the device too (its processes moved %s of the %s claimed) and throttled its writes, which also thins its CPU profile",
					bytesIEC(dirty), bytesIEC(limit), bytesIEC(net), bytesIEC(claimed))
			}
			t.Errorf("no page cache note: %q", b.Notes)
		}
	})
	t.Run("fsync", func(t *testing.T) {
		if onTmpfs {
			t.Skip("the temporary directory is on tmpfs, where fsync moves nothing to a device")
		}
		b, _, _, _ := measure(t, "BenchmarkWriteSync", 10*time.Second)
		if has(b, "likely measuring the page cache") {
			t.Errorf("the disks moved what it wrote, yet: %q", b.Notes)
		}
		if has(b, "bottleneck: lock contention") {
			t.Errorf("a benchmark blocked in fsync called a lock: %q", b.Notes)
		}
	})
}

// backgroundDirtyLimit is about where the kernel starts writing dirty
// pages back in the background, in bytes: vm.dirty_background_bytes, or
// vm.dirty_background_ratio percent of the memory that can hold them
// (free and file pages, as global_dirtyable_memory counts, roughly); 0
// when it cannot be read.
func backgroundDirtyLimit() float64 {
	read := func(name string) float64 {
		b, err := os.ReadFile("/proc/sys/vm/" + name)
		if err != nil {
			return 0
		}
		v, _ := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		return v
	}
	if v := read("dirty_background_bytes"); v > 0 {
		return v
	}
	ratio := read("dirty_background_ratio")
	mem := meminfo("MemFree:") + meminfo("Active(file):") + meminfo("Inactive(file):")
	return ratio / 100 * mem
}

// watchDirty samples /proc/meminfo's Dirty + Writeback every 50 ms until
// the function it returns is called, which returns the largest, in
// bytes.
func watchDirty() func() float64 {
	done, result := make(chan struct{}), make(chan float64)
	go func() {
		most := 0.0
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			most = max(most, dirtyBytes())
			select {
			case <-done:
				result <- most
				return
			case <-tick.C:
			}
		}
	}()
	return func() float64 {
		close(done)
		return <-result
	}
}

// dirtyBytes is /proc/meminfo's Dirty + Writeback, in bytes.
func dirtyBytes() float64 { return meminfo("Dirty:") + meminfo("Writeback:") }

// meminfo is the /proc/meminfo field named (with its colon), in bytes;
// 0 when it cannot be read.
func meminfo(field string) float64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb * 1024
		}
	}
	return 0
}
