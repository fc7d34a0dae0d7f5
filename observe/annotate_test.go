package observe

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// obs builds a one-second observation of benchmark "B".
func obs(sys *model.SystemStats, p *model.ProcessStats, rt *model.RuntimeStats, prof *model.ProfileStats, other float64) model.Observation {
	return model.Observation{Duration: time.Second, Benchmark: "B", Side: "a", System: sys, Process: p, Runtime: rt, Profile: prof, OtherCPU: other}
}

// Hand-made edge cases, one per verdict. The first is seed 001's ramp.c
// at 16 threads on 16 CPUs, from its pidstat lines: %usr 241.5, %system
// 1236.5 (2.415 s and 12.365 s of CPU per second) and about 13000
// voluntary switches per second per thread (208000 in all).
func TestBottleneckEdgeCases(t *testing.T) {
	quiet := &model.SystemStats{CPUs: 2, User: 0.5, System: 0.02, Idle: 0.48, Load1: 1}
	for _, tt := range []struct {
		name string
		obs  model.Observation
		env  *model.Env
		want string
		ev   string // a piece of the evidence
	}{
		{"seed 001 ramp.c, 16 pthreads", obs(&model.SystemStats{CPUs: 16, User: 0.15, System: 0.77, Idle: 0.08},
			&model.ProcessStats{UserSec: 2.415, SystemSec: 12.365, VoluntaryCtx: 208000}, nil, nil, 0),
			nil, BottleneckLock, "system time 83.7% of the process's CPU, 14073 voluntary context switches per CPU-second"},
		{"go mutex, from a CPU profile", obs(quiet, &model.ProcessStats{UserSec: 1.9, SystemSec: 0.01, VoluntaryCtx: 300},
			nil, &model.ProfileStats{Samples: 190, CPUSec: 1.9, Lock: 0.34}, 0),
			nil, BottleneckLock, "34% of CPU samples in mutex slow paths"},
		{"go mutex, from runtime metrics", obs(quiet, &model.ProcessStats{UserSec: 2, VoluntaryCtx: 150},
			&model.RuntimeStats{MutexWait: 900 * time.Millisecond, GOMAXPROCS: 2}, nil, 0),
			nil, BottleneckLock, "0.9 blocked at once on average, 2 Ps"},
		{"switches from thread start-up, but the profile shows no lock", obs(quiet,
			&model.ProcessStats{UserSec: 0.3, SystemSec: 0.7, VoluntaryCtx: 12000}, nil,
			&model.ProfileStats{Samples: 100, CPUSec: 1, Lock: 0}, 0),
			nil, BottleneckKernel, "system time 0.7 s vs user 0.3 s"},
		{"a few samples in lockSlow are not enough", obs(quiet, &model.ProcessStats{UserSec: 0.1},
			nil, &model.ProfileStats{Samples: 10, CPUSec: 0.1, Lock: 0.5}, 0),
			nil, BottleneckWaiting, ""},
		{"GC from runtime metrics", obs(quiet, &model.ProcessStats{UserSec: 1, SystemSec: 0.05},
			&model.RuntimeStats{GCCPUFraction: 0.35, GCCycles: 40, HeapAllocBytes: 2e9, GOMAXPROCS: 2}, nil, 0),
			nil, BottleneckGC, "the garbage collector used 35% of the CPU, 40 GC cycles, 2 GB allocated"},
		{"GC from a CPU profile", obs(quiet, &model.ProcessStats{UserSec: 1},
			nil, &model.ProfileStats{Samples: 100, CPUSec: 1, GC: 0.3}, 0),
			nil, BottleneckGC, "30%"},
		{"kernel", obs(quiet, &model.ProcessStats{UserSec: 0.3, SystemSec: 0.7, VoluntaryCtx: 50}, nil, nil, 0),
			nil, BottleneckKernel, "system time 0.7 s vs user 0.3 s"},
		{"io wait", obs(&model.SystemStats{CPUs: 2, User: 0.1, IOWait: 0.4, Idle: 0.5, DiskWriteBps: 90e6},
			&model.ProcessStats{UserSec: 0.2, SystemSec: 0.1}, nil, nil, 0),
			nil, BottleneckIO, "CPUs waited on I/O 40% of the time, disk read 0 B/s, write 90 MB/s"},
		{"memory pressure", obs(&model.SystemStats{CPUs: 2, User: 0.5, Idle: 0.5, MemoryPressure: 30},
			&model.ProcessStats{UserSec: 1, MaxRSSBytes: 1 << 30}, nil, nil, 0),
			nil, BottleneckMemory, "stalled on memory 30%"},
		{"peak RSS near total memory", obs(quiet, &model.ProcessStats{UserSec: 1, MaxRSSBytes: 7 << 30}, nil, nil, 0),
			&model.Env{MemTotalBytes: 8 << 30}, BottleneckMemory, "peak RSS 7.52 GB of 8.59 GB"},
		{"user CPU, with the top function", obs(quiet, &model.ProcessStats{UserSec: 0.98, SystemSec: 0.02},
			nil, &model.ProfileStats{Samples: 100, CPUSec: 1, Top: []model.FuncShare{{Func: "main.parse", Share: 0.6}}}, 0),
			nil, BottleneckUser, "98% of the process's CPU time was user time, 1.00 CPUs busy, 60% of CPU samples in main.parse"},
		{"a sleeping process", obs(quiet, &model.ProcessStats{UserSec: 0.001, VoluntaryCtx: 2}, nil, nil, 0.02),
			nil, BottleneckWaiting, "0.00 CPUs busy"},
		{"starved by neighbours", obs(&model.SystemStats{CPUs: 2, User: 0.95, System: 0.05},
			&model.ProcessStats{UserSec: 0.2, VoluntaryCtx: 300, InvoluntaryCtx: 900}, nil, nil, 0.9),
			nil, BottleneckStarved, "other processes used 90%"},
		{"a sleeping process on a busy machine", obs(&model.SystemStats{CPUs: 2, User: 0.95, System: 0.05},
			&model.ProcessStats{UserSec: 0.001, VoluntaryCtx: 2}, nil, nil, 0.95),
			nil, BottleneckWaiting, "0.00 CPUs busy"},
		// Short go test processes: thread start-up makes more voluntary
		// than involuntary switches, yet the kernel preempted them 700
		// times a second (a recorded rigor ab round of examples/lockbound).
		{"a short process starved", model.Observation{Duration: 200 * time.Millisecond, Benchmark: "B",
			System:  &model.SystemStats{CPUs: 2, User: 0.9, System: 0.1},
			Process: &model.ProcessStats{UserSec: 0.1, SystemSec: 0.009, VoluntaryCtx: 215, InvoluntaryCtx: 136}, OtherCPU: 0.78},
			nil, BottleneckStarved, "0.54 CPUs busy"},
		{"system only", obs(quiet, nil, nil, nil, 0), nil, BottleneckInconclusive, "no data about the measured processes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := Bottleneck([]model.Observation{tt.obs}, tt.env)
			if d.Kind != tt.want || !strings.Contains(d.Evidence, tt.ev) {
				t.Errorf("got %s: %s\nwant %s with evidence containing %q", d.Kind, d.String(), tt.want, tt.ev)
			}
		})
	}
}

