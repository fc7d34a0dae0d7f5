package model

import "time"

// Workload kinds.
const (
	// WorkloadMix is a simulation: requests picked by weight from a
	// workload file (rigor's YAML or JSON, or vegeta's targets).
	WorkloadMix = "mix"
	// WorkloadReplay sends the requests recorded in a HAR file or an
	// access log again.
	WorkloadReplay = "replay"
)

// RampWorkload describes the requests of a ramp that sent more than one
// kind of request: a mix of weighted requests, or a replay. Nil in a
// ramp of one URL.
type RampWorkload struct {
	Kind   string `json:"kind"`   // WorkloadMix or WorkloadReplay
	Source string `json:"source"` // the file read
	// Format is the file's format: "yaml", "json", "vegeta", "har" or
	// "access-log".
	Format string `json:"format"`
	// Seed is the seed of the mix's sequence of requests.
	Seed uint64 `json:"seed,omitempty"`
	// Requests are the mix's requests, in the file's order; in a replay,
	// the groups its per-request results are reported by (method and
	// path, the most frequent first, the rest as "(other)").
	Requests []WorkloadRequest `json:"requests"`
	// Replay is what a replay read and kept; nil for a mix.
	Replay *ReplaySource `json:"replay,omitempty"`
	// Caveat says, in plain words, what this kind of load cannot show: a
	// simulation's steady mix misses production's bursts; a replay does
	// not react to latency as real clients do.
	Caveat string `json:"caveat,omitempty"`
}

// WorkloadRequest is one request of a mix, or one group of a replay's
// requests.
type WorkloadRequest struct {
	Name   string `json:"name"`
	Method string `json:"method,omitempty"`
	URL    string `json:"url,omitempty"`
	// Weight is the request's weight in the mix, and Share its intended
	// share of the requests sent: Weight over the sum of the weights. In
	// a replay, Share is the group's share of the recorded requests.
	Weight float64 `json:"weight,omitempty"`
	Share  float64 `json:"share"`
	// ThinkMin and ThinkMax bound the pause a closed-loop worker makes
	// after this request, drawn uniformly between them (equal for a fixed
	// pause); 0 for none.
	ThinkMin time.Duration `json:"think_min_ns,omitempty"`
	ThinkMax time.Duration `json:"think_max_ns,omitempty"`
}

// ReplaySource is what a replay read from its file and which of the
// recorded requests it sends.
type ReplaySource struct {
	// Entries counts the requests recorded in the file: the access log's
	// lines (blank lines aside) or the HAR file's entries.
	Entries int64 `json:"entries"`
	// Replayed counts the entries sent in each step: those for Host.
	Replayed int64 `json:"replayed"`
	// Host is the recorded host whose requests are replayed; they are
	// sent to the ramp's target, never to the host recorded. Entries
	// without a host (an access log's relative request lines) are
	// Host's.
	Host string `json:"host"`
	// OtherHosts counts the entries for other hosts, skipped, by host,
	// the most frequent first.
	OtherHosts []HostCount `json:"other_hosts,omitempty"`
	// Skipped counts the entries that could not be replayed, by reason
	// ("no request line", "not http or https").
	Skipped []SkipCount `json:"skipped,omitempty"`
	// Span is the recorded time from the first entry to the last.
	Span time.Duration `json:"span_ns"`
	// Resolution is the recording's clock resolution: one second for an
	// access log, whose requests in each second are spread evenly across
	// it; one millisecond for HAR.
	Resolution time.Duration `json:"resolution_ns,omitempty"`
	// Unordered counts the entries recorded out of time order; the replay
	// sends them in time order.
	Unordered int64 `json:"unordered,omitempty"`
	// NoBody counts the replayed requests whose method usually carries a
	// body (POST, PUT, PATCH) sent without one because the file holds
	// none (an access log never does).
	NoBody int64 `json:"no_body,omitempty"`
}

// HostCount is the number of recorded requests for one host.
type HostCount struct {
	Host  string `json:"host"`
	Count int64  `json:"count"`
}

// SkipCount is the number of recorded requests skipped for one reason.
type SkipCount struct {
	Reason string `json:"reason"`
	Count  int64  `json:"count"`
}

// RequestSLO is the objective of one request of a workload, by name.
type RequestSLO struct {
	Name         string        `json:"name"`
	Percentile   float64       `json:"percentile,omitempty"`
	Latency      time.Duration `json:"latency_ns,omitempty"`
	MaxErrorRate *float64      `json:"max_error_rate,omitempty"`
}

// RampRequestStep is what one request of a workload (or one group of a
// replay's requests) measured in a step, counted as the step counts its
// requests.
type RampRequestStep struct {
	Name string `json:"name"`
	// Sent counts this request's sends in the window, and Share is its
	// part of the step's sends.
	Sent      int64        `json:"sent"`
	Share     float64      `json:"share"`
	Requests  int64        `json:"requests"` // completed in the window
	Successes int64        `json:"successes"`
	Errors    []ErrorCount `json:"errors,omitempty"`
	ErrorRate float64      `json:"error_rate"`
	// Throughput is successful requests/s of this request.
	Throughput float64 `json:"throughput"`
	// Latency is of its successful requests and its requests in flight at
	// the window's end, measured as the step's Latency is.
	Latency Latency `json:"latency"`
	// SLOMet and SLOMiss are set when the SLO has an objective for this
	// request.
	SLOMet  bool   `json:"slo_met,omitempty"`
	SLOMiss string `json:"slo_miss,omitempty"`
	// Histogram is the HDR histogram behind Latency, encoded as
	// StepHistograms' are, for merging shards.
	Histogram string `json:"histogram,omitempty"`
}
