package observe

import (
	"fmt"
	"math"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// aggregate is a set of observations summed or duration-weighted.
type aggregate struct {
	n    int
	dur  float64 // seconds of observations with system stats
	cpus int

	user, system, iowait, steal, idle float64
	load1, running, ctx               float64
	diskR, diskW                      float64
	freqMin, freqMax                  float64
	psi                               [3]float64
	hasPSI                            [3]bool

	procN          int
	procDur        float64
	pUser, pSys    float64
	pVol, pInvol   int64
	maxRSS         int64
	other, otherDu float64
	otherCap       float64 // CPU seconds the machine had in the intervals other counts

	rtN        int
	rtDur      float64
	gcFrac     float64
	gcCycles   uint64
	allocBytes uint64
	mutexWait  float64
	gomaxprocs int
	schedP99   float64

	profN    int
	profCPU  float64
	prof     model.ProfileStats
	profTop  map[string]float64
	observer float64
}

func aggregateOf(obs []model.Observation) aggregate {
	var a aggregate
	a.freqMin = math.Inf(1)
	for _, o := range obs {
		a.n++
		d := o.Duration.Seconds()
		if s := o.System; s != nil && d > 0 {
			a.dur += d
			a.cpus = max(a.cpus, s.CPUs)
			a.user += s.User * d
			a.system += s.System * d
			a.iowait += s.IOWait * d
			a.steal += s.Steal * d
			a.idle += s.Idle * d
			a.load1 += s.Load1 * d
			a.running += float64(s.Running) * d
			a.ctx += s.CtxSwitches * d
			a.diskR += s.DiskReadBps * d
			a.diskW += s.DiskWriteBps * d
			a.observer += s.ObserverCPUSec
			if s.FreqMinMHz > 0 {
				a.freqMin = min(a.freqMin, s.FreqMinMHz)
				a.freqMax = max(a.freqMax, s.FreqMaxMHz)
			}
			for i, v := range []float64{s.CPUPressure, s.MemoryPressure, s.IOPressure} {
				if v > 0 {
					a.hasPSI[i] = true
				}
				a.psi[i] += v * d
			}
			// Other processes' CPU, summed over the intervals before it
			// is divided (see otherCPUSec): in self mode (runtime
			// metrics present) the observer is part of the process.
			if busy, capacity, ok := otherCPUSec(&o, o.Runtime != nil); ok {
				a.other += busy
				a.otherCap += capacity
				a.otherDu += d
			}
		}
		if p := o.Process; p != nil {
			a.procN++
			a.procDur += d
			a.pUser += p.UserSec
			a.pSys += p.SystemSec
			a.pVol += p.VoluntaryCtx
			a.pInvol += p.InvoluntaryCtx
			a.maxRSS = max(a.maxRSS, p.MaxRSSBytes)
		}
		if r := o.Runtime; r != nil {
			a.rtN++
			a.rtDur += d
			a.gcFrac += r.GCCPUFraction * d
			a.gcCycles += r.GCCycles
			a.allocBytes += r.HeapAllocBytes
			a.mutexWait += r.MutexWait.Seconds()
			a.gomaxprocs = max(a.gomaxprocs, r.GOMAXPROCS)
			a.schedP99 = max(a.schedP99, r.SchedLatencyP99.Seconds())
		}
		if p := o.Profile; p != nil && p.CPUSec > 0 {
			a.profN++
			a.profCPU += p.CPUSec
			a.prof.Samples += p.Samples
			a.prof.GC += p.GC * p.CPUSec
			a.prof.Lock += p.Lock * p.CPUSec
			a.prof.Scheduler += p.Scheduler * p.CPUSec
			a.prof.Syscall += p.Syscall * p.CPUSec
			a.prof.Alloc += p.Alloc * p.CPUSec
			a.prof.FileIO += p.FileIO * p.CPUSec
			if a.profTop == nil {
				a.profTop = map[string]float64{}
			}
			for _, f := range p.Top {
				a.profTop[f.Func] += f.Share * p.CPUSec
			}
		}
	}
	if a.dur > 0 {
		for _, v := range []*float64{&a.user, &a.system, &a.iowait, &a.steal, &a.idle, &a.load1, &a.running, &a.ctx, &a.diskR, &a.diskW, &a.psi[0], &a.psi[1], &a.psi[2]} {
			*v /= a.dur
		}
	}
	if a.otherCap > 0 {
		a.other = min(1, max(0, a.other/a.otherCap))
	}
	if a.rtDur > 0 {
		a.gcFrac /= a.rtDur
	}
	if a.profCPU > 0 {
		for _, v := range []*float64{&a.prof.GC, &a.prof.Lock, &a.prof.Scheduler, &a.prof.Syscall, &a.prof.Alloc, &a.prof.FileIO} {
			*v /= a.profCPU
		}
	}
	if math.IsInf(a.freqMin, 1) {
		a.freqMin = 0
	}
	return a
}

// topFunc names the function with the most CPU samples of its own.
func (a aggregate) topFunc() string {
	best, share := "", 0.0
	for f, v := range a.profTop {
		if s := v / a.profCPU; s > share || (s == share && f < best) {
			best, share = f, s
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("%s of CPU samples in %s", words.Pct(share), best)
}
