package observe_test

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
)

// An A/B driver marks each side and round, runs the go test binary, and
// attaches the process's resource usage; Stop returns one Observation per
// marked interval. Annotate later turns them into notes.
func Example() {
	ctx := context.Background()
	o := observe.Start(ctx, 0) // 0: observe.DefaultInterval
	for round := 1; round <= 2; round++ {
		for _, side := range []string{"old", "new"} {
			o.Mark("", side, round)                 // "": the process runs every benchmark
			cmd := exec.CommandContext(ctx, "true") // stands in for old.test -test.bench=.
			if err := cmd.Run(); err != nil {
				fmt.Println(err)
				return
			}
			o.AddProcess(observe.ProcessStats(cmd.ProcessState))
			o.Pause() // parsing output and the like belong to no side
		}
	}
	for _, ob := range o.Stop() {
		fmt.Println(ob.Side, ob.Round, ob.Process != nil)
	}
	// Output:
	// old 1 true
	// new 1 true
	// old 2 true
	// new 2 true
}

// In-process runs (the harness) use StartSelf: each interval also carries
// this process's rusage and Go runtime metrics.
func ExampleStartSelf() {
	o := observe.StartSelf(context.Background(), 0)
	o.Mark("Fib/n=20", "recursive", 1)
	_ = fib(20)
	obs := o.Stop()
	fmt.Println(len(obs), obs[0].Benchmark, obs[0].Runtime != nil)
	// Output: 1 Fib/n=20 true
}

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

// A RuntimeSampler reports what the Go runtime did between two Samples.
func ExampleRuntimeSampler() {
	r := observe.NewRuntimeSampler()
	buf := make([][]byte, 0, 16)
	for range 16 {
		buf = append(buf, make([]byte, 1<<20))
	}
	s := r.Sample()
	fmt.Println(len(buf), s.HeapAllocBytes >= 16<<20)
	// Output: 16 true
}

// ProcessStats reads an exited process's rusage.
func ExampleProcessStats() {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		fmt.Println(err)
		return
	}
	p := observe.ProcessStats(cmd.ProcessState)
	fmt.Println(p.PID == cmd.Process.Pid, p.MaxRSSBytes > 0)
	// Output: true true
}

// Annotate reads what was recorded and writes plain-words notes. Here one
// benchmark ran while other processes kept most of the CPU busy, and a
// sub-nanosecond benchmark looks optimized away.
func ExampleAnnotate() {
	busy := model.Observation{
		Duration:  time.Second,
		Benchmark: "Parse",
		System:    &model.SystemStats{CPUs: 2, User: 0.9, System: 0.1, Load1: 2.2},
		Process:   &model.ProcessStats{UserSec: 0.98, SystemSec: 0.02, VoluntaryCtx: 40, InvoluntaryCtx: 30},
		OtherCPU:  0.5,
	}
	run := &model.Run{
		Sides:        []model.Side{{Label: "base"}},
		Observations: []model.Observation{busy},
		Benchmarks: []model.Benchmark{
			{Name: "Parse"},
			{Name: "Elided", Metrics: []model.Metric{{Unit: "sec/op", Samples: []model.Sample{
				{Side: "base", Value: 0.3017e-9}, {Side: "base", Value: 0.2945e-9}, {Side: "base", Value: 0.3055e-9},
			}}}},
		},
	}
	observe.Annotate(run)
	for _, n := range run.Notes {
		fmt.Println("run:", n)
	}
	for _, b := range run.Benchmarks {
		for _, n := range b.Notes {
			fmt.Printf("%s: %s\n", b.Name, n)
		}
	}
	// Output:
	// run: the machine was busy: other processes used 50% of the CPU during the run; the numbers may reflect the machine, not the code
	// Parse: bottleneck: CPU in user code (98% of the process's CPU time was user time, 1.00 CPUs busy)
	// Elided: likely optimized away: 0.302 ns/op varying 1.9% across samples; a loop this fast and this steady usually does no work, so the compiler may have removed what it was meant to measure
}

// After Annotate, a driver disassembles the benchmarks LikelyElided
// reports, in the test binary it built for their side. On seed 003's
// package this prints:
//
//	confirmed from the disassembly: the loop in benchlab.BenchmarkElided has
//	no call and no work (INCQ CX; CMPQ 0x210(AX), CX; JG 0x52ee04), so the
//	benchmark measures an empty loop
func ExampleConfirmElision() {
	ctx := context.Background()
	run := &model.Run{Benchmarks: []model.Benchmark{{
		Name: "Elided", Pkg: "github.com/rigorbench/rigor/examples/benchlab",
		Metrics: []model.Metric{{Unit: "sec/op", Samples: []model.Sample{{Side: "base", Value: 0.3e-9}}}},
	}}}
	observe.Annotate(run)
	for i := range run.Benchmarks {
		b := &run.Benchmarks[i]
		if !observe.LikelyElided(b) {
			continue
		}
		note, err := observe.ConfirmElision(ctx, "base.test", b) // go test -c -o base.test ./examples/benchlab
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(note)
	}
}

// CaptureEnv records the machine; rigor env prints it.
func ExampleCaptureEnv() {
	env := observe.CaptureEnv(context.Background())
	fmt.Println(env.GOOS != "", env.LogicalCores > 0)
	// Output: true true
}
