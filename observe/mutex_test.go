package observe

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// mutexProfile builds a mutex profile with one sample per stack (innermost
// frame first), as runtime/pprof writes them.
func mutexProfile(t *testing.T, samples []struct {
	stack       []string
	contentions int64
	delay       int64
}) []byte {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "contentions", Unit: "count"}, {Type: "delay", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "contentions", Unit: "count"},
		Period:     1,
	}
	funcs := map[string]*profile.Function{}
	for _, s := range samples {
		var locs []*profile.Location
		for _, name := range s.stack {
			f := funcs[name]
			if f == nil {
				f = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name}
				funcs[name] = f
				p.Function = append(p.Function, f)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
			p.Location = append(p.Location, loc)
			locs = append(locs, loc)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{s.contentions, s.delay}})
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadMutexProfile(t *testing.T) {
	// Hand-made: the runtime's lock in the scheduler is left out; the
	// runtime's lock inside a sync.Mutex's Unlock is the mutex's.
	b := mutexProfile(t, []struct {
		stack       []string
		contentions int64
		delay       int64
	}{
		{[]string{"sync.(*Mutex).Unlock", "main.f"}, 3, 500},
		{[]string{"runtime.unlock", "runtime.findRunnable", "runtime.schedule"}, 7, 9000},
		{[]string{"runtime.unlock", "runtime.semrelease1", "internal/sync.runtime_Semrelease", "internal/sync.(*Mutex).unlockSlow"}, 2, 40},
		{[]string{"sync/atomic.AddInt64", "main.g"}, 1, 1}, // not package sync
	})
	wait, n, err := ReadMutexProfile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if wait != 540 || n != 5 {
		t.Errorf("hand-made profile: wait %v in %d contentions, want 540ns in 5", wait, n)
	}

	// Recorded: a RunParallel benchmark of 8×GOMAXPROCS goroutines
	// taking one mutex, -test.cpu=2 -test.mutexprofilefraction=100.
	// go tool pprof -raw shows two samples, 185800 contentions with
	// 39310000 ns at sync.(*Mutex).Unlock, and 300 with 48688 ns at
	// runtime.unlock inside internal/sync.(*Mutex).unlockSlow.
	f, err := os.Open(filepath.Join("testdata", "parallel-mutex.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wait, n, err = ReadMutexProfile(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Duration(39310000 + 48688); wait != want || n != 185800+300 {
		t.Errorf("recorded profile: wait %v in %d contentions, want %v in %d", wait, n, want, 185800+300)
	}
}

func TestReadMutexProfileErrors(t *testing.T) {
	if _, _, err := ReadMutexProfile(bytes.NewReader([]byte("not a profile"))); err == nil {
		t.Error("garbage: want an error")
	}
	cpu, err := os.ReadFile(filepath.Join("testdata", "lockbound-1goroutine.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadMutexProfile(bytes.NewReader(cpu)); err == nil {
		t.Error("a CPU profile: want an error")
	}
}

func FuzzReadMutexProfile(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "parallel-mutex.pprof"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		wait, n, err := ReadMutexProfile(bytes.NewReader(b))
		if err == nil && (wait < 0 || n < 0) {
			t.Fatalf("negative totals: wait %v, %d contentions", wait, n)
		}
	})
}

func ExampleReadMutexProfile() {
	// A mutex profile written by a go test binary run with
	// -test.mutexprofile=parallel-mutex.pprof -test.mutexprofilefraction=100.
	f, err := os.Open(filepath.Join("testdata", "parallel-mutex.pprof"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	wait, contentions, err := ReadMutexProfile(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("goroutines waited %v on sync mutexes (%d contentions)\n", wait, contentions)
	// Output: goroutines waited 39.358688ms on sync mutexes (186100 contentions)
}
