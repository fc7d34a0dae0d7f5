package gotest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rigorbench/rigor/gotest/window"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// Modes of Config.Instructions.
//
// With InstructionsAuto, where the machine has hardware counters (package
// window's CountersAvailable), the timer overlay reads the instructions
// and cycles each timed window retired, and every sample of the rounds
// carries model.InstructionsUnit and model.CyclesUnit beside its times;
// where it has none, a note says why, and nothing else happens.
//
// With InstructionsSimulate, the rounds read no counters; after them, and
// before the profiling pass, a simulation pass runs every benchmark the
// rounds did not lose, untimed, under Valgrind's callgrind, which counts
// the instructions of each timed window: a count that a neighbour on the
// machine hardly moves (it includes what the Go runtime's other threads
// did in the window, which grows with the window's wall time, a few
// thousand instructions on a quiet machine), though a benchmark's garbage
// collection may (how much of its work falls in a window varies). Each
// side's test binary runs the one benchmark with
// GOMAXPROCS 1 and asynchronous preemption off, in windows of about a
// millisecond of native time (at least simMinIters iterations, the same
// count on every side), simCount windows a process, in simProcesses
// processes, and up to simMaxProcesses while no two of them agree within
// simAgree. Every window's count per operation is a sample of
// model.InstructionsUnit, of round 0 (it is paired with no round), in the
// Run and in the side's benchmark file. The processes run one at a time
// (see simParallel). A benchmark that cannot be counted so gets
// a note saying why, and no samples: one that calls RunParallel (at
// GOMAXPROCS 1 it measures something else), one that stops its timer
// inside the loop (the count would include what it did meanwhile), one
// that fails under Valgrind, one whose count varies by more than simVaried
// between processes. The pass fits in the time budget as the profiling
// pass does: the rounds leave it the time it is expected to take, up to
// simShare of the budget, and when what is left is short the benchmarks
// that fit are counted, in order, with a note naming the others and the
// budget that would fit them. Ctrl-C during the pass keeps the Run and
// what it counted.
//
// With InstructionsOff, neither happens: the test binaries run with
// RIGOR_COUNTERS=off.
const (
	InstructionsAuto     = "auto"
	InstructionsSimulate = "simulate"
	InstructionsOff      = "off"
)

// How the simulation pass runs a benchmark.
const (
	// simWindowTime is the native time a simulated window lasts, about, and
	// simMinIters the fewest iterations it has. A millisecond of work is
	// millions of instructions, beside which the window's own cost
	// (starting and stopping the timer: about 10,000) is small, so an
	// operation slower than half a millisecond needs no more than two:
	// ten, as the floor was, made golang.org/x/crypto/sha3's 1 MiB
	// benchmarks (about 1.5 ms an operation) too long to count in the
	// default budget.
	simWindowTime = time.Millisecond
	simMinIters   = 2
	// simCount windows in each process (-test.count).
	simCount = 4
	// simProcesses processes per benchmark and side, and up to
	// simMaxProcesses while no two processes' medians agree within
	// simAgree (a share of the count). Beyond simVaried between
	// processes after simMaxProcesses, the count is not the code's: the
	// benchmark is nondeterministic.
	simProcesses    = 2
	simMaxProcesses = 5
	simAgree        = 0.002
	simVaried       = 0.02
	// simShare is the largest share of the time budget the rounds leave
	// for the pass.
	simShare = 0.5
	// simStartup is the wall time of a test binary that starts under
	// callgrind and runs one iteration, and simSlowdown how much slower
	// than native callgrind runs a benchmark's code: measured on this
	// project's 2-core VM (valgrind 3.19, Go 1.26), 0.27 s (natively 5-7
	// ms), and 13x for an integer loop, 46x for allocating, 64x for a map,
	// 70x for sort.Ints. The pass corrects its estimates by the processes
	// it has run.
	simStartup  = 300 * time.Millisecond
	simSlowdown = 50
	// simMinScale and simMaxScale bound the correction: a correction
	// learnt from a few quick benchmarks must not make a slow one look
	// quick.
	simMinScale, simMaxScale = 0.2, 5
	// simNativeStartup is the native wall time of a test binary's start,
	// which simStartup already counts: what a one-iteration process
	// takes beyond it is the benchmark's set-up.
	simNativeStartup = 10 * time.Millisecond
)

