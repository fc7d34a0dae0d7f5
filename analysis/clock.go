package analysis

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// The two clocks a benchmark's time is read from.
const (
	// WallUnit is real (wall-clock) time per operation, the default clock
	// of every verdict.
	WallUnit = "sec/op"
	// CPUUnit is the CPU time (user plus system) the benchmark's process
	// spent per operation.
	CPUUnit = "cpu-sec/op"
	// WaitUnit is how long the benchmark's working threads waited for a
	// CPU (runnable, not running) inside its timed window, summed over
	// them, per operation: how much the machine disturbed a sample.
	// Above the window's wall time when several threads waited. Context,
	// never a result.
	WaitUnit = "wait-sec/op"
	// SwitchUnit is how many times the benchmark's working threads
	// blocked (voluntary context switches) inside its timed window, per
	// operation (model.SwitchesUnit): evidence for the clock, never a
	// result.
	SwitchUnit = model.SwitchesUnit
)

// A Clock says which time metric a benchmark's verdict is taken from, and
// why, with the evidence.
type Clock struct {
	// Unit is WallUnit or CPUUnit.
	Unit string
	// Reason says in plain words why; empty when the verdict stays on
	// wall time and the machine was quiet. Why says which case of the
	// rule that is, as data: one of the Clock* constants, empty when
	// the machine was quiet.
	Reason string
	Why    string
	// Contended is the fraction of the benchmark's observed intervals in
	// which other processes competed for the CPU; Intervals is how many
	// were observed.
	Contended float64
	Intervals int
	// CPUPerWall is the median CPU time per wall time of the benchmark's
	// samples on uncontended rounds: about the number of threads it kept
	// busy. When every round was contended, it is over the share of a CPU
	// a fair scheduler could give one thread (CPUs over runnable
	// threads). NaN when not measured.
	CPUPerWall float64
	// Basis says what CPUPerWall was measured against: BasisQuiet,
	// BasisFairShare or BasisLeastDisturbed; empty when not measured.
	Basis string
	// Procs is the benchmark's GOMAXPROCS.
	Procs int
	// Waiting is the largest share, over the sides' CPU profiles, of
	// samples in mutex slow paths or file I/O; NaN without a profile of
	// at least profileSamples samples.
	Waiting float64
	// ProfileSamples is the largest sample count of the sides' CPU
	// profiles, 0 without any: a profile below profileSamples is too
	// short to count (a busy machine leaves a profiling run little CPU).
	ProfileSamples int
	// Switches is how often the benchmark's working threads blocked in
	// their timed windows: their voluntary context switches (SwitchUnit)
	// per millisecond of the benchmark's CPU time, the larger of the
	// sides' medians over their samples; NaN when a side has fewer than
	// switchSamples samples with it (no timer overlay, or an older one).
	Switches float64
	// CPUSpread and WallSpread are the robust spreads (1.4826 MAD) of
	// the per-round log ratios of CPU and of wall time between the
	// first two sides, when the machine was busy; NaN otherwise.
	CPUSpread, WallSpread float64
	// CPUSamples is how many of the WallSamples wall-time samples have
	// a CPU time.
	CPUSamples, WallSamples int
	// Waited is set when the samples' own CPU waits (WaitUnit), read in
	// their timed windows, told which were contended: a sample is when
	// it waited for at least waitBusy of its window.
	Waited bool
}

// Why the verdict is taken from the clock it is (Clock.Why, and the Topic
// of the clock note).
const (
	// ClockNotPaired: the sides were not measured in the same rounds.
	ClockNotPaired = "not-paired"
	// ClockCPUMissing: busy, but some samples have no CPU time.
	ClockCPUMissing = "cpu-missing"
	// ClockNotCPUBound: busy, but the benchmark is not CPU-bound.
	ClockNotCPUBound = "not-cpu-bound"
	// ClockWaits: busy, but its CPU profile shows locks or file I/O.
	ClockWaits = "waits"
	// ClockBlocks: busy, but its threads blocked in the timed window
	// (more than maxSwitchRate voluntary context switches per ms of CPU
	// time): it sleeps, waits on I/O or hands work between goroutines.
	ClockBlocks = "blocks"
	// ClockNoProfile: busy, but neither a CPU profile nor the rounds'
	// own switches and CPU show that it never waits.
	ClockNoProfile = "no-profile"
	// ClockCPUUnsteady: busy, but CPU time varied as much as wall time.
	ClockCPUUnsteady = "cpu-unsteady"
	// ClockThreads: busy, but the work used more threads than the rule
	// can see (a command's CPU time above its wall time, a benchmark at
	// GOMAXPROCS 1 busy on more than one CPU).
	ClockThreads = "threads"
	// ClockContradicts: CPU time would say the opposite of a wall-time
	// interval that lies wholly on one side of zero.
	ClockContradicts = "contradicts-wall"
	// ClockCPUBound: busy and CPU-bound: CPU time is used.
	ClockCPUBound = "cpu-bound"
	// ClockSteadier: hardly disturbed, CPU-bound, its CPU time and waits
	// read in the timed window, and CPU time clearly the steadier clock:
	// CPU time is used.
	ClockSteadier = "cpu-steadier"
)

