package observe

import (
	"math"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// snaps returns three hand-made snapshots one second apart on 2 CPUs.
// Over the first second the CPUs spent 1.0 s user, 0.5 s system, 0.3 s
// idle, 0.1 s iowait, 0.1 s steal (2.0 s in all), switched context 2000
// times, read 1 MB, stalled on CPU 0.25 s. Over the second second they were
// idle (2.0 s idle), with 400 switches and nothing else.
func testSnaps() []snapshot {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	mk := func(sec int, user, sys, idle, iow, steal, ctxt, disk, psi, obs, load float64) snapshot {
		s := snapshot{t: t0.Add(time.Duration(sec) * time.Second), cpus: 2, load1: load, running: load}
		s.c[cUser], s.c[cSystem], s.c[cIdle], s.c[cIOWait], s.c[cSteal] = user, sys, idle, iow, steal
		s.c[cCtxt], s.c[cDiskRead], s.c[cPSICPU], s.c[cObserver] = ctxt, disk, psi, obs
		s.psi[0] = true
		return s
	}
	return []snapshot{
		mk(0, 10, 5, 80, 3, 2, 1000, 0, 0, 0.1, 1),
		mk(1, 11, 5.5, 80.3, 3.1, 2.1, 3000, 1e6, 250000, 0.102, 3),
		mk(2, 11, 5.5, 82.3, 3.1, 2.1, 3400, 1e6, 250000, 0.104, 2),
	}
}

func TestSystemStatsWholeSegment(t *testing.T) {
	sn := testSnaps()
	s := systemStats(sn, sn[0].t, sn[1].t)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"user", s.User, 0.5}, {"system", s.System, 0.25}, {"idle", s.Idle, 0.15},
		{"iowait", s.IOWait, 0.05}, {"steal", s.Steal, 0.05},
		{"ctx/s", s.CtxSwitches, 2000}, {"disk read B/s", s.DiskReadBps, 1e6},
		{"cpu pressure %", s.CPUPressure, 25}, {"observer s", s.ObserverCPUSec, 0.002},
		{"load1 (only the snapshot at the start is inside)", s.Load1, 1},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if s.Samples != 1 || s.CPUs != 2 {
		t.Errorf("samples %d cpus %d, want 1 and 2", s.Samples, s.CPUs)
	}
}

// An interval inside one sampling period gets that period's rates, and its
// gauges come from the snapshots around it.
func TestSystemStatsShortInterval(t *testing.T) {
	sn := testSnaps()
	t0 := sn[0].t.Add(250 * time.Millisecond)
	s := systemStats(sn, t0, t0.Add(500*time.Millisecond))
	if !near(s.User, 0.5) || !near(s.CtxSwitches, 2000) || !near(s.CPUPressure, 25) {
		t.Errorf("user %v ctx/s %v psi %v, want 0.5, 2000, 25", s.User, s.CtxSwitches, s.CPUPressure)
	}
	if s.Samples != 0 || !near(s.Load1, 2) {
		t.Errorf("samples %d load1 %v, want 0 and the mean of 1 and 3", s.Samples, s.Load1)
	}
}

// An interval across a sample boundary takes half of each period: CPU
// time 0.5 s user + 0.25 s system + 0.15 idle + 0.05 + 0.05 from the
// first, 1.0 s idle from the second, of 2.0 s; 1000 + 200 switches.
func TestSystemStatsAcrossSamples(t *testing.T) {
	sn := testSnaps()
	t0 := sn[0].t.Add(500 * time.Millisecond)
	s := systemStats(sn, t0, t0.Add(time.Second))
	if !near(s.User, 0.25) || !near(s.Idle, 1.15/2) || !near(s.CtxSwitches, 1200) || !near(s.DiskReadBps, 5e5) {
		t.Errorf("user %v idle %v ctx/s %v disk %v, want 0.25, 0.575, 1200, 5e5", s.User, s.Idle, s.CtxSwitches, s.DiskReadBps)
	}
	if s.Samples != 1 || !near(s.Load1, 3) {
		t.Errorf("samples %d load1 %v, want the one snapshot inside, load 3", s.Samples, s.Load1)
	}
}

func TestSystemStatsEmpty(t *testing.T) {
	sn := testSnaps()
	if s := systemStats(nil, sn[0].t, sn[1].t); s != nil {
		t.Errorf("no snapshots: got %+v, want nil", s)
	}
	if s := systemStats(sn, sn[1].t, sn[1].t); s != nil {
		t.Errorf("empty interval: got %+v, want nil", s)
	}
}

func TestInterpClamps(t *testing.T) {
	sn := testSnaps()
	if got := interp(sn, sn[0].t.Add(-time.Hour), cUser); got != 10 {
		t.Errorf("before the first snapshot: %v, want 10", got)
	}
	if got := interp(sn, sn[2].t.Add(time.Hour), cCtxt); got != 3400 {
		t.Errorf("after the last snapshot: %v, want 3400", got)
	}
}
