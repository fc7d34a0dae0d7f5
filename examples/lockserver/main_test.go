package main

import (
	"context"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/rigorbench/rigor/load"
	"github.com/rigorbench/rigor/model"
)

// Ramped from 1 to 64 connections, the lock-bound server stops scaling:
// throughput flattens or falls, Amdahl's alpha is positive, and the
// report names the server as lock-bound because its process left the
// CPUs idle while requests queued.
func TestRampFindsTheLock(t *testing.T) {
	if testing.Short() {
		t.Skip("times the live machine: how throughput scales depends on the CPUs free; run without -short")
	}
	h := &handler{work: time.Millisecond, locked: 250 * time.Microsecond}
	srv := httptest.NewServer(h)
	defer srv.Close()
	target, err := load.NewHTTP(load.HTTP{URL: srv.URL, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	conc, _ := load.ParseConcurrency("1..64x2")
	r, err := load.Ramp(context.Background(), target, load.Config{
		Concurrency: conc,
		Warmup:      50 * time.Millisecond,
		Duration:    300 * time.Millisecond,
		PID:         os.Getpid(), // the server runs in this process
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Steps {
		t.Logf("concurrency %2d: %6.0f/s p99 %v", s.Concurrency, s.Throughput, s.Latency.P99)
	}
	if r.Bottleneck != nil {
		t.Logf("%s", r.Bottleneck.Summary)
	}

	if len(r.Steps) != len(conc) {
		t.Fatalf("%d steps, want %d (stopped: %s)", len(r.Steps), len(conc), r.Stopped)
	}
	x1, x64 := r.Steps[0].Throughput, r.Steps[len(r.Steps)-1].Throughput
	// Linear scaling would give 64 × x1. The lock allows at most about
	// (work + locked) / locked = 5× (less as sleeps overshoot).
	if x64 > 16*x1 {
		t.Errorf("throughput went from %.0f/s at 1 to %.0f/s at 64: it did not flatten", x1, x64)
	}
	if r.Amdahl == nil || r.Amdahl.Alpha <= 0.05 {
		t.Errorf("Amdahl fit %+v, want alpha > 0.05", r.Amdahl)
	}
	if r.Bottleneck == nil || r.Bottleneck.Kind != model.BottleneckLock {
		t.Errorf("bottleneck %+v, want %s", r.Bottleneck, model.BottleneckLock)
	}
}