// What Clock.CPUPerWall is measured against.
const (
	// BasisQuiet: wall time on the uncontended rounds.
	BasisQuiet = "quiet rounds"
	// BasisFairShare: every round contended; the share of a CPU a fair
	// scheduler could give one thread (CPUs over runnable threads).
	// Above 1 when the benchmark got more than that share.
	BasisFairShare = "fair share"
	// BasisLeastDisturbed: every round contended, the run queue unknown;
	// wall time on the least disturbed quarter of the samples.
	BasisLeastDisturbed = "least disturbed quarter"
	// BasisNotWaiting: the timed window's wall time less the share of
	// it the benchmark waited for a CPU (WaitUnit, waitShare): the time
	// it could run, on every sample, disturbed or not.
	BasisNotWaiting = "time not waiting for a CPU"
)

// Thresholds of the clock choice.
const (
	// contendedShare: the machine counts as busy for a benchmark when
	// other processes competed for the CPU in at least this share of its
	// intervals. Below it, the paired center (a median) shrugs off the
	// few disturbed rounds on wall time.
	contendedShare = 0.10
	// otherCPUBusy is the share of all CPUs other processes used in an
	// interval for it to count as contended (package observe's
	// noisy-neighbour threshold), and cpuPressureBusy the CPU pressure
	// stall percentage that counts too.
	otherCPUBusy = 0.15
	// otherCPUNone: a sample whose process's interval saw other processes
	// use less than this share of all CPUs (measured: the process's own
	// CPU time read) had no one else to wait for; its waits for a CPU were
	// for its own threads (the garbage collector's workers, the runtime's)
	// and say nothing of the machine. The system's counters are 10 ms
	// ticks interpolated between snapshots, so a little is noise.
	otherCPUNone    = 0.02
	cpuPressureBusy = 20.0
	// cpuBoundShare: a benchmark is CPU-bound only if its process used
	// at least this much CPU time per wall time on uncontended rounds:
	// at least one thread busy nine tenths of the time. A benchmark that
	// sleeps or waits on I/O spends its wall time off the CPU and falls
	// below it.
	cpuBoundShare = 0.9
	// A benchmark that keeps a thread busy may still block some of its
	// goroutines (a lock handed from one to the next keeps one thread
	// busy), and a contended sync.Mutex spins, so even every thread busy
	// proves nothing (examples/lockbound at 4 goroutines kept 2.0 CPUs
	// busy on 2 Ps). So: GOMAXPROCS 1, where one busy P is all the
	// benchmark can use and a goroutine waiting on a lock leaves the P to
	// another; or a CPU profile of at least profileSamples samples with
	// at most maxWaiting of them in mutex slow paths or file I/O; or the
	// rounds' own evidence (neverBlocks): its working threads hardly
	// ever blocked in the timed window (at most maxSwitchRate voluntary
	// context switches per ms of CPU time) and it kept about one thread
	// busy (CPU time at most oneThreadSpun times the time it was not
	// waiting for a CPU), so no two goroutines spun on a lock side by
	// side, and one that waited on a lock left its thread to sleep, which
	// the switches count. The process's switches would not tell: a
	// CPU-bound Go process switches thousands of times a second, sysmon
	// sleeping between its checks; the overlay counts only the threads
	// that did the window's work, sysmon left out.
	profileSamples = 20
	maxWaiting     = 0.05
	// maxSwitchRate is the most voluntary context switches per ms of CPU
	// time of a benchmark's working threads that counts as never
	// blocking. experiments/switches (2-core VM, load 2 to 19, medians
	// of 5 windows of about 300 ms): a single goroutine that only
	// computes, 0 per ms at GOMAXPROCS 1 and 0.07-0.11 at 2 (the
	// scheduler moving it between threads); with examples/lockbound's
	// global mutex on 2 or 4 goroutines, 0 at GOMAXPROCS 1 and 0.04-0.17
	// at 2 (Go's mutex spins and parks goroutines, and the threads stay
	// busy: 1.9 CPUs, which the one-thread bound turns away); channel
	// ping-pong between two goroutines at GOMAXPROCS 2, 5.5-8.4; reads
	// of a cached file at 2, 0.08-1.3 (a read past 20 µs hands the P to
	// another thread); an allocating loop at 2 (the garbage collector's
	// workers parking), 2.6-3.4, also on 1.8-2 CPUs; 20 µs sleeps 44-121;
	// a write and fsync, 60-87. In rigor ab runs at load 20, sha3's and
	// blake2b's 14 benchmarks at GOMAXPROCS 2 read 0-0.27. The bound sits
	// about twice above what computing showed and ten times below
	// ping-pong.
	maxSwitchRate = 0.5
	// switchSamples is the fewest samples per side with their switches
	// read for the rate to count.
	switchSamples = 3
	// oneThreadSpun is the most CPU time per time not waiting for a CPU
	// of a benchmark at GOMAXPROCS > 1 whose switches may show that it
	// never waits: short of two threads. experiments/switches: one
	// computing goroutine at GOMAXPROCS 2 read 1.00 to 1.31 (the
	// scheduler's threads spinning a moment each time it moved the
	// goroutine, and a helper thread's long waits counted with the
	// benchmark's, at load 8 to 19); sha3 and blake2b benchmarks in
	// rigor ab runs 1.00-1.55 at load 15-20; examples/lockbound's two and
	// four goroutines on a global mutex 1.91-1.97.
	oneThreadSpun = 1.75
	// waitBusy: a sample whose working threads waited for a CPU for at
	// least this share of its timed window (waitShare: of their time in
	// it, when there were several) was disturbed by someone else. On an
	// idle 2-core machine a GOMAXPROCS=1 benchmark waits well under 1% of
	// its window; beside 2-3 busy threads, 30-70%.
	waitBusy = 0.05
	// oneThread: the most CPU time per running time that counts as one
	// busy thread (the runtime's own threads and the kernel's work for
	// the process add a little).
	oneThread = 1.25
	// quietSteadier: on a machine that hardly disturbed the benchmark,
	// CPU time decides only when its per-round spread is below this
	// share of wall time's, as on a busy one. experiments/busy (two
	// sittings, the other core kept busy by other work, 80 A/A runs): CPU
	// time alone gave no false alarm, and a margin of 0.8 left 5 of 20
	// +3% runs on the noisier wall time.
	quietSteadier = 1.0
)