// A simRequest is one process of the simulation pass: bin runs the
// benchmarks pattern selects for iters iterations, count times.
type simRequest struct {
	bin      *Binary
	valgrind string
	pattern  string
	iters    int64
	count    int
}

// A simWindow is one timed window counted under the simulator.
type simWindow struct {
	// name is the benchmark's name as printed, without "Benchmark" and
	// without a GOMAXPROCS suffix.
	name  string
	iters int64
	// perOp is the instructions the window retired over iters.
	perOp float64
	// segments is how many StartTimer..StopTimer segments the window
	// had: more than one when the benchmark stopped its timer inside its
	// loop. parallel is set when the benchmark called RunParallel.
	segments int
	parallel bool
}

// A simulateFunc runs one process under the simulator and returns the
// windows its benchmarks timed, in order; a failure of the benchmark is a
// *RunError.
type simulateFunc func(context.Context, simRequest) ([]simWindow, error)

// instructionsDefaults checks c.Instructions and finds what it needs.
func (c *Config) instructionsDefaults() error {
	switch c.Instructions {
	case "":
		c.Instructions = InstructionsAuto
	case InstructionsAuto, InstructionsOff:
	case InstructionsSimulate:
		if c.ProcessClock {
			return errors.New("instructions are simulated in the benchmark timer's window, which the whole process's CPU clock does without: simulate with the window's clock")
		}
		if c.simulate == nil {
			c.simulate = windowSimulate
		}
		if c.valgrind == "" {
			path, err := FindValgrind()
			if err != nil {
				return err
			}
			c.valgrind = path
		}
	default:
		return fmt.Errorf("unknown instructions mode %q (want %s, %s or %s)", c.Instructions, InstructionsAuto, InstructionsSimulate, InstructionsOff)
	}
	if c.counters == nil {
		c.counters = countersAvailable
	}
	return nil
}

// FindValgrind returns the path of the valgrind command that
// InstructionsSimulate runs, or an error naming the package to install.
func FindValgrind() (string, error) {
	path, err := exec.LookPath("valgrind")
	if err != nil {
		return "", errNoValgrind
	}
	return path, nil
}

// countersOff is the environment setting that keeps the timer overlay from
// reading hardware counters.
const countersOff = window.CountersOffEnv

// runEnv is what the test binaries' environment gets beyond the side's:
// no counters unless InstructionsAuto reads them.
func (s *session) runEnv() []string {
	if s.cfg.Instructions != InstructionsAuto {
		return []string{countersOff}
	}
	return nil
}

// setupCounters notes, for InstructionsAuto, why the rounds read no
// instructions: the machine has no counters, or lets no process read them
// (package window's CountersAvailable says which, in words).
func (s *session) setupCounters() {
	if s.cfg.Instructions != InstructionsAuto {
		return
	}
	if ok, why := s.cfg.counters(); !ok {
		s.run.Notes = append(s.run.Notes, gotestNote(model.NoteInstructions, fmt.Sprintf(
			"No instructions per op: %s; --instructions simulate counts them under Valgrind.", why)))
		s.cfg.Instructions = InstructionsOff
	}
}

