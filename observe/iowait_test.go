package observe

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// The fsync benchmark (1 MiB writes, f.Sync() after each) as rigor run
// recorded it on a busy machine, summed over the whole run's 21 rounds
// (testdata/fsync.json keeps the first 8) and scaled to one second: 0.09 s user and 0.12 s system (0.21
// CPUs busy), 1937 voluntary switches (9223 per CPU-second), the disks
// writing 123 MB/s, I/O pressure 21% while neighbours left no idle CPU
// for iowait to show (0.1%); its profiling run left 13 CPU samples, 10 of
// them in file writes and syncs.
var (
	fsyncSys  = &model.SystemStats{CPUs: 2, User: 0.8, System: 0.15, IOWait: 0.001, Idle: 0.05, DiskWriteBps: 123e6, IOPressure: 21}
	fsyncProc = &model.ProcessStats{UserSec: 0.09, SystemSec: 0.12, VoluntaryCtx: 1937}
	fsyncProf = &model.ProfileStats{Samples: 13, CPUSec: 0.13, Syscall: 1, FileIO: 10.0 / 13}
)

// Waiting on the disk and sleeping on a lock look alike in process
// statistics (the issue's fsync benchmark was named "lock contention
// (threads sleeping and waking in the kernel)"); the device and the
// profile tell them apart.
func TestBottleneckIOOrLock(t *testing.T) {
	// Seed 001's ramp.c: 16 pthreads on a mutex, 84% system time, 14073
	// voluntary switches per CPU-second.
	rampSys := &model.SystemStats{CPUs: 16, User: 0.15, System: 0.77, Idle: 0.08}
	rampProc := &model.ProcessStats{UserSec: 2.415, SystemSec: 12.365, VoluntaryCtx: 208000}
	// The same with a neighbour writing: the CPUs wait on I/O.
	rampIO := &model.SystemStats{CPUs: 16, User: 0.15, System: 0.5, IOWait: 0.3, Idle: 0.05, DiskWriteBps: 200e6, IOPressure: 40}
	// A sleeping process, 0.05 CPUs busy, few switches.
	sleeper := &model.ProcessStats{UserSec: 0.03, SystemSec: 0.02, VoluntaryCtx: 40}
	for _, tt := range []struct {
		name string
		sys  *model.SystemStats
		proc *model.ProcessStats
		prof *model.ProfileStats
		want string
		ev   []string // pieces of the note
	}{
		{"fsync, profiled", fsyncSys, fsyncProc, fsyncProf, BottleneckIO, []string{
			"bottleneck: waiting on I/O (the process kept 0.21 CPUs busy and switched out 9224 times per CPU-second",
			"disk read 0 B/s, write 123 MB/s", "tasks stalled on I/O 21% of the time",
			"76.9% of 13 CPU samples in file reads, writes and syncs, 0% in mutex slow paths"}},
		// The verdict came from this path: no profile to go on.
		// Sleeping like a futex, with I/O on the machine: say both.
		{"fsync, unprofiled", fsyncSys, fsyncProc, nil, BottleneckInconclusive, []string{
			"bottleneck: asleep in the kernel, on a lock or on I/O (",
			"no CPU profile ties the I/O to this process", "a CPU profile (--profile auto) would tell"}},
		{"fsync, too few samples", fsyncSys, fsyncProc, &model.ProfileStats{Samples: 3, CPUSec: 0.03, FileIO: 1}, BottleneckInconclusive, []string{
			"the CPU profile has too few samples (3)", "a longer profiling run would tell"}},
		// A profile with its CPU elsewhere rules the machine's I/O out.
		{"fsync numbers, profile without file I/O", fsyncSys, fsyncProc, &model.ProfileStats{Samples: 40, CPUSec: 0.4, Syscall: 0.9}, BottleneckWaiting, nil},
		{"seed 001 ramp.c, quiet disks", rampSys, rampProc, nil, BottleneckLock, []string{"lock contention (threads sleeping and waking in the kernel)"}},
		// 14.8 CPUs busy spinning in the kernel is not waiting on
		// anything: a neighbour's I/O changes nothing.
		{"ramp.c beside a writer, unprofiled", rampIO, rampProc, nil, BottleneckLock, []string{"threads sleeping and waking in the kernel"}},
		{"ramp.c beside a writer, profiled", rampIO, rampProc, &model.ProfileStats{Samples: 100, CPUSec: 1, Lock: 0.3}, BottleneckLock, []string{"30% of CPU samples in mutex slow paths"}},
		{"a sleeper beside a writer, profiled without file I/O", rampIO, sleeper, &model.ProfileStats{Samples: 20, CPUSec: 0.2}, BottleneckWaiting, nil},
		{"a sleeper while the CPUs wait on I/O, unprofiled", rampIO, sleeper, nil, BottleneckIO, []string{
			"CPUs waited on I/O 30% of the time", "no CPU profile ties the I/O to this process, and iowait and disk traffic are machine-wide"}},
		// Busy disks alone, no iowait: only a profile ties them.
		{"a sleeper, busy disks, file I/O in its profile", &model.SystemStats{CPUs: 2, User: 0.9, Idle: 0.1, DiskReadBps: 50e6}, sleeper,
			&model.ProfileStats{Samples: 6, CPUSec: 0.06, FileIO: 0.5}, BottleneckIO, []string{"disk read 50 MB/s", "50% of 6 CPU samples in file reads"}},
		{"a sleeper, busy disks, no profile", &model.SystemStats{CPUs: 2, User: 0.9, Idle: 0.1, DiskReadBps: 50e6}, sleeper, nil, BottleneckWaiting, nil},
		// The nosync benchmark keeps a CPU busy copying into the page
		// cache: the kernel, whatever the machine's I/O.
		{"page-cache writer beside a writer", rampIO, &model.ProcessStats{UserSec: 0.1, SystemSec: 0.87, VoluntaryCtx: 4000},
			&model.ProfileStats{Samples: 50, CPUSec: 0.5, Syscall: 0.91, FileIO: 0.94}, BottleneckKernel, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := Bottleneck([]model.Observation{obs(tt.sys, tt.proc, nil, tt.prof, 0)}, nil)
			if d.Kind != tt.want {
				t.Fatalf("got %s: %s, want %s", d.Kind, d, tt.want)
			}
			for _, w := range tt.ev {
				if !strings.Contains(d.String(), w) {
					t.Errorf("%q lacks %q", d, w)
				}
			}
		})
	}
}

