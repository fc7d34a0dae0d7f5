package gotest

import (
	"fmt"
	"time"

	"github.com/rigorbench/rigor/model"
)

// CPUUnit is the unit of the CPU time a benchmark's process spent per
// operation (user plus system time, start-up removed): task-clock in perf
// stat's words, CPU time beside real time in Google Benchmark's. In the
// side's benchmark file it is written as cpu-ns/op, which benchstat tidies
// to the same unit.
const CPUUnit = "cpu-sec/op"

// addCPU adds the CPU time per operation to r: the process's CPU time
// less startCPU, the fixed cost of starting the process and the benchmark
// (measured by calibrate), over r's iterations. Nothing is added when the
// difference is not positive: the estimate of the fixed cost was above
// what this process spent in all, and no per-operation figure follows.
func addCPU(r *Result, cpu, startCPU time.Duration) {
	net := (cpu - startCPU).Seconds()
	if net <= 0 || r.Iters <= 0 {
		return
	}
	v := net / float64(r.Iters)
	r.Values = append(r.Values, Value{Unit: CPUUnit, Value: v, Better: model.LowerIsBetter, Assume: model.AssumeNothing})
	r.Line += fmt.Sprintf(" %s cpu-ns/op", formatNs(v*1e9))
}

// formatNs formats nanoseconds as go test prints ns/op: whole numbers
// from 100 up, more digits below.
func formatNs(ns float64) string {
	switch {
	case ns >= 100:
		return fmt.Sprintf("%.0f", ns)
	case ns >= 10:
		return fmt.Sprintf("%.1f", ns)
	default:
		return fmt.Sprintf("%.2f", ns)
	}
}

// processCPU is the user plus system CPU time of a process that ended.
func processCPU(out *Output) time.Duration {
	return out.State.UserTime() + out.State.SystemTime()
}