// countersRead records, after the rounds, which sides' samples carry
// instructions per operation from the counters, and notes a side that
// has none though the machine has counters.
func (s *session) countersRead() {
	if s.cfg.Instructions != InstructionsAuto {
		return
	}
	for i, sd := range s.sides {
		read := false
		for _, b := range s.run.Benchmarks {
			if m := b.Metric(model.InstructionsUnit); m != nil && slices.ContainsFunc(m.Samples, func(x model.Sample) bool { return x.Side == sd.Label && x.Round > 0 }) {
				read = true
				break
			}
		}
		switch {
		case read:
			s.run.Sides[i].Instructions = model.InstructionsCounters
		case !sd.window:
			s.run.Notes = append(s.run.Notes, gotestNote(model.NoteInstructions, fmt.Sprintf(
				"No instructions per op on %s: the hardware counters are read in the benchmark timer's window, and %s's CPU time is read for the whole process.", sd.Label, sd.Label)))
		case s.measuredAny(sd.Label):
			s.run.Notes = append(s.run.Notes, gotestNote(model.NoteInstructions, fmt.Sprintf(
				"No instructions per op on %s: the machine has hardware counters, but its test binaries reported none.", sd.Label)))
		}
	}
}

// measuredAny reports whether side has a sample of a round.
func (s *session) measuredAny(side string) bool {
	for _, b := range s.run.Benchmarks {
		for _, m := range b.Metrics {
			if slices.ContainsFunc(m.Samples, func(x model.Sample) bool { return x.Side == side && x.Round > 0 }) {
				return true
			}
		}
	}
	return false
}

// simulating reports whether the run has a simulation pass.
func (s *session) simulating() bool {
	return s.cfg.Instructions == InstructionsSimulate
}

// reserve is what the rounds leave of the budget for the passes after
// them: simulation and profiling.
func (s *session) reserve(last time.Duration) time.Duration {
	return s.simReserve() + s.profileReserve(last)
}

// simReserve is how much of the time budget the rounds leave for the
// simulation pass: what it is expected to take, at most simShare of the
// budget.
func (s *session) simReserve() time.Duration {
	if !s.simulating() {
		return 0
	}
	var need time.Duration
	for _, u := range s.units {
		if !u.failed {
			need += s.simUnitWall(u)
		}
	}
	return min(need, time.Duration(simShare*float64(s.cfg.Time)))
}

// simParallel is how many simulated processes run at a time: one. A
// window's count includes what the runtime's other threads (sysmon, an M
// started or woken) did meanwhile, which grows with the window's wall
// time, and so with how much CPU the process gets. Measured on this
// project's 2-core VM at a load of about 3 (rigor ab of a 3,516
// instructions/op benchmark, four runs each way): one process at a time
// read 3,515.7-3,518.2, two at a time 3,519.7-3,521.9, 0.15% higher; raw
// callgrind windows of 5.28M instructions exceeded the lowest by 6-10k
// (median) one at a time and by 7-35k two at a time. Both sides would be
// inflated alike, but a count that depends on the machine's load is less
// of one to keep in a history; the pass takes about twice as long.
var simParallel = 1

// simOp is u's native time per operation in seconds, as the pass plans
// its windows: the slowest side's median of the rounds, or calibration's.
func (s *session) simOp(u *unit) float64 {
	op := math.NaN()
	if i, ok := s.bench[u.key]; ok && s.run != nil && i < len(s.run.Benchmarks) {
		for _, sd := range s.sides {
			if m := sideMedian(&s.run.Benchmarks[i], "sec/op", sd.Label); m > 0 && !(m <= op) {
				op = m
			}
		}
	}
	switch {
	case op > 0:
		return op
	case u.calOp > 0:
		return u.calOp
	case u.perOp > 0:
		return u.perOp
	}
	return 1e-6
}

// simIters is the iteration count of a simulated window of an operation
// that takes op seconds natively: about simWindowTime, at least simMinIters.
func simIters(op float64) int64 {
	// Less a rounding error: a µs operation makes 1000, not 1001.
	n := math.Ceil(simWindowTime.Seconds()/op - 1e-9)
	return int64(min(max(n, simMinIters), 1e9))
}

