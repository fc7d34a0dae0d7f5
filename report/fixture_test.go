package report

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/load"
	"github.com/rigorbench/rigor/model"
)

// Fixtures for the renderers' tests: the seed 003 files, a hand-built
// paired A/B run with awkward names, an in-process group sampled
// linearly, and a ramp. Analyses use fewer resamples than the default to
// keep the tests fast; the seed makes them reproducible.

func fxOptions() analysis.Options {
	o := analysis.DefaultOptions()
	o.Resamples = 1000
	return o
}

func fxAnalyze(t testing.TB, run *model.Run) *analysis.Report {
	t.Helper()
	rep, err := analysis.Analyze(run, fxOptions())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// fxSeed003 is benchstat's example from seed 003: base vs optimized.
func fxSeed003(t testing.TB) *analysis.Report {
	t.Helper()
	var runs []*model.Run
	for _, side := range []string{"base", "optimized"} {
		r, err := model.ReadFile(filepath.Join("..", "testdata", "seed003", side+".txt"), side)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	run, err := model.Merge(runs...)
	if err != nil {
		t.Fatal(err)
	}
	return fxAnalyze(t, run)
}

// xssName is a sub-benchmark name that must render as text.
const xssName = "XSS/<script>alert(1)</script>"

// fxPairedRun is an interleaved A/B run of 20 rounds: an improvement with
// fewer allocations, a regression, no change, a noisy CJK-named benchmark,
// an emoji-named one whose new side drifts, a hostile name and a very
// long one; with an environment and per-round observations.
func fxPairedRun() *model.Run {
	rng := rand.New(rand.NewPCG(3, 5))
	t0 := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	run := &model.Run{
		SchemaVersion: model.SchemaVersion, Kind: model.KindAB, Paired: true,
		Start: t0, End: t0.Add(80 * time.Second),
		Command: []string{"rigor", "ab", "--old", "main", "./..."},
		Sides: []model.Side{
			{Label: "old", Source: "main", Rev: "1111111111111111111111111111111111111111"},
			{Label: "new", Source: "HEAD", Rev: "2222222222222222222222222222222222222222", Dirty: true},
		},
		Env: &model.Env{GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 8,
			CPUModel: "AMD EPYC 9V74 80-Core Processor", PhysicalCores: 4, LogicalCores: 8, Kernel: "6.1.0",
			Governor: "performance", Turbo: "off", ASLR: "full", Virtualization: "kvm", MemTotalBytes: 16 << 30},
	}
	const rounds = 20
	type spec struct {
		name             string
		old, new, cv     float64 // sec/op medians and coefficient of variation
		drift            float64 // new side's relative increase per round
		bytes            float64 // bytes per op processed, for B/s; 0 for none
		oldAlloc, newAll float64 // B/op
	}
	specs := []spec{
		{"Join/n=10", 120e-9, 100e-9, 0.01, 0, 1024, 64, 32},
		{"Join/n=1000", 10e-6, 10.6e-6, 0.01, 0, 100 << 10, 8192, 8192},
		{"Split/ascii", 50e-9, 50.05e-9, 0.001, 0, 0, 0, 0},
		{"Split/日本語テキスト", 80e-9, 82e-9, 0.15, 0, 0, 16, 16},
		{"Emoji/🚀🔥", 2e-6, 2e-6, 0.005, 0.01, 0, 0, 0},
		{xssName, 1e-6, 0.9e-6, 0.01, 0, 0, 0, 0},
		{"VeryLong/parameter=value,parameter=value,parameter=value,parameter=value,parameter=value", 3e-3, 3.01e-3, 0.02, 0, 0, 0, 0},
	}
	for _, sp := range specs {
		b := model.Benchmark{Name: sp.name, Procs: 8, Pkg: "example.com/strs",
			Config: map[string]string{"goos": "linux", "goarch": "amd64", "cpu": "AMD EPYC 9V74 80-Core Processor"}}
		sec := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
		bps := model.Metric{Unit: "B/s", Better: model.HigherIsBetter}
		bop := model.Metric{Unit: "B/op", Better: model.LowerIsBetter}
		aop := model.Metric{Unit: "allocs/op", Better: model.LowerIsBetter}
		for r := 1; r <= rounds; r++ {
			// Conditions shared by both sides of a round.
			common := 1 + 0.5*sp.cv*rng.NormFloat64()
			for _, side := range []string{"old", "new"} {
				v := sp.old
				if side == "new" {
					v = sp.new * (1 + sp.drift*float64(r))
				}
				v *= common * (1 + sp.cv*rng.NormFloat64())
				iters := int64(math.Round(1 / v / 1000 * (1 + 0.2*rng.Float64())))
				iters = max(iters, 1)
				sec.Samples = append(sec.Samples, model.Sample{Side: side, Round: r, Iters: iters, Value: v})
				if sp.bytes > 0 {
					bps.Samples = append(bps.Samples, model.Sample{Side: side, Round: r, Iters: iters, Value: sp.bytes / v})
				}
				if sp.oldAlloc > 0 {
					a := sp.oldAlloc
					if side == "new" {
						a = sp.newAll
					}
					bop.Samples = append(bop.Samples, model.Sample{Side: side, Round: r, Iters: iters, Value: a})
					aop.Samples = append(aop.Samples, model.Sample{Side: side, Round: r, Iters: iters, Value: a / 32})
				}
			}
		}
		b.Metrics = append(b.Metrics, sec)
		for _, m := range []model.Metric{bps, bop, aop} {
			if len(m.Samples) > 0 {
				b.Metrics = append(b.Metrics, m)
			}
		}
		run.Benchmarks = append(run.Benchmarks, b)
	}
	// One observation per round and side; a neighbour wakes up half way.
	for r := 1; r <= rounds; r++ {
		for k, side := range []string{"old", "new"} {
			other := 0.02
			if r > rounds/2 {
				other = 0.25
			}
			run.Observations = append(run.Observations, model.Observation{
				Start: t0.Add(time.Duration(2*(r-1)+k) * 2 * time.Second), Duration: 2 * time.Second,
				Side: side, Round: r, OtherCPU: other,
				System: &model.SystemStats{CPUs: 8, User: 0.125 + other, System: 0.02, Idle: 1 - 0.145 - other,
					Load1: 1 + 8*other, CtxSwitches: 2000 + 20000*other, FreqMHz: 2450, FreqMinMHz: 2400, FreqMaxMHz: 2500, Samples: 8},
				Process: &model.ProcessStats{UserSec: 1.9, SystemSec: 0.05},
			})
		}
	}
	run.Notes = []model.Note{{Kind: model.NoteOther, Text: "the working tree of new had uncommitted changes"}}
	return run
}

var fxPairedOnce = sync.OnceValue(fxPairedRun)

func fxPaired(t testing.TB) *analysis.Report {
	t.Helper()
	return fxAnalyze(t, fxPairedOnce())
}

// fxGroupRun is an in-process group: five variants of compressing 64 KiB,
// in two subgroups, sampled linearly (iterations m·d for m = 1..15,
// shuffled), with B/s and identical allocations.
func fxGroupRun() *model.Run {
	rng := rand.New(rand.NewPCG(7, 11))
	t0 := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	variants := []struct {
		name, sub string
		ns        float64
	}{
		{"level_1", "sequential", 16.2e-6},
		{"level_6", "sequential", 15.1e-6},
		{"level_9", "sequential", 15.0e-6},
		{"sequential", "patterns", 15.1e-6},
		{"mixed", "patterns", 401e-6},
	}
	run := &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindHarness, Paired: true, Start: t0, End: t0.Add(time.Minute),
		Env: &model.Env{GoVersion: "go1.26.8", GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 2, CPUModel: "Test CPU", LogicalCores: 2}}
	for _, v := range variants {
		run.Sides = append(run.Sides, model.Side{Label: v.name, Subgroup: v.sub})
	}
	const n, d = 15, 40
	b := model.Benchmark{Name: "compress_64k", Procs: 2, Group: "compress_64k", Config: map[string]string{
		"sampling": "linear", "iterations": "m·40 for m = 1..15, shuffled", "rounds": "15"}}
	sec := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
	bps := model.Metric{Unit: "B/s", Better: model.HigherIsBetter}
	aop := model.Metric{Unit: "allocs/op", Better: model.LowerIsBetter}
	mult := rng.Perm(n)
	for r := 1; r <= n; r++ {
		iters := int64((mult[r-1] + 1) * d)
		common := 1 + 0.01*rng.NormFloat64()
		for _, v := range variants {
			// A fixed cost per sample (200 ns) makes per-op values fall
			// with iterations; the slope removes it.
			total := v.ns*float64(iters)*common*(1+0.01*rng.NormFloat64()) + 200e-9
			ns := total / float64(iters)
			sec.Samples = append(sec.Samples, model.Sample{Side: v.name, Round: r, Iters: iters, Value: ns})
			bps.Samples = append(bps.Samples, model.Sample{Side: v.name, Round: r, Iters: iters, Value: 65536 / ns})
			aop.Samples = append(aop.Samples, model.Sample{Side: v.name, Round: r, Iters: iters, Value: 3})
		}
	}
	b.Metrics = []model.Metric{sec, bps, aop}
	run.Benchmarks = append(run.Benchmarks, b)
	return run
}

func fxGroup(t testing.TB) *analysis.Report {
	t.Helper()
	return fxAnalyze(t, fxGroupRun())
}

// fxRampRun is a closed-loop ramp over the USL example of
// github.com/codahale/usl, with both models fitted by package load.
func fxRampRun(t testing.TB) *model.Run {
	t.Helper()
	ns := []float64{1, 18, 36, 72, 108, 144, 216}
	xs := []float64{65, 996, 1652, 1853, 1829, 1775, 1702}
	ms := time.Millisecond
	r := &model.Ramp{Target: "http://127.0.0.1:8080/", Protocol: "HTTP/1.1", Mode: model.RampClosed,
		Warmup: time.Second, StepDuration: 5 * time.Second, CPUs: 2,
		SLO: &model.RampSLO{Percentile: 99, Latency: 200 * ms}}
	for i, n := range ns {
		p99 := time.Duration(float64(ms) * (5 + 0.004*n*n))
		r.Steps = append(r.Steps, model.RampStep{Index: i, Concurrency: int(n), Duration: 5 * time.Second,
			Throughput: xs[i], Requests: int64(xs[i] * 5), Successes: int64(xs[i] * 5), Valid: true, SLOMet: p99 <= 200*ms,
			Latency: model.Latency{Count: int64(xs[i] * 5), P50: p99 / 4, P90: p99 / 2, P99: p99, P999: p99 * 2, Max: p99 * 3}})
	}
	var err error
	if r.USL, err = load.FitUSL(ns, xs); err != nil {
		t.Fatal(err)
	}
	if r.Amdahl, err = load.FitAmdahl(ns, xs); err != nil {
		t.Fatal(err)
	}
	r.Headline = &model.RampHeadline{Basis: "slo", Step: 3, Concurrency: 72, Throughput: 1853, P99: r.Steps[3].Latency.P99, PeakThroughput: 1853,
		Reason: "the highest throughput whose step met the SLO"}
	r.Bottleneck = &model.RampBottleneck{Kind: model.BottleneckLock, Summary: "lock-bound: throughput falls past 72 workers", Evidence: []string{"USL beta > 0"}}
	return &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindRamp, Sides: []model.Side{}, Ramp: r}
}
