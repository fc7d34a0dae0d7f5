package load

import (
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// step builds a closed-loop step for hand-made ramps.
func step(i, conc int, thr float64, p99 time.Duration, target *model.TargetStats) model.RampStep {
	return model.RampStep{Index: i, Concurrency: conc, Throughput: thr, Successes: int64(thr), Requests: int64(thr),
		Latency: model.Latency{P99: p99}, Valid: true, Target: target}
}

func ts(cpu, demand, user, sys float64) *model.TargetStats {
	t := &model.TargetStats{CPU: cpu, Demand: demand}
	t.PID = 1
	t.UserSec, t.SystemSec = user, sys
	return t
}

func rampOf(steps ...model.RampStep) *model.Ramp {
	r := &model.Ramp{Mode: model.RampClosed, Protocol: "HTTP/1.1", CPUs: 2, Steps: steps}
	for i := 1; i < len(r.Steps); i++ {
		best := 0.0
		for _, s := range r.Steps[:i] {
			best = max(best, s.Throughput)
		}
		r.Steps[i].Gain = r.Steps[i].Throughput/best - 1
	}
	fitRamp(r)
	return r
}

func TestDiagnose(t *testing.T) {
	ms := time.Millisecond
	flat := func(target func(i int) *model.TargetStats) *model.Ramp {
		return rampOf(
			step(0, 1, 1000, 2*ms, target(0)),
			step(1, 2, 1800, 3*ms, target(1)),
			step(2, 4, 2400, 5*ms, target(2)),
			step(3, 8, 2500, 9*ms, target(3)),
			step(4, 16, 2450, 18*ms, target(4)),
		)
	}
	tests := []struct {
		name string
		r    *model.Ramp
		kind string
		says string
	}{
		{
			name: "idle CPUs while flat: lock-bound",
			r:    flat(func(int) *model.TargetStats { return ts(0.10, 0.12, 0.1, 0.1) }),
			kind: model.BottleneckLock, says: "asked for only 12%",
		},
		{
			name: "busy CPUs, user time: cpu-bound",
			r:    flat(func(int) *model.TargetStats { return ts(0.95, 0.97, 1.8, 0.1) }),
			kind: model.BottleneckCPU, says: "cpu-bound",
		},
		{
			name: "busy CPUs, kernel time: lock-bound in the kernel",
			r:    flat(func(int) *model.TargetStats { return ts(0.95, 0.97, 0.3, 1.6) }),
			kind: model.BottleneckLock, says: "in the kernel",
		},
		{
			name: "a neighbour took the CPUs: the target wanted them, cpu-bound",
			r:    flat(func(int) *model.TargetStats { return ts(0.30, 0.95, 0.5, 0.1) }),
			kind: model.BottleneckCPU, says: "other processes",
		},
		{
			name: "no target stats: inconclusive",
			r:    flat(func(int) *model.TargetStats { return nil }),
			kind: model.BottleneckInconclusive, says: "--pid",
		},
		{
			name: "still rising",
			r: rampOf(
				step(0, 1, 1000, ms, nil),
				step(1, 2, 2000, ms, nil),
				step(2, 4, 3900, ms, nil),
			),
			kind: model.BottleneckScaling, says: "ramp further",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := diagnose(tt.r)
			if b.Kind != tt.kind || !strings.Contains(b.Summary, tt.says) {
				t.Errorf("got %s: %q\nwant %s, mentioning %q", b.Kind, b.Summary, tt.kind, tt.says)
			}
		})
	}

	// A generator that saturated after the peak: client-bound.
	r := flat(func(int) *model.TargetStats { return ts(0.2, 0.2, 0.1, 0.1) })
	r.Steps[4].Valid = false
	r.Steps[4].Invalid = "the generator used 97% of 2 CPUs: it was saturated"
	if b := diagnose(r); b.Kind != model.BottleneckClient {
		t.Errorf("saturated generator: got %s: %s", b.Kind, b.Summary)
	}
}

func TestHeadline(t *testing.T) {
	ms := time.Millisecond
	r := rampOf(
		step(0, 1, 1000, 2*ms, nil),
		step(1, 2, 1900, 4*ms, nil),
		step(2, 4, 3000, 20*ms, nil),
		step(3, 8, 3200, 80*ms, nil), // the peak, but its p99 breaks the SLO
		step(4, 16, 2900, 300*ms, nil),
	)
	slo, _ := ParseSLO("p99=50ms", nil)
	for i := range r.Steps {
		checkSLO(&r.Steps[i], slo)
	}
	h := headline(r, slo)
	if h.Basis != "slo" || h.Concurrency != 4 || h.Throughput != 3000 || h.P99 != 20*ms || h.PeakThroughput != 3200 {
		t.Errorf("SLO headline = %+v, want concurrency 4 at 3000/s with p99 20ms (peak 3200)", h)
	}

	// Without an SLO: the first step within 10% of the best (3200): 3000.
	h = headline(r, nil)
	if h.Basis != "knee" || h.Concurrency != 4 {
		t.Errorf("knee headline = %+v, want concurrency 4", h)
	}

	// An SLO on p90 reports that percentile too.
	r.Steps[2].Latency.P90 = 9 * ms
	slo90, _ := ParseSLO("p90=10ms", nil)
	for i := range r.Steps {
		r.Steps[i].Latency.P90 = r.Steps[i].Latency.P99 / 2
		checkSLO(&r.Steps[i], slo90)
	}
	h = headline(r, slo90)
	if h.Percentile != 90 || h.Latency != 10*ms || h.Concurrency != 4 {
		t.Errorf("p90 headline = %+v, want concurrency 4 with p90 10ms", h)
	}

	// Invalid steps never make the headline.
	for i := range r.Steps {
		r.Steps[i].Valid = false
	}
	if h = headline(r, nil); h.Basis != "none" || h.Step != -1 {
		t.Errorf("all invalid: %+v", h)
	}
}

func TestCheckSLO(t *testing.T) {
	rate := 0.01
	slo := &model.RampSLO{Percentile: 99, Latency: 50 * time.Millisecond, MaxErrorRate: &rate}
	tests := []struct {
		p99  time.Duration
		errs float64
		ok   bool
		miss string
	}{
		{40 * time.Millisecond, 0, true, ""},
		{50 * time.Millisecond, 0.01, true, ""},
		{60 * time.Millisecond, 0, false, "p99 60ms > 50ms"},
		{10 * time.Millisecond, 0.02, false, "errors 2.00% > 1.00%"},
	}
	for _, tt := range tests {
		s := step(0, 1, 100, tt.p99, nil)
		s.ErrorRate = tt.errs
		checkSLO(&s, slo)
		if s.SLOMet != tt.ok || s.SLOMiss != tt.miss {
			t.Errorf("p99 %v errors %v: met %v %q, want %v %q", tt.p99, tt.errs, s.SLOMet, s.SLOMiss, tt.ok, tt.miss)
		}
	}
}