// A diagnosis carries its numbers as data, and its note as Evidence, so
// that a report can group benchmarks with the same bottleneck and give
// the range of their figures without reading the words. The values are
// the inputs' own: 0.98 s user of 1 s CPU in 1 s, 0.2 CPUs busy beside
// neighbours using 90%, the runtime's GC fraction and counters.
func TestBottleneckFigures(t *testing.T) {
	quiet := &model.SystemStats{CPUs: 2, User: 0.5, System: 0.02, Idle: 0.48, Load1: 1}
	for _, tt := range []struct {
		name string
		obs  model.Observation
		kind string
		want map[string]float64
	}{
		{"user CPU", obs(quiet, &model.ProcessStats{UserSec: 0.98, SystemSec: 0.02}, nil, nil, 0),
			BottleneckUser, map[string]float64{"user_share": 0.98, "cpus_busy": 1}},
		{"starved", obs(&model.SystemStats{CPUs: 2, User: 0.95, System: 0.05},
			&model.ProcessStats{UserSec: 0.2, VoluntaryCtx: 300, InvoluntaryCtx: 900}, nil, nil, 0.9),
			BottleneckStarved, map[string]float64{"cpus_busy": 0.2, "other_cpu": 0.9, "idle": 0}},
		{"GC", obs(quiet, &model.ProcessStats{UserSec: 1, SystemSec: 0.05},
			&model.RuntimeStats{GCCPUFraction: 0.35, GCCycles: 40, HeapAllocBytes: 2e9, GOMAXPROCS: 2}, nil, 0),
			BottleneckGC, map[string]float64{"gc_share": 0.35, "gc_cycles": 40, "alloc_bytes": 2e9}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := Bottleneck([]model.Observation{tt.obs}, nil)
			n := d.Note("B", "")
			if d.Kind != tt.kind || len(n.Evidence) != len(tt.want) {
				t.Fatalf("got %s with evidence %v; want %s with %v", d, n.Evidence, tt.kind, tt.want)
			}
			for k, v := range tt.want {
				if got, ok := n.Evidence[k]; !ok || math.Abs(got-v) > 1e-12 {
					t.Errorf("evidence %s = %v; want %v (all: %v)", k, got, v, n.Evidence)
				}
			}
			// The finding is the diagnosis's words without this
			// benchmark's numbers, for a report that says it once.
			if n.Finding == "" || n.Finding != d.Summary || !strings.Contains(n.Text, n.Finding) {
				t.Errorf("finding %q, summary %q, text %q", n.Finding, d.Summary, n.Text)
			}
		})
	}
}

