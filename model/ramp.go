package model

import "time"

// Ramp modes.
const (
	RampClosed = "closed" // concurrency steps: each worker sends its next request when the last one ends
	RampOpen   = "open"   // rate steps: requests are sent on a schedule, whatever the target does
)

// Ramp is the result of a ramped-load run (rigor ramp, or package load):
// its steps, the scalability models fitted to them, the headline and the
// named bottleneck. Everything a report prints is computed by package load
// and stored here; renderers compute nothing.
type Ramp struct {
	Target string `json:"target"`
	// Protocol is how the target was driven: "HTTP/1.1", "HTTP/2", "func".
	Protocol string `json:"protocol,omitempty"`
	Mode     string `json:"mode"` // RampClosed or RampOpen
	// Warmup and StepDuration are the planned length of each step's
	// warm-up (not measured) and measured window.
	Warmup       time.Duration `json:"warmup_ns"`
	StepDuration time.Duration `json:"step_duration_ns"`
	CPUs         int           `json:"cpus"` // logical CPUs available to the generator
	SLO          *RampSLO      `json:"slo,omitempty"`
	Steps        []RampStep    `json:"steps"`
	// Stopped says in plain words why the ramp ended before its last
	// planned step (the knee, a broken SLO, an interruption); empty when
	// every step ran.
	Stopped string `json:"stopped,omitempty"`
	// Amdahl and USL are the scalability models fitted to the closed-loop
	// steps' (concurrency, throughput); nil when they could not be fitted.
	Amdahl *ScalingFit `json:"amdahl,omitempty"`
	USL    *ScalingFit `json:"usl,omitempty"`
	// Headline is the number to quote: the highest throughput whose
	// latency met the SLO (or, without an SLO, the knee), never the peak.
	Headline   *RampHeadline   `json:"headline,omitempty"`
	Bottleneck *RampBottleneck `json:"bottleneck,omitempty"`
	// Notes are ramp-level remarks in plain words.
	Notes []string `json:"notes,omitempty"`

	// Shard is set when this ramp ran one generator's share of the load;
	// MergedShards is the number of shards a merged ramp was made of.
	Shard        *RampShard `json:"shard,omitempty"`
	MergedShards int        `json:"merged_shards,omitempty"`
	// Workload describes the requests of a mix or a replay; nil for a
	// ramp of one URL or function.
	Workload *RampWorkload `json:"workload,omitempty"`
}

// RampSLO is the service-level objective a step must meet.
type RampSLO struct {
	// Percentile (50, 90, 99 or 99.9) and Latency: that percentile of the
	// successful requests' latency must be at most Latency. Zero Latency
	// means no latency objective.
	Percentile float64       `json:"percentile,omitempty"`
	Latency    time.Duration `json:"latency_ns,omitempty"`
	// MaxErrorRate is the largest acceptable fraction of failed requests
	// (0.01 for 1%); nil means no error objective.
	MaxErrorRate *float64 `json:"max_error_rate,omitempty"`
	// Requests are objectives of single requests of a workload, by name;
	// a step meets the SLO only when it meets every one of them too.
	Requests []RequestSLO `json:"requests,omitempty"`
}

