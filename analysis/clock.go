package analysis

import (
	"fmt"
	"maps"
	"math"
	"slices"
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
	// CPUSpread and WallSpread are the robust spreads (1.4826 MAD) of
	// the per-round log ratios of CPU and of wall time between the
	// first two sides, when the machine was busy; NaN otherwise.
	CPUSpread, WallSpread float64
	// CPUSamples is how many of the WallSamples wall-time samples have
	// a CPU time.
	CPUSamples, WallSamples int
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
	// ClockNoProfile: busy, but no CPU profile shows it never waits.
	ClockNoProfile = "no-profile"
	// ClockCPUUnsteady: busy, but CPU time varied as much as wall time.
	ClockCPUUnsteady = "cpu-unsteady"
	// ClockCPUBound: busy and CPU-bound: CPU time is used.
	ClockCPUBound = "cpu-bound"
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
	otherCPUBusy    = 0.15
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
	// another, or a CPU profile of at least profileSamples samples with
	// at most maxWaiting of them in mutex slow paths or file I/O. Counting voluntary context switches does not tell: a CPU-bound
	// Go process switches thousands of times a second (sysmon's short
	// sleeps; measured on experiments/busy's benchmark, about 2900 a
	// second at GOMAXPROCS=1).
	profileSamples = 20
	maxWaiting     = 0.05
)

// chooseClock decides which clock b's verdict is taken from. Wall time
// unless the run is paired, both clocks were measured, other processes
// competed for the CPU while b ran, and b is CPU-bound.
func chooseClock(run *model.Run, b *model.Benchmark) *Clock {
	wall, cpu := b.Metric(WallUnit), b.Metric(CPUUnit)
	if wall == nil || cpu == nil {
		return nil
	}
	c := &Clock{Unit: WallUnit, CPUPerWall: math.NaN(), Waiting: math.NaN(), CPUSpread: math.NaN(), WallSpread: math.NaN(), Procs: b.Procs}
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
	for _, o := range run.Observations {
		if o.Benchmark != key {
			continue
		}
		if p := o.Profile; o.Round == 0 && p != nil && p.Samples >= profileSamples {
			w := max(p.Lock, p.FileIO)
			if math.IsNaN(c.Waiting) || w > c.Waiting {
				c.Waiting = w
			}
		}
		if o.Round == 0 {
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
	var quiet, all, normalized []float64
	for _, w := range wall.Samples {
		if !(w.Value > 0) {
			continue
		}
		for _, v := range cpuAt[sideRound{w.Side, w.Round}] {
			r := v / w.Value
			all = append(all, r)
			k := [2]any{w.Side, w.Round}
			if !contended[k] {
				quiet = append(quiet, r)
			} else if f := fair[k]; f > 0 {
				normalized = append(normalized, r/f)
			}
		}
	}
	basis := BasisQuiet
	if len(quiet) < 3 {
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
	if c.Intervals == 0 || c.Contended < contendedShare {
		return c // quiet, or not observed: wall time
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
	wallSpread, cpuSpread := pairedSpread(wall, run.Sides), pairedSpread(cpu, run.Sides)
	c.WallSpread, c.CPUSpread = wallSpread, cpuSpread
	switch {
	case math.IsNaN(c.CPUPerWall) || c.CPUPerWall < cpuBoundShare:
		c.Why = ClockNotCPUBound
		c.Reason = fmt.Sprintf("%s, but the benchmark is not CPU-bound (CPU time %s): it waits, and CPU time would hide the waiting, so the verdict stays on wall time", busy, cpuShareWords(c))
	case !math.IsNaN(c.Waiting) && c.Waiting > maxWaiting:
		c.Why = ClockWaits
		c.Reason = fmt.Sprintf("%s, but %.0f%% of the benchmark's CPU profile is spent on locks or file I/O, so it also waits, which CPU time would hide: the verdict stays on wall time", busy, 100*c.Waiting)
	case math.IsNaN(c.Waiting) && c.Procs != 1:
		c.Why = ClockNoProfile
		c.Reason = fmt.Sprintf("%s, but without a CPU profile nothing shows that the benchmark never waits: on %s its goroutines may spin or sleep on a lock, which CPU time would hide (it kept %.1f busy), so the verdict stays on wall time", busy, procsWords(c.Procs), c.CPUPerWall)
	case !(cpuSpread < wallSpread):
		// CPU time is worth taking only when it is the steadier clock:
		// short samples leave it at the mercy of the start-up estimate.
		c.Why = ClockCPUUnsteady
		c.Reason = fmt.Sprintf("%s, but CPU time varied as much as wall time from round to round (%.1f%% against %.1f%%), so the verdict stays on wall time", busy, 100*cpuSpread, 100*wallSpread)
	default:
		c.Unit, c.Why = CPUUnit, ClockCPUBound
		c.Reason = fmt.Sprintf("%s: wall time measured the machine; the benchmark is CPU-bound (CPU time %s, %s), so CPU time is used for the verdict", busy, cpuShareWords(c), evidenceWords(c))
	}
	return c
}

// cpuShareWords says what c.CPUPerWall measured, against what.
func cpuShareWords(c *Clock) string {
	return shareWords(fmt.Sprintf("%.0f%%", 100*c.CPUPerWall), c.Basis)
}

// shareWords says what a CPU share (pct, in words: "93%", "90% to 95%")
// measured against basis was.
func shareWords(pct, basis string) string {
	switch basis {
	case BasisFairShare:
		return pct + " of the share of a CPU a fair scheduler could give one thread, every round being contended"
	case BasisLeastDisturbed:
		return pct + " of wall time on the least disturbed quarter of the samples, every round being contended"
	case BasisQuiet:
		return pct + " of wall time on the quiet rounds"
	}
	return "not measured"
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

func evidenceWords(c *Clock) string {
	if math.IsNaN(c.Waiting) {
		return "its one thread busy, GOMAXPROCS 1"
	}
	return fmt.Sprintf("%.0f%% of its CPU profile on locks or file I/O", 100*c.Waiting)
}

// roundsWords names the rounds in which some sample was contended, as
// ranges (": rounds 3-7, 12"), or "" when every round was.
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
	var parts []string
	for i := 0; i < len(rounds); {
		j := i
		for j+1 < len(rounds) && rounds[j+1] == rounds[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", rounds[i], rounds[j]))
		} else {
			parts = append(parts, fmt.Sprint(rounds[i]))
		}
		i = j + 1
	}
	return ": rounds " + strings.Join(parts, ", ")
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
	if c == nil {
		return
	}
	b.Clock = c
	if c.Intervals > 0 && c.Contended >= contendedShare {
		ev := map[string]float64{"contended": c.Contended, "cpu_per_wall": c.CPUPerWall, "waiting": c.Waiting,
			"cpu_spread": c.CPUSpread, "wall_spread": c.WallSpread}
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

// Decides reports whether m's comparisons count towards the benchmark's
// verdict, the multiple-comparison correction, the gate and the stopping
// rule; a metric shown only as context does not.
func (m *Metric) Decides() bool { return m.Context == "" }