// execKind is the model.Run kind of rigor exec's runs (package execbench),
// whose commands have no GOMAXPROCS.
const execKind = model.KindExec

// chooseClock decides which clock b's verdict is taken from. Wall time
// unless the run is paired, both clocks were measured, other processes
// competed for the CPU while b ran, and b is CPU-bound.
func chooseClock(run *model.Run, b *model.Benchmark) *Clock {
	wall, cpu := b.Metric(WallUnit), b.Metric(CPUUnit)
	if wall == nil || cpu == nil {
		return nil
	}
	c := &Clock{Unit: WallUnit, CPUPerWall: math.NaN(), Waiting: math.NaN(), Switches: math.NaN(), CPUSpread: math.NaN(), WallSpread: math.NaN(), Procs: b.Procs}
	if c.Procs == 0 {
		// go test leaves the -N suffix off exactly when GOMAXPROCS is 1.
		c.Procs = 1
	}
	if !run.Paired {
		c.Why = ClockNotPaired
		c.Reason = "the sides were not measured in the same rounds, so CPU time (whose start-up estimate differs from run to run) is context only"
		return c
	}
	key := b.Key()
	contended := map[[2]any]bool{} // side, round -> contended
	fair := map[[2]any]float64{}   // side, round -> the CPU a fair scheduler could give it
	// The benchmark's own CPU waits in its timed window, where measured,
	// say directly which samples someone else disturbed; the system's
	// figures over the process's whole life (its start-up, rigor's own
	// work around it) only where they are not.
	waits := waitShares(b)
	if len(waits) > 0 {
		c.Waited = true
	}
	for _, o := range run.Observations {
		if o.Benchmark != key {
			continue
		}
		if p := o.Profile; o.Round == 0 && p != nil {
			c.ProfileSamples = max(c.ProfileSamples, int(p.Samples))
		}
		if p := o.Profile; o.Round == 0 && p != nil && p.Samples >= profileSamples {
			w := max(p.Lock, p.FileIO)
			if math.IsNaN(c.Waiting) || w > c.Waiting {
				c.Waiting = w
			}
		}
		if o.Round == 0 || c.Waited {
			continue
		}
		busy := contendedInterval(&o)
		contended[[2]any{o.Side, o.Round}] = busy
		if sys := o.System; busy && sys.CPUs > 0 && sys.Running > 0 {
			// A fair scheduler gives each of Running runnable threads
			// CPUs/Running of a CPU (the benchmark's own among them).
			fair[[2]any{o.Side, o.Round}] = min(1, float64(sys.CPUs)/float64(sys.Running))
		}
		c.Intervals++
		if busy {
			c.Contended++
		}
	}
	// Other processes' CPU over each sample's process, where measured.
	othersIdle := map[[2]any]bool{}
	for _, o := range run.Observations {
		if o.Benchmark == key && o.Round > 0 && o.System != nil && o.Process != nil {
			othersIdle[[2]any{o.Side, o.Round}] = o.OtherCPU < otherCPUNone
		}
	}
	for k, share := range waits {
		// A benchmark's own threads are not "the machine": an idle
		// machine's GC-heavy benchmark waited for its own GC workers in
		// 3 of 14 rounds and read "the machine was busy" (issue 39).
		contended[k] = share >= waitBusy && !othersIdle[k]
		c.Intervals++
		if contended[k] {
			c.Contended++
		}
	}
	if c.Intervals > 0 {
		c.Contended /= float64(c.Intervals)
	}
	// CPU time per wall time, per sample, on the uncontended rounds; on
	// the contended ones, over the share a fair scheduler could give a
	// thread that never waits.
	// Each wall sample pairs with every CPU sample of its side and round,
	// in their order: found by side and round, not by scanning all of
	// them for each (quadratic in the rounds, at every interim look).
	type sideRound struct {
		side  string
		round int
	}
	cpuAt := make(map[sideRound][]float64, len(cpu.Samples))
	for _, s := range cpu.Samples {
		k := sideRound{s.Side, s.Round}
		cpuAt[k] = append(cpuAt[k], s.Value)
	}
	waitAt := map[sideRound]float64{}
	if wm := b.Metric(WaitUnit); wm != nil && c.Waited {
		for _, s := range wm.Samples {
			waitAt[sideRound{s.Side, s.Round}] = s.Value
		}
	}
	var quiet, all, normalized, running []float64
	for _, w := range wall.Samples {
		if !(w.Value > 0) {
			continue
		}
		for _, v := range cpuAt[sideRound{w.Side, w.Round}] {
			r := v / w.Value
			all = append(all, r)
			// The time it could run: its window less the share of it
			// the working threads waited (waitShare; for one thread,
			// the window less its wait; for several, or one goroutine
			// moved between threads each kept waiting, whose waits add
			// up to more than the window, the share of their time they
			// waited). A sample that could run for less than a
			// twentieth of its window says too little: left out. Not
			// the samples whose summed waits exceed the window: at
			// load 20 on 2 CPUs most of a computing sha3 benchmark's
			// did (a helper thread that ran a moment had waited as long
			// as the benchmark's own), and without them it read "not
			// CPU-bound" from the least disturbed quarter (CPU time
			// 19-53% of wall time), beside its neighbours on CPU time;
			// over the threads' time they read 1.0-1.2.
			if wt, ok := waitAt[sideRound{w.Side, w.Round}]; ok {
				if free := 1 - waitShare(wt, w.Value, v); free > 0.05 {
					running = append(running, v/(w.Value*free))
				}
			}
			k := [2]any{w.Side, w.Round}
			if !contended[k] {
				quiet = append(quiet, r)
			} else if f := fair[k]; f > 0 {
				normalized = append(normalized, r/f)
			}
		}
	}
	basis := BasisQuiet
	if len(running) >= 3 && 2*len(running) >= len(all) {
		// CPU time over the time the benchmark could run: a thread that
		// only computes is at 1 whatever the machine did; one that
		// sleeps or blocks is below it.
		quiet, basis = running, BasisNotWaiting
	} else if len(quiet) < 3 {
		// Every round disturbed. A thread that never waits takes what
		// the scheduler gives it; one that sleeps or blocks takes less
		// (experiments/busy beside 2-3 busy threads on 2 CPUs: CPU time
		// 55-82% of wall time, about the fair share, for a benchmark
		// that only computes). Without the run queue's length, the
		// least disturbed quarter.
		if len(normalized) >= 3 {
			quiet, basis = normalized, BasisFairShare
		} else {
			slices.Sort(all)
			quiet, basis = all[len(all)*3/4:], BasisLeastDisturbed
		}
	}
	if len(quiet) > 0 {
		c.CPUPerWall, c.Basis = stats.Median(quiet), basis
	}
	c.Switches = switchRate(b, run.Sides, func(side string, round int) []float64 { return cpuAt[sideRound{side, round}] })
	if c.Intervals == 0 || c.Contended < contendedShare {
		if c.Waited && len(all) == len(wall.Samples) {
			quietCPU(run, b, c, wall, cpu)
		}
		return c // quiet, or not observed: wall time, unless quietCPU says
	}
	c.CPUSamples, c.WallSamples = len(all), len(wall.Samples)
	if len(all) < len(wall.Samples) {
		// A sample without CPU time (its process spent less than the
		// estimated start-up) leaves a round unpaired on the CPU clock:
		// the verdict would rest on fewer rounds than the wall clock's.
		c.Why = ClockCPUMissing
		c.Reason = fmt.Sprintf("the machine was busy, but CPU time was measured for only %d of %d samples (the others were too short to tell from the process's start-up), so the verdict stays on wall time", len(all), len(wall.Samples))
		return c
	}
	busy := fmt.Sprintf("the machine was busy (other processes competed for the CPU in %.0f%% of this benchmark's samples%s)", 100*c.Contended, roundsWords(contended))
	if c.Waited {
		busy = fmt.Sprintf("the machine was busy (the benchmark waited for a CPU for at least %.0f%% of its timed window in %.0f%% of its samples%s)", 100*waitBusy, 100*c.Contended, roundsWords(contended))
	}
	// The rule's facts about threads: a command's are unknown (it has no
	// GOMAXPROCS); a benchmark at GOMAXPROCS 1 runs Go code on one.
	command := run.Kind == execKind
	wallSpread, cpuSpread := pairedSpread(wall, run.Sides), pairedSpread(cpu, run.Sides)
	c.WallSpread, c.CPUSpread = wallSpread, cpuSpread
	switch {
	case math.IsNaN(c.CPUPerWall) || c.CPUPerWall < cpuBoundShare:
		c.Why = ClockNotCPUBound
		c.Reason = fmt.Sprintf("%s, but the benchmark is not CPU-bound (%s): it waits, and CPU time would hide the waiting, so the verdict stays on wall time", busy, cpuShareWords(c))
	case command && (c.Basis != BasisQuiet || c.CPUPerWall > oneThread):
		c.Why = ClockThreads
		if c.Basis != BasisQuiet {
			c.Reason = fmt.Sprintf("%s, but a command's threads cannot be seen, and with no quiet round nothing shows that it kept only one busy, so the verdict stays on wall time", busy)
		} else {
			c.Reason = fmt.Sprintf("%s, but the command kept %s busy on the quiet rounds (CPU time %.0f%% of wall time): CPU time counts every thread's work and would hide what running them side by side saves, so the verdict stays on wall time", busy, cpusWords(c.CPUPerWall), 100*c.CPUPerWall)
		}
	case !command && c.Procs == 1 && c.CPUPerWall > oneThread && (c.Basis == BasisQuiet || c.Basis == BasisNotWaiting):
		c.Why = ClockThreads
		c.Reason = fmt.Sprintf("%s, but at GOMAXPROCS 1 the benchmark kept %s busy (%s): threads outside Go's scheduler (cgo, system calls) that the rule cannot see, so the verdict stays on wall time", busy, cpusWords(c.CPUPerWall), cpuShareWords(c))
	case !math.IsNaN(c.Waiting) && c.Waiting > maxWaiting:
		c.Why = ClockWaits
		c.Reason = fmt.Sprintf("%s, but %.0f%% of the benchmark's CPU profile is spent on locks or file I/O, so it also waits, which CPU time would hide: the verdict stays on wall time", busy, 100*c.Waiting)
	case c.blocks():
		c.Why = ClockBlocks
		c.Reason = fmt.Sprintf("%s, but %s, which CPU time would hide, so the verdict stays on wall time", busy, blocksWords(c))
	case math.IsNaN(c.Waiting) && (c.Procs != 1 || command) && !c.neverBlocks():
		c.Why = ClockNoProfile
		if !math.IsNaN(c.Switches) {
			threads := "yet with more than one thread busy its goroutines may spin on a lock"
			if c.CPUPerWall <= oneThreadSpun {
				threads = "yet with every round disturbed nothing shows how many threads it kept busy, and on several its goroutines may spin on a lock"
			}
			c.Reason = fmt.Sprintf("%s, but %s: its threads hardly ever blocked (%s), %s, which CPU time would hide, and %s, so the verdict stays on wall time", busy, cpuShareWords(c), switchesWords(c.Switches), threads, noProfileWords(c.ProfileSamples))
			break
		}
		c.Reason = fmt.Sprintf("%s, but %s: on %s its goroutines may spin or sleep on a lock, which CPU time would hide (%s), so the verdict stays on wall time", busy, noProfileWords(c.ProfileSamples), procsWords(c.Procs), cpuShareWords(c))
	case !(cpuSpread < wallSpread):
		// CPU time is worth taking only when it is the steadier clock:
		// short samples leave it at the mercy of the start-up estimate.
		c.Why = ClockCPUUnsteady
		c.Reason = fmt.Sprintf("%s, but CPU time varied as much as wall time from round to round (%.1f%% against %.1f%%), so the verdict stays on wall time", busy, 100*cpuSpread, 100*wallSpread)
	default:
		c.Unit, c.Why = CPUUnit, ClockCPUBound
		c.Reason = fmt.Sprintf("%s: wall time measured the machine; the benchmark is CPU-bound (%s, %s), so CPU time is used for the verdict", busy, cpuShareWords(c), evidenceWords(c))
	}
	return c
}

