package gotest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/gotest/window"
	"github.com/rigorbench/rigor/model"
)

// A fakeSim stands in for Valgrind: per side label and benchmark name, the
// count per operation of each process in turn (the last repeated), and
// what else its windows say.
type fakeSim struct {
	mu       sync.Mutex
	counts   map[string][]float64 // "side/name" -> one count per process
	segments map[string]int       // "side/name" -> segments of every window
	parallel map[string]bool
	fail     map[string]error
	// calls counts the processes run, by "side/name"; reqs keeps the
	// requests.
	calls map[string]int
	reqs  []simRequest
	// running and most count processes running at once.
	running, most int
	// hook, when set, runs before each process answers.
	hook func(key string, call int)
}

var leafName = regexp.MustCompile(`^\^Benchmark(.*?)(\(-\d+\)\?)?\$$`)

// sideOf is the side a fake test binary belongs to: binaryName's prefix.
func sideOf(req simRequest) string {
	side, _, _ := strings.Cut(filepath.Base(req.bin.Path), "-")
	return side
}

func (f *fakeSim) simulate(ctx context.Context, req simRequest) ([]simWindow, error) {
	// The pattern is leafPattern's: "^BenchmarkName$", or with a
	// GOMAXPROCS suffix "^BenchmarkName(-2)?$".
	name := leafName.FindStringSubmatch(req.pattern)[1]
	key := sideOf(req) + "/" + name
	f.mu.Lock()
	f.calls[key]++
	call := f.calls[key]
	f.reqs = append(f.reqs, req)
	f.running++
	f.most = max(f.most, f.running)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.running--
		f.mu.Unlock()
	}()
	if f.hook != nil {
		f.hook(key, call)
	}
	time.Sleep(time.Millisecond) // let the other processes start
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := f.fail[key]; err != nil {
		return nil, err
	}
	c := f.counts[key]
	if len(c) == 0 {
		return nil, nil
	}
	v := c[min(call, len(c))-1]
	ws := make([]simWindow, req.count)
	for i := range ws {
		ws[i] = simWindow{name: name, iters: req.iters, perOp: v, segments: max(f.segments[key], 1), parallel: f.parallel[key]}
	}
	return ws, nil
}

func newFakeSim() *fakeSim {
	return &fakeSim{counts: map[string][]float64{}, segments: map[string]int{}, parallel: map[string]bool{}, fail: map[string]error{}, calls: map[string]int{}}
}

