package gotest

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
)

// A module with one benchmark in which 8×GOMAXPROCS goroutines do nothing
// but take one global mutex, and one that only computes. Measured with
// -test.cpu=4 beside two CPU hogs on a loaded 2-CPU machine, the first
// spent 43 to 53% of its CPU samples in sync's slow paths (a RunParallel
// version, whose pb.Next adds contention of its own on a counter, as
// little as 12%), some ten times observe's threshold; the second none.
const lockTest = `package lock

import (
	"runtime"
	"sync"
	"testing"
)

var (
	mu     sync.Mutex
	shared uint64
	sink   uint64
)

func BenchmarkMutex(b *testing.B) {
	var wg sync.WaitGroup
	g := 8 * runtime.GOMAXPROCS(0)
	for i := range g {
		n := b.N / g
		if i < b.N%g {
			n++
		}
		wg.Go(func() {
			for range n {
				mu.Lock()
				for range 20 {
					shared = shared*6364136223846793005 + 1442695040888963407
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

func BenchmarkCPU(b *testing.B) {
	for b.Loop() {
		x := uint64(1)
		for range 200 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		sink = x
	}
}
`

// TestProfileNamesTheLock runs the profiling pass for real, with package
// observe's readers, observer and classifier, and checks that the
// classification rests on the profile: the mutex benchmark is called
// lock-bound with its share of samples in mutex slow paths, the computing
// one is not. Only the profile's share is stable enough to assert on a
// busy machine: neither the sample times nor the verdicts observe draws
// from process statistics alone are looked at.
func TestProfileNamesTheLock(t *testing.T) {
	dir := newRepo(t, map[string]string{
		"go.mod":            "module example.com/lock\n\ngo 1.26\n",
		"lock/lock_test.go": lockTest,
	})
	ctx := context.Background()
	cfg := quick(dir, t, 2, Side{Label: "current", Rev: "HEAD"})
	// Samples long enough that the processes' start-up does not make up
	// their resource usage (which could pass for a kernel-bound process).
	cfg.Benchtime = 50 * time.Millisecond
	// Four Ps contend even with one CPU free (a thread preempted while
	// holding the lock is enough), and four threads get a fair share of
	// a busy machine's CPU. A second of profile then holds some 40 or
	// more samples beside two CPU hogs, where half a second held as few
	// as 15, under the classifier's minimum of 20.
	cfg.CPU = []int{4}
	cfg.Observer, cfg.ProcessStats = observe.Start(ctx, 0), observe.ProcessStats
	cfg.Profile = &Profiling{Time: time.Second, ReadCPU: observe.ReadCPUProfile, ReadMutex: observe.ReadMutexProfile}
	cfg.Annotate = func(_ context.Context, run *model.Run, _ func(pkg, side string) string) { observe.Annotate(run) }
	run, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(model.Texts(run.Notes), func(n string) bool {
		return strings.HasPrefix(n, "After the timed rounds every benchmark ran once more")
	}) {
		t.Errorf("no run note on the profiling pass: %q", run.Notes)
	}
	for _, tc := range []struct {
		name string
		lock bool
	}{{"Mutex-4", true}, {"CPU-4", false}} {
		t.Run(tc.name, func(t *testing.T) {
			key := "example.com/lock/lock." + tc.name
			i := slices.IndexFunc(run.Benchmarks, func(b model.Benchmark) bool { return b.Key() == key })
			if i < 0 {
				t.Fatalf("no benchmark %s", key)
			}
			b := run.Benchmarks[i]
			if n := len(b.Metric("sec/op").Values("current")); n != 2 {
				t.Errorf("%d timed samples, want 2: the profiling run is not one", n)
			}
			var prof *model.ProfileStats
			for _, o := range run.Observations {
				if o.Benchmark == key && o.Profile != nil {
					if o.Round != 0 || o.Process != nil {
						t.Errorf("profiling observation in round %d with process stats %v, want round 0 and none", o.Round, o.Process)
					}
					prof = o.Profile
				}
			}
			if prof == nil || prof.Samples == 0 {
				t.Fatalf("no profile attached to %s's observations", key)
			}
			t.Logf("%d samples, %.0f%% in mutex slow paths; notes:\n%s", prof.Samples, 100*prof.Lock, strings.Join(model.Texts(b.Notes), "\n"))
			for _, f := range []string{"current.cpu.pprof", "current.mutex.pprof"} {
				if _, err := os.Stat(filepath.Join(cfg.Out, "profiles", "lock."+tc.name, f)); err != nil {
					t.Error(err)
				}
			}
			if prof.Samples < 20 {
				// The classifier needs 20 samples; a machine busy enough
				// to starve the profile leaves nothing to assert on.
				t.Skipf("only %d profile samples (the machine was busy): under the classifier's minimum of 20", prof.Samples)
			}
			// The profile's verdict ("lock contention (...)", not "lock
			// contention (threads sleeping and waking in the kernel)",
			// which rests on process statistics alone).
			lockNote := slices.ContainsFunc(model.Texts(b.Notes), func(n string) bool {
				return strings.HasPrefix(n, "bottleneck: lock contention (") && !strings.HasPrefix(n, "bottleneck: lock contention (threads") &&
					strings.Contains(n, "of CPU samples in mutex slow paths")
			})
			if lockNote != tc.lock {
				t.Errorf("called lock-bound from the profile: %v, want %v; notes %q", lockNote, tc.lock, b.Notes)
			}
			if !tc.lock && prof.Lock >= 0.05 {
				t.Errorf("a computing benchmark has %.0f%% of its CPU samples in mutex slow paths", 100*prof.Lock)
			}
			// The profile note comes after the bottleneck it explains.
			pi := slices.IndexFunc(model.Texts(b.Notes), func(n string) bool { return strings.HasPrefix(n, "profiled in an untimed run after the rounds: ") })
			bi := slices.IndexFunc(model.Texts(b.Notes), func(n string) bool { return strings.HasPrefix(n, "bottleneck: ") })
			if pi < 0 || bi < 0 || pi < bi {
				t.Errorf("want a bottleneck note, then the profiling note: %q", b.Notes)
			} else if n := b.Notes[pi].Text; !strings.Contains(n, "goroutines waited on sync mutexes for ") && !strings.Contains(n, "no contention on sync mutexes recorded") ||
				!strings.Contains(n, filepath.Join(cfg.Out, "profiles", "lock."+tc.name, "current.{cpu,mutex}.pprof")) {
				t.Errorf("profiling note lacks the mutex wait or the files: %s", n)
			}
		})
	}
}

