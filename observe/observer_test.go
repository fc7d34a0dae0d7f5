package observe

import (
	"context"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// The Observer's bookkeeping: labels, order, attachments, pauses. Nothing
// here depends on how fast the machine is.
func TestObserverMarks(t *testing.T) {
	o := Start(context.Background(), 10*time.Millisecond)
	o.AddProcess(&model.ProcessStats{UserSec: 9}) // before any Mark: dropped
	o.Mark("A", "old", 1)
	o.AddProcess(&model.ProcessStats{PID: 10, UserSec: 1, SystemSec: 0.5, VoluntaryCtx: 2, MaxRSSBytes: 100})
	o.AddProcess(&model.ProcessStats{PID: 11, UserSec: 2, SystemSec: 0.5, VoluntaryCtx: 3, MaxRSSBytes: 300})
	o.AddProfile(&model.ProfileStats{Samples: 5, CPUSec: 0.05, Lock: 0.2})
	time.Sleep(30 * time.Millisecond)
	o.Pause()
	time.Sleep(5 * time.Millisecond)
	o.Mark("B", "new", 1)
	time.Sleep(5 * time.Millisecond)
	obs := o.Stop()
	o.Mark("C", "new", 2) // after Stop: ignored

	if len(obs) != 2 {
		t.Fatalf("got %d observations, want 2 (the pause is left out)", len(obs))
	}
	a, b := obs[0], obs[1]
	if a.Benchmark != "A" || a.Side != "old" || a.Round != 1 || b.Benchmark != "B" || b.Side != "new" {
		t.Errorf("labels: %q/%q/%d, %q/%q", a.Benchmark, a.Side, a.Round, b.Benchmark, b.Side)
	}
	if a.Duration <= 0 || b.Duration <= 0 || !a.Start.Add(a.Duration).Before(b.Start) {
		t.Errorf("intervals: A %v+%v, B %v: want positive and A ending before B (the pause)", a.Start, a.Duration, b.Start)
	}
	p := a.Process
	if p == nil || p.PID != 0 || p.UserSec != 3 || p.SystemSec != 1 || p.VoluntaryCtx != 5 || p.MaxRSSBytes != 300 {
		t.Errorf("A's process stats %+v, want the two processes summed, largest RSS, no single PID", p)
	}
	if a.Profile == nil || a.Profile.Lock != 0.2 || b.Process != nil || b.Profile != nil {
		t.Errorf("attachments: A profile %+v, B process %+v profile %+v", a.Profile, b.Process, b.Profile)
	}
	if runtime.GOOS == "linux" {
		if a.System == nil || b.System == nil || a.System.CPUs < 1 {
			t.Fatalf("no system stats on Linux: %+v %+v", a.System, b.System)
		}
		if u := a.System.User + a.System.System + a.System.Idle + a.System.IOWait + a.System.Steal; u < 0.99 || u > 1.01 {
			t.Errorf("CPU fractions sum to %v, want 1", u)
		}
	}
	if again := o.Stop(); len(again) != 2 || again[0].Benchmark != "A" {
		t.Errorf("second Stop returned %d observations", len(again))
	}
}

func TestObserverNoMarks(t *testing.T) {
	o := Start(context.Background(), 0)
	obs := o.Stop()
	if len(obs) != 1 || obs[0].Benchmark != "" || obs[0].Duration <= 0 {
		t.Fatalf("got %+v, want one unlabelled observation of the whole time", obs)
	}
}

// A cancelled context stops the sampler; Stop still closes the record.
func TestObserverContextDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	o := Start(ctx, time.Millisecond)
	o.Mark("A", "a", 0)
	cancel()
	time.Sleep(5 * time.Millisecond)
	obs := o.Stop()
	if len(obs) != 1 || obs[0].Benchmark != "A" {
		t.Fatalf("got %+v", obs)
	}
	if runtime.GOOS == "linux" && obs[0].System == nil {
		t.Error("no system stats after the context ended")
	}
}

// In self mode every interval carries this process's usage and runtime
// metrics; the allocation made inside A is attributed to A.
func TestObserverSelf(t *testing.T) {
	o := StartSelf(context.Background(), 0)
	o.Mark("A", "a", 0)
	for range 32 {
		sink = append(sink, make([]byte, 32<<10))
	}
	o.Mark("B", "a", 0)
	obs := o.Stop()
	sink = nil
	if len(obs) != 2 {
		t.Fatalf("got %d observations, want 2", len(obs))
	}
	for _, ob := range obs {
		if ob.Runtime == nil {
			t.Fatalf("%s: no runtime stats", ob.Benchmark)
		}
		if runtime.GOOS == "linux" && ob.Process == nil {
			t.Fatalf("%s: no process stats", ob.Benchmark)
		}
	}
	if got := obs[0].Runtime.HeapAllocBytes; got < 32*32<<10 {
		t.Errorf("A allocated %d bytes by the metrics, want at least 1 MiB", got)
	}
}