// quietCPU decides, for a benchmark whose samples the machine hardly
// disturbed and whose CPU time and CPU waits were read in its timed
// window, whether CPU time is used all the same: for a thread that only
// computes, CPU time is wall time less the time it was not running, that
// is, less the waits (a few percent here and there: interrupts, the
// scheduler's ticks, a moment's neighbour); so where the benchmark is
// CPU-bound on the rule's terms (one Go thread at GOMAXPROCS 1, a CPU
// profile without locks or file I/O, or threads that hardly ever blocked
// in the timed window; CPU time within a thread's worth of the time it
// was not waiting; no more switches than maxSwitchRate whatever else
// says so) and CPU time is clearly the steadier clock (its per-round
// spread below wall time's), it decides.
// Otherwise wall time does, and nothing is said.
func quietCPU(run *model.Run, b *model.Benchmark, c *Clock, wall, cpu *model.Metric) {
	if run.Kind == execKind || c.Basis != BasisNotWaiting || c.CPUPerWall < cpuBoundShare || c.CPUPerWall > oneThread {
		return
	}
	if c.blocks() || !(c.Procs == 1 || c.lockFree() || c.neverBlocks()) {
		return
	}
	wallSpread, cpuSpread := pairedSpread(wall, run.Sides), pairedSpread(cpu, run.Sides)
	if !(cpuSpread < quietSteadier*wallSpread) {
		return
	}
	c.WallSpread, c.CPUSpread = wallSpread, cpuSpread
	c.CPUSamples, c.WallSamples = len(cpu.Samples), len(wall.Samples)
	c.Unit, c.Why = CPUUnit, ClockSteadier
	c.Reason = fmt.Sprintf("CPU time decides: the benchmark is CPU-bound (%s, %s), so its CPU time is its wall time less the moments it waited for a CPU, and it varied less from round to round (%.1f%% against %.1f%%)",
		cpuShareWords(c), evidenceWords(c), 100*cpuSpread, 100*wallSpread)
}