// simSession is a session after its rounds, without running anything:
// benchmarks p.A-2, p.B-2, ... (names), each measured at 1 µs/op in one
// round on every side, binaries named as build names them.
func simSession(t *testing.T, sim *fakeSim, names []string, sides ...string) *session {
	t.Helper()
	out := t.TempDir()
	s := &session{
		cfg: Config{Time: time.Minute, Out: out, Log: io.Discard, Instructions: InstructionsSimulate,
			simulate: sim.simulate, valgrind: "valgrind"},
		run:    &model.Run{Kind: model.KindAB, Paired: len(sides) > 1, Benchmarks: []model.Benchmark{}},
		bench:  map[string]int{},
		budget: experiment.NewBudget(time.Minute, time.Now()),
	}
	for _, label := range sides {
		f, err := os.Create(filepath.Join(out, label+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		bin := &Binary{Path: filepath.Join(out, binaryName(label, "p")), Pkg: Package{ImportPath: "p"}}
		s.sides = append(s.sides, &sideState{Side: Side{Label: label}, bins: map[string]*Binary{"p": bin}, file: f, config: map[string]string{}, window: true})
		s.run.Sides = append(s.run.Sides, model.Side{Label: label})
	}
	for _, n := range names {
		key := "p." + n + "-2"
		s.units = append(s.units, &unit{pkg: "p", key: key, pattern: leafPattern(n, 0), cpu: 0, iters: 1000, startWall: time.Second, startOne: 15 * time.Millisecond})
		s.bench[key] = len(s.run.Benchmarks)
		m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
		for _, sd := range sides {
			m.Samples = append(m.Samples, model.Sample{Side: sd, Round: 1, Iters: 1000, Value: 1e-6})
		}
		s.run.Benchmarks = append(s.run.Benchmarks, model.Benchmark{Name: n, Procs: 2, Pkg: "p", Metrics: []model.Metric{m}})
	}
	return s
}

// instructions returns b's instructions/op samples on side.
func instructions(b *model.Benchmark, side string) []model.Sample {
	m := b.Metric(model.InstructionsUnit)
	if m == nil {
		return nil
	}
	var out []model.Sample
	for _, x := range m.Samples {
		if x.Side == side {
			out = append(out, x)
		}
	}
	return out
}

// notesOf returns the words of b's notes of kind NoteInstructions.
func notesOf(b *model.Benchmark) []string {
	return model.Texts(model.OfKind(b.Notes, model.NoteInstructions))
}

func TestSimIters(t *testing.T) {
	for _, tc := range []struct {
		op   float64
		want int64
	}{
		{1e-6, 1000},   // a millisecond's worth
		{3e-7, 3334},   // rounded up
		{1e-3, 2},      // at least simMinIters
		{0.5, 2},       // however slow
		{1e-15, 1e9},   // capped
		{2.5e-5, 40},   // 1 ms
		{1.1e-4, 10},   // 9.09 iterations, rounded up
		{6e-4, 2},      // 1.67 iterations, rounded up
		{9.9e-5, 11},   // 10.1
		{1e-4, 10},     // exactly 10
		{5e-10, 2e6},   // half a nanosecond
		{1.0 / 3, 2},   // a third of a second
		{7e-6, 143},    // 142.86
		{1e-9, 1e6},    // a nanosecond
		{2e-9, 500000}, // two
	} {
		if got := simIters(tc.op); got != tc.want {
			t.Errorf("simIters(%g) = %d, want %d", tc.op, got, tc.want)
		}
	}
}

// TestSimPlan: what the rounds leave for the pass, and how the pass
// decides the iteration count of a benchmark's windows.
func TestSimPlan(t *testing.T) {
	s := simSession(t, newFakeSim(), []string{"A", "B"}, "old", "new")
	// 1 µs/op: windows of 1000 iterations, and a 15 ms one-iteration
	// process, 5 ms beyond a process's start, of set-up: twice a window,
	// the one-iteration run's and the window's, for simCount windows; ×50, plus
	// 0.3 s. (What a sample took beyond its window, startWall, does not
	// count: a benchmark that stops its timer inside its loop makes it
	// grow with the iterations.)
	proc := 300*time.Millisecond + 50*time.Duration(simCount*(2*5e6+1001*1e3))
	if got := s.simProcessWall(s.units[0]); got != proc {
		t.Errorf("a process: %v, want %v", got, proc)
	}
	// Two and a half processes per side, two sides, one at a time.
	waves := time.Duration(5)
	if got := s.simUnitWall(s.units[0]); got != waves*proc {
		t.Errorf("a benchmark: %v, want %v", got, waves*proc)
	}
	if got := s.simReserve(); got != 2*waves*proc {
		t.Errorf("reserve %v, want %v", got, 2*waves*proc)
	}
	s.cfg.Time = 2 * time.Second // at most half of the budget
	if got := s.simReserve(); got != time.Second {
		t.Errorf("reserve of a 2s budget %v, want 1s", got)
	}
	s.units[1].failed = true
	s.cfg.Time = time.Hour
	if got := s.simReserve(); got != waves*proc {
		t.Errorf("reserve without the failed benchmark %v, want %v", got, waves*proc)
	}
	// The window is planned from the slowest side's median.
	b := &s.run.Benchmarks[0]
	b.Metrics[0].Samples = append(b.Metrics[0].Samples, model.Sample{Side: "new", Round: 2, Iters: 10, Value: 4e-6}, model.Sample{Side: "new", Round: 3, Iters: 10, Value: 4e-6})
	if got := simIters(s.simOp(s.units[0])); got != 250 {
		t.Errorf("new at 4 µs/op: windows of %d iterations, want 250", got)
	}
	// Without rounds, from calibration.
	s.units[0].calOp = 2e-5
	b.Metrics = nil
	if got := simIters(s.simOp(s.units[0])); got != 50 {
		t.Errorf("calibrated at 20 µs/op: windows of %d iterations, want 50", got)
	}
	// The estimates follow what the processes took.
	s.simScale = 2
	if got := s.simProcessWall(s.units[1]); got != 2*proc {
		t.Errorf("a process at twice the estimates: %v, want %v", got, 2*proc)
	}
	s.cfg.Instructions = InstructionsAuto
	if got := s.simReserve(); got != 0 {
		t.Errorf("no simulation: reserve %v", got)
	}
}

func TestAgreed(t *testing.T) {
	for _, tc := range []struct {
		m    []float64
		want bool
	}{
		{nil, false},
		{[]float64{1000}, false},
		{[]float64{1000, 1001.9}, true},
		{[]float64{1000, 1002.1}, false},
		{[]float64{1000, 1010, 1000.5}, true}, // the third agrees with the first
		{[]float64{1000, 1010, 1020}, false},
		{[]float64{1000, 1010, 1020, 1010.1}, true},
	} {
		if got := agreed(tc.m); got != tc.want {
			t.Errorf("agreed(%v) = %v, want %v", tc.m, got, tc.want)
		}
	}
	if got := spread([]float64{100, 103, 101}); math.Abs(got-0.03) > 1e-12 {
		t.Errorf("spread %v, want 0.03", got)
	}
}

// TestSimulateAgreement: two processes per side when they agree, up to
// five while none do, every window recorded as a sample of round 0 under
// the rounds' name, in the model and the side's file; a count that varies
// beyond 2% after five processes is no count at all.
func TestSimulateAgreement(t *testing.T) {
	sim := newFakeSim()
	sim.counts["old/Same"] = []float64{5000}
	sim.counts["new/Same"] = []float64{5000}
	sim.counts["old/Retry"] = []float64{1000, 1010, 1000.5} // the third agrees with the first
	sim.counts["new/Retry"] = []float64{1100, 1100.5}
	sim.counts["old/Noisy"] = []float64{1000, 1030, 1060, 1090, 1120, 1150}
	sim.counts["new/Noisy"] = []float64{1000}
	sim.counts["old/Wobbly"] = []float64{1000, 1005, 1010, 1015, 1019} // 1.9%: counted, with a note
	sim.counts["new/Wobbly"] = []float64{1000}
	s := simSession(t, sim, []string{"Same", "Retry", "Noisy", "Wobbly"}, "old", "new")
	defer func(n int) { simParallel = n }(simParallel)
	simParallel = 2 // the slots' bound, whatever the default
	s.simulate(context.Background())

	for _, tc := range []struct {
		name     string
		old, new int // processes
		samples  bool
		note     string
	}{
		{"Same", 2, 2, true, ""},
		{"Retry", 3, 2, true, "varied between processes by 1% on old (3 processes)"},
		{"Noisy", 5, 2, false, "no instructions per op: nondeterministic: the count varied 12% between processes on old"},
		{"Wobbly", 5, 2, true, "varied between processes by 1.9% on old (5 processes)"},
	} {
		b := &s.run.Benchmarks[s.bench["p."+tc.name+"-2"]]
		if got := sim.calls["old/"+tc.name]; got != tc.old {
			t.Errorf("%s: %d processes on old, want %d", tc.name, got, tc.old)
		}
		if got := sim.calls["new/"+tc.name]; got != tc.new {
			t.Errorf("%s: %d processes on new, want %d", tc.name, got, tc.new)
		}
		for _, side := range []string{"old", "new"} {
			got := instructions(b, side)
			want := 0
			if tc.samples {
				want = simCount * sim.calls[side+"/"+tc.name]
			}
			if len(got) != want {
				t.Errorf("%s: %d samples on %s, want %d", tc.name, len(got), side, want)
			}
			for _, x := range got {
				if x.Round != 0 || x.Iters != 1000 {
					t.Errorf("%s: sample %+v, want round 0 and 1000 iterations", tc.name, x)
				}
			}
		}
		notes := notesOf(b)
		if tc.note == "" && len(notes) > 0 || tc.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], tc.note)) {
			t.Errorf("%s: notes %q, want one saying %q", tc.name, notes, tc.note)
		}
		if m := b.Metric(model.InstructionsUnit); tc.samples && (m.Better != model.LowerIsBetter || m.Assume != model.AssumeNothing) {
			t.Errorf("%s: better %d, assume %q", tc.name, m.Better, m.Assume)
		}
	}
	// The first two processes run at once, so either may come first.
	var retry []float64
	for _, v := range []float64{1000, 1000.5, 1010} {
		for range simCount {
			retry = append(retry, v)
		}
	}
	if b := &s.run.Benchmarks[s.bench["p.Retry-2"]]; !slices.Equal(slices.Sorted(slices.Values(values(instructions(b, "old")))), retry) {
		t.Errorf("Retry's old samples %v: want every window of every process", values(instructions(b, "old")))
	}
	for _, sd := range s.run.Sides {
		if sd.Instructions != model.InstructionsSimulated || sd.InstructionsTool == "" {
			t.Errorf("side %s: instructions %q by %q", sd.Label, sd.Instructions, sd.InstructionsTool)
		}
	}
	if sim.most > simParallel {
		t.Errorf("%d processes at once, want at most %d", sim.most, simParallel)
	}

	// The side files read back as the model holds them, under the rounds'
	// names.
	for _, sd := range s.sides {
		data, err := os.ReadFile(sd.file.Name())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), "pkg: p\n") || !strings.Contains(string(data), "BenchmarkSame-2\t1000\t5000 instructions/op\n") {
			t.Errorf("%s.txt:\n%s", sd.Label, data)
		}
		f, err := model.Read(strings.NewReader(string(data)), sd.Label+".txt", sd.Label)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range f.Benchmarks {
			want := instructions(&s.run.Benchmarks[s.bench[b.Key()]], sd.Label)
			if got := b.Metric(model.InstructionsUnit).Values(sd.Label); !slices.Equal(got, values(want)) {
				t.Errorf("%s %s: file %v, model %v", sd.Label, b.Key(), got, values(want))
			}
		}
	}
	if !slices.ContainsFunc(model.Texts(s.run.Notes), func(n string) bool {
		return strings.HasPrefix(n, "Instructions per op were simulated after the timed rounds: 3 of 4 benchmarks counted under valgrind")
	}) {
		t.Errorf("no note on the pass: %q", s.run.Notes)
	}
	if d := s.budget.Spent("simulation"); d <= 0 {
		t.Errorf("the pass spent %v of the budget", d)
	}
}