func TestOtherCPU(t *testing.T) {
	// 2 CPUs for 2 s = 4 CPU-seconds; 75% busy = 3 CPU-seconds; the
	// measured process used 1.5, the observer 0.1: others 1.4 of 4.
	obs := &model.Observation{
		Duration: 2 * time.Second,
		System:   &model.SystemStats{CPUs: 2, User: 0.5, System: 0.25, ObserverCPUSec: 0.1},
		Process:  &model.ProcessStats{UserSec: 1, SystemSec: 0.5},
	}
	if got := otherCPU(obs, false); !near(got, 1.4/4) {
		t.Errorf("external: got %v, want 0.35", got)
	}
	if got := otherCPU(obs, true); !near(got, 1.5/4) { // the observer is inside the process
		t.Errorf("self: got %v, want 0.375", got)
	}
	obs.Process.UserSec = 10 // more than the machine did (tick rounding): clamp
	if got := otherCPU(obs, false); got != 0 {
		t.Errorf("clamp: got %v, want 0", got)
	}
	if got := otherCPU(&model.Observation{Duration: time.Second}, false); got != 0 {
		t.Errorf("no data: got %v, want 0", got)
	}
}

// TestObserverInterim: Observations gives the intervals that have ended,
// with what Stop would give for them, and leaves the open one for later;
// it never waits for the machine, only for the sampler to read past an
// interval's end (it does within a few periods).
func TestObserverInterim(t *testing.T) {
	o := Start(context.Background(), 5*time.Millisecond)
	if got := o.Observations(); len(got) != 0 {
		t.Fatalf("before any Mark: %d observations, want none", len(got))
	}
	o.Mark("A", "old", 1)
	o.AddProcess(&model.ProcessStats{UserSec: 0.01})
	time.Sleep(10 * time.Millisecond)
	o.Pause()
	o.Mark("B", "new", 1)
	var got []model.Observation
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if got = o.Observations(); len(got) > 0 {
			break
		}
	}
	if len(got) != 1 || got[0].Benchmark != "A" || got[0].Round != 1 || got[0].Process == nil || got[0].Process.UserSec != 0.01 {
		t.Fatalf("interim observations %+v, want A's alone (B is open, the pause is nobody's)", got)
	}
	if runtime.GOOS == "linux" && got[0].System == nil {
		t.Errorf("A has no system stats on Linux")
	}
	// A later look adds B, once it has ended, to what the first built.
	time.Sleep(5 * time.Millisecond)
	o.Pause()
	o.Mark("C", "old", 2)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if later := o.Observations(); len(later) > 1 {
			if len(later) != 2 || later[0].Start != got[0].Start || later[1].Benchmark != "B" {
				t.Fatalf("second look %+v, want A then B", later)
			}
			break
		}
	}
	final := o.Stop()
	if len(final) != 3 || final[0].Start != got[0].Start || final[0].Duration != got[0].Duration {
		t.Errorf("Stop gave %+v; its first interval should be the interim one %+v", final, got[0])
	}
	if after := o.Observations(); len(after) != 3 {
		t.Errorf("after Stop, Observations gave %d, want Stop's 3", len(after))
	}
}

// TestWantsSample: a boundary asks for a sample only after an interval of
// a quarter period or more, and a quarter period after the last sample;
// the boundaries of a quick command's runs, microseconds apart, ask for
// none.
func TestWantsSample(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	const period = 100 * time.Millisecond
	for _, tc := range []struct {
		name           string
		prev, last, at time.Time
		want           bool
	}{
		{"first boundary", time.Time{}, at(0), at(30), true},
		{"first boundary, fresh sample", time.Time{}, at(0), at(10), false},
		{"after a long interval", at(0), at(0), at(25), true},
		{"after a long interval, fresh sample", at(0), at(20), at(30), false},
		{"after a short interval", at(99), at(0), at(100), false},
		{"a quick command's run", at(1000), at(0), at(1001), false},
	} {
		if got := wantsSample(tc.prev, tc.last, tc.at, period); got != tc.want {
			t.Errorf("%s: wantsSample = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestStopReusesInterim: Stop keeps the observations an interim look
// built, and they are what building them again from every sample gives;
// a process attached to a built interval after the look (after its Pause,
// before the next Mark, as AddProcess allows) is in Stop's.
func TestStopReusesInterim(t *testing.T) {
	for _, late := range []bool{false, true} {
		o := Start(context.Background(), 5*time.Millisecond)
		for i := range 3 {
			o.Mark("A", "old", i+1)
			time.Sleep(3 * time.Millisecond)
			o.Pause()
		}
		var look []model.Observation
		for deadline := time.Now().Add(10 * time.Second); len(look) < 3 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			look = o.Observations()
		}
		if len(look) != 3 {
			t.Fatalf("the look gave %d observations, want 3", len(look))
		}
		if late {
			o.AddProcess(&model.ProcessStats{UserSec: 0.5})
		}
		o.Mark("B", "new", 1)
		final := o.Stop()
		if len(final) != 4 {
			t.Fatalf("Stop gave %d observations, want 4", len(final))
		}
		o.mu.Lock()
		for i, j := 0, 0; i+1 < len(o.marks); i++ {
			if o.marks[i].paused {
				continue
			}
			if again := o.observation(o.marks[i], o.marks[i+1].t); !reflect.DeepEqual(again, final[j]) {
				t.Errorf("late %v: Stop's observation %d is %+v; built again from every sample, %+v", late, j, final[j], again)
			}
			j++
		}
		o.mu.Unlock()
		if p := final[2].Process; late != (p != nil && p.UserSec == 0.5) {
			t.Errorf("late %v: the third interval's process is %+v", late, p)
		}
	}
}
