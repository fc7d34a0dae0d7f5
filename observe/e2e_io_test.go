package observe

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rigorbench/rigor/gotest"
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
func TestDiskBenchmarksEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two real write benchmarks for about 10 s and writes some GB to the temporary directory's disk")
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
	measure := func(t *testing.T, bench string, budget time.Duration) model.Benchmark {
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
		// A second of profile: half a second left as few as 15 samples
		// on a busy machine, under minProfileSamples.
		cfg.Profile = &gotest.Profiling{Time: time.Second, ReadCPU: ReadCPUProfile, ReadMutex: ReadMutexProfile}
		cfg.Annotate = func(_ context.Context, run *model.Run, _ func(pkg, side string) string) { Annotate(run) }
		run, err := gotest.Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Benchmarks) != 1 {
			t.Fatalf("want one benchmark, got %d", len(run.Benchmarks))
		}
		b := run.Benchmarks[0]
		t.Logf("%s notes:\n  %s", b.Name, strings.Join(model.Texts(b.Notes), "\n  "))
		return b
	}
	has := func(b model.Benchmark, prefix string) bool {
		return slices.ContainsFunc(model.Texts(b.Notes), func(n string) bool { return strings.HasPrefix(n, prefix) })
	}
	t.Run("nosync", func(t *testing.T) {
		b := measure(t, "BenchmarkWrite", 6*time.Second)
		if !has(b, "likely measuring the page cache: the benchmark reported ") {
			t.Errorf("no page cache note: %q", b.Notes)
		}
	})
	t.Run("fsync", func(t *testing.T) {
		if onTmpfs {
			t.Skip("the temporary directory is on tmpfs, where fsync moves nothing to a device")
		}
		b := measure(t, "BenchmarkWriteSync", 5*time.Second)
		if has(b, "likely measuring the page cache") {
			t.Errorf("the disks moved what it wrote, yet: %q", b.Notes)
		}
		if has(b, "bottleneck: lock contention") {
			t.Errorf("a benchmark blocked in fsync called a lock: %q", b.Notes)
		}
	})
}