func values(xs []model.Sample) []float64 {
	var v []float64
	for _, x := range xs {
		v = append(v, x.Value)
	}
	return v
}

// TestSimulateNotApplicable: a benchmark whose count cannot stand for its
// code's work per operation gets a note saying why, and no samples on any
// side; the others are counted.
func TestSimulateNotApplicable(t *testing.T) {
	sim := newFakeSim()
	for _, side := range []string{"old", "new"} {
		for _, n := range []string{"Parallel", "Stopped", "Fails", "Fine", "SetUp"} {
			sim.counts[side+"/"+n] = []float64{700}
		}
	}
	sim.parallel["new/Parallel"] = true
	sim.segments["old/Stopped"] = 11
	// A timer stopped around the set-up: each segment counted apart.
	sim.segments["old/SetUp"], sim.segments["new/SetUp"] = 2, 2
	sim.fail["new/Fails"] = &RunError{Reason: "panicked (exit status 2)", Tail: "goroutine 1 [running]:\npanic: boom\n"}
	s := simSession(t, sim, []string{"Parallel", "Stopped", "Fails", "Fine", "SetUp"}, "old", "new")
	s.simulate(context.Background())
	for _, tc := range []struct{ name, note string }{
		{"Parallel", "no instructions per op: the benchmark calls RunParallel, which at GOMAXPROCS 1"},
		{"Stopped", "no instructions per op: the benchmark stops its timer inside the loop (StopTimer, StartTimer: 11 times in a window), and counting each timed stretch apart would cost more than the window, so the count would include the work done while the timer was stopped"},
		{"Fails", "no instructions per op: the benchmark failed under Valgrind on new: panicked (exit status 2): panic: boom"},
		{"Fine", ""},
		{"SetUp", ""},
	} {
		b := &s.run.Benchmarks[s.bench["p."+tc.name+"-2"]]
		notes := notesOf(b)
		if tc.note == "" {
			if len(notes) > 0 || len(instructions(b, "old")) != 2*simCount || len(instructions(b, "new")) != 2*simCount {
				t.Errorf("%s: notes %q, %d and %d samples; want none and %d a side", tc.name, notes, len(instructions(b, "old")), len(instructions(b, "new")), 2*simCount)
			}
			continue
		}
		if len(notes) != 1 || !strings.HasPrefix(notes[0], tc.note) {
			t.Errorf("%s: notes %q, want %q", tc.name, notes, tc.note)
		}
		if n := b.Notes[0]; n.Benchmark != b.Key() || n.Source != source || n.Unit != model.InstructionsUnit {
			t.Errorf("%s: note %+v: want it about the benchmark's instructions/op", tc.name, n)
		}
		if b.Metric(model.InstructionsUnit) != nil {
			t.Errorf("%s: samples recorded: %+v", tc.name, b.Metric(model.InstructionsUnit))
		}
	}
	// Once a process shows it cannot apply, no more run, on any side.
	if got := sim.calls["new/Parallel"]; got != 1 {
		t.Errorf("%d processes of RunParallel on new, want the first", got)
	}
	if got := sim.calls["old/Parallel"]; got > simProcesses {
		t.Errorf("%d processes of RunParallel on old, want at most %d", got, simProcesses)
	}
	if got := sim.calls["old/Stopped"]; got != 1 {
		t.Errorf("%d processes of Stopped on old, want the first", got)
	}
}