// simProcessWall is how long one simulated process of u is expected to
// last: callgrind's start-up, then simSlowdown times what the process
// does natively beyond a process's start (simCount times the benchmark's
// set-up twice, for the one-iteration run and the window's, and the
// window), corrected by what the pass has seen so far.
func (s *session) simProcessWall(u *unit) time.Duration {
	op := s.simOp(u)
	// The one-iteration process's CPU time where measured: its wall time
	// beside a busy machine is mostly waiting for a CPU (beside the busy
	// experiment's neighbour, golang.org/x/crypto/sha3's estimate came to
	// 22 minutes for a pass that takes 15 s, and nothing was counted).
	start := u.startOne
	if u.startCPU > 0 && u.startCPU < start {
		start = u.startCPU
	}
	setup := max(start-simNativeStartup, 0).Seconds()
	native := float64(simCount) * (2*setup + float64(simIters(op)+1)*op)
	d := simStartup.Seconds() + simSlowdown*native
	if s.simScale > 0 {
		d *= s.simScale
	}
	return time.Duration(d * float64(time.Second))
}

// simFirstSlack is how far beyond the room left the first benchmark's
// estimate may be for it to run anyway: nothing has corrected the
// estimates yet, and they err long (they take callgrind as 50 times
// slower than native; 13 to 70 was measured).
const simFirstSlack = 4

// simPlanProcesses is how many processes per side a benchmark is expected
// to take: simProcesses, and more where they disagree. Measured on ten
// benchmarks of the standard library's kinds (a loop, sort, SHA-256: two
// a side; allocating ones, whose windows hold a varying share of the
// garbage collector's work: two to five), 41 processes for 14 sides
// (2.9 a side).
const simPlanProcesses = 2.5

// simUnitWall is how long the pass is expected to take for u:
// simPlanProcesses processes of every side, simParallel at a time.
func (s *session) simUnitWall(u *unit) time.Duration {
	n := simPlanProcesses * float64(len(s.sides))
	waves := math.Ceil(n / float64(simParallel))
	return time.Duration(waves * float64(s.simProcessWall(u)))
}

// A sideSim is what the simulation of one benchmark found on one side.
type sideSim struct {
	windows []simWindow
	// medians are each process's median count per operation.
	medians []float64
	// runs is how many processes ran, wall their wall time, summed.
	runs     int
	wall     time.Duration
	problem  string // the benchmark failed: why
	parallel bool
	segments int // the most segments of a window
}

// simulate runs the simulation pass (see InstructionsSimulate).
func (s *session) simulate(ctx context.Context) {
	var units []*unit
	for _, u := range s.units {
		if !u.failed {
			units = append(units, u)
		}
	}
	if len(units) == 0 {
		return
	}
	tool := s.simTool()
	t0 := time.Now()
	defer func() { s.budget.Spend("simulation", time.Since(t0), "") }()
	// The pass has at least the time the rounds left it: rounds that ran
	// longer than planned (a neighbour slowed the machine) eat into the
	// budget, not into the count the user asked for. Beside the busy
	// experiment's neighbour at --time 10s, 5 to 8 of 20 runs had no count
	// when the pass had only what was left.
	// (The reserve is spent by plan, unit by unit, not by the clock.)
	entitled := s.simReserve()
	room := func() time.Duration {
		return max(s.budget.Left()-s.profileReserve(0), entitled)
	}
	var counted, skipped int
	var left []*unit
	stop := ""
	var procs int
	for k, u := range units {
		switch {
		case ctx.Err() != nil:
			stop = "interrupted"
		case s.simEstimated == 0 && s.simUnitWall(u) <= simFirstSlack*room():
			// Nothing has run yet to correct the estimates by (simScale):
			// the first benchmark runs unless its estimate is far beyond
			// the room (a 10-second operation is 500 under callgrind).
		case s.simUnitWall(u) > room():
			stop = "budget"
		}
		if stop != "" {
			left = units[k:]
			break
		}
		entitled -= s.simUnitWall(u)
		s.progress(Progress{Phase: PhaseSimulate, Step: k + 1, Steps: len(units), Current: s.shortKey(u.key)})
		estimate := s.simProcessWall(u)
		sims, err := s.simulateUnit(ctx, u)
		if err != nil { // interrupted: what this benchmark counted is incomplete
			stop = "interrupted"
			left = units[k:]
			break
		}
		for _, r := range sims {
			procs += r.runs
			if r.problem == "" { // a failure ends early: it says nothing of the estimates
				s.simEstimated += estimate * time.Duration(r.runs)
				s.simSpent += r.wall
			}
		}
		if s.simEstimated > 0 {
			s.simScale = min(max(float64(s.simSpent)/float64(s.simEstimated), simMinScale), simMaxScale)
		}
		if s.recordSimulation(u, sims, tool) {
			counted++
		} else {
			skipped++
		}
	}
	s.simOutcome(simOutcome{stop: stop, units: len(units), counted: counted, skipped: skipped, left: left, procs: procs, took: time.Since(t0), tool: tool})
}

