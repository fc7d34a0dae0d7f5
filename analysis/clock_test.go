package analysis

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// clockRun builds a paired run of one benchmark over 12 rounds: wall time
// 100 µs on old and 100 µs × wallRatio on new, CPU time cpuShare of the
// wall time with new at cpuRatio of old, and one observation per sample:
// contended in the rounds busy says; and a CPU profile per side whose share in locks is lock (none
// when lock is negative), for a benchmark at GOMAXPROCS procs.
func clockRun(wallRatio, cpuRatio, cpuShare float64, busy func(round int) bool, procs int, lock float64) *model.Run {
	wall := model.Metric{Unit: WallUnit, Better: model.LowerIsBetter}
	cpu := model.Metric{Unit: CPUUnit, Better: model.LowerIsBetter}
	var obs []model.Observation
	for r := 1; r <= 12; r++ {
		for i, side := range []string{"old", "new"} {
			// ±3% of wall noise from sample to sample, ±0.1% on the
			// CPU clock, differing between the sides of a round.
			wn := 1 + 0.03*float64((r+2*i)%5-2)/2
			cn := 1 + 0.001*float64((r+i)%3-1)
			w, c := 100e-6*wn, 100e-6*cpuShare*cn
			if side == "new" {
				w *= wallRatio
				c *= cpuRatio
			}
			wall.Samples = append(wall.Samples, model.Sample{Side: side, Round: r, Iters: 1000, Value: w})
			cpu.Samples = append(cpu.Samples, model.Sample{Side: side, Round: r, Iters: 1000, Value: c})
			o := model.Observation{Benchmark: key(procs), Side: side, Round: r, Duration: 100 * time.Millisecond,
				System: &model.SystemStats{CPUs: 2, Running: 1}}
			if busy(r) {
				o.OtherCPU, o.System.Running = 0.6, 3
			}
			obs = append(obs, o)
		}
	}
	if lock >= 0 {
		for _, side := range []string{"old", "new"} {
			obs = append(obs, model.Observation{Benchmark: key(procs), Side: side,
				Profile: &model.ProfileStats{Samples: 50, Lock: lock}})
		}
	}
	return &model.Run{Kind: model.KindAB, Paired: true, Sides: []model.Side{{Label: "old"}, {Label: "new"}},
		Benchmarks:   []model.Benchmark{{Name: "B", Pkg: "p", Procs: procs, Metrics: []model.Metric{wall, cpu}}},
		Observations: obs}
}

// withProfileSamples gives run's CPU profiles n samples each.
func withProfileSamples(run *model.Run, n int64) *model.Run {
	for i := range run.Observations {
		if p := run.Observations[i].Profile; p != nil {
			p.Samples = n
		}
	}
	return run
}

func key(procs int) string {
	return (&model.Benchmark{Name: "B", Pkg: "p", Procs: procs}).Key()
}

func never(int) bool        { return false }
func always(int) bool       { return true }
func evenRounds(r int) bool { return r%2 == 0 }

