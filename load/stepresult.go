package load

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// Thresholds behind a step's validity and the headline.
const (
	// A step whose generator used this fraction of its CPUs may have
	// measured the generator.
	saturatedCPU = 0.90
	// An open-loop step that sent less than this fraction of the offered
	// rate did not apply the load it claims.
	minAchieved = 0.95
	// Without an SLO the headline is the first step within this fraction
	// of the best throughput: more load bought less than this.
	kneeHeadlineGain = 0.10
	// How long a step waits for requests in flight after its window.
	drainGrace = 2 * time.Second
)

// buildStep turns a step's recordings into a RampStep, judging whether it
// measured the target or the generator.
func buildStep(sc stepConfig, rec *stepRecorder, obs [2]observation, workers int) model.RampStep {
	secs := sc.duration.Seconds()
	completed := rec.successes + rec.failures
	st := model.RampStep{
		Index:       sc.index,
		Concurrency: workers,
		Rate:        sc.rate,
		Duration:    sc.duration,
		Requests:    completed,
		Successes:   rec.successes,
		Errors:      rec.errorCounts(),
		InFlight:    rec.counts.inFlight,
		Unfinished:  rec.counts.unfinished,
		NotSent:     rec.counts.notSent,
		Throughput:  float64(rec.successes) / secs,
		Achieved:    float64(completed) / secs,
		BytesPerSec: float64(rec.bytes) / secs,
		Latency:     summarize(rec.lat),
		Valid:       true,
		Sent:        rec.sent,
		ByRequest:   rec.reqs.results(secs, rec.sent),
	}
	if rec.lag != nil && rec.lag.TotalCount() > 0 {
		l := summarize(rec.lag)
		st.SendLag = &l
	}
	st.Offered = st.Achieved
	if sc.rate > 0 {
		st.Offered = sc.rate
		st.Achieved = float64(rec.sent) / secs
		svc := summarize(rec.svc)
		st.ServiceLatency = &svc
	}
	if completed > 0 {
		st.ErrorRate = float64(rec.failures) / float64(completed)
	}
	if rec.errLat.TotalCount() > 0 {
		e := summarize(rec.errLat)
		st.ErrorLatency = &e
	}

	cpus := float64(runtime.NumCPU())
	a, b := obs[0], obs[1]
	st.Generator.Workers = workers
	busy := 0.0 // the generator's CPU less the event loop's spinning, which waits
	if a.self.ok && b.self.ok {
		st.Generator.UserSec = (b.self.user - a.self.user).Seconds()
		st.Generator.SystemSec = (b.self.sys - a.self.sys).Seconds()
		wall := b.self.whenMonotonic.Sub(a.self.whenMonotonic).Seconds()
		if wall > 0 {
			st.Generator.CPU = (st.Generator.UserSec + st.Generator.SystemSec) / wall / cpus
			busy = max(0, st.Generator.CPU-rec.loopSpun.Seconds()/wall/cpus)
		}
	}
	st.Generator.SchedLatencyP99 = schedP99(a.sched, b.sched)
	if a.machine.ok && b.machine.ok && b.machine.total > a.machine.total {
		st.MachineCPU = float64(b.machine.busy-a.machine.busy) / float64(b.machine.total-a.machine.total)
	}
	if a.target.ok && b.target.ok {
		ts := &model.TargetStats{}
		ts.PID = sc.pid
		ts.UserSec = (b.target.user - a.target.user).Seconds()
		ts.SystemSec = (b.target.sys - a.target.sys).Seconds()
		ts.VoluntaryCtx = b.target.vol - a.target.vol
		ts.InvoluntaryCtx = b.target.nonvol - a.target.nonvol
		if wall := b.target.whenMonotonic.Sub(a.target.whenMonotonic).Seconds(); wall > 0 {
			ts.CPU = (ts.UserSec + ts.SystemSec) / wall / cpus
			if a.target.hasRunq && b.target.hasRunq {
				ts.RunQueueSec = max(0, (b.target.runq - a.target.runq).Seconds())
				ts.Demand = ts.CPU + ts.RunQueueSec/wall/cpus
			}
		}
		if completed > 0 {
			ts.CtxPerRequest = float64(ts.VoluntaryCtx) / float64(completed)
		}
		st.Target = ts
	}

	// Did this step measure the target, or the generator?
	switch {
	case completed == 0:
		st.Valid = false
		st.Invalid = "no request completed in the measured window"
	case sc.rate > 0 && st.Achieved < minAchieved*sc.rate:
		st.Valid = false
		st.Invalid = fmt.Sprintf("sent %.0f/s of the %.0f/s offered (%.0f%%, below %.0f%%): the schedule was not kept, so the load was not what it claims",
			st.Achieved, sc.rate, 100*st.Achieved/sc.rate, 100*minAchieved)
	case busy >= saturatedCPU && !sc.inProcess:
		st.Valid = false
		st.Invalid = fmt.Sprintf("the generator used %.0f%% of %d CPUs: it was saturated, so this step may have measured the generator", 100*busy, int(cpus))
	case rec.loopCPU >= saturatedCPU:
		// One thread drives many connections: it saturates at one CPU,
		// whatever the machine has.
		st.Valid = false
		st.Invalid = fmt.Sprintf("an event-loop thread of the generator used %.0f%% of a CPU: it was saturated, so this step may have measured the generator", 100*rec.loopCPU)
	}
	if st.Generator.CPU >= saturatedCPU && sc.inProcess {
		st.Notes = append(st.Notes, fmt.Sprintf("the process used %.0f%% of %d CPUs; the target runs in the generator's process, so this is both", 100*st.Generator.CPU, int(cpus)))
	}
	if t := st.Target; t != nil && sc.pid > 0 && completed > 100 && t.UserSec+t.SystemSec == 0 && t.VoluntaryCtx+t.InvoluntaryCtx < completed/100 {
		st.Notes = append(st.Notes, fmt.Sprintf("process %d used no CPU while %d requests were served: is it the target?", sc.pid, completed))
	}
	if c := rec.counts; c.unfinished > 0 || c.inFlight > 0 && c.inFlightMax > c.doneMax {
		// Only when they set the maximum: every closed-loop step ends
		// with its workers' requests in flight, most of them ordinary.
		abandoned := ""
		if c.unfinished > 0 {
			abandoned = fmt.Sprintf(", %d of them abandoned %v after it", c.unfinished, drainGrace)
		}
		st.Notes = append(st.Notes, fmt.Sprintf("%s still in flight when the window ended, the slowest for %v, longer than any request completed in the window%s: they are in the latency at their age (at least their age at the window's end), not in the throughput",
			words.Count(c.inFlight, "request was", "requests were"), fmtDur(time.Duration(c.inFlightMax)), abandoned))
	}
	if n := rec.counts.notSent; n > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("%s scheduled in the window never sent: the generator could not offer %s/s (it sent %.0f/s); they are in no latency",
			words.Count(n, "request", "requests"), strconv.FormatFloat(sc.rate, 'f', -1, 64), st.Achieved))
	}
	if n, classes := redirects(st.Errors); n > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("%s (%s): rigor does not follow redirects, and a response counts as a success only when its status is a success code (by default 2xx; see --success-codes)",
			words.Count(n, "response was a redirect", "responses were redirects"), classes))
	}
	if p := st.Generator.SchedLatencyP99; p > 0 && st.Latency.P50 > 0 && p > st.Latency.P50/2 && p > 100*time.Microsecond {
		st.Notes = append(st.Notes, fmt.Sprintf("the generator's goroutines waited up to %v (p99) to run, against a median latency of %v: latencies include time spent queued in the generator",
			fmtDur(p), fmtDur(st.Latency.P50)))
	}
	if st.ErrorLatency != nil && st.Successes > 0 && st.ErrorLatency.P50 < st.Latency.P50 {
		st.Notes = append(st.Notes, fmt.Sprintf("failed requests were faster than successful ones (median %v vs %v): they are left out of throughput and latency, which they would flatter",
			fmtDur(st.ErrorLatency.P50), fmtDur(st.Latency.P50)))
	}
	return st
}