// simTool names what counts the simulated instructions, for
// Side.InstructionsTool.
func (s *session) simTool() string {
	v, err := valgrindVersion(s.cfg.valgrind)
	if err != nil || v == "" {
		v = "valgrind"
	}
	return v + " callgrind, GOMAXPROCS 1"
}

// simulateUnit counts u's instructions on every side, the sides'
// processes simParallel at a time. It returns an error only when ctx
// ended.
func (s *session) simulateUnit(ctx context.Context, u *unit) ([]sideSim, error) {
	iters := simIters(s.simOp(u))
	out := make([]sideSim, len(s.sides))
	slots := make(chan struct{}, simParallel)
	// Set once a side finds that the count cannot apply, which stops
	// the others too.
	var moot atomic.Bool
	var wg sync.WaitGroup
	for i, sd := range s.sides {
		wg.Go(func() {
			out[i] = s.simulateSide(ctx, u, sd, iters, slots, &moot)
		})
	}
	wg.Wait()
	return out, ctx.Err()
}

// simulateSide runs u's processes on sd, each when it gets a slot:
// simProcesses, then more until two agree or simMaxProcesses ran, unless a
// process shows that the count cannot apply (here, or on another side:
// moot).
func (s *session) simulateSide(ctx context.Context, u *unit, sd *sideState, iters int64, slots chan struct{}, moot *atomic.Bool) sideSim {
	var r sideSim
	// The first layout's binary (see Config.Layouts): a count of
	// instructions barely depends on where the linker put the functions
	// (alignment padding it never executes, the odd branch an offset
	// lengthens); a layout moves the time an instruction takes, not how
	// many there are.
	req := simRequest{bin: sd.bins[u.pkg], valgrind: s.cfg.valgrind, pattern: u.pattern, iters: iters, count: simCount}
	name := s.run.Benchmarks[s.bench[u.key]].Name
	for len(r.medians) < simProcesses || !agreed(r.medians) && len(r.medians) < simMaxProcesses {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return r
		}
		if moot.Load() {
			<-slots
			return r
		}
		t0 := time.Now()
		ws, err := s.cfg.simulate(ctx, req)
		r.wall += time.Since(t0)
		r.runs++
		<-slots
		ws = selectWindows(ws, name)
		switch {
		case ctx.Err() != nil:
			return r
		case err != nil:
			r.problem = failureWords(err)
		case len(ws) == 0:
			r.problem = "it printed no result"
		}
		if r.problem != "" {
			moot.Store(true)
			return r
		}
		v := make([]float64, len(ws))
		for i, w := range ws {
			v[i] = w.perOp
			r.parallel = r.parallel || w.parallel
			r.segments = max(r.segments, w.segments)
		}
		r.windows = append(r.windows, ws...)
		r.medians = append(r.medians, stats.Median(v))
		if r.parallel || r.segments > window.SimSegments {
			moot.Store(true)
			return r
		}
	}
	return r
}

