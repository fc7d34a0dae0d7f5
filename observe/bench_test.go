package observe

import (
	"context"
	"flag"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSnapshot measures one system sample: the observer's cost per
// tick.
func BenchmarkSnapshot(b *testing.B) {
	rd, err := newReader()
	if err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rd.read(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMark measures Mark, which runs between a harness's timed
// batches.
func BenchmarkMark(b *testing.B) {
	for _, tc := range []struct {
		name string
		self bool
		opts []Option
	}{
		{"external", false, nil},
		{"external-nostorage", false, []Option{WithoutStorageIO()}}, // rigor exec's
		{"self", true, nil},
	} {
		b.Run(tc.name, func(b *testing.B) {
			o := start(context.Background(), time.Hour, tc.self, tc.opts)
			defer o.Stop()
			b.ReportAllocs()
			for b.Loop() {
				o.Mark("X", "a", 1)
			}
		})
	}
}

// BenchmarkRuntimeSample measures one runtime/metrics delta.
func BenchmarkRuntimeSample(b *testing.B) {
	r := NewRuntimeSampler()
	b.ReportAllocs()
	for b.Loop() {
		r.Sample()
	}
}

var overhead = flag.Duration("overhead", 0, "measure the observer's own CPU over this long (e.g. 10s)")

// TestOverhead measures, with getrusage, the CPU this process uses while
// an Observer samples at the default rate and nothing else runs. It only
// runs with -overhead, since it takes that long and its number is a
// measurement to report, not a property to assert.
func TestOverhead(t *testing.T) {
	if *overhead <= 0 {
		t.Skip("run with -overhead=10s to measure the observer's CPU cost")
	}
	runtime.GC()
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	t0 := time.Now()
	o := Start(context.Background(), 0)
	time.Sleep(*overhead)
	obs := o.Stop()
	wall := time.Since(t0)
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := time.Duration(r1.Utime.Nano()-r0.Utime.Nano()) + time.Duration(r1.Stime.Nano()-r0.Stime.Nano())
	t.Logf("wall %v, process CPU %v (user %v, sys %v) = %.3f%% of one CPU; observer thread CPU %.4fs; %d samples",
		wall.Round(time.Millisecond), cpu, time.Duration(r1.Utime.Nano()-r0.Utime.Nano()), time.Duration(r1.Stime.Nano()-r0.Stime.Nano()),
		100*cpu.Seconds()/wall.Seconds(), obs[0].System.ObserverCPUSec, obs[0].System.Samples)
}

// BenchmarkSelfIO measures one read of this process's storage counters,
// which the Observer takes at every boundary.
func BenchmarkSelfIO(b *testing.B) {
	s := openSelfIO()
	if s == nil {
		b.Skip("no /proc/self/io")
	}
	defer s.close()
	b.ReportAllocs()
	for b.Loop() {
		if !s.read().ok {
			b.Fatal("unreadable")
		}
	}
}