// stubProfile is a Profiling whose readers record that they ran.
func stubProfile(reads *int) *Profiling {
	return &Profiling{
		Time: 10 * time.Millisecond,
		ReadCPU: func(io.Reader) (*model.ProfileStats, error) {
			*reads++
			return &model.ProfileStats{Samples: 1, CPUSec: 0.01}, nil
		},
	}
}

func TestProfileSkippedWhenBudgetSpent(t *testing.T) {
	dir := labRepo(t)
	cfg := quick(dir, t, 2, Side{Label: "current", Rev: "HEAD"})
	cfg.Bench = "Work"
	cfg.Time = time.Millisecond // the two rounds that always run spend it
	var reads int
	cfg.Profile = stubProfile(&reads)
	obs := &fakeObserver{keys: map[string]bool{}}
	cfg.Observer = obs
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if reads != 0 || obs.profiles != 0 {
		t.Errorf("%d profiles read, %d attached; want none once the budget is spent", reads, obs.profiles)
	}
	if !slices.ContainsFunc(model.Texts(run.Notes), func(n string) bool {
		return strings.HasPrefix(n, "No profiling pass: it needs about") && strings.Contains(n, "more than a tenth of the 1ms time budget")
	}) {
		t.Errorf("notes do not say the profiling pass was skipped: %q", run.Notes)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, "profiles")); !os.IsNotExist(err) {
		t.Errorf("a profiles directory without profiles: %v", err)
	}
}

