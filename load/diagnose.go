package load

import (
	"fmt"
	"strings"
	"time"

	"github.com/rigorbench/rigor/model"
)

// Thresholds of the bottleneck diagnosis, as fractions of the machine's
// CPUs used by the target at and after the throughput peak.
const (
	cpuBound    = 0.85 // at or above: the CPUs were the limit
	idleCPU     = 0.70 // below: CPUs were idle while throughput stayed flat
	kernelShare = 0.50 // system time above this share of CPU: contention in the kernel
	stillRising = 0.10 // a last step that gained this much: not yet at the knee
)

// fitRamp fits Amdahl and the USL to the closed-loop steps' (concurrency,
// throughput), preferring valid steps; an open loop's, to the number of
// requests its steps kept in the system (see fitOpen).
func fitRamp(r *model.Ramp) {
	if r.Mode == model.RampOpen {
		fitOpen(r)
		return
	}
	levels := map[int]bool{}
	for _, s := range r.Steps {
		levels[s.Concurrency] = true
	}
	if len(levels) < 3 {
		if len(r.Steps) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("no scalability fit: Amdahl and the USL need at least 3 concurrency levels, this ramp has %d", len(levels)))
		}
		return
	}
	var n, x []float64
	distinct := map[int]bool{}
	for _, s := range r.Steps {
		if s.Valid {
			n = append(n, float64(s.Concurrency))
			x = append(x, s.Throughput)
			distinct[s.Concurrency] = true
		}
	}
	if len(distinct) < 3 {
		n, x = n[:0], x[:0]
		for _, s := range r.Steps {
			n = append(n, float64(s.Concurrency))
			x = append(x, s.Throughput)
		}
		if len(r.Steps) > 0 {
			r.Notes = append(r.Notes, "fewer than 3 valid steps: the models are fitted to every step, invalid ones included")
		}
	}
	best := 0.0
	for _, v := range x {
		best = max(best, v)
	}
	if best == 0 {
		if len(r.Steps) > 0 {
			r.Notes = append(r.Notes, "no fit: no step had a successful request")
		}
		return
	}
	fitModels(r, n, x)
}

func fitModels(r *model.Ramp, n, x []float64) {
	var err error
	if r.Amdahl, err = FitAmdahl(n, x); err != nil {
		r.Notes = append(r.Notes, "no Amdahl fit: "+err.Error())
	}
	if r.USL, err = FitUSL(n, x); err != nil {
		r.Notes = append(r.Notes, "no USL fit: "+err.Error())
	}
}

// fitOpen fits an open loop's valid steps as a closed loop's, with the
// concurrency the step actually held: by Little's law, the mean number of
// requests in the system is the throughput times the mean latency (here
// from each request's intended send, so a queue in front of the target
// counts). Steps that held less than one request on average say nothing
// about contention between requests and are left out.
func fitOpen(r *model.Ramp) {
	var n, x []float64
	for _, s := range r.Steps {
		if !s.Valid || s.Throughput <= 0 || s.Latency.Mean <= 0 {
			continue
		}
		if held := s.Throughput * s.Latency.Mean.Seconds(); held >= 1 {
			n = append(n, held)
			x = append(x, s.Throughput)
		}
	}
	if len(n) < 3 {
		if len(r.Steps) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("no scalability fit: Amdahl and the USL need at least 3 valid steps that kept a request or more in the system on average (throughput × mean latency, Little's law); this ramp has %d", len(n)))
		}
		return
	}
	r.Notes = append(r.Notes, "the scalability models are fitted to the requests each step kept in the system on average (throughput × mean latency from the intended send, Little's law), not to the offered rate")
	fitModels(r, n, x)
}

// headline picks the number to quote: with an SLO, the highest valid
// throughput whose step met it; without one, the knee.
func headline(r *model.Ramp, slo *model.RampSLO) *model.RampHeadline {
	if r.Mode == model.RampOpen {
		return openHeadline(r, slo)
	}
	h := &model.RampHeadline{Step: -1, Basis: "none"}
	var valid []int
	for i, s := range r.Steps {
		if s.Valid && s.Successes > 0 {
			valid = append(valid, i)
			h.PeakThroughput = max(h.PeakThroughput, s.Throughput)
		}
	}
	pick := -1
	switch {
	case len(valid) == 0:
		h.Reason = "no valid step: every step measured the generator, or nothing succeeded"
		return h
	case slo != nil:
		for _, i := range valid {
			if r.Steps[i].SLOMet && (pick < 0 || r.Steps[i].Throughput > r.Steps[pick].Throughput) {
				pick = i
			}
		}
		if pick < 0 {
			h.Reason = "no step met the SLO (" + describeSLO(slo) + ")"
			return h
		}
		h.Basis = "slo"
		h.Reason = "the highest throughput whose step met the SLO (" + describeSLO(slo) + ")"
	default:
		// The first step within kneeHeadlineGain of the best: beyond it,
		// more load bought little more throughput.
		for _, i := range valid {
			if r.Steps[i].Throughput*(1+kneeHeadlineGain) >= h.PeakThroughput {
				pick = i
				break
			}
		}
		h.Basis = "knee"
		h.Reason = fmt.Sprintf("no SLO given: the first step within %.0f%% of the best throughput; more load bought less than that (give --slo to quote the point whose latency is acceptable)", 100*kneeHeadlineGain)
	}
	quoteStep(h, r, pick, slo)
	return h
}

