package observe

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rigorbench/rigor/model"
)

// procIO is the text of /proc/PID/io with the three counters the
// observer reads.
func procIO(read, write, cancelled int64) string {
	return fmt.Sprintf("rchar: 6976\nwchar: 12\nsyscr: 10\nsyscw: 1\nread_bytes: %d\nwrite_bytes: %d\ncancelled_write_bytes: %d\n", read, write, cancelled)
}

func TestParseSelfIO(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		want       ioCounts
	}{
		{"a kernel's", procIO(4096, 1<<30, 1<<29), ioCounts{4096, 1 << 30, 1 << 29, true}},
		{"no final newline", strings.TrimSuffix(procIO(1, 2, 3), "\n"), ioCounts{1, 2, 3, true}},
		{"a counter missing", "read_bytes: 1\nwrite_bytes: 2\n", ioCounts{}},
		{"not a number", "read_bytes: x\nwrite_bytes: 2\ncancelled_write_bytes: 3\n", ioCounts{}},
		{"negative", "read_bytes: -1\nwrite_bytes: 2\ncancelled_write_bytes: 3\n", ioCounts{}},
		{"empty", "", ioCounts{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseSelfIO([]byte(tt.text)); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	if got := storageIO(ioCounts{1, 10, 5, true}, ioCounts{3, 30, 25, true}); got == nil || *got != (model.StorageIO{ReadBytes: 2, WriteBytes: 20, CancelledWriteBytes: 20}) {
		t.Errorf("storageIO: %+v", got)
	}
	for _, pair := range [][2]ioCounts{{{}, {1, 1, 1, true}}, {{1, 1, 1, true}, {}}, {{5, 5, 5, true}, {5, 4, 5, true}}} {
		if got := storageIO(pair[0], pair[1]); got != nil {
			t.Errorf("storageIO(%+v, %+v) = %+v, want nil", pair[0], pair[1], got)
		}
	}
}

// The kernel adds a reaped child's storage counters to its parent's:
// what the Observer's StorageIO relies on to count the measured process.
// A child writes a file and deletes it before writeback: all of it is
// counted as written, and all of it as cancelled.
func TestSelfIOCountsReapedChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/io is Linux's")
	}
	s := openSelfIO()
	if s == nil {
		t.Skip("no task I/O accounting in this kernel (/proc/self/io)")
	}
	defer s.close()
	dir := t.TempDir()
	var fs unix.Statfs_t
	if unix.Statfs(dir, &fs) == nil && fs.Type == unix.TMPFS_MAGIC {
		t.Skip("the temporary directory is on tmpfs, whose pages are never written back, so never counted")
	}
	before := s.read()
	const size = 8 << 20
	f := filepath.Join(dir, "data")
	cmd := exec.Command("sh", "-c", fmt.Sprintf("head -c %d /dev/zero > %s && rm %s", size, f, f))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("sh, head or rm: %v: %s", err, out)
	}
	io := storageIO(before, s.read())
	if io == nil {
		t.Fatal("counters unreadable after the child")
	}
	t.Logf("%+v", *io)
	if io.WriteBytes < size {
		t.Errorf("wrote %d bytes, want at least the child's %d", io.WriteBytes, size)
	}
	// Writeback may have cleaned some pages before rm: those are not
	// cancelled. Within a moment of writing, nearly all are.
	if io.CancelledWriteBytes < size/2 {
		t.Logf("only %d of %d bytes cancelled: writeback got to them first", io.CancelledWriteBytes, size)
	}
}

