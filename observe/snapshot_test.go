package observe

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
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

// linearSystemStats, linearInterp and linearAround are systemStats as it
// was, scanning every snapshot for every interval: the reference the
// bisection must match exactly.
func linearSystemStats(snaps []snapshot, t0, t1 time.Time) *model.SystemStats {
	dur := t1.Sub(t0).Seconds()
	if len(snaps) == 0 || dur <= 0 {
		return nil
	}
	var d [nCounters]float64
	for i := range d {
		d[i] = max(0, linearInterp(snaps, t1, i)-linearInterp(snaps, t0, i))
	}
	s := &model.SystemStats{}
	total := d[cUser] + d[cSystem] + d[cIdle] + d[cIOWait] + d[cSteal]
	if total > 0 {
		s.User = d[cUser] / total
		s.System = d[cSystem] / total
		s.Idle = d[cIdle] / total
		s.IOWait = d[cIOWait] / total
		s.Steal = d[cSteal] / total
	}
	s.CtxSwitches = d[cCtxt] / dur
	s.DiskReadBps = d[cDiskRead] / dur
	s.DiskWriteBps = d[cDiskWrite] / dur
	s.NetRxBps = d[cNetRx] / dur
	s.NetTxBps = d[cNetTx] / dur
	s.ObserverCPUSec = d[cObserver]

	var inside []snapshot
	for _, sn := range snaps {
		if !sn.t.Before(t0) && sn.t.Before(t1) {
			inside = append(inside, sn)
		}
	}
	s.Samples = len(inside)
	if len(inside) == 0 {
		inside = linearAround(snaps, t0, t1)
	}
	s.CPUs = inside[len(inside)-1].cpus
	var load, running, freq float64
	nfreq := 0
	fmin, fmax := math.Inf(1), 0.0
	for _, sn := range inside {
		load += sn.load1
		running += sn.running
		if sn.freq > 0 {
			freq += sn.freq
			nfreq++
			fmin, fmax = min(fmin, sn.freqMin), max(fmax, sn.freqMax)
		}
	}
	n := float64(len(inside))
	s.Load1 = load / n
	s.Running = int(math.Round(running / n))
	if nfreq > 0 {
		s.FreqMHz, s.FreqMinMHz, s.FreqMaxMHz = freq/float64(nfreq), fmin, fmax
	}
	last := inside[len(inside)-1]
	pct := func(i int) float64 { return min(100, 100*d[i]/1e6/dur) }
	if last.psi[0] {
		s.CPUPressure = pct(cPSICPU)
	}
	if last.psi[1] {
		s.MemoryPressure = pct(cPSIMemory)
	}
	if last.psi[2] {
		s.IOPressure = pct(cPSIIO)
	}
	return s
}

func linearInterp(snaps []snapshot, t time.Time, i int) float64 {
	if !t.After(snaps[0].t) {
		return snaps[0].c[i]
	}
	for k := 1; k < len(snaps); k++ {
		b := snaps[k]
		if t.After(b.t) {
			continue
		}
		a := snaps[k-1]
		span := b.t.Sub(a.t).Seconds()
		if span <= 0 {
			return b.c[i]
		}
		f := t.Sub(a.t).Seconds() / span
		return a.c[i] + f*(b.c[i]-a.c[i])
	}
	return snaps[len(snaps)-1].c[i]
}

func linearAround(snaps []snapshot, t0, t1 time.Time) []snapshot {
	var out []snapshot
	for k := len(snaps) - 1; k >= 0; k-- {
		if snaps[k].t.Before(t0) {
			out = append(out, snaps[k])
			break
		}
	}
	for _, sn := range snaps {
		if !sn.t.Before(t1) {
			out = append(out, sn)
			break
		}
	}
	if len(out) == 0 {
		out = append(out, snaps[len(snaps)-1])
	}
	return out
}

// TestSystemStatsBisection: on random snapshot series (some taken at the
// same instant) and intervals inside, across and outside them,
// systemStats equals the linear scan's, field by field.
func TestSystemStatsBisection(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for trial := range 2000 {
		n := 1 + rng.IntN(12)
		snaps := make([]snapshot, n)
		at := base
		for k := range snaps {
			if k > 0 && rng.IntN(4) > 0 {
				at = at.Add(time.Duration(1+rng.IntN(100)) * time.Millisecond)
			}
			snaps[k] = snapshot{t: at, cpus: 1 + rng.IntN(4), load1: rng.Float64() * 4, running: float64(rng.IntN(5)),
				freq: float64(rng.IntN(2)) * 2000, freqMin: 1000, freqMax: 3000, psi: [3]bool{true, rng.IntN(2) == 0, true}}
			for i := range nCounters {
				snaps[k].c[i] = float64(k*10+rng.IntN(10)) * 1e5
			}
		}
		span := at.Sub(base) + 40*time.Millisecond
		t0 := base.Add(time.Duration(rng.Int64N(int64(span))) - 20*time.Millisecond)
		t1 := t0.Add(time.Duration(1 + rng.Int64N(int64(span)/2)))
		if rng.IntN(5) == 0 { // an end on a snapshot
			t0 = snaps[rng.IntN(n)].t
		}
		got, want := systemStats(snaps, t0, t1), linearSystemStats(snaps, t0, t1)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d, [%v, %v):\n got %+v\nwant %+v", trial, t0.Sub(base), t1.Sub(base), got, want)
		}
	}
}