// redirects counts the failed requests whose status was a redirect (3xx)
// and names their classes.
func redirects(errs []model.ErrorCount) (int64, string) {
	var n int64
	var classes []string
	for _, e := range errs {
		if code, ok := strings.CutPrefix(e.Class, "status 3"); ok && len(code) == 2 {
			n += e.Count
			classes = append(classes, e.Class)
		}
	}
	return n, strings.Join(classes, ", ")
}

// checkSLO sets whether a step met the SLO and, if not, why.
func checkSLO(st *model.RampStep, slo *model.RampSLO) {
	if slo == nil {
		return
	}
	var miss []string
	if !st.Valid {
		miss = append(miss, "the step is invalid")
	}
	if st.Successes == 0 {
		miss = append(miss, "no request succeeded")
	}
	if slo.Latency > 0 && st.Successes > 0 {
		got, _ := st.Latency.Percentile(slo.Percentile)
		if got > slo.Latency {
			miss = append(miss, fmt.Sprintf("%s %v > %v", percentileName(slo.Percentile), fmtDur(got), slo.Latency))
		}
	}
	if slo.MaxErrorRate != nil && st.ErrorRate > *slo.MaxErrorRate {
		miss = append(miss, fmt.Sprintf("errors %.2f%% > %.2f%%", 100*st.ErrorRate, 100**slo.MaxErrorRate))
	}
	miss = append(miss, checkRequestSLOs(st, slo)...)
	st.SLOMet = len(miss) == 0
	st.SLOMiss = joinPlain(miss)
}

func percentileName(p float64) string {
	if p == 100 {
		return "max"
	}
	return fmt.Sprintf("p%g", p)
}

func joinPlain(s []string) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}