// TestSimulateBudget: the pass counts the benchmarks that fit in what is
// left of the budget, in order, and notes the others with a budget that
// fits them.
func TestSimulateBudget(t *testing.T) {
	sim := newFakeSim()
	names := []string{"A", "B", "C"}
	for _, n := range names {
		sim.counts["current/"+n] = []float64{100}
	}
	s := simSession(t, sim, names, "current")
	// A at 1 µs/op fits; B and C at a second an operation, windows of
	// ten, do not, whatever the estimates learn from A's processes (at
	// most five times too long).
	for _, b := range s.run.Benchmarks[1:] {
		b.Metrics[0].Samples[0].Value = 1
	}
	per := s.simUnitWall(s.units[0])
	s.budget = experiment.NewBudget(per+per/2, time.Now())
	s.cfg.Time = s.budget.Total
	s.simulate(context.Background())
	if got := sim.calls["current/A"]; got != 2 {
		t.Errorf("A: %d processes, want 2", got)
	}
	for _, n := range []string{"B", "C"} {
		b := &s.run.Benchmarks[s.bench["p."+n+"-2"]]
		if sim.calls["current/"+n] != 0 || b.Metric(model.InstructionsUnit) != nil {
			t.Errorf("%s simulated beyond the budget", n)
		}
		if notes := notesOf(b); len(notes) != 1 || !strings.HasPrefix(notes[0], "no instructions per op: the "+s.cfg.Time.String()+" time budget was spent before its simulation (a --time of ") {
			t.Errorf("%s: notes %q", n, notes)
		}
	}
	run := model.Texts(model.OfKind(s.run.Notes, model.NoteInstructions))
	want := fmt.Sprintf("The simulation pass stopped when the %v time budget was spent: 1 of 3 benchmarks simulated, not B-2 and C-2 (a --time of ", s.cfg.Time)
	if !slices.ContainsFunc(run, func(n string) bool { return strings.HasPrefix(n, want) }) {
		t.Errorf("run notes %q, want one starting %q", run, want)
	}
}

