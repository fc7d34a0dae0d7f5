package analysis

import (
	"fmt"
	"math"
	"slices"

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
	// wall time and the machine was quiet.
	Reason string
	// Contended is the fraction of the benchmark's observed intervals in
	// which other processes competed for the CPU; Intervals is how many
	// were observed.
	Contended float64
	Intervals int
	// CPUPerWall is the median CPU time per wall time of the benchmark's
	// samples on uncontended rounds: about the number of threads it kept
	// busy. NaN when not measured.
	CPUPerWall float64
	// WaitsPerSec is the median rate of voluntary context switches of the
	// benchmark's processes: how often its threads went to sleep.
	WaitsPerSec float64
}

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
	// cpuBoundShare: a benchmark is CPU-bound when its process used at
	// least this much CPU time per wall time on uncontended rounds: at
	// least one thread busy nine tenths of the time. A benchmark that
	// sleeps, blocks or waits on I/O spends its wall time off the CPU and
	// falls below it.
	cpuBoundShare = 0.9
	// maxWaitsPerSec: more voluntary context switches per second than
	// this mean the benchmark's threads block (a lock, a channel, I/O)
	// often enough that CPU time would hide the waiting: the verdict
	// stays on wall time. A CPU-bound go test binary switches a few
	// hundred times a second (GC workers, sysmon); package observe calls
	// 5000 a second lock contention.
	maxWaitsPerSec = 1000
)

// chooseClock decides which clock b's verdict is taken from. Wall time
// unless the run is paired, both clocks were measured, other processes
// competed for the CPU while b ran, and b is CPU-bound.
func chooseClock(run *model.Run, b *model.Benchmark) *Clock {
	wall, cpu := b.Metric(WallUnit), b.Metric(CPUUnit)
	if wall == nil || cpu == nil {
		return nil
	}
	c := &Clock{Unit: WallUnit, CPUPerWall: math.NaN(), WaitsPerSec: math.NaN()}
	if !run.Paired {
		c.Reason = "the sides were not measured in the same rounds, so CPU time (whose start-up estimate differs from run to run) is context only"
		return c
	}
	key := b.Key()
	contended := map[[2]any]bool{} // side, round -> contended
	var waits []float64
	for _, o := range run.Observations {
		if o.Benchmark != key || o.Round == 0 {
			continue
		}
		busy := contendedInterval(&o)
		contended[[2]any{o.Side, o.Round}] = busy
		c.Intervals++
		if busy {
			c.Contended++
		}
		if p := o.Process; p != nil && o.Duration > 0 {
			waits = append(waits, float64(p.VoluntaryCtx)/o.Duration.Seconds())
		}
	}
	if c.Intervals > 0 {
		c.Contended /= float64(c.Intervals)
	}
	if len(waits) > 0 {
		c.WaitsPerSec = stats.Median(waits)
	}
	// CPU time per wall time, per sample, on the uncontended rounds.
	var quiet, all []float64
	for _, w := range wall.Samples {
		for _, s := range cpu.Samples {
			if s.Side == w.Side && s.Round == w.Round && w.Value > 0 {
				r := s.Value / w.Value
				all = append(all, r)
				if !contended[[2]any{w.Side, w.Round}] {
					quiet = append(quiet, r)
				}
			}
		}
	}
	if len(quiet) < 3 {
		// Every round disturbed: the least disturbed quarter.
		slices.Sort(all)
		quiet = all[len(all)*3/4:]
	}
	if len(quiet) > 0 {
		c.CPUPerWall = stats.Median(quiet)
	}
	if c.Intervals == 0 || c.Contended < contendedShare {
		return c // quiet, or not observed: wall time
	}
	busy := fmt.Sprintf("the machine was busy (other processes competed for the CPU in %.0f%% of this benchmark's samples)", 100*c.Contended)
	switch {
	case math.IsNaN(c.CPUPerWall) || c.CPUPerWall < cpuBoundShare:
		c.Reason = fmt.Sprintf("%s, but the benchmark is not CPU-bound (CPU time %.0f%% of wall time): it waits, and CPU time would hide the waiting, so the verdict stays on wall time", busy, 100*c.CPUPerWall)
	case !math.IsNaN(c.WaitsPerSec) && c.WaitsPerSec > maxWaitsPerSec:
		c.Reason = fmt.Sprintf("%s, but the benchmark's threads went to sleep %.0f times a second (a lock, a channel or I/O), which CPU time would hide, so the verdict stays on wall time", busy, c.WaitsPerSec)
	default:
		c.Unit = CPUUnit
		c.Reason = fmt.Sprintf("%s: wall time measured the machine; the benchmark is CPU-bound (CPU time %.0f%% of wall time on the quiet rounds), so CPU time is used for the verdict", busy, 100*c.CPUPerWall)
	}
	return c
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
func applyClock(b *Benchmark, c *Clock) {
	if c == nil {
		return
	}
	b.Clock = c
	if c.Intervals > 0 && c.Contended >= contendedShare {
		b.Notes = append(b.Notes, c.Reason)
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
