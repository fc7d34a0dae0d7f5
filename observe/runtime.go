package observe

import (
	"math"
	"runtime/metrics"
	"slices"
	"time"

	"github.com/rigorbench/rigor/model"
)

// The runtime/metrics this package reads, in the order of runtimeSample.
var runtimeMetricNames = []string{
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/total:cpu-seconds",
	"/cpu/classes/idle:cpu-seconds",
	"/gc/cycles/total:gc-cycles",
	"/gc/heap/allocs:bytes",
	"/gc/heap/allocs:objects",
	"/sched/latencies:seconds",
	"/sync/mutex/wait/total:seconds",
	"/sched/gomaxprocs:threads",
}

const (
	rmGCCPU = iota
	rmTotalCPU
	rmIdleCPU
	rmGCCycles
	rmAllocBytes
	rmAllocObjects
	rmSchedLat
	rmMutexWait
	rmGOMAXPROCS
)

// A RuntimeSampler reads Go's runtime/metrics for the current process and
// reports what changed between readings. It is for in-process runs (the
// harness); a go test binary's runtime is out of reach, so for those use
// ProcessStats and ReadCPUProfile.
//
// A RuntimeSampler is not safe for concurrent use.
type RuntimeSampler struct {
	samples []metrics.Sample
	prev    runtimeReading
}

type runtimeReading struct {
	gcCPU, totalCPU, idleCPU float64
	gcCycles                 uint64
	allocBytes, allocObjects uint64
	mutexWait                float64
	schedCounts              []uint64
	schedBuckets             []float64
	gomaxprocs               int
}

// NewRuntimeSampler returns a sampler whose first Sample reports the
// changes since this call.
func NewRuntimeSampler() *RuntimeSampler {
	r := &RuntimeSampler{samples: make([]metrics.Sample, len(runtimeMetricNames))}
	for i, name := range runtimeMetricNames {
		r.samples[i].Name = name
	}
	r.prev = r.read()
	return r
}

func (r *RuntimeSampler) read() runtimeReading {
	metrics.Read(r.samples)
	f := func(i int) float64 {
		if r.samples[i].Value.Kind() == metrics.KindFloat64 {
			return r.samples[i].Value.Float64()
		}
		return 0
	}
	u := func(i int) uint64 {
		if r.samples[i].Value.Kind() == metrics.KindUint64 {
			return r.samples[i].Value.Uint64()
		}
		return 0
	}
	rd := runtimeReading{
		gcCPU: f(rmGCCPU), totalCPU: f(rmTotalCPU), idleCPU: f(rmIdleCPU),
		gcCycles: u(rmGCCycles), allocBytes: u(rmAllocBytes), allocObjects: u(rmAllocObjects),
		mutexWait: f(rmMutexWait), gomaxprocs: int(u(rmGOMAXPROCS)),
	}
	if v := r.samples[rmSchedLat].Value; v.Kind() == metrics.KindFloat64Histogram {
		h := v.Float64Histogram()
		rd.schedCounts = slices.Clone(h.Counts)
		rd.schedBuckets = h.Buckets // immutable for the life of the process
	}
	return rd
}

// Sample returns what the runtime did since the previous Sample (or
// NewRuntimeSampler). GCCPUFraction is GC CPU time over the CPU time the Go
// runtime used (its total minus idle), both as runtime/metrics estimates
// them; SchedLatencyP99 is the upper bound of the histogram bucket holding
// the 99th percentile of the interval's scheduling latencies.
func (r *RuntimeSampler) Sample() *model.RuntimeStats {
	cur := r.read()
	prev := r.prev
	r.prev = cur
	s := &model.RuntimeStats{
		GCCycles:         cur.gcCycles - prev.gcCycles,
		HeapAllocBytes:   cur.allocBytes - prev.allocBytes,
		HeapAllocObjects: cur.allocObjects - prev.allocObjects,
		MutexWait:        seconds(cur.mutexWait - prev.mutexWait),
		GOMAXPROCS:       cur.gomaxprocs,
	}
	if used := (cur.totalCPU - prev.totalCPU) - (cur.idleCPU - prev.idleCPU); used > 0 {
		s.GCCPUFraction = min(1, max(0, (cur.gcCPU-prev.gcCPU)/used))
	}
	if len(cur.schedCounts) == len(prev.schedCounts) {
		delta := make([]uint64, len(cur.schedCounts))
		for i := range delta {
			delta[i] = cur.schedCounts[i] - prev.schedCounts[i]
		}
		s.SchedLatencyP99 = seconds(histQuantile(delta, cur.schedBuckets, 0.99))
	}
	return s
}

// histQuantile returns the upper bound of the bucket holding quantile q of
// a runtime/metrics histogram (counts[i] is between buckets[i] and
// buckets[i+1]); the lower bound when the upper is infinite; 0 for an
// empty histogram.
func histQuantile(counts []uint64, buckets []float64, q float64) float64 {
	var total uint64
	for _, c := range counts {
		total += c
	}
	if total == 0 || len(buckets) != len(counts)+1 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(total)))
	var cum uint64
	for i, c := range counts {
		cum += c
		if cum >= rank {
			if hi := buckets[i+1]; !math.IsInf(hi, 1) {
				return hi
			}
			return max(0, buckets[i])
		}
	}
	return 0
}

func seconds(s float64) time.Duration {
	return time.Duration(math.Round(max(0, s) * 1e9))
}