// A RampStep is one level of load and what it measured. Throughput counts
// successful requests only; latency is of successful requests only
// (failed requests are often fast and would flatter both).
type RampStep struct {
	Index int `json:"index"`
	// Concurrency is the number of workers (closed loop), or the most
	// workers the open loop needed to keep its schedule.
	Concurrency int `json:"concurrency"`
	// Rate is the offered rate in requests/s (open loop only).
	Rate float64 `json:"rate,omitempty"`
	// Duration is the measured window.
	Duration time.Duration `json:"duration_ns"`

	Requests  int64 `json:"requests"` // completed in the window, successes and errors
	Successes int64 `json:"successes"`
	// Errors are the failures by class ("status 500", "status 302",
	// "timeout", "connect", "connection", "protocol", "error"), most
	// frequent first. An HTTP response is a success only when its status
	// is a success code (by default 2xx).
	Errors    []ErrorCount `json:"errors,omitempty"`
	ErrorRate float64      `json:"error_rate"` // failed / completed
	// InFlight counts the requests still outstanding when the window
	// ended: in the closed loop, those sent before its end; in the open
	// loop, those scheduled in the window and sent before its end. They
	// are not in Requests, Successes or Throughput, which count
	// completions in the window, but each is in Latency, whatever its
	// outcome, at its age when it completed or was abandoned: at least its
	// age at the window's end, so that a stalled request is seen.
	InFlight int64 `json:"in_flight,omitempty"`
	// Unfinished counts the InFlight requests that had not completed when
	// the step gave up waiting for them, and were abandoned.
	Unfinished int64 `json:"unfinished,omitempty"`
	// NotSent counts open-loop requests scheduled in the window that the
	// generator never sent: it fell behind the schedule, or no worker was
	// free before the window ended. They are in no latency; Achieved
	// counts only what was sent.
	NotSent int64 `json:"not_sent,omitempty"`

	Throughput  float64 `json:"throughput"`    // successful requests/s
	Offered     float64 `json:"offered_rate"`  // requests/s asked for (open loop) or attempted (closed loop)
	Achieved    float64 `json:"achieved_rate"` // requests/s actually sent
	BytesPerSec float64 `json:"bytes_per_sec"` // response bytes read per second

	// Latency is of the successful requests and of the InFlight ones: in
	// the open loop measured from each request's intended start, so that
	// time spent waiting for the generator (coordinated omission) counts.
	Latency Latency `json:"latency"`
	// ServiceLatency is the open loop's latency from the actual send, the
	// uncorrected number most tools report; nil in the closed loop, where
	// the two are the same.
	ServiceLatency *Latency `json:"service_latency,omitempty"`
	// ErrorLatency is the latency of the failed requests, when any.
	ErrorLatency *Latency `json:"error_latency,omitempty"`

	Generator GeneratorStats `json:"generator"`
	// MachineCPU is the fraction of all the machine's CPUs that were busy
	// (not idle or waiting for I/O) over the window, from /proc/stat; 0
	// when unknown.
	MachineCPU float64 `json:"machine_cpu,omitempty"`
	// Target is the process given with --pid over the measured window.
	Target *TargetStats `json:"target,omitempty"`

	// Gain is throughput relative to the best earlier step, minus one
	// (0.5 is 50% more); 0 for the first step.
	Gain float64 `json:"gain"`
	// Valid is false when the step measured the generator rather than the
	// target; Invalid says why.
	Valid   bool   `json:"valid"`
	Invalid string `json:"invalid,omitempty"`
	// SLOMet is true when an SLO was given and this valid step met it;
	// SLOMiss says why it did not.
	SLOMet  bool   `json:"slo_met"`
	SLOMiss string `json:"slo_miss,omitempty"`
	// Notes are step-level remarks in plain words.
	Notes []string `json:"notes,omitempty"`

	// WindowStart is when the measured window opened (wall clock), and
	// Histograms the latency histograms themselves: what merging shards
	// needs. Shards lists each shard's part of a merged step.
	WindowStart time.Time       `json:"window_start,omitzero"`
	Histograms  *StepHistograms `json:"histograms,omitempty"`
	Shards      []ShardStep     `json:"shards,omitempty"`
	// Sent counts the requests sent in the window.
	Sent int64 `json:"sent,omitempty"`
	// Pace is a paced replay's speed-up of the recorded times (4 sends
	// in a quarter of the recorded time); 0 otherwise.
	Pace float64 `json:"pace,omitempty"`
	// SendLag is how late the open loop sent its requests: each one's
	// actual send time minus its intended one; nil in the closed loop.
	SendLag *Latency `json:"send_lag,omitempty"`
	// ByRequest is the step per request of a workload (per group of a
	// replay's requests), in the workload's order.
	ByRequest []RampRequestStep `json:"by_request,omitempty"`
}

// ErrorCount is the number of failed requests of one class.
type ErrorCount struct {
	Class string `json:"class"`
	Count int64  `json:"count"`
}

// Latency summarizes a latency distribution recorded in an HDR histogram
// (three significant digits).
type Latency struct {
	Count  int64         `json:"count"`
	Min    time.Duration `json:"min_ns"`
	Mean   time.Duration `json:"mean_ns"`
	StdDev time.Duration `json:"stddev_ns"`
	P50    time.Duration `json:"p50_ns"`
	P90    time.Duration `json:"p90_ns"`
	P99    time.Duration `json:"p99_ns"`
	P999   time.Duration `json:"p999_ns"`
	Max    time.Duration `json:"max_ns"`
}

// Percentile returns the stored percentile p (50, 90, 99 or 99.9) and
// whether it is one of them.
func (l Latency) Percentile(p float64) (time.Duration, bool) {
	switch p {
	case 50:
		return l.P50, true
	case 90:
		return l.P90, true
	case 99:
		return l.P99, true
	case 99.9:
		return l.P999, true
	case 100:
		return l.Max, true
	}
	return 0, false
}

