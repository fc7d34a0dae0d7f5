package observe

import (
	"math"
	"sort"
	"time"

	"github.com/rigorbench/rigor/model"
)

// Indices of the cumulative counters in a snapshot. Counters only grow;
// an interval's value is the difference of the counter, interpolated at
// the interval's ends.
const (
	cUser      = iota // CPU seconds, summed over CPUs (user + nice)
	cSystem           // system + irq + softirq
	cIdle             //
	cIOWait           //
	cSteal            //
	cCtxt             // context switches
	cDiskRead         // bytes
	cDiskWrite        //
	cNetRx            //
	cNetTx            //
	cPSICPU           // microseconds some task stalled
	cPSIMemory        //
	cPSIIO            //
	cObserver         // seconds of CPU the sampling thread used
	nCounters
)

// A snapshot is one reading of the system's counters and gauges.
type snapshot struct {
	t    time.Time
	c    [nCounters]float64
	cpus int
	// Gauges: instantaneous values, averaged over the snapshots that fall
	// inside an interval.
	load1   float64
	running float64
	freq    float64 // mean MHz across CPUs, 0 when unreadable
	freqMin float64
	freqMax float64
	// psi says which of the cPSI* counters were present.
	psi [3]bool
}

// interp returns counter i linearly interpolated at time t between the
// snapshots around it; times outside the snapshots clamp to the ends.
// snaps is sorted by time and not empty.
func interp(snaps []snapshot, t time.Time, i int) float64 {
	if !t.After(snaps[0].t) {
		return snaps[0].c[i]
	}
	k := firstAtOrAfter(snaps, t)
	if k == len(snaps) {
		return snaps[len(snaps)-1].c[i]
	}
	a, b := snaps[k-1], snaps[k]
	span := b.t.Sub(a.t).Seconds()
	if span <= 0 {
		return b.c[i]
	}
	f := t.Sub(a.t).Seconds() / span
	return a.c[i] + f*(b.c[i]-a.c[i])
}

// firstAtOrAfter returns the index of the first of snaps (sorted by
// time) taken at or after t, len(snaps) when none was: by bisection, as
// every timed run of rigor exec is an interval, and a long run holds
// thousands of snapshots.
func firstAtOrAfter(snaps []snapshot, t time.Time) int {
	return sort.Search(len(snaps), func(k int) bool { return !snaps[k].t.Before(t) })
}

// systemStats aggregates snaps over [t0, t1): counters as interpolated
// differences, gauges as the mean of the snapshots inside (or of the two
// around it, when none falls inside). It returns nil when there are no
// snapshots or the interval is empty.
func systemStats(snaps []snapshot, t0, t1 time.Time) *model.SystemStats {
	dur := t1.Sub(t0).Seconds()
	if len(snaps) == 0 || dur <= 0 {
		return nil
	}
	var d [nCounters]float64
	for i := range d {
		d[i] = max(0, interp(snaps, t1, i)-interp(snaps, t0, i))
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

	lo, hi := firstAtOrAfter(snaps, t0), firstAtOrAfter(snaps, t1)
	inside := snaps[lo:max(lo, hi)]
	s.Samples = len(inside)
	if len(inside) == 0 {
		inside = around(snaps, lo, hi)
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

// around returns the snapshots just before t0 and just after t1 (one of
// them when the other does not exist), given lo and hi, the first taken
// at or after each.
func around(snaps []snapshot, lo, hi int) []snapshot {
	var out []snapshot
	if lo > 0 {
		out = append(out, snaps[lo-1])
	}
	if hi < len(snaps) {
		out = append(out, snaps[hi])
	}
	if len(out) == 0 {
		out = append(out, snaps[len(snaps)-1])
	}
	return out
}