// selectWindows returns the windows of the benchmark name (as the rounds
// print it, without a GOMAXPROCS suffix, which a simulated process at
// GOMAXPROCS 1 does not print), or all of them when none has that name.
func selectWindows(ws []simWindow, name string) []simWindow {
	var own []simWindow
	for _, w := range ws {
		if strings.TrimPrefix(w.name, "Benchmark") == name {
			own = append(own, w)
		}
	}
	if len(own) == 0 {
		return ws
	}
	return own
}

// agreed reports whether the latest of the processes' medians agrees
// with an earlier one within simAgree.
func agreed(medians []float64) bool {
	if len(medians) < 2 {
		return false
	}
	last := medians[len(medians)-1]
	for _, m := range medians[:len(medians)-1] {
		if math.Abs(last-m) <= simAgree*min(math.Abs(last), math.Abs(m)) {
			return true
		}
	}
	return false
}

// spread is how far apart the processes' medians are, as a share of the
// smallest.
func spread(medians []float64) float64 {
	if len(medians) < 2 {
		return 0
	}
	lo, hi := slices.Min(medians), slices.Max(medians)
	if lo <= 0 {
		return math.Inf(1)
	}
	return (hi - lo) / lo
}

// recordSimulation records u's simulated counts on every side, or, when
// they cannot stand for the code's work, a note saying why. It reports
// whether it recorded them.
func (s *session) recordSimulation(u *unit, sims []sideSim, tool string) bool {
	b := &s.run.Benchmarks[s.bench[u.key]]
	if why := s.simProblem(sims); why != "" {
		b.Notes = append(b.Notes, model.Note{Kind: model.NoteInstructions, Source: source, Benchmark: u.key, Unit: model.InstructionsUnit,
			Text: "no instructions per op: " + why})
		return false
	}
	var varied []string
	for i, sd := range s.sides {
		r := sims[i]
		if v := spread(r.medians); v > simAgree {
			varied = append(varied, fmt.Sprintf("%.2g%% on %s (%s)", 100*v, sd.Label, words.Count(len(r.medians), "process", "processes")))
		}
		results := make([]Result, len(r.windows))
		for j, w := range r.windows {
			results[j] = simResult(b, w)
		}
		if err := s.record(sd, 0, results); err != nil {
			fmt.Fprintf(s.cfg.Log, "rigor: %v\n", err)
		}
		s.run.Sides[i].Instructions = model.InstructionsSimulated
		s.run.Sides[i].InstructionsTool = tool
	}
	if len(varied) > 0 {
		b.Notes = append(b.Notes, model.Note{Kind: model.NoteInstructions, Source: source, Benchmark: u.key, Unit: model.InstructionsUnit,
			Text: fmt.Sprintf("the simulated instructions per op varied between processes by %s, more than the %g%% a deterministic benchmark's do",
				strings.Join(varied, ", "), 100*simAgree)})
	}
	if err := s.writeJSON(); err != nil {
		fmt.Fprintf(s.cfg.Log, "rigor: %v\n", err)
	}
	return true
}

// simProblem says why the counts in sims do not stand for the code's work
// per operation, or "".
func (s *session) simProblem(sims []sideSim) string {
	for i, r := range sims {
		if r.problem != "" {
			return fmt.Sprintf("the benchmark failed under Valgrind on %s: %s", s.sides[i].Label, r.problem)
		}
	}
	for _, r := range sims {
		if r.parallel {
			return "the benchmark calls RunParallel, which at GOMAXPROCS 1 (as Valgrind runs it) measures one goroutine's work instead of GOMAXPROCS goroutines' at once"
		}
	}
	for _, r := range sims {
		if r.segments > window.SimSegments {
			return fmt.Sprintf("the benchmark stops its timer inside the loop (StopTimer, StartTimer: %d times in a window), and counting each timed stretch apart would cost more than the window, so the count would include the work done while the timer was stopped", r.segments)
		}
	}
	var worst float64
	side := ""
	for i, r := range sims {
		if v := spread(r.medians); !agreed(r.medians) && v > simVaried && v > worst {
			worst, side = v, s.sides[i].Label
		}
	}
	if side != "" {
		return fmt.Sprintf("nondeterministic: the count varied %.2g%% between processes on %s", 100*worst, side)
	}
	return ""
}