// TestSimulateBudgetFit: the budget a note suggests fits the pass whole.
func TestSimulateBudgetFit(t *testing.T) {
	s := simSession(t, newFakeSim(), []string{"A", "B", "C"}, "old", "new")
	s.simScale = 1
	per := s.simUnitWall(s.units[0])
	s.cfg.Time = 10 * time.Second
	s.simOutcome(simOutcome{stop: "budget", units: 3, counted: 1, left: s.units[1:], took: per, tool: "valgrind"})
	// The pass needs 3 per; the rounds leave it half of the budget.
	fit := (6*per + time.Second - 1).Truncate(time.Second)
	if fit < 10*time.Second+2*per {
		fit = (10*time.Second + 2*per + time.Second - 1).Truncate(time.Second)
	}
	want := fmt.Sprintf("(a --time of %v fits them).", fit)
	if got := model.Texts(s.run.Notes); !strings.HasSuffix(got[len(got)-1], want) {
		t.Errorf("notes %q, want the last ending %q", got, want)
	}
	// A budget of fit leaves the pass what it needs.
	s.cfg.Time = fit
	if got := s.simReserve(); got < 3*per {
		t.Errorf("a budget of %v reserves %v, under the %v the pass needs", fit, got, 3*per)
	}
}

// TestSimulateInterrupted: Ctrl-C during the pass keeps what it counted
// and says where it stopped.
func TestSimulateInterrupted(t *testing.T) {
	sim := newFakeSim()
	names := []string{"A", "B", "C"}
	for _, n := range names {
		sim.counts["old/"+n] = []float64{100}
		sim.counts["new/"+n] = []float64{110}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sim.hook = func(key string, _ int) {
		if key == "new/B" {
			cancel()
		}
	}
	s := simSession(t, sim, names, "old", "new")
	s.simulate(ctx)
	if n := len(instructions(&s.run.Benchmarks[0], "new")); n != 2*simCount {
		t.Errorf("A: %d samples on new, want its %d", n, 2*simCount)
	}
	for _, b := range s.run.Benchmarks[1:] {
		if b.Metric(model.InstructionsUnit) != nil {
			t.Errorf("%s: samples of an interrupted benchmark", b.Name)
		}
	}
	if got := model.Texts(s.run.Notes); !slices.Contains(got, "The simulation pass was interrupted after 1 of 3 benchmarks; the timed rounds are complete.") {
		t.Errorf("notes %q", got)
	}
}

// TestSimulateRun: the pass in a real run, after real rounds, with a fake
// Valgrind: the windows' requests, the samples beside the rounds', the
// sides and the progress; then the profiling pass.
func TestSimulateRun(t *testing.T) {
	dir := labRepo(t)
	sim := newFakeSim()
	sim.counts["old/Work"] = []float64{1000}
	sim.counts["new/Work"] = []float64{10000}
	cfg := quick(dir, t, 2, Side{Label: "old", Rev: "HEAD~1"}, Side{Label: "new", Rev: "HEAD"})
	cfg.Bench = "Work"
	cfg.CPU = []int{2}
	cfg.Instructions, cfg.simulate, cfg.valgrind = InstructionsSimulate, sim.simulate, "valgrind"
	var reads int
	cfg.Profile = stubProfile(&reads)
	var phases []string
	cfg.Progress = func(p Progress) {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
	}
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{PhaseBuild, PhaseCheck, PhaseCalibrate, PhaseLink, PhaseMeasure, PhaseSimulate, PhaseProfile}; !slices.Equal(phases, want) {
		t.Errorf("phases %q, want %q", phases, want)
	}
	if reads != 2 {
		t.Errorf("%d profiles read: the profiling pass did not follow", reads)
	}
	i := slices.IndexFunc(run.Benchmarks, func(b model.Benchmark) bool { return b.Name == "Work" })
	if i < 0 {
		t.Fatalf("no Work in %+v", run.Benchmarks)
	}
	b := &run.Benchmarks[i]
	if b.Procs != 2 {
		t.Errorf("Work's procs %d, want the rounds' 2", b.Procs)
	}
	for side, want := range map[string]float64{"old": 1000, "new": 10000} {
		got := instructions(b, side)
		if len(got) != 2*simCount || got[0].Value != want {
			t.Errorf("%s: %+v, want %d samples of %v", side, got, 2*simCount, want)
		}
		if n := len(b.Metric("sec/op").Values(side)); n != 2 {
			t.Errorf("%s: %d timed samples, want the rounds' 2", side, n)
		}
	}
	for _, req := range sim.reqs {
		// The rounds measured Work on new at a few µs: windows of a
		// millisecond's worth, the same on both sides.
		if req.iters != sim.reqs[0].iters || req.iters < simMinIters || req.count != simCount || req.valgrind != "valgrind" || req.pattern != "^BenchmarkWork(-2)?$" {
			t.Errorf("request %+v", req)
		}
		if !slices.Contains(req.bin.Env, countersOff) {
			t.Errorf("a simulated binary reads counters: %q", req.bin.Env)
		}
	}
	for _, sd := range run.Sides {
		if sd.Instructions != model.InstructionsSimulated {
			t.Errorf("side %s: instructions %q", sd.Label, sd.Instructions)
		}
	}
	data, err := os.ReadFile(filepath.Join(cfg.Out, "new.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\t10000 instructions/op\n") || !strings.Contains(string(data), "BenchmarkWork-2\t") {
		t.Errorf("new.txt:\n%s", data)
	}
	saved, err := model.ReadFile(filepath.Join(cfg.Out, RunFile), "")
	if err != nil {
		t.Fatal(err)
	}
	if saved.Sides[1].Instructions != model.InstructionsSimulated {
		t.Errorf("run.json's new side: %+v", saved.Sides[1])
	}
}

// TestSimulateNoValgrind: simulating without valgrind fails before
// anything is built, naming the package that has it.
func TestSimulateNoValgrind(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	cfg := Config{Dir: t.TempDir(), Sides: []Side{{Label: "current", Rev: WorkingTree}}, Out: filepath.Join(t.TempDir(), "out"), Instructions: InstructionsSimulate}
	run, err := Run(context.Background(), cfg)
	if run != nil || !errors.Is(err, errNoValgrind) || !strings.Contains(err.Error(), "valgrind") {
		t.Fatalf("Run = %v, %v; want no run and errNoValgrind", run, err)
	}
	if _, err := os.Stat(cfg.Out); !os.IsNotExist(err) {
		t.Errorf("results directory made: %v", err)
	}
	for _, c := range []Config{
		{Instructions: "sometimes"},
		{Instructions: InstructionsSimulate, ProcessClock: true, valgrind: "valgrind"},
	} {
		c.Sides, c.Out = []Side{{Label: "current", Rev: WorkingTree}}, "out"
		if err := c.defaults(); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// TestCounters: with counters, the rounds' instructions/op and cycles/op
// are metrics like any other, and the sides say where they came from;
// without, one note says why there are none; off, the binaries are told.
func TestCounters(t *testing.T) {
	rs, warnings := ParseResults("pkg: p\nBenchmarkWork-2\t1000\t1234 ns/op\t1200 cpu-ns/op\t0 wait-ns/op\t5012 instructions/op\t3801 cycles/op\n")
	if len(rs) != 1 || len(warnings) > 0 {
		t.Fatalf("results %+v, warnings %q", rs, warnings)
	}
	for unit, want := range map[string]float64{model.InstructionsUnit: 5012, model.CyclesUnit: 3801} {
		i := slices.IndexFunc(rs[0].Values, func(v Value) bool { return v.Unit == unit })
		if i < 0 || rs[0].Values[i].Value != want || rs[0].Values[i].Better != model.LowerIsBetter || rs[0].Values[i].Assume != model.AssumeNothing {
			t.Errorf("%s: %+v", unit, rs[0].Values)
		}
	}
	s := simSession(t, newFakeSim(), nil, "old", "new")
	s.cfg.Instructions = InstructionsAuto
	if err := s.record(s.sides[0], 1, rs); err != nil {
		t.Fatal(err)
	}
	if err := s.record(s.sides[1], 1, []Result{{Name: "Work", Procs: 2, Iters: 1000, Config: []KeyValue{{"pkg", "p"}}, Values: []Value{{Unit: "sec/op", Value: 1e-6}}}}); err != nil {
		t.Fatal(err)
	}
	s.countersRead()
	if got := s.run.Sides[0].Instructions; got != model.InstructionsCounters {
		t.Errorf("old: %q, want counters", got)
	}
	if got := s.run.Sides[1].Instructions; got != "" {
		t.Errorf("new: %q, want none", got)
	}
	if got := model.Texts(s.run.Notes); len(got) != 1 || !strings.HasPrefix(got[0], "No instructions per op on new: the machine has hardware counters, but") {
		t.Errorf("notes %q", got)
	}
	if env := s.runEnv(); len(env) != 0 {
		t.Errorf("auto with counters: environment %q", env)
	}

	s = simSession(t, newFakeSim(), nil, "current")
	s.cfg.Instructions = InstructionsAuto
	s.cfg.counters = func() (bool, string) {
		return false, "this machine has no hardware counters for instructions (perf_event_open: no such file or directory, as on most VMs)"
	}
	s.setupCounters()
	want := "No instructions per op: this machine has no hardware counters for instructions (perf_event_open: no such file or directory, as on most VMs); --instructions simulate counts them under Valgrind."
	if got := model.Texts(s.run.Notes); len(got) != 1 || got[0] != want {
		t.Errorf("notes %q, want %q", got, want)
	}
	if got := s.run.Notes[0].Kind; got != model.NoteInstructions {
		t.Errorf("kind %q", got)
	}
	for _, mode := range []string{InstructionsOff, InstructionsSimulate} {
		s.cfg.Instructions = mode
		if env := s.runEnv(); !slices.Equal(env, []string{countersOff}) {
			t.Errorf("%s: environment %q, want %s", mode, env, countersOff)
		}
	}
}

func TestFailureWords(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{simFailure(&window.SimError{Err: errors.New("exit status 1"), Failed: []string{"NeedsPs"},
			Output: "--- FAIL: BenchmarkNeedsPs\n    fail_test.go:10: needs several Ps\n"}), "exit status 1: fail_test.go:10: needs several Ps"},
		{simFailure(&window.SimError{Err: errors.New("exit status 2"), Stderr: "goroutine 1 [running]:\npanic: boom [recovered]\n"}), "exit status 2: panic: boom [recovered]"},
		{simFailure(&window.SimError{Err: errors.New("signal: killed")}), "signal: killed"},
		{simFailure(errors.New("the callgrind dump of X: no totals line\nmore")), "the callgrind dump of X: no totals line"},
	} {
		if got := failureWords(tc.err); got != tc.want {
			t.Errorf("failureWords(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestSimulateEntitled: rounds that ran past their share of the budget (a
// neighbour slowed them) do not take the simulation's reserve: beside the
// busy experiment's neighbour at --time 10s, 5 to 8 runs in 20 had no
// count when the pass had only what the rounds left.
func TestSimulateEntitled(t *testing.T) {
	sim := newFakeSim()
	sim.counts["current/A"] = []float64{100}
	s := simSession(t, sim, []string{"A"}, "current")
	per := s.simUnitWall(s.units[0])
	// Started 4 per ago: the rounds took all of it, the reserve too.
	s.budget = experiment.NewBudget(4*per, time.Now().Add(-4*per))
	s.cfg.Time = s.budget.Total
	if r, left := s.simReserve(), s.budget.Left(); r != per || left != 0 {
		t.Fatalf("reserve %v, left %v; want A's %v and nothing", r, left, per)
	}
	s.simulate(context.Background())
	if got := sim.calls["current/A"]; got != 2 {
		t.Errorf("A: %d processes, want 2: the pass has the time the rounds were to leave it", got)
	}
}

// TestSimulateFirstRuns: the first benchmark runs though its estimate is
// longer than the room left (nothing has corrected the estimates yet,
// and they err long), unless far longer: beside the busy experiment's
// neighbour golang.org/x/crypto/sha3's estimate was 22 minutes for a pass
// of 15 s, and nothing was counted.
func TestSimulateFirstRuns(t *testing.T) {
	for _, tc := range []struct {
		room float64 // the budget left, in first-benchmark estimates
		runs bool
	}{{0.5, true}, {0.3, true}, {0.2, false}} {
		sim := newFakeSim()
		sim.counts["current/A"] = []float64{100}
		s := simSession(t, sim, []string{"A"}, "current")
		per := s.simUnitWall(s.units[0])
		room := time.Duration(tc.room * float64(per))
		s.budget = experiment.NewBudget(room, time.Now())
		s.cfg.Time = room // its reserve no more than what is left
		s.cfg.Instructions = InstructionsSimulate
		s.simulate(context.Background())
		if got := sim.calls["current/A"] > 0; got != tc.runs {
			t.Errorf("room of %.1f estimates: ran %v, want %v", tc.room, got, tc.runs)
		}
	}
}