// pageCacheRun builds a benchmark of 1 MiB operations at 1/2048 s each
// (2 GiB/s, 2048 iterations a round: 1 s timed, 2 GiB claimed), one
// observation of 2 s per round on side "a" with the disks moving
// diskBps, and a profiling run (round 0) with prof.
func pageCacheRun(rounds int, diskWrite, diskRead float64, prof *model.ProfileStats) (*model.Benchmark, []model.Observation) {
	b := &model.Benchmark{Name: "Write", Pkg: "p", Metrics: []model.Metric{
		{Unit: "sec/op", Better: model.LowerIsBetter}, {Unit: "B/s", Better: model.HigherIsBetter}}}
	var obs []model.Observation
	for r := 1; r <= rounds; r++ {
		b.Metrics[0].Samples = append(b.Metrics[0].Samples, model.Sample{Side: "a", Round: r, Iters: 2048, Value: 1.0 / 2048})
		b.Metrics[1].Samples = append(b.Metrics[1].Samples, model.Sample{Side: "a", Round: r, Iters: 2048, Value: 1 << 31})
		obs = append(obs, model.Observation{Duration: 2 * time.Second, Benchmark: b.Key(), Side: "a", Round: r,
			System: &model.SystemStats{CPUs: 2, DiskWriteBps: diskWrite, DiskReadBps: diskRead}})
	}
	// The profiling run: untimed, no sample; its disk traffic must not count.
	obs = append(obs, model.Observation{Duration: time.Second, Benchmark: b.Key(), Side: "a", Round: 0,
		System: &model.SystemStats{CPUs: 2, DiskWriteBps: 1e12}, Profile: prof})
	return b, obs
}

