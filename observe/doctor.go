package observe

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/mem"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// Severities of a Finding.
const (
	SeverityOK   = "ok"   // nothing to do
	SeverityInfo = "info" // worth knowing; results stay comparable
	SeverityWarn = "warn" // would distort results
)

// A Finding is one check of the machine before benchmarking.
type Finding struct {
	Check    string `json:"check"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Fix      string `json:"fix,omitempty"`
}

// A MachineSample is what the machine did over a short window: the input
// of Diagnose besides the environment.
type MachineSample struct {
	Duration time.Duration      `json:"duration_ns"`
	System   *model.SystemStats `json:"system,omitempty"`
	// Top lists the processes that used the most CPU in the window, most
	// first, excluding this one.
	Top            []ProcessCPU `json:"top,omitempty"`
	MemAvailable   uint64       `json:"mem_available_bytes,omitempty"`
	SwapUsed       uint64       `json:"swap_used_bytes,omitempty"`
	OthersCPUShare float64      `json:"others_cpu"` // of all CPUs, excluding this process
}

// ProcessCPU is one process's CPU use over a window, in CPUs (1 = one
// CPU fully busy).
type ProcessCPU struct {
	PID  int     `json:"pid"`
	Name string  `json:"name"`
	CPUs float64 `json:"cpus"`
}

// Check samples the machine for about a second and reports on everything
// that can distort a benchmark: frequency governor, turbo, load and busy
// processes, steal, cores, memory, ASLR, virtualization, battery,
// instruction counters. env is the environment from CaptureEnv.
func Check(ctx context.Context, env *model.Env) ([]Finding, error) {
	s, err := SampleMachine(ctx, time.Second)
	if err != nil {
		return nil, err
	}
	return Diagnose(env, s), nil
}

// SampleMachine watches the machine for d and returns what it did.
func SampleMachine(ctx context.Context, d time.Duration) (MachineSample, error) {
	ms := MachineSample{Duration: d}
	if vm, err := mem.VirtualMemoryWithContext(ctx); err == nil {
		ms.MemAvailable = vm.Available
		ms.SwapUsed = vm.SwapTotal - vm.SwapFree
	}
	rd, err := newReader()
	if err != nil {
		return ms, nil // not Linux: no load figures, the static checks remain
	}
	s0, err := rd.read()
	if err != nil {
		return ms, err
	}
	p0 := processTimes()
	select {
	case <-ctx.Done():
		return ms, ctx.Err()
	case <-time.After(d):
	}
	s1, err := rd.read()
	if err != nil {
		return ms, err
	}
	p1 := processTimes()
	ms.System = systemStats([]snapshot{s0, s1}, s0.t, s1.t)
	secs := s1.t.Sub(s0.t).Seconds()
	self := os.Getpid()
	for pid, t1 := range p1 {
		if pid == self {
			continue
		}
		t0 := p0[pid] // zero for a process that started during the window
		if cpus := (t1.cpu - t0.cpu) / secs; cpus >= 0.01 {
			ms.Top = append(ms.Top, ProcessCPU{PID: pid, Name: t1.name, CPUs: cpus})
		}
	}
	slices.SortFunc(ms.Top, func(a, b ProcessCPU) int { return cmp.Or(cmp.Compare(b.CPUs, a.CPUs), cmp.Compare(a.PID, b.PID)) })
	if ms.System != nil && ms.System.CPUs > 0 {
		selfCPU := (p1[self].cpu - p0[self].cpu) / secs
		ms.OthersCPUShare = max(0, (ms.System.User+ms.System.System)-selfCPU/float64(ms.System.CPUs))
	}
	ms.Top = ms.Top[:min(5, len(ms.Top))]
	return ms, nil
}

// Diagnose turns the environment and a machine sample into findings, in a
// fixed order. It is a pure function.
func Diagnose(env *model.Env, s MachineSample) []Finding {
	if env == nil {
		env = &model.Env{}
	}
	var f []Finding
	add := func(check, sev, msg, fix string) {
		f = append(f, Finding{Check: check, Severity: sev, Message: msg, Fix: fix})
	}

	switch g := env.Governor; {
	case g == "":
		add("governor", SeverityInfo, "the CPU frequency governor is not exposed (no cpufreq here, as in most VMs and containers); whoever runs the host controls the clock",
			"for stable absolute numbers use bare metal; rigor ab interleaves sides so both see the same clock")
	case g == "performance":
		add("governor", SeverityOK, "the CPU frequency governor is performance", "")
	default:
		add("governor", SeverityWarn, "the CPU frequency governor is "+g+": the clock follows the load, so timings depend on what ran just before",
			"sudo cpupower frequency-set -g performance")
	}

	switch env.Turbo {
	case "on":
		add("turbo", SeverityWarn, "turbo boost is on: the clock depends on temperature and on how many cores are busy",
			"echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo (Intel), or echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost")
	case "off":
		add("turbo", SeverityOK, "turbo boost is off", "")
	default:
		add("turbo", SeverityInfo, "the turbo boost state is not readable here", "")
	}

	if sys := s.System; sys != nil {
		cpus := max(1, sys.CPUs)
		var who []string
		for _, p := range s.Top[:min(3, len(s.Top))] {
			who = append(who, fmt.Sprintf("%s (pid %d) %.0f%% of a CPU", p.Name, p.PID, 100*p.CPUs))
		}
		busy := fmt.Sprintf("other processes used %s of the CPU over %v", words.Pct(s.OthersCPUShare), s.Duration.Round(time.Millisecond))
		if len(who) > 0 {
			busy += "; the busiest: " + strings.Join(who, ", ")
		}
		switch {
		case s.OthersCPUShare >= 0.10:
			add("load", SeverityWarn, busy, "stop them or wait for an idle machine; interleaved rounds spread the noise evenly but do not remove it")
		case sys.Load1 > float64(cpus):
			add("load", SeverityWarn, fmt.Sprintf("the load average is %.1f on %d logical CPUs", sys.Load1, cpus),
				"wait for an idle machine")
		default:
			add("load", SeverityOK, busy, "")
		}
		if sys.CPUPressure >= 10 {
			add("pressure", SeverityWarn, fmt.Sprintf("runnable tasks waited for a CPU %.0f%% of the time", sys.CPUPressure),
				"wait for an idle machine")
		}
		if sys.Steal >= 0.01 {
			add("steal", SeverityWarn, fmt.Sprintf("the hypervisor took %s of the CPU time (steal)", words.Pct(sys.Steal)),
				"use a dedicated or bare-metal instance, or compare only runs made at the same time")
		} else {
			add("steal", SeverityOK, "no steal time", "")
		}
	}

	switch {
	case env.LogicalCores == 1:
		add("cores", SeverityWarn, "one logical CPU: the benchmark shares it with the go command, the observer and the OS",
			"use a machine with at least two CPUs")
	case env.PhysicalCores > 0 && env.LogicalCores > env.PhysicalCores:
		add("cores", SeverityInfo, fmt.Sprintf("%d logical CPUs on %d cores: SMT siblings share execution units", env.LogicalCores, env.PhysicalCores),
			"for parallel benchmarks, pin to one thread per core (taskset) or disable SMT")
	case env.LogicalCores > 0:
		add("cores", SeverityOK, fmt.Sprintf("%d logical CPUs", env.LogicalCores), "")
	}
	if env.GOMAXPROCS > 0 && env.LogicalCores > 0 && env.GOMAXPROCS != env.LogicalCores {
		add("gomaxprocs", SeverityInfo, fmt.Sprintf("GOMAXPROCS is %d on %d logical CPUs", env.GOMAXPROCS, env.LogicalCores),
			"benchmark names carry the GOMAXPROCS suffix; compare runs with the same value")
	}

	if total := env.MemTotalBytes; total > 0 && s.MemAvailable > 0 {
		avail := float64(s.MemAvailable)
		if avail < 0.1*float64(total) || avail < 512<<20 {
			add("memory", SeverityWarn, fmt.Sprintf("only %s of %s memory is available: reclaim and swapping will show up in the timings",
				bytesStr(avail), bytesStr(float64(total))), "close memory-hungry programs")
		} else {
			add("memory", SeverityOK, fmt.Sprintf("%s of %s memory available", bytesStr(avail), bytesStr(float64(total))), "")
		}
	}
	if s.SwapUsed > 0 {
		add("swap", SeverityInfo, bytesStr(float64(s.SwapUsed))+" of swap in use: pages a benchmark touches may have to come back from disk", "")
	}

	switch env.ASLR {
	case "full", "partial":
		add("aslr", SeverityInfo, "address space layout randomization is "+env.ASLR+": code and stack addresses change from run to run, which can shift alignment and timings slightly",
			"for a single stable comparison, run the command under setarch -R")
	case "off":
		add("aslr", SeverityOK, "address space layout randomization is off", "")
	}

	if env.Virtualization != "" {
		add("vm", SeverityInfo, "running under a hypervisor ("+env.Virtualization+"): neighbours on the host can take CPU time and caches, and hardware counters may be missing",
			"compare only runs made on the same machine at the same time; interleaved A/B rounds help")
	}
	if env.Container != "" {
		add("container", SeverityInfo, "running in a container ("+env.Container+"): CPU limits and neighbours of the host apply", "")
	}
	if strings.HasPrefix(env.Power, "battery") {
		add("battery", SeverityWarn, "running on "+env.Power+": the OS may lower the clock to save power", "plug in the charger")
	}
	if env.Perf != "" && env.Perf != PerfAvailable {
		add("perf", SeverityInfo, "instruction counts (perf stat -e instructions:u) are "+env.Perf, "")
	}
	return f
}

// Strict reports whether any finding would distort results.
func Strict(findings []Finding) bool {
	return slices.ContainsFunc(findings, func(f Finding) bool { return f.Severity == SeverityWarn })
}