// cpuShareWords says what c.CPUPerWall measured, against what, as
// shareWords does.
func cpuShareWords(c *Clock) string {
	return shareWords(c.CPUPerWall, c.CPUPerWall, c.Basis)
}

// shareWords says what a CPU share from lo to hi measured against basis
// was, in words a person knows: "CPU time 93% of wall time on the quiet
// rounds", "it kept about 2 CPUs busy on the quiet rounds", "about twice
// the CPU a fair scheduler could give one thread" (not "202% of the
// share of a CPU a fair scheduler could give one thread").
func shareWords(lo, hi float64, basis string) string {
	pct := fmt.Sprintf("%.0f%%", 100*lo)
	if p := fmt.Sprintf("%.0f%%", 100*hi); p != pct {
		pct += " to " + p
	}
	times := timesWords(lo, hi)
	switch basis {
	case BasisFairShare:
		if lo >= 1.5 {
			return "it got " + times + " the CPU a fair scheduler could give one thread, every round being contended: more than one thread's work"
		}
		return "CPU time " + pct + " of the share of a CPU a fair scheduler could give one thread, every round being contended"
	case BasisLeastDisturbed:
		return "CPU time " + pct + " of wall time on the least disturbed quarter of the samples, every round being contended"
	case BasisQuiet:
		if lo >= 1.5 {
			return "it kept " + cpusRange(lo, hi) + " busy on the quiet rounds"
		}
		return "CPU time " + pct + " of wall time on the quiet rounds"
	case BasisNotWaiting:
		if lo >= 1.5 {
			// Several threads at work, or one goroutine the scheduler
			// moved between threads whose waits overlapped: the
			// counts cannot tell them apart.
			return "CPU time " + times + " the time it was not waiting for a CPU: several threads at work, or the waits of threads it moved between counted together"
		}
		return "CPU time " + pct + " of the time it was not waiting for a CPU"
	}
	return "CPU time not measured"
}