// Observations add up: half a second of mostly system time (0.1 s user,
// 0.3 s system) and a second and a half of user time (1.45 s user, 0.05 s
// system) make 1.55 s user of 1.9 s (81.6%), 0.95 CPUs over 2 s: user-bound.
func TestBottleneckWeighsDurations(t *testing.T) {
	sys := &model.SystemStats{CPUs: 1, User: 0.5, System: 0.5}
	a := model.Observation{Duration: 500 * time.Millisecond, System: sys, Process: &model.ProcessStats{UserSec: 0.1, SystemSec: 0.3}}
	b := model.Observation{Duration: 1500 * time.Millisecond, System: sys, Process: &model.ProcessStats{UserSec: 1.45, SystemSec: 0.05}}
	if d := Bottleneck([]model.Observation{a, b}, nil); d.Kind != BottleneckUser || !strings.Contains(d.Evidence, "81.6% of the process's CPU time was user time, 0.95 CPUs busy") {
		t.Errorf("got %s", d)
	}
}

func TestInterference(t *testing.T) {
	for _, tt := range []struct {
		name   string
		sys    model.SystemStats
		oth    float64
		noProc bool     // no process statistics: other processes' CPU unknown
		want   []string // pieces of the notes; nil for no notes
	}{
		{"quiet", model.SystemStats{CPUs: 2, User: 0.5, Idle: 0.5, Load1: 1}, 0.02, false, nil},
		{"a CPU hog beside", model.SystemStats{CPUs: 2, User: 0.98, Idle: 0.02, Load1: 2.1}, 0.48, false,
			[]string{"the machine was busy: other processes used 48% of the CPU during the run; the numbers may reflect the machine, not the code"}},
		{"steal", model.SystemStats{CPUs: 4, User: 0.3, Steal: 0.08, Idle: 0.62, Load1: 1}, 0, false,
			[]string{"the hypervisor took 8% of the CPU time away (steal)"}},
		{"load above the cores, nothing else measured", model.SystemStats{CPUs: 2, User: 0.5, Idle: 0.5, Load1: 6.3}, 0, true,
			[]string{"the load average was 6.3 on 2 logical CPUs"}},
		// Other processes' CPU measured, and none: the load average (the
		// benchmark's own threads, a minute's memory of a process that
		// stopped) is not a busy machine (issue 39 item 3: a quiet run
		// 30 s after another stopped read "the load average was 2.7").
		{"load above the cores, others idle", model.SystemStats{CPUs: 2, User: 0.5, Idle: 0.5, Load1: 2.7}, 0, false, nil},
		{"cpu pressure", model.SystemStats{CPUs: 2, User: 0.5, Idle: 0.5, CPUPressure: 40}, 0, false,
			[]string{"runnable tasks waited for a CPU 40% of the time"}},
		{"frequency change", model.SystemStats{CPUs: 2, User: 0.5, Idle: 0.5, FreqMHz: 2600, FreqMinMHz: 1800, FreqMaxMHz: 3500}, 0, false,
			[]string{"the CPU frequency changed during the run (1800 to 3500 MHz)"}},
		{"steady frequency", model.SystemStats{CPUs: 2, User: 0.5, Idle: 0.5, FreqMHz: 3000, FreqMinMHz: 2990, FreqMaxMHz: 3010}, 0, false, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sys := tt.sys
			p := &model.ProcessStats{UserSec: 1}
			if tt.noProc {
				p = nil
			}
			got := Interference([]model.Observation{obs(&sys, p, nil, nil, tt.oth)})
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %d notes", got, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i].Text, w) {
					t.Errorf("note %q lacks %q", got[i], w)
				}
			}
		})
	}
	if got := Interference(nil); got != nil {
		t.Errorf("no observations: %q", got)
	}
}