func TestProfileInterrupted(t *testing.T) {
	dir := labRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := quick(dir, t, 2, Side{Label: "old", Rev: "HEAD~1"}, Side{Label: "new", Rev: "HEAD"})
	cfg.Bench = "Work|Alloc"
	var reads int
	cfg.Profile = stubProfile(&reads)
	cfg.Progress = func(p Progress) {
		if p.Phase == PhaseProfile && p.Step == 3 {
			cancel() // Ctrl-C as the second benchmark's profiling begins
		}
	}
	run, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("err = %v: an interrupted profiling pass leaves the samples complete", err)
	}
	if reads != 2 {
		t.Errorf("%d profiles read, want the first benchmark's 2", reads)
	}
	for _, b := range run.Benchmarks {
		if n := len(b.Metric("sec/op").Values("new")); n != 2 {
			t.Errorf("%s: %d new samples, want 2", b.Name, n)
		}
	}
	if !slices.ContainsFunc(model.Texts(run.Notes), func(n string) bool {
		return n == "The profiling pass was interrupted after 1 of 2 benchmarks; the timed rounds are complete."
	}) {
		t.Errorf("notes do not say the profiling pass was interrupted: %q", run.Notes)
	}
	if slices.ContainsFunc(model.Texts(run.Notes), func(n string) bool { return strings.Contains(n, "partial results") }) {
		t.Errorf("a complete run called partial: %q", run.Notes)
	}
}