func TestChooseClock(t *testing.T) {
	for _, tc := range []struct {
		name   string
		run    *model.Run
		unit   string
		reason string // a phrase the reason contains; "" for none
	}{
		{"quiet machine: wall", clockRun(1.03, 1.03, 1, never, 1, -1), WallUnit, ""},
		// GOMAXPROCS 1 and its one thread busy: nothing can wait.
		{"busy, CPU-bound: CPU", clockRun(1.03, 1.03, 1, evenRounds, 1, -1), CPUUnit, "samples: 6 of 12 rounds, between rounds 2 and 12): wall time measured the machine"},
		{"busy in a stretch: the rounds named", clockRun(1.03, 1.03, 1, func(r int) bool { return r >= 3 && r <= 7 }, 1, -1), CPUUnit, "5 of 12 rounds, between rounds 3 and 7)"},
		// Every round busy: the least disturbed quarter judges CPU-boundness.
		{"busy throughout, CPU-bound: CPU", clockRun(1.03, 1.03, 1, always, 1, -1), CPUUnit, "CPU time is used"},
		// No -N suffix: go test ran it at GOMAXPROCS 1.
		{"busy, no procs suffix: CPU", clockRun(1.03, 1.03, 1, evenRounds, 0, -1), CPUUnit, "its one thread busy, GOMAXPROCS 1"},
		// Every round busy with 3 runnable threads on 2 CPUs: a thread
		// that only computes gets 2/3 of a CPU (CPU time 66% of wall
		// time); one that sleeps far less.
		{"busy throughout, fair share: CPU", clockRun(1.03, 1.03, 0.66, always, 1, -1), CPUUnit, "CPU time is used"},
		{"busy throughout, sleeps: wall", clockRun(1.03, 1.03, 0.2, always, 1, -1), WallUnit, "not CPU-bound"},
		// A sleeping benchmark: 5% of its wall time on the CPU.
		{"busy, sleeps: wall", clockRun(1.03, 1.03, 0.05, evenRounds, 1, -1), WallUnit, "not CPU-bound"},
		// One of two threads busy, no profile: a lock handed on could
		// keep one busy while goroutines wait.
		{"busy, one of two threads, no profile: wall", clockRun(1.03, 1.03, 1, evenRounds, 2, -1), WallUnit, "without a CPU profile"},
		// A lock-free profile too short to count (a busy machine left the
		// profiling run 16 samples' worth of CPU): said so, not "without
		// a CPU profile".
		{"busy, one of two threads, short profile: wall", withProfileSamples(clockRun(1.03, 1.03, 1, evenRounds, 2, 0), 16), WallUnit, "too short to show that it never waits (at most 16 samples, 20 needed"},
		{"busy, one of two threads, lock-free profile: CPU", clockRun(1.03, 1.03, 1, evenRounds, 2, 0.01), CPUUnit, "1% of its CPU profile"},
		// Both threads busy without a profile: a contended mutex spins
		// (examples/lockbound kept 2.0 CPUs busy on 2 Ps): wall.
		{"busy, both threads busy, no profile: wall", clockRun(1.03, 1.03, 2, evenRounds, 2, -1), WallUnit, "may spin or sleep on a lock"},
		// 40% of the profile in mutex slow paths.
		{"busy, lock-bound: wall", clockRun(1.03, 1.03, 1, evenRounds, 2, 0.4), WallUnit, "locks or file I/O"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Analyze(tc.run, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			b := rep.Benchmarks[0]
			if b.Clock == nil || b.Clock.Unit != tc.unit {
				t.Fatalf("clock %+v, want %s", b.Clock, tc.unit)
			}
			if tc.reason == "" && b.Clock.Reason != "" || !strings.Contains(b.Clock.Reason, tc.reason) {
				t.Errorf("reason %q, want it to contain %q", b.Clock.Reason, tc.reason)
			}
			for _, m := range b.Metrics {
				if m.Decides() != (m.Unit == tc.unit) {
					t.Errorf("%s decides = %v with the clock on %s", m.Unit, m.Decides(), tc.unit)
				}
			}
			// One comparison per benchmark: the context clock is not
			// corrected for.
			if rep.Comparisons != 1 {
				t.Errorf("%d comparisons, want 1", rep.Comparisons)
			}
		})
	}
}

// TestChooseClockCPUGaps: a busy CPU-bound benchmark whose CPU time is
// missing from some samples keeps wall time (a regression seen in
// TestABGateAndJSON: CPU time on 3 of 12 rounds, "too few samples").
func TestChooseClockCPUGaps(t *testing.T) {
	run := clockRun(1.03, 1.03, 1, evenRounds, 1, -1)
	cpu := &run.Benchmarks[0].Metrics[1]
	cpu.Samples = cpu.Samples[:6]
	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Benchmarks[0].Clock; c == nil || c.Unit != WallUnit || !strings.Contains(c.Reason, "6 of 24 samples") {
		t.Errorf("clock %+v, want wall with 6 of 24 samples", c)
	}
}

// TestChooseClockSteadier: CPU time is taken only when it varies less
// from round to round than wall time.
func TestChooseClockSteadier(t *testing.T) {
	run := clockRun(1.03, 1.03, 1, evenRounds, 1, -1)
	wall, cpu := &run.Benchmarks[0].Metrics[0], &run.Benchmarks[0].Metrics[1]
	// Swap the noise: wall within ±0.1%, CPU ±3% (short samples).
	for i := range wall.Samples {
		w, c := wall.Samples[i].Value, cpu.Samples[i].Value
		wall.Samples[i].Value, cpu.Samples[i].Value = c, w
	}
	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Benchmarks[0].Clock; c == nil || c.Unit != WallUnit || !strings.Contains(c.Reason, "varied as much as wall time") {
		t.Errorf("clock %+v, want wall: CPU time is the noisier clock", c)
	}
}

func TestChooseClockUnpaired(t *testing.T) {
	run := clockRun(1.03, 1.03, 1, always, 1, -1)
	run.Paired = false
	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Benchmarks[0].Clock; c == nil || c.Unit != WallUnit {
		t.Errorf("unpaired: clock %+v, want wall", c)
	}
}

