package observe

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The fixtures are -test.cpuprofile files of examples/lockbound recorded
// on this machine. The reference numbers are go tool pprof -top's: with 2
// goroutines, 2680 ms sampled, internal/sync.(*Mutex).lockSlow 900 ms
// cumulative (33.58%), lockbound.Op 1690 ms flat (63.06%),
// runtime.procyieldAsm 850 ms flat; with 1 goroutine, 1390 ms sampled and
// no lockSlow, lockbound.Op 1360 ms flat (97.84%).
func TestReadCPUProfile(t *testing.T) {
	for _, tt := range []struct {
		file     string
		cpuSec   float64
		samples  int64
		lock     float64
		top      string
		topShare float64
	}{
		{"lockbound-2goroutines.pprof", 2.68, 268, 900.0 / 2680, "github.com/rigorbench/rigor/examples/lockbound.Op", 1690.0 / 2680},
		{"lockbound-1goroutine.pprof", 1.39, 139, 0, "github.com/rigorbench/rigor/examples/lockbound.Op", 1360.0 / 1390},
	} {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p, err := ReadCPUProfile(f)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(p.CPUSec-tt.cpuSec) > 1e-9 || p.Samples != tt.samples {
				t.Errorf("cpu %v s in %d samples, want %v s in %d", p.CPUSec, p.Samples, tt.cpuSec, tt.samples)
			}
			if math.Abs(p.Lock-tt.lock) > 1e-9 {
				t.Errorf("lock share %v, want %v", p.Lock, tt.lock)
			}
			if p.GC != 0 || p.Syscall != 0 || p.Alloc != 0 {
				t.Errorf("gc %v syscall %v alloc %v, want 0: the benchmark neither allocates nor calls the kernel", p.GC, p.Syscall, p.Alloc)
			}
			if len(p.Top) == 0 || p.Top[0].Func != tt.top || math.Abs(p.Top[0].Share-tt.topShare) > 1e-9 {
				t.Errorf("top %+v, want %s at %v", p.Top, tt.top, tt.topShare)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		stack []string
		want  string
	}{
		{[]string{"runtime.procyieldAsm", "internal/sync.(*Mutex).lockSlow", "main.work"}, "lock"},
		{[]string{"runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker"}, "gc"},
		// An allocation that assists the GC counts as GC, the first class.
		{[]string{"runtime.gcAssistAlloc", "runtime.mallocgc", "main.f"}, "gc"},
		{[]string{"runtime.nextFreeFast", "runtime.mallocgc", "main.f"}, "alloc"},
		// The runtime's own lock inside the scheduler is the scheduler.
		{[]string{"runtime.futex", "runtime.lock2", "runtime.findRunnable", "runtime.schedule"}, "scheduler"},
		{[]string{"internal/runtime/syscall/linux.Syscall6", "syscall.Syscall", "os.(*File).Write"}, "syscall"},
		{[]string{"main.compute"}, ""},
	} {
		if got := classify(tt.stack); got != tt.want {
			t.Errorf("classify(%v) = %q, want %q", tt.stack, got, tt.want)
		}
	}
}

func TestReadCPUProfileErrors(t *testing.T) {
	if _, err := ReadCPUProfile(bytes.NewReader([]byte("not a profile"))); err == nil {
		t.Error("garbage: want an error")
	}
}

func FuzzReadCPUProfile(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "lockbound-1goroutine.pprof"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadCPUProfile(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, v := range []float64{p.GC, p.Lock, p.Scheduler, p.Syscall, p.Alloc, p.FileIO} {
			if v < 0 || v > 1+1e-9 || math.IsNaN(v) {
				t.Fatalf("share %v outside [0,1]: %+v", v, p)
			}
		}
	})
}