// GeneratorStats is what the load generator's own process did over a
// step's measured window.
type GeneratorStats struct {
	UserSec   float64 `json:"user_sec"`
	SystemSec float64 `json:"system_sec"`
	// CPU is (user + system) / window / CPUs: the fraction of the CPUs
	// available to the generator that its process used.
	CPU float64 `json:"cpu"`
	// SchedLatencyP99 is the 99th percentile of the time the generator's
	// goroutines waited to run (runtime/metrics /sched/latencies:seconds).
	SchedLatencyP99 time.Duration `json:"sched_latency_p99_ns"`
	Workers         int           `json:"workers"`
}

// TargetStats is the target process (--pid) over a step's measured window.
type TargetStats struct {
	ProcessStats
	// CPU is (user + system) / window / CPUs of the machine.
	CPU float64 `json:"cpu"`
	// CtxPerRequest is voluntary context switches per completed request.
	CtxPerRequest float64 `json:"voluntary_ctx_per_request"`
	// RunQueueSec is the time the target's threads were runnable but
	// waiting for a CPU (/proc/PID/task/*/schedstat), and Demand is
	// (CPU time + RunQueueSec) / window / CPUs: how much CPU the target
	// asked for, whether or not other processes let it have it. 0 when
	// the kernel does not keep schedstats.
	RunQueueSec float64 `json:"run_queue_sec,omitempty"`
	Demand      float64 `json:"cpu_demand,omitempty"`
}

// ScalingFit is a scalability model fitted to (concurrency, throughput):
//
//	Amdahl: X(N) = λN / (1 + α(N−1))
//	USL:    X(N) = λN / (1 + α(N−1) + βN(N−1))
//
// by least squares with α, β ≥ 0 and λ free.
type ScalingFit struct {
	Model  string  `json:"model"` // "amdahl" or "usl"
	Alpha  float64 `json:"alpha"` // contention (σ in Gunther's notation)
	Beta   float64 `json:"beta"`  // coherency (κ); 0 for Amdahl
	Lambda float64 `json:"lambda"`
	// NStar is the concurrency of peak throughput, √((1−α)/β) for the USL;
	// 0 when the model has no peak (β = 0, or Amdahl).
	NStar float64 `json:"n_star,omitempty"`
	// Peak is the model's highest throughput: X(N*) for the USL, the
	// ceiling λ/α for Amdahl; 0 when unbounded.
	Peak float64 `json:"peak,omitempty"`
	R2   float64 `json:"r2"`
	// Points are the measurements with the fitted value and residual.
	Points []FitPoint `json:"points"`
	// Curve samples the fitted model for plotting, from N = 1 past the
	// largest measured concurrency (or N*).
	Curve    []CurvePoint `json:"curve,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
}

// FitPoint is one measured point with its fitted value and residual
// (measured − fitted).
type FitPoint struct {
	N        float64 `json:"n"`
	X        float64 `json:"x"`
	Fitted   float64 `json:"fitted"`
	Residual float64 `json:"residual"`
}

// CurvePoint is one point of a fitted curve.
type CurvePoint struct {
	N float64 `json:"n"`
	X float64 `json:"x"`
}

// RampHeadline is the number to quote from a ramp.
type RampHeadline struct {
	// Basis is "slo" (the highest throughput whose step met the SLO),
	// "knee" (no SLO given: the last step that still raised throughput)
	// or "none" (no step qualified; Reason says why).
	Basis       string        `json:"basis"`
	Step        int           `json:"step"` // index into Steps; -1 when Basis is "none"
	Concurrency int           `json:"concurrency,omitempty"`
	Rate        float64       `json:"rate,omitempty"`
	Throughput  float64       `json:"throughput,omitempty"`
	P99         time.Duration `json:"p99_ns,omitempty"`
	// Percentile and Latency repeat the SLO's percentile and its measured
	// value at this step, when the SLO is on another percentile than p99.
	Percentile float64       `json:"percentile,omitempty"`
	Latency    time.Duration `json:"latency_ns,omitempty"`
	// PeakThroughput is the highest valid step's throughput, for contrast.
	PeakThroughput float64 `json:"peak_throughput,omitempty"`
	Reason         string  `json:"reason,omitempty"`
}

// Bottleneck kinds.
const (
	BottleneckLock         = "lock-bound"   // work is serialized: throughput flat while CPUs idle, or CPU burnt in the kernel
	BottleneckCPU          = "cpu-bound"    // the target used its CPUs
	BottleneckClient       = "client-bound" // the generator was saturated
	BottleneckScaling      = "still-scaling"
	BottleneckInconclusive = "inconclusive"
)

// RampBottleneck names what stopped throughput from rising, with the
// evidence in plain words.
type RampBottleneck struct {
	Kind     string   `json:"kind"`
	Summary  string   `json:"summary"`
	Evidence []string `json:"evidence,omitempty"`
}