// fakeIORoots builds a /proc and /sys with one disk, vda, whose
// diskstats say it wrote diskSectors sectors, and a /proc/self/io with
// the given counters; it returns functions that rewrite the two.
func fakeIORoots(t *testing.T) (setDisk func(sectors int64), setSelf func(read, write, cancelled int64)) {
	t.Helper()
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Skip("needs /proc/stat to copy:", err)
	}
	diskstats := func(sectors int64) string {
		return fmt.Sprintf("   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n 253       0 vda 100 0 200 0 50 0 %d 0 0 0 0 0 0 0 0 0 0\n", sectors)
	}
	fakeRoots(t, map[string]string{
		"proc/stat":                   string(stat),
		"proc/diskstats":              diskstats(0),
		"proc/self/io":                procIO(0, 0, 0),
		"sys/block/vda/size":          "1000\n",
		"sys/block/vda/device/vendor": "0x1af4\n",
		"sys/block/loop0/size":        "0\n",
	})
	write := func(name, text string) {
		// In place, not by rename: the Observer keeps self/io open.
		if err := os.WriteFile(filepath.Join(procRoot, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return func(sectors int64) { write("diskstats", diskstats(sectors)) },
		func(read, write_, cancelled int64) { write("self/io", procIO(read, write_, cancelled)) }
}

// A write benchmark through the page cache beside a process that keeps
// the disk busy: the machine's disks wrote far more than the benchmark
// claimed, but the benchmark's own writes were dirtied and deleted
// before writeback. The Observer attributes the I/O to the measured
// processes (StorageIO), so the page cache note holds; from the disks'
// counters alone it did not (the neighbour's writes hid it).
func TestPageCacheNoteBesideAWriter(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Observer samples the system only on Linux")
	}
	setDisk, setSelf := fakeIORoots(t)
	o := Start(context.Background(), time.Hour)
	b := model.Benchmark{Name: "Write", Pkg: "p", Metrics: []model.Metric{
		{Unit: "sec/op", Better: model.LowerIsBetter}, {Unit: "B/s", Better: model.HigherIsBetter}}}
	const mib = 1 << 20
	var sectors, written, cancelled int64
	for r := 1; r <= 3; r++ {
		o.Mark(b.Key(), "a", r)
		time.Sleep(5 * time.Millisecond)
		// The round's process claims 2 GiB (2048 iterations of 1 MiB),
		// dirties 257 MiB of one file (it rewinds) and deletes it with
		// 256 MiB still dirty; a neighbour writes 4 GiB to the disk.
		written += 257 * mib
		cancelled += 256 * mib
		sectors += 4 << 30 / 512
		setSelf(0, written, cancelled)
		setDisk(sectors)
		b.Metrics[0].Samples = append(b.Metrics[0].Samples, model.Sample{Side: "a", Round: r, Iters: 2048, Value: 1.0 / 2048})
		b.Metrics[1].Samples = append(b.Metrics[1].Samples, model.Sample{Side: "a", Round: r, Iters: 2048, Value: 1 << 31})
		o.Pause()
	}
	o.Mark(b.Key(), "a", 0) // the profiling run
	o.AddProfile(&model.ProfileStats{Samples: 53, CPUSec: 0.53, Syscall: 0.98, FileIO: 0.96})
	o.Pause()
	obs := o.Stop()
	var disk float64
	for _, ob := range obs {
		if ob.StorageIO == nil {
			t.Fatalf("observation of round %d has no StorageIO", ob.Round)
		}
		if ob.System != nil {
			disk += ob.System.DiskWriteBps * ob.Duration.Seconds()
		}
	}
	if disk < 4<<30 {
		t.Fatalf("the fake disks wrote %s over the rounds, want the neighbour's 12 GiB spread over them", bytesIEC(disk))
	}
	run := &model.Run{Sides: []model.Side{{Label: "a"}}, Benchmarks: []model.Benchmark{b}, Observations: obs}
	Annotate(run)
	notes := strings.Join(model.Texts(run.Benchmarks[0].Notes), "\n")
	want := "likely measuring the page cache: the benchmark reported 2 GiB/s, its processes wrote "
	if !strings.Contains(notes, want) || !strings.Contains(notes, "its timed loops claim 6 GiB, its processes moved 3 MiB to and from storage in the same runs") {
		t.Errorf("notes\n%s\nlack %q and the 3 MiB that reached storage", notes, want)
	}
}

// Start records StorageIO where /proc/self/io can be read, for every
// interval and for the whole run without marks; WithoutStorageIO never
// reads it.
func TestObserverStorageIOOption(t *testing.T) {
	_, setSelf := fakeIORoots(t)
	setSelf(10, 100, 0)
	o := Start(context.Background(), time.Hour)
	o.Mark("A", "a", 1)
	setSelf(15, 300, 50)
	o.Pause()
	setSelf(20, 400, 50) // between intervals: nobody's
	o.Mark("A", "a", 2)
	setSelf(20, 400, 60)
	obs := o.Stop()
	if len(obs) != 2 || obs[0].StorageIO == nil || obs[1].StorageIO == nil {
		t.Fatalf("observations %+v", obs)
	}
	if got, want := *obs[0].StorageIO, (model.StorageIO{ReadBytes: 5, WriteBytes: 200, CancelledWriteBytes: 50}); got != want {
		t.Errorf("round 1: %+v, want %+v", got, want)
	}
	if got, want := *obs[1].StorageIO, (model.StorageIO{CancelledWriteBytes: 10}); got != want {
		t.Errorf("round 2: %+v, want %+v", got, want)
	}
	o = Start(context.Background(), time.Hour)
	setSelf(30, 500, 60)
	if obs := o.Stop(); len(obs) != 1 || obs[0].StorageIO == nil || *obs[0].StorageIO != (model.StorageIO{ReadBytes: 10, WriteBytes: 100}) {
		t.Errorf("no marks: %+v", obs)
	}
	o = Start(context.Background(), time.Hour, WithoutStorageIO())
	o.Mark("A", "a", 1)
	setSelf(40, 600, 60)
	if obs := o.Stop(); len(obs) != 1 || obs[0].StorageIO != nil {
		t.Errorf("WithoutStorageIO: %+v", obs)
	}
}
