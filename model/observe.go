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
	Profile *ProfileStats `json:"profile,omitempty"`
	// StorageIO is the storage I/O of rigor's own process over the
	// interval, from Linux's task I/O accounting (/proc/self/io) at its
	// ends. A reaped child's accounting is added to its parent's, so it
	// holds that of every measured process rigor started and waited for
	// in the interval (and of their descendants), and in-process the
	// measured code's: unlike System's disk counters, it leaves out what
	// other processes on the machine read and wrote. Absent where the
	// kernel keeps no such accounting.
	StorageIO *StorageIO `json:"storage_io,omitempty"`

	// OtherCPU is the fraction of all logical CPUs (0..1) that processes
	// other than the measured ones used during the interval: total busy
	// CPU minus Process's CPU. It is absent when Process or System is.
	OtherCPU float64 `json:"other_cpu,omitempty"`
	// RigorCPUSec is the CPU time rigor's own process spent during the
	// interval (starting and waiting for the measured process, reading
	// its output, the observer's sampling), when it measures separate
	// processes: not another process competing with the measured one.
	RigorCPUSec float64 `json:"rigor_cpu_sec,omitempty"`
}

// SystemStats is the whole machine over an interval.
type SystemStats struct {
	// CPUs is the number of logical CPUs the fractions below are of.
	CPUs   int     `json:"cpus,omitempty"`
	User   float64 `json:"user"`
	System float64 `json:"system"`
	IOWait float64 `json:"iowait"`
	Steal  float64 `json:"steal"`
	Idle   float64 `json:"idle"`
	Load1  float64 `json:"load1"`
	// Running is the mean number of runnable threads (procs_running),
	// not counting the observer's own.
	Running int `json:"procs_running"`
	// CtxSwitches is context switches per second.
	CtxSwitches  float64 `json:"ctx_switches_per_sec"`
	DiskReadBps  float64 `json:"disk_read_bytes_per_sec"`
	DiskWriteBps float64 `json:"disk_write_bytes_per_sec"`
	NetRxBps     float64 `json:"net_rx_bytes_per_sec"`
	NetTxBps     float64 `json:"net_tx_bytes_per_sec"`
	// FreqMHz is the mean CPU frequency over the samples in the interval,
	// FreqMinMHz and FreqMaxMHz its extremes across CPUs and samples.
	FreqMHz    float64 `json:"freq_mhz,omitempty"`
	FreqMinMHz float64 `json:"freq_min_mhz,omitempty"`
	FreqMaxMHz float64 `json:"freq_max_mhz,omitempty"`
	// Pressure stall information, when present: the percentage of the
	// interval in which some task was stalled on the resource (from the
	// "some total" counters of /proc/pressure).
	CPUPressure    float64 `json:"cpu_pressure,omitempty"`
	MemoryPressure float64 `json:"memory_pressure,omitempty"`
	IOPressure     float64 `json:"io_pressure,omitempty"`
	// Samples is how many system snapshots fell inside the interval; 0
	// means the interval was shorter than the sampling period and its
	// values are interpolated from the snapshots around it.
	Samples int `json:"samples"`
	// ObserverCPUSec is the CPU time the observer itself spent sampling.
	ObserverCPUSec float64 `json:"observer_cpu_sec,omitempty"`
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

// StorageIO is what a process (and the children it reaped) caused to be
// read from and written to storage over an interval, in bytes, as the
// kernel's task I/O accounting counts it.
type StorageIO struct {
	// ReadBytes were fetched from storage: reads the page cache served
	// are not in it.
	ReadBytes int64 `json:"read_bytes"`
	// WriteBytes were written to storage, or dirtied in the page cache to
	// be written back; a buffered write is counted when it dirties a
	// page, not when the page reaches the device.
	WriteBytes int64 `json:"write_bytes"`
	// CancelledWriteBytes are dirty pages the process truncated or
	// deleted before they were written back: written, but never to a
	// device. WriteBytes - CancelledWriteBytes is what went, or will go,
	// to storage (a page dirtied in an earlier interval and dropped in
	// this one can make it negative).
	CancelledWriteBytes int64 `json:"cancelled_write_bytes"`
}

// RuntimeStats is Go's runtime/metrics over an interval of an in-process run.
type RuntimeStats struct {
	GCCPUFraction    float64       `json:"gc_cpu_fraction"`
	GCCycles         uint64        `json:"gc_cycles"`
	HeapAllocBytes   uint64        `json:"heap_alloc_bytes"`
	HeapAllocObjects uint64        `json:"heap_alloc_objects"`
	SchedLatencyP99  time.Duration `json:"sched_latency_p99_ns"`
	MutexWait        time.Duration `json:"mutex_wait_ns"`
	// GOMAXPROCS at the end of the interval: MutexWait is spread over
	// this many Ps.
	GOMAXPROCS int `json:"gomaxprocs,omitempty"`
}

// ProfileStats is a CPU profile of a measured process, summarised by where
// its CPU time went. Shares are fractions (0..1) of the sampled CPU time; a
// sample counts once, in the first of GC, Lock, Scheduler, Syscall, Alloc
// whose functions are on its stack, and in none of them otherwise.
type ProfileStats struct {
	Samples   int64   `json:"samples"`
	CPUSec    float64 `json:"cpu_sec"`
	GC        float64 `json:"gc"`        // garbage collector, including assists
	Lock      float64 `json:"lock"`      // mutex slow paths: spinning and parking
	Syscall   float64 `json:"syscall"`   // system calls
	Scheduler float64 `json:"scheduler"` // the goroutine scheduler
	Alloc     float64 `json:"alloc"`     // allocation outside GC work
	// FileIO is the share of samples with a file read, write or sync on
	// the stack (os.File methods, fsync, pread, pwrite), whichever class
	// above they count in: how much of the CPU went to file I/O.
	FileIO float64 `json:"file_io,omitempty"`
	// Top lists the functions with the most samples on their own
	// (flat), most first.
	Top []FuncShare `json:"top,omitempty"`
}

// A FuncShare is one function's share of a profile's CPU samples.
type FuncShare struct {
	Func  string  `json:"func"`
	Share float64 `json:"share"`
}