func TestPageCacheNote(t *testing.T) {
	nosync := &model.ProfileStats{Samples: 53, CPUSec: 0.53, Syscall: 0.98, FileIO: 0.96}
	const mib = 1 << 20
	for _, tt := range []struct {
		name        string
		write, read float64 // bytes per second during the rounds
		prof        *model.ProfileStats
		want        string // "" for no note
	}{
		// 3 rounds claim 6 GiB; the disks write 1 MiB/s for 6 s: 6 MiB.
		{"the nosync benchmark", mib, 0, nosync,
			"likely measuring the page cache: the benchmark reported 2 GiB/s, the disks wrote 1 MiB/s (and read 0 B/s) while it ran; its timed loops claim 6 GiB, the disks moved 6 MiB in the same runs, and 96% of its CPU samples were file reads"},
		{"the disks moved nothing", 0, 0, nosync, "the disks wrote 0 B/s (and read 0 B/s) while it ran; its timed loops claim 6 GiB, the disks moved 0 B"},
		// A reading benchmark served from the cache.
		{"reads from the cache", 0, 2 * mib, nosync, "the disks wrote 0 B/s (and read 2 MiB/s)"},
		// The fsync benchmark: the disks moved what it claimed (a 2 s
		// run with 1 s timed at 2 GiB/s moves 1 GiB/s on average).
		{"the fsync benchmark", 1 << 30, 0, nosync, ""},
		// 4x: 6 GiB claimed over 6 s; 6 GiB/4 = 256 MiB/s. Above and below.
		{"just past the ratio", 250 * mib, 0, nosync, "the disks wrote 250 MiB/s"},
		{"just within the ratio", 260 * mib, 0, nosync, ""},
		{"reads and writes add up", 130 * mib, 130 * mib, nosync, ""},
		// Not a storage benchmark, or no way to know.
		{"no profile", 0, 0, nil, ""},
		{"a hash benchmark", 0, 0, &model.ProfileStats{Samples: 100, CPUSec: 1, FileIO: 0}, ""},
		{"parses more than it reads", 0, 0, &model.ProfileStats{Samples: 100, CPUSec: 1, FileIO: 0.4}, ""},
		{"too few samples", 0, 0, &model.ProfileStats{Samples: 10, CPUSec: 0.1, FileIO: 1}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, o := pageCacheRun(3, tt.write, tt.read, tt.prof)
			got := pageCacheNote(b, o)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestPageCacheNoteEdges(t *testing.T) {
	prof := &model.ProfileStats{Samples: 53, CPUSec: 0.53, FileIO: 0.96}
	t.Run("no system statistics", func(t *testing.T) {
		b, o := pageCacheRun(3, 0, 0, prof)
		for i := range o {
			o[i].System = nil
		}
		if n := pageCacheNote(b, o); n != "" {
			t.Errorf("no disk counters (not Linux): %q", n)
		}
	})
	t.Run("no B/s", func(t *testing.T) {
		b, o := pageCacheRun(3, 0, 0, prof)
		b.Metrics = b.Metrics[:1]
		if n := pageCacheNote(b, o); n != "" {
			t.Errorf("%q", n)
		}
	})
	t.Run("observations of rounds without samples", func(t *testing.T) {
		b, o := pageCacheRun(3, 0, 0, prof)
		for i := range o {
			o[i].Round += 10
		}
		if n := pageCacheNote(b, o); n != "" {
			t.Errorf("%q", n)
		}
	})
	t.Run("two sides, one through the cache", func(t *testing.T) {
		b, o := pageCacheRun(2, 1<<30, 0, prof) // side a: the disks kept up
		for r := 1; r <= 2; r++ {
			b.Metrics[0].Samples = append(b.Metrics[0].Samples, model.Sample{Side: "b", Round: r, Iters: 2048, Value: 1.0 / 2048})
			b.Metrics[1].Samples = append(b.Metrics[1].Samples, model.Sample{Side: "b", Round: r, Iters: 2048, Value: 1 << 31})
			o = append(o, model.Observation{Duration: 2 * time.Second, Benchmark: b.Key(), Side: "b", Round: r,
				System: &model.SystemStats{CPUs: 2}})
		}
		if n := pageCacheNote(b, o); !strings.HasPrefix(n, "likely measuring the page cache: side b reported 2 GiB/s") {
			t.Errorf("%q", n)
		}
	})
	t.Run("through Annotate, once", func(t *testing.T) {
		b, o := pageCacheRun(3, 0, 0, prof)
		run := &model.Run{Sides: []model.Side{{Label: "a"}}, Benchmarks: []model.Benchmark{*b}, Observations: o}
		Annotate(run)
		Annotate(run)
		n := 0
		for _, s := range run.Benchmarks[0].Notes {
			if strings.HasPrefix(s.Text, "likely measuring the page cache: ") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d page cache notes in %q", n, run.Benchmarks[0].Notes)
		}
	})
}

func TestBytesIEC(t *testing.T) {
	for _, tt := range []struct {
		b    float64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1 KiB"}, {1536, "1.5 KiB"},
		{1023 << 20, "1023 MiB"}, {7050 << 20, "6.88 GiB"}, {3.35 * (1 << 30), "3.35 GiB"}, {1 << 40, "1 TiB"},
	} {
		if got := bytesIEC(tt.b); got != tt.want {
			t.Errorf("bytesIEC(%v) = %q, want %q", tt.b, got, tt.want)
		}
	}
}

// The profiles of the nosync and fsync benchmarks' profiling runs. The
// reference shares are go tool pprof's: -top -focus='^os\.\(\*File\)\.
// (Write|Sync)$' keeps 510 ms of 530 ms (96.23%) and 270 ms of 290 ms
// (93.10%).
func TestReadCPUProfileFileIO(t *testing.T) {
	for _, tt := range []struct {
		file    string
		samples int64
		fileIO  float64
	}{
		{"write-nosync.pprof", 53, 510.0 / 530},
		{"write-fsync.pprof", 29, 270.0 / 290},
		{"lockbound-2goroutines.pprof", 268, 0},
	} {
		f, err := os.Open(filepath.Join("testdata", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		p, err := ReadCPUProfile(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if p.Samples != tt.samples || math.Abs(p.FileIO-tt.fileIO) > 1e-9 {
			t.Errorf("%s: %d samples, file I/O %v; want %d, %v", tt.file, p.Samples, p.FileIO, tt.samples, tt.fileIO)
		}
	}
}

func TestFileIOFrames(t *testing.T) {
	for _, tt := range []struct {
		stack []string
		want  bool
	}{
		{[]string{"internal/runtime/syscall/linux.Syscall6", "syscall.Syscall", "syscall.write", "os.(*File).write", "os.(*File).Write", "main.BenchmarkW"}, true},
		{[]string{"internal/runtime/syscall/linux.Syscall6", "syscall.Fsync", "internal/poll.(*FD).Fsync", "os.(*File).Sync"}, true},
		{[]string{"internal/runtime/syscall/linux.Syscall6", "golang.org/x/sys/unix.Fdatasync", "main.flush"}, true},
		{[]string{"syscall.pread", "internal/poll.(*FD).Pread", "os.(*File).ReadAt"}, true},
		// A socket write shares internal/poll.(*FD).Write, not os.File.
		{[]string{"internal/runtime/syscall/linux.Syscall6", "syscall.write", "internal/poll.(*FD).Write", "net.(*netFD).Write", "net.(*conn).Write"}, false},
		{[]string{"runtime.futex", "runtime.futexsleep", "runtime.notesleep"}, false},
	} {
		if got := fileIO(tt.stack); got != tt.want {
			t.Errorf("fileIO(%v) = %v, want %v", tt.stack, got, tt.want)
		}
	}
}

// The recorded fixtures: the first 8 rounds and the profiling run of
// rigor run --time 5s --profile auto on the nosync and fsync benchmarks
// (testdata/README.md). The reference numbers were computed from the
// JSON apart from this package (a Python script): nosync's median B/s
// 3.2436 GiB/s, its timed loops 792 iterations of 1 MiB, the disks
// moving 51.08 KiB (107.9 KiB/s written over the rounds' 0.47 s), a
// ratio of 15876; fsync's ratio 0.94 (164.0 MiB claimed, 174.4 MiB
// written).
func TestRecordedIOFixtures(t *testing.T) {
	t.Run("nosync: the page cache", func(t *testing.T) {
		run := readRun(t, "pagecache.json")
		Annotate(run)
		notes := strings.Join(model.Texts(run.Benchmarks[0].Notes), "\n")
		for _, w := range []string{
			"likely measuring the page cache: the benchmark reported 3.24 GiB/s, the disks wrote 108 KiB/s (and read 0 B/s) while it ran; its timed loops claim 792 MiB, the disks moved 51.1 KiB in the same runs",
			"bottleneck: the kernel (system calls or page faults)",
		} {
			if !strings.Contains(notes, w) {
				t.Errorf("notes\n%s\nlack %q", notes, w)
			}
		}
	})
	t.Run("fsync: waiting on I/O, the disks kept up", func(t *testing.T) {
		run := readRun(t, "fsync.json")
		Annotate(run)
		notes := strings.Join(model.Texts(run.Benchmarks[0].Notes), "\n")
		if !strings.Contains(notes, "bottleneck: waiting on I/O (") || !strings.Contains(notes, "76.9% of 13 CPU samples in file reads, writes and syncs") {
			t.Errorf("notes\n%s\nlack waiting on I/O with the profile's evidence", notes)
		}
		if strings.Contains(notes, "page cache") || strings.Contains(notes, "lock") {
			t.Errorf("notes\n%s\nname the page cache or a lock", notes)
		}
	})
}

// With the measured processes' own storage I/O recorded (StorageIO),
// the note compares with it, not with the machine's disks: a neighbour
// writing 500 MiB/s neither hides the note of a benchmark that wrote to
// the page cache nor raises one for a benchmark whose own writes reached
// storage.
func TestPageCacheNoteOwnIO(t *testing.T) {
	nosync := &model.ProfileStats{Samples: 53, CPUSec: 0.53, Syscall: 0.98, FileIO: 0.96}
	const mib = 1 << 20
	// Each of 3 rounds claims 2 GiB over 2 s; the disks write a
	// neighbour's 500 MiB/s throughout, far above a quarter of 2 GiB/2 s.
	run := func(io func(r int) *model.StorageIO) (*model.Benchmark, []model.Observation) {
		b, o := pageCacheRun(3, 500*mib, 0, nosync)
		for i := range o {
			if o[i].Round >= 1 {
				o[i].StorageIO = io(o[i].Round)
			}
		}
		return b, o
	}
	for _, tt := range []struct {
		name string
		io   func(r int) *model.StorageIO
		want string
	}{
		// 257 MiB dirtied a round, 256 of them deleted before writeback.
		{"the nosync benchmark beside a writer", func(int) *model.StorageIO {
			return &model.StorageIO{WriteBytes: 257 * mib, CancelledWriteBytes: 256 * mib}
		}, "the benchmark reported 2 GiB/s, its processes wrote 512 KiB/s to storage (and read 0 B/s) while it ran; its timed loops claim 6 GiB, its processes moved 3 MiB to and from storage in the same runs"},
		{"reads from the cache", func(int) *model.StorageIO { return &model.StorageIO{ReadBytes: mib} }, "its processes wrote 0 B/s to storage (and read 512 KiB/s)"},
		// fsync: what it wrote went to storage, nothing cancelled.
		{"the fsync benchmark beside a writer", func(int) *model.StorageIO { return &model.StorageIO{WriteBytes: 2 << 30} }, ""},
		{"reads from the device", func(int) *model.StorageIO { return &model.StorageIO{ReadBytes: 2 << 30} }, ""},
		// A round that deletes what an earlier one left dirty counts
		// for nothing, not against the others: 2 GiB + 0 + 0 moved.
		{"a round's net below zero", func(r int) *model.StorageIO {
			if r == 1 {
				return &model.StorageIO{WriteBytes: 2 << 30}
			}
			return &model.StorageIO{CancelledWriteBytes: 2 << 30}
		}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, o := run(tt.io)
			got := pageCacheNote(b, o)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
	t.Run("one round without StorageIO: the disks decide", func(t *testing.T) {
		b, o := run(func(r int) *model.StorageIO {
			if r == 2 {
				return nil
			}
			return &model.StorageIO{}
		})
		if n := pageCacheNote(b, o); n != "" {
			t.Errorf("the neighbour's writes on the disks, which decide here, should hide the note: %q", n)
		}
		b, o = pageCacheRun(3, mib, 0, nosync)
		o[1].StorageIO = &model.StorageIO{WriteBytes: 1 << 40}
		if n := pageCacheNote(b, o); !strings.Contains(n, "the disks wrote 1 MiB/s") {
			t.Errorf("%q", n)
		}
	})
	t.Run("StorageIO without system statistics", func(t *testing.T) {
		b, o := run(func(int) *model.StorageIO { return &model.StorageIO{} })
		for i := range o {
			o[i].System = nil
		}
		if n := pageCacheNote(b, o); !strings.Contains(n, "its processes moved 0 B to and from storage") {
			t.Errorf("%q", n)
		}
	})
}
