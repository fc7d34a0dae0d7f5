package model

import "time"

// RampShard says that a ramp ran one load generator's share of every step
// (rigor ramp --shard I/N): the steps' concurrency or rate were divided
// among Count generators, and the shards' results are merged into the ramp
// one generator would have reported (rigor ramp merge, load.MergeShards).
type RampShard struct {
	// Index is this generator's share, from 0 to Count-1.
	Index int `json:"index"`
	Count int `json:"count"`
	// Concurrency and Rates are the whole ramp's planned steps, which the
	// shards divide; one of them is set, as the ramp's mode says.
	Concurrency []int     `json:"concurrency,omitempty"`
	Rates       []float64 `json:"rates,omitempty"`
	// Config fingerprints what every shard of one ramp must share (the
	// request, the steps, their timing, the SLO); shards whose fingerprints
	// differ are not merged.
	Config string `json:"config,omitempty"`
	// Start is when the first step was planned to begin (--start-at), so
	// that the shards' steps coincide; zero when each started on its own.
	Start time.Time `json:"start,omitzero"`
}

// StepHistograms are a step's latency histograms in the HdrHistogram V2
// compressed encoding (base64, as HdrHistogram's tools log them), so that
// steps measured by several generators merge without loss.
type StepHistograms struct {
	// Latency is the histogram behind RampStep.Latency, Service behind
	// ServiceLatency (open loop) and Errors behind ErrorLatency; empty
	// when the step recorded none.
	Latency string `json:"latency,omitempty"`
	Service string `json:"service,omitempty"`
	Errors  string `json:"errors,omitempty"`
	// SendLag is the histogram behind RampStep.SendLag.
	SendLag string `json:"send_lag,omitempty"`
}

// ShardStep is one shard's part in a merged step.
type ShardStep struct {
	Shard        int           `json:"shard"`
	Concurrency  int           `json:"concurrency"`
	Rate         float64       `json:"rate,omitempty"`
	Throughput   float64       `json:"throughput"`
	Achieved     float64       `json:"achieved_rate"`
	P99          time.Duration `json:"p99_ns"`
	GeneratorCPU float64       `json:"generator_cpu"`
	WindowStart  time.Time     `json:"window_start,omitzero"`
	Valid        bool          `json:"valid"`
	Invalid      string        `json:"invalid,omitempty"`
}
