package model

import "time"

// An Observation is what the system and the measured processes did over
// one interval of a run. Rates are per second over the interval; CPU
// fractions are of all logical CPUs (0..1).
type Observation struct {
	Start     time.Time     `json:"start"`
	Duration  time.Duration `json:"duration_ns"`
	Benchmark string        `json:"benchmark,omitempty"` // Benchmark.Key, when the interval ran one benchmark
	Side      string        `json:"side,omitempty"`
	Round     int           `json:"round,omitempty"`

	System  *SystemStats  `json:"system,omitempty"`
	Process *ProcessStats `json:"process,omitempty"`
	Runtime *RuntimeStats `json:"runtime,omitempty"`
}

// SystemStats is the whole machine over an interval.
type SystemStats struct {
	User    float64 `json:"user"`
	System  float64 `json:"system"`
	IOWait  float64 `json:"iowait"`
	Steal   float64 `json:"steal"`
	Idle    float64 `json:"idle"`
	Load1   float64 `json:"load1"`
	Running int     `json:"procs_running"`
	// CtxSwitches is context switches per second.
	CtxSwitches  float64 `json:"ctx_switches_per_sec"`
	DiskReadBps  float64 `json:"disk_read_bytes_per_sec"`
	DiskWriteBps float64 `json:"disk_write_bytes_per_sec"`
	NetRxBps     float64 `json:"net_rx_bytes_per_sec"`
	NetTxBps     float64 `json:"net_tx_bytes_per_sec"`
	FreqMHz      float64 `json:"freq_mhz,omitempty"`
	// PSI are pressure stall "some avg10" percentages, when present.
	CPUPressure    float64 `json:"cpu_pressure,omitempty"`
	MemoryPressure float64 `json:"memory_pressure,omitempty"`
	IOPressure     float64 `json:"io_pressure,omitempty"`
}

// ProcessStats is one measured process (a go test binary, or a ramp
// target) over an interval.
type ProcessStats struct {
	PID            int     `json:"pid,omitempty"`
	UserSec        float64 `json:"user_sec"`
	SystemSec      float64 `json:"system_sec"`
	VoluntaryCtx   int64   `json:"voluntary_ctx_switches"`
	InvoluntaryCtx int64   `json:"involuntary_ctx_switches"`
	MaxRSSBytes    int64   `json:"max_rss_bytes,omitempty"`
}

// RuntimeStats is Go's runtime/metrics over an interval of an in-process run.
type RuntimeStats struct {
	GCCPUFraction    float64       `json:"gc_cpu_fraction"`
	GCCycles         uint64        `json:"gc_cycles"`
	HeapAllocBytes   uint64        `json:"heap_alloc_bytes"`
	HeapAllocObjects uint64        `json:"heap_alloc_objects"`
	SchedLatencyP99  time.Duration `json:"sched_latency_p99_ns"`
	MutexWait        time.Duration `json:"mutex_wait_ns"`
}