// timesWords says a ratio from lo to hi as a multiple: "about twice",
// "about 3 times", "about 2 to 3 times".
func timesWords(lo, hi float64) string {
	a, b := math.Round(lo), math.Round(hi)
	switch {
	case a == b && a == 2:
		return "about twice"
	case a == b:
		return fmt.Sprintf("about %.0f times", a)
	}
	return fmt.Sprintf("about %.0f to %.0f times", a, b)
}

// cpusRange says how many CPUs a CPU-per-wall ratio from lo to hi kept
// busy: "about 2 CPUs", "about 2 to 3 CPUs".
func cpusRange(lo, hi float64) string {
	if a, b := math.Round(lo), math.Round(hi); a != b {
		return fmt.Sprintf("about %.0f to %.0f CPUs", a, b)
	}
	return cpusWords(lo)
}

// cpusWords says how many CPUs a CPU-per-wall ratio kept busy, in words.
func cpusWords(r float64) string {
	if r < 1.5 {
		return "about one CPU"
	}
	return fmt.Sprintf("about %.0f CPUs", r)
}

// waitShares returns, for each sample of b whose CPU waits were read in
// its timed window, the share of the window it spent waiting for a CPU,
// by side and round (waitShare); nil when b has none.
func waitShares(b *model.Benchmark) map[[2]any]float64 {
	wait, wall := b.Metric(WaitUnit), b.Metric(WallUnit)
	if wait == nil || wall == nil || len(wait.Samples) == 0 {
		return nil
	}
	at := make(map[[2]any]float64, len(wall.Samples))
	for _, s := range wall.Samples {
		if s.Value > 0 {
			at[[2]any{s.Side, s.Round}] = s.Value
		}
	}
	cpuAt := map[[2]any]float64{}
	if cpu := b.Metric(CPUUnit); cpu != nil {
		for _, s := range cpu.Samples {
			cpuAt[[2]any{s.Side, s.Round}] = s.Value
		}
	}
	shares := make(map[[2]any]float64, len(wait.Samples))
	for _, s := range wait.Samples {
		k := [2]any{s.Side, s.Round}
		if w, ok := at[k]; ok && s.Value >= 0 {
			cpu, ok := cpuAt[k]
			if !ok {
				cpu = math.NaN()
			}
			shares[k] = waitShare(s.Value, w, cpu)
		}
	}
	return shares
}

// waitShare is the share of its timed window a sample waited for a CPU,
// from its working threads' wait, its wall time and its CPU time (NaN when
// not measured), all per operation. The wait is the threads' summed: above
// the window when the work ran on several threads (or one goroutine moved
// between threads, each kept waiting), so it is taken over the threads'
// time in the window, the CPU time and the wait together, when that
// exceeds the window: the share of its time a thread waited, on average,
// between 0 and 1. For one thread the wait over the window.
func waitShare(wait, wall, cpu float64) float64 {
	if d := cpu + wait; d > wall {
		return wait / d
	}
	return min(wait/wall, 1)
}

// noProfileWords says why no CPU profile showed that a benchmark never
// waits: there was none, or the longest had only n samples (fewer than
// profileSamples).
func noProfileWords(n int) string {
	if n == 0 {
		return "without a CPU profile nothing shows that the benchmark never waits"
	}
	return fmt.Sprintf("its CPU profiles were too short to show that it never waits (at most %d samples, %d needed: the machine left the profiling runs little CPU)", n, profileSamples)
}