// quoteStep fills h with the numbers of step pick of r, the headline's
// step: its load, throughput and p99, and the SLO's own percentile when
// the SLO names another.
func quoteStep(h *model.RampHeadline, r *model.Ramp, pick int, slo *model.RampSLO) {
	s := r.Steps[pick]
	h.Step = pick
	h.Concurrency = s.Concurrency
	h.Rate = s.Rate
	h.Throughput = s.Throughput
	h.P99 = s.Latency.P99
	if slo != nil && slo.Latency > 0 && slo.Percentile != 99 {
		h.Percentile = slo.Percentile
		h.Latency, _ = s.Latency.Percentile(slo.Percentile)
	}
}

func describeSLO(slo *model.RampSLO) string {
	var parts []string
	if slo.Latency > 0 {
		parts = append(parts, fmt.Sprintf("%s ≤ %v", percentileName(slo.Percentile), slo.Latency))
	}
	if slo.MaxErrorRate != nil {
		parts = append(parts, fmt.Sprintf("errors ≤ %g%%", 100**slo.MaxErrorRate))
	}
	parts = append(parts, describeRequestSLOs(slo)...)
	return strings.Join(parts, ", ")
}

// diagnose names what stopped throughput from rising, from the shape of
// the ramp, the generator's validity and the target's CPU and context
// switches. When the evidence does not decide, it says inconclusive and
// why.
func diagnose(r *model.Ramp) *model.RampBottleneck {
	if len(r.Steps) == 0 {
		return &model.RampBottleneck{Kind: model.BottleneckInconclusive, Summary: "inconclusive: no step completed"}
	}
	// The trend is read from the valid steps; invalid ones only say
	// whether the generator gave out.
	var steps []model.RampStep
	for _, s := range r.Steps {
		if s.Valid {
			steps = append(steps, s)
		}
	}
	if len(steps) == 0 {
		return &model.RampBottleneck{Kind: model.BottleneckInconclusive, Summary: "inconclusive: no valid step; each one measured the generator rather than the target"}
	}
	peak := 0
	for i, s := range steps {
		if s.Throughput > steps[peak].Throughput {
			peak = i
		}
	}
	if steps[peak].Throughput == 0 {
		return &model.RampBottleneck{Kind: model.BottleneckInconclusive, Summary: "inconclusive: no request succeeded at any step; see the errors"}
	}
	level := func(s model.RampStep) string {
		if r.Mode == model.RampOpen {
			return fmt.Sprintf("%g/s offered", s.Rate)
		}
		return fmt.Sprintf("concurrency %d", s.Concurrency)
	}
	b := &model.RampBottleneck{}
	ps := steps[peak]
	b.Evidence = append(b.Evidence, fmt.Sprintf("throughput peaked at %.0f/s at %s", ps.Throughput, level(ps)))

	// The generator first: a saturated generator explains everything.
	var saturated []string
	for _, s := range r.Steps[ps.Index:] {
		if !s.Valid && strings.Contains(s.Invalid, "generator") {
			saturated = append(saturated, level(s))
		}
	}
	var unkept []string
	for _, s := range r.Steps[ps.Index:] {
		if !s.Valid && strings.Contains(s.Invalid, "schedule") {
			unkept = append(unkept, level(s))
		}
	}
	if len(unkept) > 0 {
		b.Evidence = append(b.Evidence, "the offered rate could not be sent at "+strings.Join(unkept, ", ")+": the target (or the generator's connections) could not keep up")
	}
	if len(saturated) > 0 {
		b.Kind = model.BottleneckClient
		b.Summary = "client-bound: the load generator ran out of CPU at " + strings.Join(saturated, ", ") + "; these steps measured rigor, not the target"
		b.Evidence = append(b.Evidence, "run the generator on another machine, or with fewer workers, and ramp again")
		return b
	}

	last := steps[len(steps)-1]
	if len(steps) == 1 {
		b.Kind = model.BottleneckInconclusive
		b.Summary = "inconclusive: one step shows no trend; ramp over several levels"
		return b
	}
	if peak == len(steps)-1 && last.Gain >= stillRising {
		b.Kind = model.BottleneckScaling
		b.Summary = fmt.Sprintf("still scaling: throughput rose %.0f%% at the last step (%s); ramp further to find the knee", 100*last.Gain, level(last))
		return b
	}
	if fit := r.Amdahl; fit != nil {
		b.Evidence = append(b.Evidence, fmt.Sprintf("Amdahl alpha = %.3g: about %.1f%% of each request's work is serialized (ceiling %.0f/s)", fit.Alpha, 100*fit.Alpha, fit.Peak))
	}
	if fit := r.USL; fit != nil && fit.Beta > 0 && fit.NStar > 0 {
		b.Evidence = append(b.Evidence, fmt.Sprintf("USL beta = %.3g: a coherency cost that peaks throughput near N* = %.0f", fit.Beta, fit.NStar))
	}
	if peak < len(steps)-1 && last.Throughput < 0.9*ps.Throughput {
		b.Evidence = append(b.Evidence, fmt.Sprintf("throughput fell %.0f%% past the peak: more load made it slower (contention or crosstalk)", 100*(1-last.Throughput/ps.Throughput)))
	}
	if p0, p1 := steps[0].Latency.P99, last.Latency.P99; p0 > 0 && p1 > 2*p0 {
		b.Evidence = append(b.Evidence, fmt.Sprintf("p99 latency grew from %v to %v: requests queue", fmtDur(p0), fmtDur(p1)))
	}

	// Then the target's CPU at the peak and after: what it used, and what
	// it asked for (used plus time spent runnable, waiting for a CPU), so
	// that a busy neighbour does not pass for a CPU-bound target.
	var cpu, user, sys, demand, machine float64
	known, hasDemand := false, false
	for _, s := range steps[peak:] {
		machine = max(machine, s.MachineCPU)
		if t := s.Target; t != nil {
			known = true
			if t.CPU > cpu {
				cpu, user, sys = t.CPU, t.UserSec, t.SystemSec
			}
			// With schedstats Demand ≥ CPU; without them it is 0.
			if t.Demand >= t.CPU {
				hasDemand = true
				demand = max(demand, t.Demand)
			}
		}
	}
	if !known {
		b.Kind = model.BottleneckInconclusive
		b.Summary = fmt.Sprintf("inconclusive: throughput stopped rising at %s, but the target's CPU is unknown; give --pid to tell a lock from a CPU limit", level(ps))
		return b
	}
	who := "the target"
	if r.Protocol == "func" && ps.Target != nil && ps.Target.PID == 0 {
		who = "the process (generator and target together)"
	}
	b.Evidence = append(b.Evidence, fmt.Sprintf("%s used at most %.0f%% of %d CPUs at and after the peak", who, 100*cpu, r.CPUs))
	busy := cpu
	switch {
	case hasDemand:
		busy = demand
		b.Evidence = append(b.Evidence, fmt.Sprintf("%s asked for at most %.0f%% of the CPUs (time running plus time runnable, waiting for a CPU)", who, 100*demand))
		if demand-cpu > 0.2 {
			b.Evidence = append(b.Evidence, fmt.Sprintf("%s waited for a CPU %.0f%% of the time: other processes competed for the CPUs", who, 100*(demand-cpu)))
		}
	case machine > 0:
		busy = machine
	}
	if machine > 0 {
		b.Evidence = append(b.Evidence, fmt.Sprintf("the machine's CPUs were at most %.0f%% busy (every process, the generator included)", 100*machine))
	}
	if first := steps[0].Target; first != nil && last.Target != nil && last.Target.CtxPerRequest > 0 {
		b.Evidence = append(b.Evidence, fmt.Sprintf("voluntary context switches per request went from %.2f at %s to %.2f at %s",
			first.CtxPerRequest, level(steps[0]), last.Target.CtxPerRequest, level(last)))
	}
	kshare := 0.0
	if user+sys > 0 {
		kshare = sys / (user + sys)
	}
	switch {
	case busy >= cpuBound && kshare >= kernelShare:
		b.Kind = model.BottleneckLock
		b.Summary = fmt.Sprintf("lock-bound: %s is busy, but %.0f%% of its CPU time is in the kernel: threads contend on a lock (futex sleeps and wake-ups) rather than doing the work", who, 100*kshare)
	case busy >= cpuBound:
		b.Kind = model.BottleneckCPU
		b.Summary = fmt.Sprintf("cpu-bound: once throughput stopped rising %s wanted %.0f%% of the CPUs and got %.0f%%", who, 100*busy, 100*cpu)
		if busy-cpu > 0.2 {
			b.Summary += "; other processes on this machine took the rest, so they are part of the limit"
		}
	case busy < idleCPU:
		b.Kind = model.BottleneckLock
		b.Summary = fmt.Sprintf("lock-bound: throughput stopped rising at %s while %s asked for only %.0f%% of the CPUs: requests wait for each other (a lock, or another one-at-a-time resource), not for CPU", level(ps), who, 100*busy)
	default:
		b.Kind = model.BottleneckInconclusive
		b.Summary = fmt.Sprintf("inconclusive: throughput stopped rising at %s with %s asking for %.0f%% of the CPUs, neither idle nor saturated", level(ps), who, 100*busy)
	}
	return b
}

// fmtDur rounds d to about three significant digits for messages.
func fmtDur(d time.Duration) time.Duration {
	for unit := time.Duration(1); unit < time.Hour; unit *= 10 {
		if d < 1000*unit {
			return d.Round(unit)
		}
	}
	return d.Round(time.Second)
}