// simResult is window w of b as a result line of instructions per
// operation, under the rounds' name (with their GOMAXPROCS suffix), so
// that benchstat and the model group it with the benchmark.
func simResult(b *model.Benchmark, w simWindow) Result {
	r := Result{Name: b.Name, Procs: b.Procs, Iters: w.iters, fileConfig: b.Config,
		Values: []Value{{Unit: model.InstructionsUnit, Value: w.perOp, Better: model.LowerIsBetter, Assume: model.AssumeNothing}}}
	if b.Pkg != "" {
		r.Config = append(r.Config, KeyValue{"pkg", b.Pkg})
	}
	r.Line = fmt.Sprintf("Benchmark%s\t%d\t%s %s", r.FullName(), w.iters, strconv.FormatFloat(w.perOp, 'f', -1, 64), model.InstructionsUnit)
	return r
}

// A simOutcome is what the simulation pass did.
type simOutcome struct {
	// stop is why it stopped early: "budget", "interrupted" or "".
	stop  string
	units int // benchmarks to simulate
	// counted benchmarks got samples, skipped ones a note saying why
	// not; left are those the pass did not reach.
	counted, skipped int
	left             []*unit
	procs            int // processes run
	took             time.Duration
	tool             string
}

// simOutcome notes what the simulation pass did.
func (s *session) simOutcome(o simOutcome) {
	done := o.counted + o.skipped
	if done > 0 {
		s.run.Notes = append(s.run.Notes, gotestNote(model.NoteInstructions, fmt.Sprintf(
			"Instructions per op were simulated after the timed rounds: %d of %d benchmarks counted under %s with asynchronous preemption off, in windows of about %v of native time (at least %d iterations), %d a process, %s in %v.",
			o.counted, o.units, o.tool, simWindowTime, simMinIters, simCount, words.Count(o.procs, "process", "processes"), o.took.Round(10*time.Millisecond))))
	}
	switch o.stop {
	case "interrupted":
		s.note(model.NoteInstructions, "The simulation pass was interrupted after %d of %d benchmarks; the timed rounds are complete.", done, o.units)
	case "budget":
		var names []string
		var need time.Duration
		for _, u := range o.left {
			names = append(names, s.shortKey(u.key))
			need += s.simUnitWall(u)
		}
		// The rounds leave the pass at most simShare of the budget: one
		// that fits it whole is what the pass needs over that share, or
		// this budget plus what is left to do, whichever is more.
		fit := max(s.cfg.Time+need, time.Duration(float64(o.took+need)/simShare))
		fit = (fit + time.Second - 1).Truncate(time.Second)
		s.note(model.NoteInstructions, "The simulation pass stopped when the %v time budget was spent: %d of %d benchmarks simulated, not %s (a --time of %v fits them).",
			s.cfg.Time, done, o.units, words.JoinList(names, 5), fit)
		for _, u := range o.left {
			b := &s.run.Benchmarks[s.bench[u.key]]
			b.Notes = append(b.Notes, model.Note{Kind: model.NoteInstructions, Source: source, Benchmark: u.key, Unit: model.InstructionsUnit,
				Text: fmt.Sprintf("no instructions per op: the %v time budget was spent before its simulation (a --time of %v fits it)", s.cfg.Time, fit)})
		}
	}
}

// failureWords says in one line why a simulated process failed: the
// error's first line, or a *RunError's reason, and the first line of its
// output that says more (a panic, a b.Fatal's position and message).
func failureWords(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	rest := err.Error()
	var re *RunError
	if errors.As(err, &re) {
		msg, rest = re.Reason, re.Tail
	}
	for _, l := range strings.Split(rest, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "panic: ") || strings.Contains(l, "_test.go:") {
			return msg + ": " + l
		}
	}
	return msg
}