func TestProfileNote(t *testing.T) {
	cpu := &model.ProfileStats{Samples: 50, CPUSec: 0.5}
	for _, tc := range []struct {
		name  string
		runs  []profiledRun
		mutex bool
		want  string
	}{
		{"contended", []profiledRun{
			{side: "old", elapsed: 512 * time.Millisecond, cpu: cpu, mutex: true, wait: 39400 * time.Microsecond, contentions: 300},
			{side: "new", elapsed: 500 * time.Millisecond, cpu: cpu, mutex: true},
		}, true, "profiled in an untimed run after the rounds: goroutines waited on sync mutexes for 0.0394 s during old's 0.512 s run, 0 s during new's 0.5 s run (estimated from 1 in 100 contentions); profiles in d/{old,new}.{cpu,mutex}.pprof"},
		{"uncontended", []profiledRun{{side: "current", elapsed: time.Second, cpu: cpu, mutex: true}}, true,
			"profiled in an untimed run after the rounds: no contention on sync mutexes recorded (1 in 100 sampled); profiles in d/current.{cpu,mutex}.pprof"},
		{"cpu only", []profiledRun{{side: "current", elapsed: time.Second, cpu: cpu}}, false,
			"profiled in an untimed run after the rounds: profiles in d/current.cpu.pprof"},
		{"failed", []profiledRun{{side: "old", cpu: cpu}, {side: "new", problem: "the run failed: exit status 1"}}, false,
			"profiled in an untimed run after the rounds: profiles in d/old.cpu.pprof; profiling went wrong on new, the run failed: exit status 1"},
		{"nothing", nil, true, ""},
	} {
		if got := profileNote(tc.runs, "d", tc.mutex); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestProfileDir(t *testing.T) {
	used := map[string]bool{}
	for _, tc := range []struct{ pkg, key, want string }{
		{"example.com/a/lab", "example.com/a/lab.Build/size=1-2", "lab.Build_size=1-2"},
		{"example.com/b/lab", "example.com/b/lab.Build/size=1-2", "example.com_b_lab.Build_size=1-2"},
		{"example.com/a/lab", "example.com/a/lab.Odd:name*?-2", "lab.Odd_name__-2"},
	} {
		if got := profileDir(&unit{pkg: tc.pkg, key: tc.key}, used); got != tc.want {
			t.Errorf("profileDir(%s) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

func TestProfileIters(t *testing.T) {
	samples := func(side string, v ...float64) []model.Sample {
		var out []model.Sample
		for i, x := range v {
			out = append(out, model.Sample{Side: side, Round: i + 1, Iters: 100, Value: x})
		}
		return out
	}
	s := &session{
		bench: map[string]int{"p.A": 0, "p.B": 1},
		run: &model.Run{Benchmarks: []model.Benchmark{
			{Name: "A", Pkg: "p", Metrics: []model.Metric{{Unit: "sec/op", Samples: append(samples("old", 3e-6, 1e-6, 2e-6), samples("new", 1e-6, 3e-6, 9, 1e-15)...)}}},
			{Name: "B", Pkg: "p", Metrics: []model.Metric{{Unit: "B/op"}}},
		}},
	}
	for _, tc := range []struct {
		key, side string
		want      int64
	}{
		{"p.A", "old", 250000}, // 0.5 s over the median 2 µs
		{"p.A", "new", 250000}, // an even count: the mean of 1 µs and 3 µs
		{"p.A", "other", 7},    // no samples on that side: the rounds' count
		{"p.B", "old", 7},      // no sec/op
	} {
		if got := s.profileIters(&unit{key: tc.key, iters: 7}, tc.side, 500*time.Millisecond, time.Second); got != tc.want {
			t.Errorf("profileIters(%s, %s) = %d, want %d", tc.key, tc.side, got, tc.want)
		}
	}
	s.run.Benchmarks[0].Metrics[0].Samples = samples("old", 1e-15)
	if got := s.profileIters(&unit{key: "p.A", iters: 7}, "old", 500*time.Millisecond, time.Second); got != 1e12 {
		t.Errorf("a femtosecond op: %d iterations, want the cap 1e12", got)
	}

	// CPU time a third of wall time (a busy machine): the run lasts
	// 0.5 s of CPU time, 1.5 s of wall time, where the wall allows it;
	// else as long as it allows, never shorter than 0.5 s of wall time,
	// never longer than profileStretch times it.
	s.run.Benchmarks[0].Metrics = []model.Metric{
		{Unit: "sec/op", Samples: samples("old", 3e-6, 3e-6, 3e-6)},
		{Unit: CPUUnit, Samples: samples("old", 1e-6, 1e-6, 1e-6)},
	}
	for _, tc := range []struct {
		maxWall time.Duration
		want    int64
	}{
		{2 * time.Second, 500000},        // 0.5 s of CPU at 1 µs: 1.5 s of wall
		{900 * time.Millisecond, 300000}, // 0.9 s of wall at 3 µs
		{100 * time.Millisecond, 166667}, // never below 0.5 s of wall
		{time.Hour, 500000},              // d of CPU, whatever the wall allows
	} {
		if got := s.profileIters(&unit{key: "p.A", iters: 7}, "old", 500*time.Millisecond, tc.maxWall); got != tc.want {
			t.Errorf("CPU a third of wall, at most %v of wall: %d iterations, want %d", tc.maxWall, got, tc.want)
		}
	}
	s.run.Benchmarks[0].Metrics[1].Samples = samples("old", 1e-7, 1e-7, 1e-7)
	if got := s.profileIters(&unit{key: "p.A", iters: 7}, "old", 500*time.Millisecond, time.Hour); got != 666667 {
		t.Errorf("CPU a thirtieth of wall: %d iterations, want 666667 (profileStretch times 0.5 s of wall)", got)
	}
}

func TestProfileReserve(t *testing.T) {
	s := &session{
		cfg:   Config{Time: time.Minute, Profile: &Profiling{Time: 500 * time.Millisecond}},
		sides: []*sideState{{Side: Side{Label: "old"}}, {Side: Side{Label: "new"}}},
		units: []*unit{{key: "p.A", startWall: 10 * time.Millisecond}, {key: "p.B", startWall: 20 * time.Millisecond}, {failed: true}},
	}
	// Per benchmark and side a start-up plus 0.5 s: 2×(0.51 + 0.52) s.
	if got, want := s.profileReserve(time.Second), 2060*time.Millisecond; got != want {
		t.Errorf("reserve %v, want %v", got, want)
	}
	// A busy machine gave A's new side a third of the CPU in the
	// rounds: its run is planned for 0.5 s of CPU time, 1.5 s of wall.
	s.bench = map[string]int{"p.A": 0}
	s.run = &model.Run{Benchmarks: []model.Benchmark{{Name: "A", Pkg: "p", Metrics: []model.Metric{
		{Unit: "sec/op", Samples: []model.Sample{{Side: "old", Round: 1, Iters: 1, Value: 2e-6}, {Side: "new", Round: 1, Iters: 1, Value: 3e-6}}},
		{Unit: CPUUnit, Samples: []model.Sample{{Side: "old", Round: 1, Iters: 1, Value: 2e-6}, {Side: "new", Round: 1, Iters: 1, Value: 1e-6}}},
	}}}}
	if got, want := s.profileReserve(time.Second), 3060*time.Millisecond; got != want {
		t.Errorf("busy: reserve %v, want %v", got, want)
	}
	s.cfg.Time = 5 * time.Second // at most a tenth of the budget
	if got, want := s.profileReserve(time.Second), 500*time.Millisecond; got != want {
		t.Errorf("reserve %v, want %v", got, want)
	}
	s.cfg.Profile = nil
	if got := s.profileReserve(time.Second); got != 0 {
		t.Errorf("no profiling: reserve %v, want 0", got)
	}
}

// TestProfileOutcomeNotes: what the profiling pass says it did. The issue
// 23 item 19 case: one benchmark, profiled on old, the budget spent
// before new: the notes said "No profiling pass: the rounds spent the 15s
// time budget" beside a budget line "profiling 1.23s" and the old side's
// profile files.
func TestProfileOutcomeNotes(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    profileOutcome
		want string
	}{
		{"none run", profileOutcome{stop: "budget", units: 1, unprofiled: []string{"Work"}},
			"No profiling pass: the rounds spent the 15s time budget, so the bottleneck notes rest on process statistics alone; a longer budget leaves room for it."},
		{"one side run", profileOutcome{stop: "budget", units: 1, runs: 1, unprofiled: []string{"Work"}, partial: []string{"Work on old"}},
			"The profiling pass stopped when the 15s time budget was spent, having profiled Work on old only: one side's profile cannot tell the sides apart, so the bottleneck notes rest on process statistics alone; a longer budget leaves room for it."},
		{"one side failed", profileOutcome{stop: "budget", units: 1, runs: 1, unprofiled: []string{"Work"}},
			"The profiling pass stopped when the 15s time budget was spent, after 1 profiling run that gave no profile, so the bottleneck notes rest on process statistics alone; a longer budget leaves room for it."},
		{"some", profileOutcome{stop: "budget", units: 2, runs: 3, profiled: []string{"p.A"}, unprofiled: []string{"B"}, partial: []string{"B on old"}},
			"The profiling pass stopped when the 15s time budget was spent: 1 of 2 benchmarks profiled; the bottleneck notes of the others (B) rest on process statistics alone (B on old only)."},
		{"all", profileOutcome{units: 1, runs: 2, profiled: []string{"p.A"}, shortest: 500 * time.Millisecond},
			"After the timed rounds every benchmark ran once more per side, untimed, for about 500ms, writing CPU profiles to out/profiles; the bottleneck notes use them."},
	} {
		s := &session{cfg: Config{Time: 15 * time.Second, Out: "out", Log: io.Discard, Profile: &Profiling{Time: 500 * time.Millisecond}}, run: &model.Run{}}
		s.profileOutcome(tc.o)
		if got := model.Texts(s.run.Notes); len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s: notes %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestSideMedianRecent: the profiling run is planned from the side's
// latest samples (the machine as the rounds ended), and the reserve, asked
// for after every round, does not read every sample of a long run.
func TestSideMedianRecent(t *testing.T) {
	m := model.Metric{Unit: "sec/op"}
	for i := range 40 {
		m.Samples = append(m.Samples, model.Sample{Side: "old", Round: i + 1, Iters: 1, Value: 1e-6}, model.Sample{Side: "new", Round: i + 1, Iters: 1, Value: 5e-6})
	}
	for i := range recentSamples {
		m.Samples = append(m.Samples, model.Sample{Side: "old", Round: 41 + i, Iters: 1, Value: 3e-6})
	}
	b := &model.Benchmark{Name: "A", Metrics: []model.Metric{m}}
	if got := sideMedian(b, "sec/op", "old"); got != 3e-6 {
		t.Errorf("old: %v, want the latest %d samples' 3e-6", got, recentSamples)
	}
	if got := sideMedian(b, "sec/op", "new"); got != 5e-6 {
		t.Errorf("new: %v, want 5e-6", got)
	}
	if got := sideMedian(b, "sec/op", "other"); !math.IsNaN(got) {
		t.Errorf("a side without samples: %v, want NaN", got)
	}
}