// TestGateFollowsClock: a regression on the clock the verdict is not taken
// from never fails the gate; on the chosen clock it does.
func TestGateFollowsClock(t *testing.T) {
	// Quiet: CPU time +20% (a start-up estimate gone wrong), wall +0%.
	rep, err := Analyze(clockRun(1, 1.2, 1, never, 1, -1), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Gate(0.05); len(f) != 0 {
		t.Errorf("quiet machine: the CPU clock failed the gate: %+v", f)
	}
	// Busy and CPU-bound: wall +0% (the machine) but CPU +20%.
	rep, err = Analyze(clockRun(1, 1.2, 1, evenRounds, 1, -1), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Gate(0.05)
	if len(f) != 1 || f[0].Unit != CPUUnit {
		t.Errorf("busy machine: gate %+v, want one failure on %s", f, CPUUnit)
	}
}

// TestClockBasisWords: the reason says what CPU time was compared with.
// Every round contended with 3 runnable threads on 2 CPUs gives a fair
// share of 2/3 of a CPU, and a thread busy 66% of its wall time is at 99%
// of it: not "66% of wall time on the quiet rounds", which there were none
// of (the words a `rigor exec true` run showed as "538% of wall time").
func TestClockBasisWords(t *testing.T) {
	for _, tc := range []struct {
		name  string
		run   *model.Run
		basis string
		words string
	}{
		{"quiet rounds", clockRun(1.03, 1.03, 1, evenRounds, 1, -1), BasisQuiet, "100% of wall time on the quiet rounds"},
		{"fair share", clockRun(1.03, 1.03, 0.66, always, 1, -1), BasisFairShare, "99% of the share of a CPU a fair scheduler could give one thread"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Analyze(tc.run, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			c := rep.Benchmarks[0].Clock
			if c == nil || c.Basis != tc.basis || !strings.Contains(c.Reason, tc.words) {
				t.Fatalf("clock %+v: want basis %q and reason saying %q", c, tc.basis, tc.words)
			}
		})
	}
}

// TestClockPairsBySideAndRound: CPU time per wall time pairs each wall
// sample with every CPU sample of its side and round, whatever their
// order (by hand: old round 1 has two wall samples, 1 and 2, for its CPU
// 0.9: 0.9 and 0.45; old 2: 3/4 = 0.75; new 1: 0.7; new 2: 1/10 = 0.1;
// the median of the five is 0.7).
func TestClockPairsBySideAndRound(t *testing.T) {
	s := func(side string, round int, v float64) model.Sample {
		return model.Sample{Side: side, Round: round, Iters: 1, Value: v}
	}
	wall := model.Metric{Unit: WallUnit, Better: model.LowerIsBetter, Samples: []model.Sample{
		s("old", 1, 1), s("old", 1, 2), s("old", 2, 4), s("new", 1, 1), s("new", 2, 10)}}
	cpu := model.Metric{Unit: CPUUnit, Better: model.LowerIsBetter, Samples: []model.Sample{
		s("new", 2, 1), s("old", 2, 3), s("new", 1, 0.7), s("old", 1, 0.9)}}
	run := &model.Run{Kind: model.KindAB, Paired: true, Sides: []model.Side{{Label: "old"}, {Label: "new"}},
		Benchmarks: []model.Benchmark{{Name: "B", Pkg: "p", Procs: 1, Metrics: []model.Metric{wall, cpu}}}}
	c := chooseClock(run, &run.Benchmarks[0])
	if c == nil || c.CPUPerWall != 0.7 || c.Basis != BasisQuiet {
		t.Errorf("clock %+v, want CPU per wall 0.7 on the quiet samples", c)
	}
}

// withWaits adds the CPU waits a timer overlay reads in each sample's
// window: share(round) of the sample's wall time.
func withWaits(run *model.Run, share func(round int) float64) *model.Run {
	b := &run.Benchmarks[0]
	wait := model.Metric{Unit: WaitUnit, Better: model.LowerIsBetter}
	for _, s := range b.Metric(WallUnit).Samples {
		wait.Samples = append(wait.Samples, model.Sample{Side: s.Side, Round: s.Round, Iters: s.Iters, Value: s.Value * share(s.Round)})
	}
	b.Metrics = append(b.Metrics, wait)
	return run
}

// TestClockWaitsSayWhoWasBusy: the benchmark's own CPU waits in its timed
// window decide which samples were disturbed, not the system's figures
// over its process's life, which count rigor's own work and a short
// interval's interpolated ticks (an idle machine's A/A run was "busy in
// 38% of the samples" that way, and switched clocks).
func TestClockWaitsSayWhoWasBusy(t *testing.T) {
	t.Run("system busy, no waits: nothing said of a busy machine", func(t *testing.T) {
		run := withWaits(clockRun(1.03, 1.03, 1, always, 1, -1), func(int) float64 { return 0.002 })
		rep, err := Analyze(run, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		b := rep.Benchmarks[0]
		// CPU time (±0.1%) is far steadier than wall time (±3%) and the
		// benchmark computes on one thread: CPU time decides, for that
		// reason, not for a busy machine.
		if b.Clock == nil || b.Clock.Unit != CPUUnit || b.Clock.Why != ClockSteadier || b.Clock.Contended != 0 ||
			strings.Contains(b.Clock.Reason, "machine was busy") {
			t.Errorf("clock %+v: want CPU time as the steadier clock, nothing contended", b.Clock)
		}
	})
	t.Run("no waits, CPU time no steadier: wall, nothing said", func(t *testing.T) {
		run := withWaits(clockRun(1.03, 1.03, 1, always, 1, -1), func(int) float64 { return 0.002 })
		wall, cpu := &run.Benchmarks[0].Metrics[0], &run.Benchmarks[0].Metrics[1]
		for i := range wall.Samples { // CPU time the noisier clock
			wall.Samples[i].Value, cpu.Samples[i].Value = cpu.Samples[i].Value, wall.Samples[i].Value
		}
		rep, err := Analyze(run, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		b := rep.Benchmarks[0]
		if b.Clock == nil || b.Clock.Unit != WallUnit || b.Clock.Reason != "" || b.Clock.Contended != 0 {
			t.Errorf("clock %+v: want wall time, no reason, nothing contended", b.Clock)
		}
		for _, n := range b.Notes {
			if n.Kind == model.NoteClock {
				t.Errorf("a clock note on a quiet machine: %q", n.Text)
			}
		}
	})
	t.Run("waits on even rounds: CPU, said in the benchmark's words", func(t *testing.T) {
		run := withWaits(clockRun(1.03, 1.03, 1, never, 1, -1), func(r int) float64 { return 0.4 * float64(1-r%2) })
		// The CPU time a thread that only computes gets when it waits
		// 40% of its window.
		for i, s := range run.Benchmarks[0].Metrics[1].Samples {
			if s.Round%2 == 0 {
				run.Benchmarks[0].Metrics[1].Samples[i].Value *= 0.6
			}
		}
		rep, err := Analyze(run, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		c := rep.Benchmarks[0].Clock
		if c == nil || c.Unit != CPUUnit || !c.Waited || c.Basis != BasisNotWaiting ||
			!strings.Contains(c.Reason, "the benchmark waited for a CPU for at least 5% of its timed window in 50% of its samples: 6 of 12 rounds, between rounds 2 and 12") {
			t.Errorf("clock %+v: want CPU time, from the waits", c)
		}
	})
	// The same waits, in rounds whose processes saw no other process use
	// the CPU (measured: process statistics read): the benchmark waited
	// for its own threads (its garbage collector's workers), not for the
	// machine. Before, the README's first command on an idle machine
	// said "the machine was busy" this way (issue 39 item 3).
	t.Run("waits for its own threads: not a busy machine", func(t *testing.T) {
		for _, others := range []float64{0, 0.3} {
			run := withWaits(clockRun(1.03, 1.03, 1, never, 1, -1), func(r int) float64 { return 0.4 * float64(1-r%2) })
			for i, s := range run.Benchmarks[0].Metrics[1].Samples {
				if s.Round%2 == 0 {
					run.Benchmarks[0].Metrics[1].Samples[i].Value *= 0.6
				}
			}
			for i := range run.Observations {
				o := &run.Observations[i]
				o.Process = &model.ProcessStats{UserSec: 0.1}
				if o.Round%2 == 0 {
					o.OtherCPU = others
				}
			}
			rep, err := Analyze(run, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			c := rep.Benchmarks[0].Clock
			busy := c != nil && strings.Contains(c.Reason, "the machine was busy")
			if others == 0 && (c == nil || c.Contended != 0 || busy) {
				t.Errorf("others idle: clock %+v; want nothing contended, no busy machine", c)
			}
			if others > 0 && (c == nil || c.Contended != 0.5 || !busy) {
				t.Errorf("others at %v: clock %+v; want half the samples contended, a busy machine", others, c)
			}
		}
	})
	t.Run("the wait metric is context", func(t *testing.T) {
		rep, err := Analyze(withWaits(clockRun(1.03, 1.03, 1, never, 1, -1), func(int) float64 { return 0.01 }), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range rep.Benchmarks[0].Metrics {
			if m.Unit == WaitUnit && m.Decides() {
				t.Error("wait-sec/op decides the verdict")
			}
		}
		if rep.Comparisons != 1 {
			t.Errorf("%d comparisons, want 1 (the wait is not a result)", rep.Comparisons)
		}
	})
}

// TestClockNeverContradictsWall: CPU time may decide where wall time is
// too noisy to, never against a wall-time interval wholly on the other
// side of zero.
func TestClockNeverContradictsWall(t *testing.T) {
	// Busy, CPU-bound; wall +10% (its interval clears zero), CPU -3%.
	rep, err := Analyze(clockRun(1.10, 0.97, 1, evenRounds, 1, -1), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Benchmarks[0].Clock
	if c == nil || c.Unit != WallUnit || c.Why != ClockContradicts || !strings.Contains(c.Reason, "lies wholly above zero") {
		t.Fatalf("clock %+v: want wall time, CPU time contradicting it", c)
	}
	if v := wallVerdict(rep); v != Regressed {
		t.Errorf("wall time's verdict %s, want regressed", v)
	}
	// Both +3%: CPU time agrees, and decides.
	rep, err = Analyze(clockRun(1.03, 1.03, 1, evenRounds, 1, -1), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Benchmarks[0].Clock; c == nil || c.Unit != CPUUnit {
		t.Errorf("agreeing clocks: %+v, want CPU time", c)
	}
}

// TestClockCommandThreads: a command has no GOMAXPROCS; CPU time never
// decides for one that kept more than one CPU busy, nor where no quiet
// round shows how many it kept busy. The case of issue 21: `rigor exec
// './spin 1 200' './spin 2 110'` (one thread for 200 ms of CPU against
// two for 110 ms each) on a busy machine: wall time -44%, CPU time +10%,
// and the verdict was "regressed", from CPU time.
func TestClockCommandThreads(t *testing.T) {
	for _, tc := range []struct {
		name  string
		share float64
		busy  func(int) bool
		words string
	}{
		{"two threads on the quiet rounds", 2, evenRounds, "CPUs busy on the quiet rounds"},
		{"no quiet round", 1, always, "a command's threads cannot be seen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := clockRun(0.56, 1.10, tc.share, tc.busy, 0, -1)
			run.Kind = "exec"
			rep, err := Analyze(run, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			c := rep.Benchmarks[0].Clock
			if c == nil || c.Unit != WallUnit || !strings.Contains(c.Reason, tc.words) {
				t.Fatalf("clock %+v: want wall time, saying %q", c, tc.words)
			}
			if v := wallVerdict(rep); v != Improved {
				t.Errorf("verdict %s, want improved (wall time -44%%)", v)
			}
		})
	}
}

// wallVerdict is the verdict of the first benchmark's wall time.
func wallVerdict(rep *Report) Verdict {
	for _, m := range rep.Benchmarks[0].Metrics {
		if m.Unit == WallUnit && len(m.Changes) > 0 && m.Changes[0] != nil {
			return m.Changes[0].Verdict
		}
	}
	return ""
}

// TestClockWaitsOverlap: a sample whose working threads' waits add up to
// its whole window (two threads both kept waiting) says nothing of one
// thread's share of the time it could run, and is left out of that
// measure, not the reason to fall back to the least disturbed quarter
// (experiments/busy, beside the neighbour: an A/A run read "not
// CPU-bound (56% of wall time)" and its wall time +7.6% regressed).
func TestClockWaitsOverlap(t *testing.T) {
	share := func(r int) float64 {
		if r%3 == 0 {
			return 1
		}
		return 0.4
	}
	run := withWaits(clockRun(1.03, 1.03, 1, never, 1, -1), share)
	for i := range run.Benchmarks[0].Metrics[1].Samples { // CPU time: 60% of wall time
		run.Benchmarks[0].Metrics[1].Samples[i].Value *= 0.6
	}
	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Benchmarks[0].Clock
	if c == nil || c.Unit != CPUUnit || c.Basis != BasisNotWaiting {
		t.Errorf("clock %+v: want CPU time, measured against the time it was not waiting", c)
	}
}

// TestShareWords: a CPU share in words a person knows, and above one
// thread's worth of the time the benchmark was not waiting, not "it kept
// 2 CPUs busy": at GOMAXPROCS 2 one goroutine moved between two threads
// whose waits overlapped reads 1.6 (examples of issue 22's module, Work,
// beside a load of 12), as several threads at work would.
func TestShareWords(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		basis  string
		want   string
	}{
		{0.93, 0.93, BasisQuiet, "CPU time 93% of wall time on the quiet rounds"},
		{2.02, 2.1, BasisQuiet, "it kept about 2 CPUs busy on the quiet rounds"},
		{2.02, 2.02, BasisFairShare, "it got about twice the CPU a fair scheduler could give one thread, every round being contended: more than one thread's work"},
		{0.99, 1, BasisNotWaiting, "CPU time 99% to 100% of the time it was not waiting for a CPU"},
		{1.6, 1.6, BasisNotWaiting, "CPU time about twice the time it was not waiting for a CPU: several threads at work, or the waits of threads it moved between counted together"},
		{0.5, 0.5, "", "CPU time not measured"},
	} {
		if got := shareWords(tc.lo, tc.hi, tc.basis); got != tc.want {
			t.Errorf("shareWords(%v, %v, %q) = %q, want %q", tc.lo, tc.hi, tc.basis, got, tc.want)
		}
	}
}

// TestClockWaitsOfSeveralThreads: the wait of a sample is its working
// threads' summed, so a benchmark on two threads, each kept waiting 3% of
// its window, waits 6% of it: each thread waited 3% of the time, and the
// sample was not disturbed by the 5% rule's measure; each kept waiting 30%,
// the two threads could run 70% of the window, and CPU time over that is
// two threads' worth, not 1.4/0.4 = 3.5 of them.
func TestClockWaitsOfSeveralThreads(t *testing.T) {
	t.Run("3% each: not disturbed", func(t *testing.T) {
		run := withWaits(clockRun(1.03, 1.03, 1.94, never, 2, 0), func(int) float64 { return 0.06 })
		c := chooseClock(run, &run.Benchmarks[0])
		if c == nil || !c.Waited || c.Contended != 0 {
			t.Errorf("clock %+v: want no sample disturbed", c)
		}
	})
	t.Run("30% each: two threads' CPU", func(t *testing.T) {
		run := withWaits(clockRun(1.03, 1.03, 1.4, never, 2, 0), func(int) float64 { return 0.6 })
		c := chooseClock(run, &run.Benchmarks[0])
		if c == nil || c.Contended != 1 || c.Basis != BasisNotWaiting || math.Abs(c.CPUPerWall-2) > 0.05 {
			t.Errorf("clock %+v: want every sample disturbed, two threads' CPU time over the time not waiting", c)
		}
	})
}

// TestWaitShare: a sample's wait over its window, or, when its threads'
// waits and CPU time add up to more than the window (several threads),
// over those: between 0 and 1 either way.
func TestWaitShare(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct{ wait, wall, cpu, want float64 }{
		{0.02, 1, 0.98, 0.02},        // one thread, 2% of its window
		{0.3, 1, 0.5, 0.3},           // one thread that also sleeps
		{0.06, 1, 1.94, 0.03},        // two threads, 3% each
		{195, 1, 0.01, 195 / 195.01}, // a wait far above the window
		{0.3, 1, nan, 0.3},           // no CPU time
		{3, 1, nan, 1},
	} {
		if got := waitShare(tc.wait, tc.wall, tc.cpu); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("waitShare(%v, %v, %v) = %v, want %v", tc.wait, tc.wall, tc.cpu, got, tc.want)
		}
	}
}

// TestClockWaitExplainsWall: a wall-time interval wholly below zero that
// CPU time contradicts is the machine's when the side faster on the wall
// clock is the one that waited less for a CPU: the time not waiting moved
// as CPU time did, and CPU time decides. (Beside a noisy neighbour, a
// +10% change read wall -27% [-39%, -6%], CPU +11.8%, old waiting 58% of
// its wall time and new 10%: the verdict was improved.)
func TestClockWaitExplainsWall(t *testing.T) {
	// Busy, CPU-bound; wall -25%, CPU +10% (62% of old's wall time);
	// old waited 40% of its wall time, new 2%: the time not waiting 60
	// against 73.5, +22.5%.
	run := clockRun(0.75, 1.10, 0.62, evenRounds, 1, -1)
	b := &run.Benchmarks[0]
	wait := model.Metric{Unit: WaitUnit, Better: model.LowerIsBetter}
	for _, s := range b.Metric(WallUnit).Samples {
		share := 0.40
		if s.Side == "new" {
			share = 0.02
		}
		wait.Samples = append(wait.Samples, model.Sample{Side: s.Side, Round: s.Round, Iters: s.Iters, Value: s.Value * share})
	}
	b.Metrics = append(b.Metrics, wait)
	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Benchmarks[0].Clock
	if c == nil || c.Unit != CPUUnit || !strings.Contains(c.Reason, "the difference on the wall clock is the waiting") {
		t.Fatalf("clock %+v: want CPU time, wall time's change explained by the waits", c)
	}
	for _, m := range rep.Benchmarks[0].Metrics {
		if m.Unit == CPUUnit && (m.Context != "" || len(m.Changes) == 0 || m.Changes[0] == nil || m.Changes[0].Verdict != Regressed) {
			t.Errorf("cpu-sec/op: context %q, changes %+v; want it deciding, regressed (+10%%)", m.Context, m.Changes)
		}
		if m.Unit == WallUnit && m.Context == "" {
			t.Error("sec/op decides the verdict")
		}
	}
	// The same waits on both sides: wall time's change is the
	// benchmark's, and CPU time may not overrule it.
	run = withWaits(clockRun(0.75, 1.10, 0.62, evenRounds, 1, -1), func(int) float64 { return 0.2 })
	rep, err = Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Benchmarks[0].Clock; c == nil || c.Unit != WallUnit || c.Why != ClockContradicts {
		t.Errorf("clock %+v: want wall time, CPU time contradicting it", c)
	}
}

// withSwitches adds the voluntary context switches a timer overlay counts
// in each sample's window: rate(side, round) per ms of the sample's CPU
// time.
func withSwitches(run *model.Run, rate func(side string, round int) float64) *model.Run {
	b := &run.Benchmarks[0]
	sw := model.Metric{Unit: SwitchUnit, Better: model.LowerIsBetter}
	for _, s := range b.Metric(CPUUnit).Samples {
		sw.Samples = append(sw.Samples, model.Sample{Side: s.Side, Round: s.Round, Iters: s.Iters, Value: rate(s.Side, s.Round) * 1e3 * s.Value})
	}
	b.Metrics = append(b.Metrics, sw)
	return run
}

// rate is a switch rate the same on every sample.
func rate(r float64) func(string, int) float64 { return func(string, int) float64 { return r } }

// busyWindows is a paired run of a benchmark at GOMAXPROCS procs whose
// timed windows the machine disturbed on even rounds, as the overlay reads
// them: each of its busy threads waited for a CPU for 40% of the window
// there, and got 40% less CPU time; cpuShare is its CPU time per time not
// waiting for a CPU (about the threads it kept busy).
func busyWindows(procs int, cpuShare, lock float64) *model.Run {
	threads := max(1, cpuShare)
	run := withWaits(clockRun(1.03, 1.03, cpuShare, never, procs, lock), func(r int) float64 { return 0.4 * threads * float64(1-r%2) })
	for i, s := range run.Benchmarks[0].Metrics[1].Samples {
		if s.Round%2 == 0 {
			run.Benchmarks[0].Metrics[1].Samples[i].Value *= 0.6
		}
	}
	return run
}

// TestClockSwitches: the rounds' own evidence, the voluntary context
// switches of the benchmark's working threads in its timed window, lets
// CPU time decide at GOMAXPROCS > 1 without a CPU profile (the default
// budget skips the profiling pass) when they hardly ever blocked and it
// kept about one thread busy, and keeps wall time for a benchmark that
// waits, whatever else says. The rates are experiments/switches' medians
// (2-core VM, load 2-8): one computing goroutine 0.07-0.1 per ms of CPU
// time at GOMAXPROCS 2 (0 at 1), examples/lockbound 0.04-0.14 on 1.9
// CPUs, channel ping-pong 5.5-7, 20 µs sleeps 44-93, write+fsync 60-87.
func TestClockSwitches(t *testing.T) {
	for _, tc := range []struct {
		name   string
		run    *model.Run
		unit   string
		why    string
		reason string
	}{
		// Before the switches counted, this stayed on wall time:
		// "without a CPU profile nothing shows that the benchmark never
		// waits" (issue 39).
		{"computing at GOMAXPROCS 2, no profile", withSwitches(busyWindows(2, 1, -1), rate(0.07)), CPUUnit, ClockCPUBound,
			"its threads hardly ever blocked in the timed window: 0.07 voluntary context switches per ms of CPU time"},
		// Its threads spinning a moment as it moved between them, a
		// helper thread's waits counted with its own: 1.31 at load 19.
		{"computing at GOMAXPROCS 2, spinning threads", withSwitches(busyWindows(2, 1.31, -1), rate(0.11)), CPUUnit, ClockCPUBound,
			"CPU time 131% of the time it was not waiting for a CPU, its threads hardly ever blocked"},
		// Both: the switches said first, then the profile.
		{"computing, lock-free profile too", withSwitches(busyWindows(2, 1, 0.01), rate(0.07)), CPUUnit, ClockCPUBound,
			"0.07 voluntary context switches per ms of CPU time; 1% of its CPU profile on locks or file I/O"},
		// examples/lockbound: Go's mutex spins and parks goroutines
		// without the threads sleeping, so few switches, but 1.9 CPUs
		// busy.
		{"lockbound at GOMAXPROCS 2, no profile", withSwitches(busyWindows(2, 1.91, -1), rate(0.14)), WallUnit, ClockNoProfile,
			"its threads hardly ever blocked (0.14 voluntary context switches per ms of CPU time), yet with more than one thread busy its goroutines may spin on a lock"},
		// Without the waits every round was contended and CPU time is
		// measured against a fair scheduler's share: not how many threads
		// it kept busy.
		{"no waits, every round disturbed", withSwitches(clockRun(1.03, 1.03, 1, always, 2, -1), rate(0.07)), WallUnit, ClockNoProfile,
			"yet with every round disturbed nothing shows how many threads it kept busy"},
		{"lockbound, lock-heavy profile", withSwitches(busyWindows(2, 1.91, 0.4), rate(0.14)), WallUnit, ClockWaits, "locks or file I/O"},
		// Channel ping-pong: one goroutine runs while the other's thread
		// sleeps, about one thread busy; a CPU profile sees no lock (it
		// sees only time on a CPU), the switches see the blocking.
		{"ping-pong at GOMAXPROCS 2, lock-free profile", withSwitches(busyWindows(2, 1, 0.01), rate(5.5)), WallUnit, ClockBlocks,
			"its threads blocked in the timed window (5.5 voluntary context switches per ms of CPU time, more than 0.5)"},
		{"sleeps at GOMAXPROCS 1", withSwitches(busyWindows(1, 0.02, -1), rate(44)), WallUnit, ClockNotCPUBound, "not CPU-bound"},
		// A benchmark that blocks briefly and often keeps most of its
		// time on the CPU; at GOMAXPROCS 1 it used to pass for CPU-bound.
		{"blocks often at GOMAXPROCS 1", withSwitches(busyWindows(1, 0.95, -1), rate(2)), WallUnit, ClockBlocks, "2 voluntary context switches per ms"},
		// One side blocks: CPU time would hide what it added.
		{"only new blocks", withSwitches(busyWindows(2, 1, -1), func(side string, _ int) float64 {
			if side == "new" {
				return 5.5
			}
			return 0.07
		}), WallUnit, ClockBlocks, "5.5 voluntary context switches"},
		// Switches on two samples a side are too few to count: as
		// without them.
		{"too few samples", withSwitches(busyWindows(2, 1, -1), func(_ string, round int) float64 {
			if round > 2 {
				return math.NaN()
			}
			return 0.07
		}), WallUnit, ClockNoProfile, "without a CPU profile"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// NaN marks a sample without the metric.
			sw := tc.run.Benchmarks[0].Metric(SwitchUnit)
			sw.Samples = slices.DeleteFunc(sw.Samples, func(s model.Sample) bool { return math.IsNaN(s.Value) })
			rep, err := Analyze(tc.run, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			b := rep.Benchmarks[0]
			c := b.Clock
			if c == nil || c.Unit != tc.unit || c.Why != tc.why || !strings.Contains(c.Reason, tc.reason) {
				t.Fatalf("clock %+v:\nwant %s (%s), the reason saying %q", c, tc.unit, tc.why, tc.reason)
			}
			for _, m := range b.Metrics {
				if m.Unit == SwitchUnit && m.Decides() {
					t.Error("vcsw/op decides the verdict")
				}
			}
			if rep.Comparisons != 1 {
				t.Errorf("%d comparisons, want 1 (the switches are not a result)", rep.Comparisons)
			}
			var ev map[string]float64
			for _, n := range b.Notes {
				if n.Kind == model.NoteClock {
					ev = n.Evidence
				}
			}
			if want := tc.run.Benchmarks[0].Metric(SwitchUnit); len(want.Samples) >= 2*switchSamples && ev["switches_per_ms"] != c.Switches {
				t.Errorf("the clock note's evidence %v, want switches_per_ms %v", ev, c.Switches)
			}
		})
	}
}

// TestClockSwitchesQuiet: on a machine that hardly disturbed the
// benchmark, CPU time decides at GOMAXPROCS 2 when it is the steadier
// clock and the switches show that the benchmark never waits; a benchmark
// that blocks stays on wall time, and nothing is said.
func TestClockSwitchesQuiet(t *testing.T) {
	quiet := func(r float64) *model.Run {
		return withSwitches(withWaits(clockRun(1.03, 1.03, 1, always, 2, -1), func(int) float64 { return 0.002 }), rate(r))
	}
	rep, err := Analyze(quiet(0.07), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Benchmarks[0].Clock; c == nil || c.Unit != CPUUnit || c.Why != ClockSteadier || !strings.Contains(c.Reason, "0.07 voluntary context switches per ms") {
		t.Errorf("computing: clock %+v, want CPU time as the steadier clock, from the switches", c)
	}
	rep, err = Analyze(quiet(5.5), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Benchmarks[0].Clock; c == nil || c.Unit != WallUnit || c.Reason != "" {
		t.Errorf("ping-pong: clock %+v, want wall time and nothing said", c)
	}
}

// TestSwitchRate: the rate is each sample's switches over its CPU time in
// ms, the median per side, the larger side's. By hand: old's samples 0.001
// switches per op on 10 µs of CPU (0.1 per ms), 0.004 on 10 µs (0.4) and
// 0.002 on 20 µs (0.1): median 0.1; new's 0.003 on 10 µs (0.3), 0.006 on
// 20 µs (0.3) and 0 (0): median 0.3. The rate is 0.3.
func TestSwitchRate(t *testing.T) {
	s := func(side string, round int, v float64) model.Sample {
		return model.Sample{Side: side, Round: round, Iters: 1, Value: v}
	}
	b := &model.Benchmark{Name: "B", Metrics: []model.Metric{
		{Unit: SwitchUnit, Samples: []model.Sample{s("old", 1, 0.001), s("old", 2, 0.004), s("old", 3, 0.002), s("new", 1, 0.003), s("new", 2, 0.006), s("new", 3, 0)}}}}
	cpu := map[[2]any]float64{{"old", 1}: 10e-6, {"old", 2}: 10e-6, {"old", 3}: 20e-6, {"new", 1}: 10e-6, {"new", 2}: 20e-6, {"new", 3}: 10e-6}
	at := func(side string, round int) []float64 { return []float64{cpu[[2]any{side, round}]} }
	sides := []model.Side{{Label: "old"}, {Label: "new"}}
	if got := switchRate(b, sides, at); math.Abs(got-0.3) > 1e-12 {
		t.Errorf("rate %v, want 0.3", got)
	}
	// A side without CPU time for its samples has no rate: none.
	if got := switchRate(b, sides, func(side string, round int) []float64 {
		if side == "new" {
			return nil
		}
		return at(side, round)
	}); !math.IsNaN(got) {
		t.Errorf("rate %v with new's CPU time missing, want NaN", got)
	}
}

// TestClockSummedWaitsOverWindow: at load 20 on 2 CPUs a computing sha3
// benchmark at GOMAXPROCS 2 got about 15% of a CPU, and its working
// threads' waits, summed, exceeded its window (Write128: 385 ms of wall
// time, 56 ms of CPU time, 400 ms of waits). Those samples used to be
// left out of CPU time per time not waiting, and with all of them out it
// read "not CPU-bound" from the least disturbed quarter (CPU time 15% of
// wall time) beside neighbours on CPU time. Over the threads' time
// (waitShare) the share not waiting is 0.15/1.15 of the window, and CPU
// time over it 1.15: one thread, CPU-bound.
func TestClockSummedWaitsOverWindow(t *testing.T) {
	run := withSwitches(withWaits(clockRun(1.03, 1.03, 0.15, never, 2, -1), func(int) float64 { return 1 }), rate(0.19))
	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Benchmarks[0].Clock
	if c == nil || c.Unit != CPUUnit || c.Basis != BasisNotWaiting || math.Abs(c.CPUPerWall-1.15) > 0.01 {
		t.Errorf("clock %+v: want CPU time, 1.15 times the time not waiting", c)
	}
}
