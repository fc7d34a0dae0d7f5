package observe

import (
	"fmt"
	"maps"
	"strings"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// Kinds of bottleneck.
const (
	BottleneckUser         = "cpu-user"
	BottleneckKernel       = "kernel"
	BottleneckLock         = "lock"
	BottleneckGC           = "gc"
	BottleneckIO           = "io" // waiting on I/O
	BottleneckMemory       = "memory"
	BottleneckWaiting      = "waiting"
	BottleneckStarved      = "cpu-starved"
	BottleneckInconclusive = "inconclusive"
)

// A Diagnosis names what limited a measurement and why rigor thinks so.
type Diagnosis struct {
	Kind     string // one of the Bottleneck constants
	Summary  string // plain words: "lock contention"
	Evidence string // the numbers behind it
	// Figures are those numbers as data, named as model.Note.Evidence
	// names them: fractions 0..1 ("cpus_busy" excepted, a count of CPUs),
	// seconds with _sec, bytes with _bytes, percentages with _pct.
	Figures map[string]float64
}

// String is the diagnosis as a note: "bottleneck: lock contention (...)".
func (d Diagnosis) String() string {
	if d.Evidence == "" {
		return "bottleneck: " + d.Summary
	}
	return "bottleneck: " + d.Summary + " (" + d.Evidence + ")"
}

// Bottleneck names what limited the measured processes over obs: lock
// contention, GC, the kernel, I/O, memory, CPU in user code, or waiting.
// It is a pure function of the observations; env (which may be nil)
// supplies the total memory.
func Bottleneck(obs []model.Observation, env *model.Env) Diagnosis {
	return bottleneckOf(aggregateOf(obs), env)
}

func bottleneckOf(a aggregate, env *model.Env) Diagnosis {
	procCPU := a.pUser + a.pSys
	haveProc := a.procN > 0 && a.procDur > 0
	if !haveProc && a.rtN == 0 && a.profN == 0 {
		if a.dur > 0 && a.system >= kernelRatio*a.user && a.system >= 0.1 {
			return Diagnosis{BottleneckKernel, "the kernel, machine-wide",
				fmt.Sprintf("system time %s vs user %s of all CPUs; no per-process data was recorded", words.Pct(a.system), words.Pct(a.user)),
				map[string]float64{"system": a.system, "user": a.user}}
		}
		return Diagnosis{Kind: BottleneckInconclusive, Summary: "inconclusive",
			Evidence: "no data about the measured processes was recorded"}
	}

	// The evidence a lock leaves, all of it, so the reader can weigh it.
	var lockEv []string
	lockFig := map[string]float64{}
	if haveProc && procCPU > 0 {
		lockFig["system_share"], lockFig["voluntary_switches_per_cpu_sec"] = a.pSys/procCPU, float64(a.pVol)/procCPU
		lockEv = append(lockEv,
			fmt.Sprintf("system time %s of the process's CPU", words.Pct(a.pSys/procCPU)),
			fmt.Sprintf("%s voluntary context switches per CPU-second", count(float64(a.pVol)/procCPU)))
	}
	mutexFrac := 0.0
	if a.rtN > 0 && a.gomaxprocs > 0 && a.rtDur > 0 {
		blocked := a.mutexWait / a.rtDur
		mutexFrac = blocked / float64(a.gomaxprocs)
		lockFig["mutex_blocked"], lockFig["gomaxprocs"] = blocked, float64(a.gomaxprocs)
		lockEv = append(lockEv, fmt.Sprintf("goroutines spent %.3g s blocked on mutexes in %.3g s (%.2g blocked at once on average, %d Ps)",
			a.mutexWait, a.rtDur, blocked, a.gomaxprocs))
	}
	if a.profN > 0 {
		lockEv = append(lockEv, fmt.Sprintf("%s of CPU samples in mutex slow paths", words.Pct(a.prof.Lock)))
		lockFig["lock_samples"] = a.prof.Lock
	}
	if (a.profN > 0 && a.prof.Samples >= minProfileSamples && a.prof.Lock >= lockProfileShare) || mutexFrac >= lockMutexWait {
		return Diagnosis{BottleneckLock, "lock contention", strings.Join(lockEv, ", "), lockFig}
	}

	gc := -1.0
	switch {
	case a.rtN > 0:
		gc = a.gcFrac
	case a.profN > 0:
		gc = a.prof.GC
	}
	if gc >= GCShare {
		ev := fmt.Sprintf("the garbage collector used %s of the CPU", words.Pct(gc))
		fig := map[string]float64{"gc_share": gc}
		if a.rtN > 0 {
			ev += fmt.Sprintf(", %d GC cycles, %s allocated", a.gcCycles, bytesStr(float64(a.allocBytes)))
			fig["gc_cycles"], fig["alloc_bytes"] = float64(a.gcCycles), float64(a.allocBytes)
		}
		return Diagnosis{BottleneckGC, "garbage collection", ev, fig}
	}

	profiled := a.profN > 0 && a.prof.Samples >= minProfileSamples
	if d, ok := waitingOnIO(a, haveProc, profiled); ok {
		return d
	}
	if !profiled && haveProc && procCPU > 0 && float64(a.pVol)/procCPU >= lockSwitches && a.pSys/procCPU >= lockSystemShare {
		// Threads that sleep in the kernel and are woken, over and over:
		// what contended pthread mutexes (and futex-based locks) do. A CPU
		// profile, when there is one, is the better witness: it already
		// ruled a lock out above, and short processes switch a lot while
		// their threads start.
		return Diagnosis{BottleneckLock, "lock contention (threads sleeping and waking in the kernel)", strings.Join(lockEv, ", "), lockFig}
	}

	if haveProc && a.pSys >= kernelRatio*a.pUser && a.pSys/a.procDur >= 0.05 {
		ev := fmt.Sprintf("system time %.3g s vs user %.3g s", a.pSys, a.pUser)
		fig := map[string]float64{"system_sec": a.pSys, "user_sec": a.pUser}
		if a.profN > 0 {
			ev += fmt.Sprintf(", %s of CPU samples in system calls", words.Pct(a.prof.Syscall))
			fig["syscall_samples"] = a.prof.Syscall
		}
		return Diagnosis{BottleneckKernel, "the kernel (system calls or page faults)", ev, fig}
	}

	memTotal := uint64(0)
	if env != nil {
		memTotal = env.MemTotalBytes
	}
	if (a.hasPSI[1] && a.psi[1] >= memPressure) || (memTotal > 0 && float64(a.maxRSS) >= memRSS*float64(memTotal)) {
		ev := fmt.Sprintf("peak RSS %s", bytesStr(float64(a.maxRSS)))
		fig := map[string]float64{"max_rss_bytes": float64(a.maxRSS)}
		if memTotal > 0 {
			ev += " of " + bytesStr(float64(memTotal))
			fig["mem_total_bytes"] = float64(memTotal)
		}
		if a.hasPSI[1] {
			ev += fmt.Sprintf(", tasks stalled on memory %.0f%% of the time", a.psi[1])
			fig["memory_pressure_pct"] = a.psi[1]
		}
		return Diagnosis{BottleneckMemory, "memory", ev, fig}
	}

	if haveProc {
		busy := procCPU / a.procDur
		// Starved: runnable but not running. The kernel kept preempting the
		// process (a sleeping one is hardly ever preempted) while others
		// kept every CPU busy.
		if busy < starvedCPUs && float64(a.pInvol)/a.procDur >= starvedPreempt && a.dur > 0 && a.idle < 0.05 && a.otherDu > 0 && a.other >= otherBusy {
			return Diagnosis{BottleneckStarved, "not enough CPU: other processes took it",
				fmt.Sprintf("the process kept only %.2f CPUs busy while other processes used %s of the CPU and the CPUs were idle %s of the time",
					busy, words.Pct(a.other), words.Pct(a.idle)),
				map[string]float64{"cpus_busy": busy, "other_cpu": a.other, "idle": a.idle}}
		}
		if busy < idleCPUs {
			return Diagnosis{BottleneckWaiting, "not the CPU: the process mostly waited",
				fmt.Sprintf("it kept %.2f CPUs busy on average; the time went to sleeping, timers, network or other processes", busy),
				map[string]float64{"cpus_busy": busy}}
		}
		if procCPU > 0 && a.pUser/procCPU >= userShare {
			ev := fmt.Sprintf("%s of the process's CPU time was user time, %.2f CPUs busy", words.Pct(a.pUser/procCPU), busy)
			if top := a.topFunc(); top != "" {
				ev += ", " + top
			}
			return Diagnosis{BottleneckUser, "CPU in user code", ev, map[string]float64{"user_share": a.pUser / procCPU, "cpus_busy": busy}}
		}
		return Diagnosis{BottleneckInconclusive, "inconclusive",
			fmt.Sprintf("user %.3g s, system %.3g s, %.2f CPUs busy: no single resource stands out", a.pUser, a.pSys, busy),
			map[string]float64{"user_sec": a.pUser, "system_sec": a.pSys, "cpus_busy": busy}}
	}
	if a.rtN > 0 {
		return Diagnosis{BottleneckUser, "CPU in Go code",
			fmt.Sprintf("GC %s, mutex wait %s of the Ps' time: neither stands out", words.Pct(gc), words.Pct(mutexFrac)),
			map[string]float64{"gc_share": gc, "mutex_wait_share": mutexFrac}}
	}
	return Diagnosis{Kind: BottleneckInconclusive, Summary: "inconclusive", Evidence: "too little was recorded"}
}

// waitingOnIO tells a process that sleeps on the disk from one that
// sleeps on a lock. Both switch out often and spend their little CPU in
// the kernel (threads parked on a futex, threads blocked in fsync), so
// the existing guess from those two numbers alone said "lock"; what
// tells them apart is the device. The I/O signal is the CPUs waiting on
// I/O (iowait, or I/O pressure, which still shows when neighbours keep
// every CPU busy and iowait cannot) or the disks busy; all of it is
// machine-wide. What ties it to the process is its CPU profile: the
// share of samples in file reads, writes and syncs (a lock shows in
// mutex slow paths instead, and ruled earlier in bottleneckOf).
//
// It returns, when the process mostly slept and there is an I/O signal:
// waiting on I/O when the profile ties it, or when the CPUs waited on
// I/O and the process does not look like it sleeps on a futex;
// inconclusive ("on a lock or on I/O") when it does look so and nothing
// ties it. A profile with minProfileSamples that puts under
// fileIOWaitShare in file I/O rules I/O out.
func waitingOnIO(a aggregate, haveProc, profiled bool) (Diagnosis, bool) {
	if a.dur <= 0 {
		return Diagnosis{}, false
	}
	machineWait := a.iowait >= ioWait || (a.hasPSI[2] && a.psi[2] >= ioPressure)
	deviceBusy := a.diskR+a.diskW >= diskBusyBps
	if !machineWait && !deviceBusy {
		return Diagnosis{}, false
	}
	if profiled && a.prof.FileIO < fileIOWaitShare {
		return Diagnosis{}, false // its CPU went elsewhere: the I/O is a neighbour's
	}
	tied := a.profN > 0 && a.prof.Samples >= fewProfileSamples && a.prof.FileIO >= fileIOWaitShare
	var ev []string
	fig := map[string]float64{"iowait": a.iowait, "disk_read_bytes_per_sec": a.diskR, "disk_write_bytes_per_sec": a.diskW}
	futex := false
	if haveProc {
		procCPU := a.pUser + a.pSys
		busy := procCPU / a.procDur
		perCPU := 0.0
		if procCPU > 0 {
			perCPU = float64(a.pVol) / procCPU
			futex = perCPU >= lockSwitches && a.pSys/procCPU >= lockSystemShare
		}
		if busy >= idleCPUs && !(busy < starvedCPUs && perCPU >= lockSwitches) {
			return Diagnosis{}, false // it kept a CPU busy: not waiting
		}
		ev = append(ev, fmt.Sprintf("the process kept %.2f CPUs busy and switched out %s times per CPU-second", busy, count(perCPU)))
		fig["cpus_busy"], fig["voluntary_switches_per_cpu_sec"] = busy, perCPU
	}
	ev = append(ev, fmt.Sprintf("CPUs waited on I/O %s of the time, disk read %s/s, write %s/s",
		words.Pct(a.iowait), bytesStr(a.diskR), bytesStr(a.diskW)))
	if a.hasPSI[2] {
		ev = append(ev, fmt.Sprintf("tasks stalled on I/O %.0f%% of the time", a.psi[2]))
		fig["io_pressure_pct"] = a.psi[2]
	}
	switch {
	case tied:
		ev = append(ev, fmt.Sprintf("%s of %d CPU samples in file reads, writes and syncs, %s in mutex slow paths",
			words.Pct(a.prof.FileIO), a.prof.Samples, words.Pct(a.prof.Lock)))
		fig["fileio_samples"], fig["lock_samples"] = a.prof.FileIO, a.prof.Lock
		return Diagnosis{BottleneckIO, "waiting on I/O", strings.Join(ev, ", "), fig}, true
	case a.profN > 0:
		ev = append(ev, fmt.Sprintf("the CPU profile has too few samples (%d) to tie the I/O to this process, and iowait and disk traffic are machine-wide", a.prof.Samples))
	default:
		ev = append(ev, "no CPU profile ties the I/O to this process, and iowait and disk traffic are machine-wide")
	}
	switch {
	case futex:
		tell := "; a CPU profile (--profile auto) would tell"
		if a.profN > 0 {
			tell = "; a longer profiling run would tell"
		}
		return Diagnosis{BottleneckInconclusive, "asleep in the kernel, on a lock or on I/O", strings.Join(ev, ", ") + tell, fig}, true
	case machineWait:
		return Diagnosis{BottleneckIO, "waiting on I/O", strings.Join(ev, ", "), fig}, true
	}
	return Diagnosis{}, false
}

// Note returns d as a bottleneck note about benchmark (a Benchmark.Key, or
// "" for the run) on side.
func (d Diagnosis) Note(benchmark, side string) model.Note {
	text := d.String()
	if benchmark == "" && side != "" {
		text = side + ": " + text
	}
	return model.Note{Kind: model.NoteBottleneck, Topic: d.Kind, Source: source, Benchmark: benchmark, Side: side,
		Evidence: maps.Clone(d.Figures), Finding: d.Summary, Text: text}
}