func procsWords(procs int) string {
	if procs <= 0 {
		return "threads"
	}
	if procs == 1 {
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", procs)
}

// evidenceWords says what showed that a CPU-bound benchmark never waits:
// its threads' switches in the timed window where they were read, its
// CPU profile where there was one, else its one thread at GOMAXPROCS 1.
func evidenceWords(c *Clock) string {
	var ev []string
	if !math.IsNaN(c.Switches) {
		ev = append(ev, "its threads hardly ever blocked in the timed window: "+switchesWords(c.Switches))
	}
	if !math.IsNaN(c.Waiting) {
		ev = append(ev, fmt.Sprintf("%.0f%% of its CPU profile on locks or file I/O", 100*c.Waiting))
	}
	if len(ev) == 0 || c.Procs == 1 && math.IsNaN(c.Waiting) {
		ev = append([]string{"its one thread busy, GOMAXPROCS 1"}, ev...)
	}
	return strings.Join(ev, "; ")
}

// switchesWords says a rate of voluntary context switches per ms of CPU
// time: "0.02 voluntary context switches per ms of CPU time".
func switchesWords(rate float64) string {
	return strconv.FormatFloat(rate, 'g', 2, 64) + " voluntary context switches per ms of CPU time"
}

// blocksWords says what the switches of a benchmark whose threads blocked
// show.
func blocksWords(c *Clock) string {
	return fmt.Sprintf("its threads blocked in the timed window (%s, more than %v): it also waits, on sleeps, I/O or other goroutines", switchesWords(c.Switches), maxSwitchRate)
}

// lockFree reports whether a CPU profile long enough to count shows no
// more than maxWaiting of the benchmark's samples on locks or file I/O.
func (c *Clock) lockFree() bool {
	return !math.IsNaN(c.Waiting) && c.Waiting <= maxWaiting
}

// blocks reports whether the rounds show the benchmark's threads blocking:
// more than maxSwitchRate voluntary context switches per ms of CPU time.
func (c *Clock) blocks() bool {
	return c.Switches > maxSwitchRate
}

// neverBlocks reports whether the rounds themselves show that the
// benchmark never waits, as a lock-free CPU profile would: its working
// threads hardly ever blocked in the timed window, and it kept about one
// thread busy (CPU time between cpuBoundShare and oneThreadSpun times the
// time it was not waiting for a CPU, or its wall time on quiet rounds), so
// no goroutines spun on a lock side by side (see maxSwitchRate).
func (c *Clock) neverBlocks() bool {
	return c.Switches <= maxSwitchRate && (c.Basis == BasisNotWaiting || c.Basis == BasisQuiet) &&
		c.CPUPerWall >= cpuBoundShare && c.CPUPerWall <= oneThreadSpun
}

// switchRate returns the voluntary context switches (SwitchUnit) of b's
// working threads per ms of its CPU time, sample by sample (cpuAt gives a
// side and round's CPU times per operation, in seconds), the larger of
// the sides' medians: a side that blocks is enough to keep CPU time from
// deciding. NaN when a side has fewer than switchSamples samples with
// both figures.
func switchRate(b *model.Benchmark, sides []model.Side, cpuAt func(side string, round int) []float64) float64 {
	m := b.Metric(SwitchUnit)
	if m == nil || len(sides) == 0 {
		return math.NaN()
	}
	bySide := map[string][]float64{}
	for _, s := range m.Samples {
		if cpu := cpuAt(s.Side, s.Round); len(cpu) > 0 && cpu[0] > 0 && s.Value >= 0 {
			bySide[s.Side] = append(bySide[s.Side], s.Value/(1e3*cpu[0]))
		}
	}
	rate := math.NaN()
	for _, sd := range sides {
		v := bySide[sd.Label]
		if len(v) < switchSamples {
			return math.NaN()
		}
		if r := stats.Median(v); math.IsNaN(rate) || r > rate {
			rate = r
		}
	}
	return rate
}

// roundsWords says in how many rounds some sample was contended, and
// between which: ": 7 of 20 rounds, between rounds 0 and 18" (a list of
// ranges ran to 40 of them), or "" when every round was.
func roundsWords(contended map[[2]any]bool) string {
	busy, all := map[int]bool{}, map[int]bool{}
	for k, v := range contended {
		r := k[1].(int)
		all[r] = true
		if v {
			busy[r] = true
		}
	}
	if len(busy) == 0 || len(busy) == len(all) {
		return ""
	}
	rounds := slices.Sorted(maps.Keys(busy))
	if len(rounds) == 1 {
		return fmt.Sprintf(": 1 of %d rounds, round %d", len(all), rounds[0])
	}
	return fmt.Sprintf(": %d of %d rounds, between rounds %d and %d", len(rounds), len(all), rounds[0], rounds[len(rounds)-1])
}

// pairedSpread is the robust spread (1.4826 MAD) of the per-round log
// ratios of m between the first two sides, NaN without two pairs.
func pairedSpread(m *model.Metric, sides []model.Side) float64 {
	if len(sides) < 2 {
		return math.NaN()
	}
	base := map[int]float64{}
	for _, s := range m.Samples {
		if s.Side == sides[0].Label && s.Value > 0 {
			base[s.Round] = s.Value
		}
	}
	var logs []float64
	for _, s := range m.Samples {
		if b, ok := base[s.Round]; ok && s.Side == sides[1].Label && s.Value > 0 {
			logs = append(logs, math.Log(s.Value/b))
		}
	}
	if len(logs) < 2 {
		return math.NaN()
	}
	return stats.MAD(logs)
}

// contendedInterval reports whether other processes competed for the CPU
// during o: they used a notable share of it, runnable threads outnumbered
// the CPUs, or the kernel saw tasks stall waiting for a CPU.
func contendedInterval(o *model.Observation) bool {
	s := o.System
	if s == nil {
		return false
	}
	return o.OtherCPU >= otherCPUBusy ||
		s.CPUPressure >= cpuPressureBusy ||
		s.CPUs > 0 && s.Running > s.CPUs
}

// applyClock marks the time metric the verdict is not taken from as
// context: it keeps its own interval and verdict, and stays out of the
// correction, the gate and the stopping rule.
func applyClock(b *Benchmark, key string, c *Clock) {
	for i := range b.Metrics {
		switch b.Metrics[i].Unit {
		case WaitUnit:
			b.Metrics[i].Context = "the time the benchmark waited for a CPU: how much the machine disturbed it, not a result"
		case SwitchUnit:
			b.Metrics[i].Context = "how often the benchmark's threads blocked in its timed window: evidence for the clock, not a result"
		}
	}
	if c == nil {
		return
	}
	b.Clock = c
	if c.Unit == CPUUnit {
		againstWall(b, c)
	}
	if c.Intervals > 0 && (c.Contended >= contendedShare || c.Why == ClockSteadier || c.Why == ClockContradicts) {
		ev := map[string]float64{"contended": c.Contended, "cpu_per_wall": c.CPUPerWall, "waiting": c.Waiting,
			"cpu_spread": c.CPUSpread, "wall_spread": c.WallSpread, "switches_per_ms": c.Switches}
		if c.Why == ClockCPUMissing {
			ev["cpu_samples"], ev["wall_samples"] = float64(c.CPUSamples), float64(c.WallSamples)
		}
		maps.DeleteFunc(ev, func(_ string, v float64) bool { return math.IsNaN(v) }) // not measured
		b.Notes = append(b.Notes, model.Note{Kind: model.NoteClock, Topic: c.Why, Source: source, Benchmark: key, Unit: c.Unit,
			Evidence: ev, Text: c.Reason})
	}
	other := CPUUnit
	if c.Unit == CPUUnit {
		other = WallUnit
	}
	for i := range b.Metrics {
		if b.Metrics[i].Unit == other {
			b.Metrics[i].Context = "the verdict is taken from " + c.Unit
		}
	}
}

// againstWall keeps b's verdict on wall time when CPU time, chosen by c,
// would contradict it: wall time's interval lies wholly on one side of
// zero and CPU time's estimate is not on that side. Paired rounds share
// the machine's disturbance, so an interval that clears zero on wall
// time is a change in what the benchmark does on the wall clock (a
// command that runs its work on two threads finishes sooner on more CPU
// time), and CPU time may not overrule it.
func againstWall(b *Benchmark, c *Clock) {
	var wall, cpu *Change
	for i := range b.Metrics {
		m := &b.Metrics[i]
		if len(m.Changes) == 0 || m.Changes[0] == nil {
			continue
		}
		switch m.Unit {
		case WallUnit:
			wall = m.Changes[0]
		case CPUUnit:
			cpu = m.Changes[0]
		}
	}
	if wall == nil || cpu == nil || math.IsNaN(wall.Lo) || math.IsNaN(cpu.Estimate) {
		return
	}
	up, down := wall.Lo > 0, wall.Hi < 0
	if !(up && cpu.Estimate <= 0 || down && cpu.Estimate >= 0) {
		return
	}
	if run, ok := runningChange(b); ok && (up && run <= 0 || down && run >= 0) {
		// The side faster on the wall clock is the one that waited
		// less for a CPU: its time not waiting moved as CPU time did, so
		// wall time's change is the machine's, not the benchmark's.
		c.Reason += fmt.Sprintf("; wall time's interval [%s, %s] lies wholly %s zero, but the time not waiting for a CPU (wall less wait) moved %s, as CPU time did: the difference on the wall clock is the waiting",
			signedPct(wall.Lo), signedPct(wall.Hi), map[bool]string{true: "above", false: "below"}[up], signedPct(run))
		return
	}
	c.Unit, c.Why = WallUnit, ClockContradicts
	c.Reason = fmt.Sprintf("CPU time (%s) would have decided, but wall time's interval [%s, %s] lies wholly %s zero: CPU time may not overrule it, so the verdict stays on wall time",
		signedPct(cpu.Estimate), signedPct(wall.Lo), signedPct(wall.Hi), map[bool]string{true: "above", false: "below"}[up])
}

// runningChange returns the relative change, new over old less 1, of
// the first two sides' time not waiting for a CPU: the median of wall
// time less the median of the CPU wait (WaitUnit), per operation (a
// difference of medians, not a paired estimate: it only says which way
// the waits moved the wall clock); false without waits or when either is
// not positive (waits summed over several threads can exceed the wall).
func runningChange(b *Benchmark) (float64, bool) {
	var wall, wait *Metric
	for i := range b.Metrics {
		switch b.Metrics[i].Unit {
		case WallUnit:
			wall = &b.Metrics[i]
		case WaitUnit:
			wait = &b.Metrics[i]
		}
	}
	if wall == nil || wait == nil || len(wall.Sides) < 2 || len(wait.Sides) < 2 {
		return 0, false
	}
	old := wall.Sides[0].Center - wait.Sides[0].Center
	run := wall.Sides[1].Center - wait.Sides[1].Center
	if !(old > 0 && run > 0) {
		return 0, false
	}
	return run/old - 1, true
}

// Decides reports whether m's comparisons count towards the benchmark's
// verdict, the multiple-comparison correction, the gate and the stopping
// rule; a metric shown only as context does not.
func (m *Metric) Decides() bool { return m.Context == "" }