func secOp(vals ...float64) model.Metric {
	m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
	for i, v := range vals {
		m.Samples = append(m.Samples, model.Sample{Side: "base", Round: i, Iters: 1000, Value: v})
	}
	return m
}

// Seed 003: BenchmarkElided measured 0.3017, 0.2945, 0.3055 ns/op (CV
// 1.86% by hand: mean 0.30057, sd 0.005587); BenchmarkBuild 7856, 9175,
// 8065 ns/op.
func TestLikelyElided(t *testing.T) {
	for _, tt := range []struct {
		name string
		m    model.Metric
		want bool
	}{
		{"seed 003 BenchmarkElided", secOp(0.3017e-9, 0.2945e-9, 0.3055e-9), true},
		{"seed 003 BenchmarkBuild", secOp(7856e-9, 9175e-9, 8065e-9), false},
		// The ab run of seed 003's package on this machine while others
		// compiled: still suspect, the disassembly decides.
		{"sub-ns but noisy", secOp(0.2655e-9, 0.7735e-9, 0.2511e-9, 0.3481e-9, 0.3918e-9), true},
		{"one sub-ns sample", secOp(0.4e-9), true},
		{"just above a nanosecond", secOp(1.01e-9, 1.02e-9, 1.01e-9), false},
		{"other unit", model.Metric{Unit: "B/op", Samples: []model.Sample{{Side: "base", Value: 0.1e-9}}}, false},
	} {
		b := &model.Benchmark{Name: "X", Metrics: []model.Metric{tt.m}}
		if got := LikelyElided(b); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCheckThroughput(t *testing.T) {
	env := &model.Env{MemBandwidth: 20e9, NICSpeed: 125e6}
	for _, tt := range []struct {
		name    string
		bps     float64
		network bool
		want    string
	}{
		// Seed 003's BenchmarkBuild: 81.47 MB/s from SetBytes(640).
		{"seed 003 Build", 81.47e6, false, ""},
		{"above memory", 60e9, false, "60 GB/s, more than this machine's memory bandwidth (20 GB/s"},
		{"within the margin", 21e9, false, ""},
		// Seed 001: NFS reads at 30 MB/s over a 100 Mbit/s (12.5 MB/s) link.
		{"above the NIC", 30e6, true, ""}, // this env's NIC is 1 Gbit/s
		{"above the NIC, 1 Gbit/s", 300e6, true, "more than the network interface's 125 MB/s"},
		{"local traffic ignores the NIC", 300e6, false, ""},
	} {
		got := CheckThroughput(env, "X", tt.bps, tt.network)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	slow := &model.Env{NICSpeed: 12.5e6} // seed 001's ARM board: 100 Mbit/s
	if got := CheckThroughput(slow, "NFS read", 30e6, true); !strings.HasPrefix(got, "likely measuring a cache") {
		t.Errorf("seed 001's NFS example: %q", got)
	}
	if CheckThroughput(nil, "X", 1e12, false) != "" || CheckThroughput(&model.Env{}, "X", 1e12, false) != "" {
		t.Error("no limits known: want no note")
	}
}

// Annotate places notes where they belong and adds each once.
func TestAnnotate(t *testing.T) {
	// busy: 1.8 of 2 CPU-seconds used, 1 by the process: others 40%.
	busy := &model.SystemStats{CPUs: 2, User: 0.85, System: 0.05, Idle: 0.1, Load1: 2}
	quiet := &model.SystemStats{CPUs: 2, User: 0.5, Idle: 0.5, Load1: 1}
	run := &model.Run{
		Env:   &model.Env{MemBandwidth: 10e9},
		Sides: []model.Side{{Label: "old"}, {Label: "new"}},
		Observations: []model.Observation{
			{Duration: time.Second, Side: "old", System: quiet, Process: &model.ProcessStats{UserSec: 1}},
			{Duration: time.Second, Side: "new", System: quiet, Process: &model.ProcessStats{UserSec: 0.3, SystemSec: 0.7}},
			{Duration: time.Second, Benchmark: "pkg.Copy-2", Side: "new", System: busy,
				Process: &model.ProcessStats{UserSec: 1}, OtherCPU: 0.4},
		},
		Benchmarks: []model.Benchmark{
			{Name: "Copy", Procs: 2, Pkg: "pkg", Metrics: []model.Metric{{Unit: "B/s", Samples: []model.Sample{
				{Side: "old", Value: 5e9}, {Side: "new", Value: 40e9}, {Side: "new", Value: 42e9}}}}},
			{Name: "Nop", Metrics: []model.Metric{secOp(0.25e-9, 0.25e-9)}},
		},
	}
	Annotate(run)
	Annotate(run) // idempotent
	if len(run.Notes) != 2 || !strings.HasPrefix(run.Notes[0].Text, "old: bottleneck: CPU in user code") ||
		!strings.HasPrefix(run.Notes[1].Text, "new: bottleneck: the kernel") {
		t.Errorf("run notes %q: want one bottleneck per side, no run-wide interference (others used 13%% overall)", run.Notes)
	}
	cp := run.Benchmarks[0].Notes
	if len(cp) != 3 || !strings.HasPrefix(cp[0].Text, "bottleneck: CPU in user code") ||
		!strings.HasPrefix(cp[1].Text, "the machine was busy: other processes used 40%") ||
		!strings.Contains(cp[2].Text, "side new reported 41 GB/s") {
		t.Errorf("Copy notes %q", cp)
	}
	if nop := run.Benchmarks[1].Notes; len(nop) != 1 || !strings.HasPrefix(nop[0].Text, elisionPrefix) {
		t.Errorf("Nop notes %q", nop)
	}
	Annotate(nil) // no panic
}

// Run-wide interference is not repeated on every benchmark.
func TestAnnotateInterferenceOnce(t *testing.T) {
	busy := &model.SystemStats{CPUs: 2, User: 1}
	run := &model.Run{
		Sides: []model.Side{{Label: "a"}},
		Observations: []model.Observation{
			{Duration: time.Second, Benchmark: "X", Side: "a", System: busy, Process: &model.ProcessStats{UserSec: 1}, OtherCPU: 0.5},
		},
		Benchmarks: []model.Benchmark{{Name: "X"}},
	}
	Annotate(run)
	if len(run.Notes) != 1 || !strings.HasPrefix(run.Notes[0].Text, "the machine was busy") {
		t.Errorf("run notes %q", run.Notes)
	}
	if slices.ContainsFunc(model.Texts(run.Benchmarks[0].Notes), func(n string) bool { return strings.HasPrefix(n, "the machine was busy") }) {
		t.Errorf("benchmark repeats the run's note: %q", run.Benchmarks[0].Notes)
	}
}

func TestElisionNoteSaysPerf(t *testing.T) {
	b := &model.Benchmark{Name: "E", Metrics: []model.Metric{secOp(0.3e-9)}}
	n := elisionNote(b, &model.Env{Perf: "unavailable: perf is not installed"})
	if !strings.Contains(n, "instruction counts could settle it but are unavailable: perf is not installed") {
		t.Errorf("note %q does not say perf is unavailable", n)
	}
	if n := elisionNote(b, &model.Env{Perf: PerfAvailable}); strings.Contains(n, "instruction counts") {
		t.Errorf("note %q mentions perf although it is available", n)
	}
}

func readRun(t *testing.T, name string) *model.Run {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var run model.Run
	if err := json.Unmarshal(b, &run); err != nil {
		t.Fatal(err)
	}
	return &run
}

// The recorded fixtures: real observations made on this machine by
// TestCapture (go test ./observe -run TestCapture -args -capture).
func TestRecordedFixtures(t *testing.T) {
	t.Run("lock-bound go test binary", func(t *testing.T) {
		run := readRun(t, "lockbound.json")
		d := Bottleneck(run.Observations, run.Env)
		if d.Kind != BottleneckLock {
			t.Fatalf("got %s", d)
		}
		// The evidence names system time, switches and the profile.
		for _, w := range []string{"system time", "voluntary context switches", "of CPU samples in mutex slow paths"} {
			if !strings.Contains(d.Evidence, w) {
				t.Errorf("evidence %q lacks %q", d.Evidence, w)
			}
		}
	})
	t.Run("lock-bound in process", func(t *testing.T) {
		run := readRun(t, "selflock.json")
		d := Bottleneck(run.Observations, run.Env)
		if d.Kind != BottleneckLock || !strings.Contains(d.Evidence, "blocked on mutexes") || !strings.Contains(d.Evidence, "system time") {
			t.Errorf("got %s", d)
		}
	})
	t.Run("CPU hog beside", func(t *testing.T) {
		run := readRun(t, "cpuhog.json")
		notes := Interference(run.Observations)
		if len(notes) == 0 || !strings.HasPrefix(notes[0].Text, "the machine was busy: other processes used") ||
			!strings.HasSuffix(notes[0].Text, "the numbers may reflect the machine, not the code") {
			t.Fatalf("notes %q", notes)
		}
		Annotate(run)
		if !slices.Contains(model.Texts(run.Notes), notes[0].Text) {
			t.Errorf("Annotate's run notes %q lack %q", run.Notes, notes[0])
		}
	})
	t.Run("idle", func(t *testing.T) {
		run := readRun(t, "idle.json")
		if d := Bottleneck(run.Observations, run.Env); d.Kind != BottleneckWaiting {
			t.Errorf("got %s", d)
		}
	})
	// Seed 003's acceptance check on recorded data: the timings make both
	// BenchmarkElided (0.23 ns/op) and, on this machine, BenchmarkKept
	// (0.93 ns/op) suspects; the disassembly confirms Elided as an empty
	// loop and clears Kept, whose loop multiplies.
	t.Run("elision", func(t *testing.T) {
		run := readRun(t, "elision.json")
		Annotate(run)
		funcs := parseFixture(t, "benchlab-amd64.objdump")
		verdicts := map[string]string{}
		for i := range run.Benchmarks {
			b := &run.Benchmarks[i]
			if !LikelyElided(b) {
				continue
			}
			var mine []Func
			for name, f := range funcs {
				if name == "benchlab.Benchmark"+b.Name {
					mine = append(mine, f)
				}
			}
			v, err := JudgeElision(b, mine)
			if err != nil {
				t.Fatal(err)
			}
			verdicts[b.Name] = v
			if slices.ContainsFunc(model.Texts(b.Notes), func(n string) bool { return strings.HasPrefix(n, elisionPrefix) }) {
				t.Errorf("%s: the suspicion note survived the verdict: %q", b.Name, b.Notes)
			}
		}
		if !strings.HasPrefix(verdicts["Elided"], "confirmed from the disassembly: the loop in benchlab.BenchmarkElided has no call and no work") {
			t.Errorf("Elided: %q", verdicts["Elided"])
		}
		if v, ok := verdicts["Kept"]; ok && (strings.Contains(v, "confirmed") || !strings.Contains(v, "not optimized away")) {
			t.Errorf("Kept: %q", v)
		}
	})
}

func TestElisionNoteWording(t *testing.T) {
	steady := elisionNote(&model.Benchmark{Metrics: []model.Metric{secOp(0.3017e-9, 0.2945e-9, 0.3055e-9)}}, nil)
	noisy := elisionNote(&model.Benchmark{Metrics: []model.Metric{secOp(0.2655e-9, 0.7735e-9, 0.2511e-9)}}, nil)
	if !strings.Contains(steady, "0.302 ns/op varying 1.9%") || !strings.Contains(steady, "this steady") {
		t.Errorf("steady: %q", steady)
	}
	if !strings.Contains(noisy, "too noisy to call steady") {
		t.Errorf("noisy: %q", noisy)
	}
}

// The other processes' CPU of a run is summed over its intervals before it
// is judged: over a short interval the system's tick counters, interpolated
// between snapshots, give part of one measured process's CPU time to the
// next interval, so one interval reads too little (below zero) and the next
// too much. Clamping each at zero, as rigor once did, called an idle
// machine busy.
func TestInterferenceSumsIntervals(t *testing.T) {
	proc := &model.ProcessStats{UserSec: 0.05}
	obs := []model.Observation{
		// 50 ms each, 2 CPUs: the process used 50 ms of CPU in each, but
		// the counters put 40 ms of the first interval's into the second;
		// OtherCPU is what the observer computes for each, clamped.
		{Duration: 50 * time.Millisecond, System: &model.SystemStats{CPUs: 2, User: 0.1, Idle: 0.9}, Process: proc, OtherCPU: 0},
		{Duration: 50 * time.Millisecond, System: &model.SystemStats{CPUs: 2, User: 0.9, Idle: 0.1}, Process: proc, OtherCPU: 0.4},
	}
	for i := range obs {
		if got := otherCPU(&obs[i], false); math.Abs(got-obs[i].OtherCPU) > 1e-9 {
			t.Fatalf("interval %d: otherCPU %v, fixture says %v", i, got, obs[i].OtherCPU)
		}
	}
	if notes := Interference(obs); len(notes) != 0 {
		t.Errorf("an idle machine whose counters moved between intervals: %q, want no note", model.Texts(notes))
	}
}

// rigor's own CPU time (starting, waiting for and reading the measured
// process) is not another process competing for the CPU.
func TestInterferenceLeavesOutRigor(t *testing.T) {
	obs := []model.Observation{{Duration: time.Second, System: &model.SystemStats{CPUs: 2, User: 0.7, Idle: 0.3},
		Process: &model.ProcessStats{UserSec: 1}, RigorCPUSec: 0.35}}
	if notes := Interference(obs); len(notes) != 0 {
		t.Errorf("the measured process and rigor used all the busy CPU: %q, want no note", model.Texts(notes))
	}
	obs[0].RigorCPUSec = 0
	if notes := Interference(obs); len(notes) != 1 {
		t.Errorf("without rigor's share, 0.4 CPU-seconds of 2 are someone else's: %q, want the busy note", model.Texts(notes))
	}
}
