package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/examples/lockbound"
	"github.com/rigorbench/rigor/model"
)

var (
	capture     = flag.Bool("capture", false, "run real workloads on this machine and rewrite the fixtures in testdata (slow)")
	captureWait = flag.Duration("capture-wait", 20*time.Minute, "with -capture, how long to wait for a quiet machine before each workload")
)

// waitQuiet waits until other processes use under 10% of the CPU over a
// second, so that what a fixture shows is the workload, not the
// neighbours. It gives up after -capture-wait and says so.
func waitQuiet(t *testing.T, what string) {
	deadline := time.Now().Add(*captureWait)
	for {
		s, err := SampleMachine(t.Context(), time.Second)
		if err == nil && s.System != nil && s.OthersCPUShare < 0.10 {
			return
		}
		if time.Now().After(deadline) {
			t.Logf("%s: the machine did not become quiet (others %.0f%%); recording anyway", what, 100*s.OthersCPUShare)
			return
		}
		time.Sleep(5 * time.Second)
	}
}

// TestCapture records the fixtures the classification tests read: real
// observations of a lock-bound benchmark, a CPU-bound one beside a CPU hog,
// an idle process, and in-process runs. It runs only with -capture; the
// other tests never measure anything live.
func TestCapture(t *testing.T) {
	if !*capture {
		t.Skip("run with -capture to re-record testdata/*.json from live workloads")
	}
	ctx := context.Background()
	env := CaptureEnv(ctx)
	env.CommandLine = nil
	env.Hostname = "recorded"
	dir := t.TempDir()
	build := func(pkg string) string {
		bin := filepath.Join(dir, filepath.Base(pkg)+".test")
		out, err := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("building %s: %v\n%s", pkg, err, out)
		}
		return bin
	}
	lockBin := build("../examples/lockbound")
	labBin := build("../examples/benchlab")

	// rounds runs a go test binary once per round under an Observer, with a
	// CPU profile, and returns the Run it produced.
	rounds := func(name, bin, bench, side string, n int, extra ...string) *model.Run {
		var out bytes.Buffer
		o := Start(ctx, 0)
		for r := range n {
			prof := filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", name, r))
			args := append([]string{"-test.run=^$", "-test.bench=" + bench + "$", "-test.benchtime=1s"}, extra...)
			args = append(args, CPUProfileArgs(prof)...)
			o.Mark(strings.TrimPrefix(bench, "^Benchmark"), side, r)
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v", bin, err)
			}
			o.AddProcess(ProcessStats(cmd.ProcessState))
			if f, err := os.Open(prof); err == nil {
				p, err := ReadCPUProfile(f)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				o.AddProfile(p)
			}
			o.Pause()
		}
		obs := o.Stop()
		run, err := model.Read(&out, name, side)
		if err != nil {
			t.Fatal(err)
		}
		run.Env = &env
		run.Observations = obs
		return run
	}
	write := func(name string, run *model.Run) {
		run.Start, run.End = time.Time{}, time.Time{}
		b, err := json.MarshalIndent(run, "", "\t")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", name+".json"), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		Annotate(run)
		t.Logf("%s:\n  run: %s", name, strings.Join(model.Texts(run.Notes), "\n  run: "))
		for _, b := range run.Benchmarks {
			t.Logf("  %s: %s", b.Name, strings.Join(model.Texts(b.Notes), "\n    "))
		}
	}

	waitQuiet(t, "lockbound")
	write("lockbound", rounds("lockbound", lockBin, "^BenchmarkGlobalMutex/goroutines=64", "a", 3))

	waitQuiet(t, "cpuhog")
	hog := exec.CommandContext(ctx, "sh", "-c", "while :; do :; done")
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // let the hog show in the load average
	busy := rounds("cpuhog", labBin, "^BenchmarkBuild", "a", 3)
	hog.Process.Kill()
	hog.Wait()
	write("cpuhog", busy)

	// An idle workload: the measured process sleeps.
	waitQuiet(t, "idle")
	{
		o := Start(ctx, 0)
		for r := range 3 {
			o.Mark("Sleep", "a", r)
			cmd := exec.CommandContext(ctx, "sleep", "1")
			if err := cmd.Run(); err != nil {
				t.Fatal(err)
			}
			o.AddProcess(ProcessStats(cmd.ProcessState))
		}
		write("idle", &model.Run{Kind: model.KindRun, Env: &env, Sides: []model.Side{{Label: "a"}},
			Benchmarks: []model.Benchmark{{Name: "Sleep"}}, Observations: o.Stop()})
	}

	// In-process: the harness's path, with runtime metrics.
	waitQuiet(t, "selflock")
	{
		o := StartSelf(ctx, 0)
		var samples []model.Sample
		for r := range 3 {
			o.Mark("GlobalMutex/goroutines=64", "a", r)
			rctx, cancel := context.WithTimeout(ctx, time.Second)
			start := time.Now()
			n := lockbound.Run(rctx, 64)
			el := time.Since(start)
			cancel()
			samples = append(samples, model.Sample{Side: "a", Round: r, Iters: int64(n), Value: el.Seconds() / float64(n)})
		}
		o.Pause()
		write("selflock", &model.Run{Kind: model.KindHarness, Env: &env, Sides: []model.Side{{Label: "a"}},
			Benchmarks: []model.Benchmark{{Name: "GlobalMutex/goroutines=64",
				Metrics: []model.Metric{{Unit: "sec/op", Better: model.LowerIsBetter, Samples: samples}}}},
			Observations: o.Stop()})
	}

	// Elision: seed 003's BenchmarkElided and BenchmarkKept, three samples
	// each, as the seed ran them.
	waitQuiet(t, "elision")
	{
		cmd := exec.CommandContext(ctx, labBin, "-test.run=^$", "-test.bench=Benchmark(Elided|Kept)$",
			"-test.benchtime=100ms", "-test.count=3", "-test.cpu=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		run, err := model.Read(bytes.NewReader(out), "elision", "base")
		if err != nil {
			t.Fatal(err)
		}
		run.Env = &env
		write("elision", run)
	}
}
