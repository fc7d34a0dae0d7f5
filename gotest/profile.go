package gotest

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// DefaultProfileTime is how long each profiled run lasts unless Profiling
// says otherwise. The CPU profiler takes 100 samples a second per busy
// CPU, so even a process that gets only half a CPU leaves 25 samples, more
// than the 20 package observe wants before it reads a share, and a
// benchmark on one CPU leaves 50.
const DefaultProfileTime = 500 * time.Millisecond

// profileShare is the largest share of the time budget the rounds leave
// for the profiling pass: the paired samples, which decide the verdicts,
// come first. experiments/busy measured a 2.5 s budget losing a fifth of
// its rounds to a pass of 0.5-0.7 s.
const profileShare = 0.1

// Profiling configures the profiling pass. After the timed rounds, so that
// profiling never perturbs a measured sample, every benchmark runs once
// more on every side, untimed, for about Time (of CPU time, where the
// rounds measured it, a busy machine having given the benchmark less than
// its wall time, within what the budget leaves), writing a CPU profile and a
// mutex profile to Out/profiles/<benchmark>/<side>.cpu.pprof and
// <side>.mutex.pprof. The CPU profile's summary goes to the Observer
// (AddProfile) on an interval of its own, round 0, where a bottleneck
// classifier (package observe's Annotate) finds it; the process's resource
// usage does not, since the profiler's signals add to it and the rounds
// measured the same code unperturbed. The mutex wait, and where the files
// are, go in a note on the benchmark.
//
// The pass fits in the time budget: the rounds stop early enough to leave
// it about the time it needs, up to a tenth of the budget; when what is
// left is short, each run is shortened to its share of it, down to a
// half of Time, and past that the remaining benchmarks go unprofiled,
// with a note saying so.
type Profiling struct {
	// Time is how long each profiled run lasts, about: its iteration
	// count is Time over the side's median sec/op. 0 means
	// DefaultProfileTime.
	Time time.Duration
	// ReadCPU summarises a CPU profile; package observe's ReadCPUProfile
	// fits.
	ReadCPU func(io.Reader) (*model.ProfileStats, error)
	// ReadMutex, when set, reads a mutex profile: how long goroutines
	// waited on mutexes, and how many contentions there were; package
	// observe's ReadMutexProfile fits. When nil, no mutex profile is
	// written.
	ReadMutex func(io.Reader) (wait time.Duration, contentions int64, err error)
}

// profileReserve is how much of the time budget the rounds leave for the
// profiling pass: a process start-up plus Time per benchmark and side, at
// most profileShare of the budget. It does not depend on the last round's
// length: the pass's own cost is known from calibration.
func (s *session) profileReserve(time.Duration) time.Duration {
	if s.cfg.Profile == nil {
		return 0
	}
	return min(s.profileNeed(s.cfg.Profile.Time), time.Duration(profileShare*float64(s.cfg.Time)))
}

// profileNeed is how long a profiling pass over the benchmarks not failed
// takes with runs of d each, start-ups included.
func (s *session) profileNeed(d time.Duration) time.Duration {
	var need time.Duration
	for _, u := range s.units {
		if u.failed {
			continue
		}
		for _, sd := range s.sides {
			need += s.profileWall(u, sd.Label, d) + u.startWall
		}
	}
	return need
}

// profileWall is how long a profiling run of u on side planned for d is
// expected to last: d, or up to profileStretch times it where the rounds
// found the side's CPU time short of its wall time (see profileIters).
func (s *session) profileWall(u *unit, side string, d time.Duration) time.Duration {
	i, ok := s.bench[u.key]
	if s.run == nil || !ok {
		return d
	}
	b := &s.run.Benchmarks[i]
	if wall, cpu := sideMedian(b, "sec/op", side), sideMedian(b, CPUUnit, side); cpu > 0 && cpu < wall {
		return time.Duration(float64(d) * min(profileStretch, wall/cpu))
	}
	return d
}

// planProfile turns the profiling pass off, with a note, when runs of
// half of Time would not fit in profileShare of the budget: the budget
// goes to the paired samples, which decide the verdict, rather than to
// evidence about the bottleneck.
func (s *session) planProfile() {
	p := s.cfg.Profile
	if p == nil {
		return
	}
	need := s.profileNeed(p.Time / 2)
	if share := time.Duration(profileShare * float64(s.cfg.Time)); need > share {
		s.cfg.Profile = nil
		s.note(model.NoteProfile, "No profiling pass: it needs about %v, more than a tenth of the %v time budget, which goes to the paired rounds instead; the bottleneck notes rest on process statistics alone (a budget of %v leaves room for it).",
			need.Round(10*time.Millisecond), s.cfg.Time, (need * 10).Round(100*time.Millisecond))
	}
}

// profiledRun is one profiling run of one benchmark on one side.
type profiledRun struct {
	side        string
	elapsed     time.Duration
	cpu         *model.ProfileStats
	mutex       bool // wait and contentions were read
	wait        time.Duration
	contentions int64
	problem     string // what went wrong, if anything
}

// profile runs the profiling pass (see Profiling). It notes what it did on
// the run, and collects the benchmarks' notes in s.profNotes; a cancelled
// ctx ends it early, with a note.
func (s *session) profile(ctx context.Context) {
	p := s.cfg.Profile
	var units []*unit
	for _, u := range s.units {
		if !u.failed {
			units = append(units, u)
		}
	}
	if len(units) == 0 {
		return
	}
	shown := filepath.Join(s.cfg.Out, "profiles")
	root, err := filepath.Abs(shown)
	if err != nil {
		s.note(model.NoteProfile, "No profiling pass: %v.", err)
		return
	}
	s.profNotes = map[int][]model.Note{}
	t0 := time.Now()
	defer func() { s.budget.Spend("profiling", time.Since(t0), "") }()
	used := map[string]bool{}
	steps, step := len(units)*len(s.sides), 0
	var profiled, unprofiled, partial []string
	var shortest time.Duration
	stop := ""
	for _, u := range units {
		name := profileDir(u, used)
		var runs []profiledRun
		for _, sd := range s.sides {
			// This run's share of what is left of the budget, a fifth
			// of it kept for starting the process and writing the
			// profiles.
			slot := s.budget.Left()/time.Duration(steps-step) - u.startWall
			d := min(p.Time, slot*4/5)
			switch {
			case ctx.Err() != nil:
				stop = "interrupted"
			case d < p.Time/2:
				stop = "budget"
			}
			if stop != "" {
				break
			}
			if shortest == 0 || d < shortest {
				shortest = d
			}
			step++
			s.progress(Progress{Phase: PhaseProfile, Step: step, Steps: steps, Current: sd.Label + " " + strings.TrimPrefix(u.key, u.pkg+".")})
			r := s.profileRun(ctx, u, sd, filepath.Join(root, name), d, slot*4/5)
			if ctx.Err() != nil {
				stop = "interrupted"
				break
			}
			runs = append(runs, r)
		}
		if n := profileNote(runs, filepath.Join(shown, name), p.ReadMutex != nil); n != "" {
			bi := s.bench[u.key]
			s.profNotes[bi] = append(s.profNotes[bi], model.Note{Kind: model.NoteProfile, Source: source, Benchmark: u.key, Text: n})
		}
		// Profiled means on every side: one side's profile alone
		// cannot tell the sides apart.
		var with []string // the sides it was profiled on
		for _, r := range runs {
			if r.cpu != nil {
				with = append(with, r.side)
			}
		}
		if len(with) == len(s.sides) {
			profiled = append(profiled, u.key)
		} else {
			unprofiled = append(unprofiled, s.shortKey(u.key))
			if len(with) > 0 {
				partial = append(partial, s.shortKey(u.key)+" on "+strings.Join(with, " and "))
			}
		}
		if stop != "" {
			break
		}
	}
	for _, u := range units[len(profiled)+len(unprofiled):] {
		unprofiled = append(unprofiled, s.shortKey(u.key))
	}
	s.profileOutcome(profileOutcome{stop: stop, units: len(units), runs: step, profiled: profiled, unprofiled: unprofiled, partial: partial, shortest: shortest})
}

// A profileOutcome is what the profiling pass did.
type profileOutcome struct {
	// stop is why it stopped early: "budget", "interrupted" or "".
	stop  string
	units int // benchmarks to profile
	runs  int // profiling runs made, on any side
	// profiled are the keys of the benchmarks profiled on every side,
	// unprofiled the short keys of the others, partial those of them
	// profiled on some sides, with the sides ("Work on old").
	profiled, unprofiled, partial []string
	shortest                      time.Duration // the shortest run planned
}

// profileOutcome notes what the profiling pass did.
func (s *session) profileOutcome(o profileOutcome) {
	p := s.cfg.Profile
	files := "CPU profiles"
	if p.ReadMutex != nil {
		files = "CPU and mutex profiles"
	}
	stop := o.stop
	switch {
	case stop == "interrupted":
		s.note(model.NoteProfile, "The profiling pass was interrupted after %d of %d benchmarks; the timed rounds are complete.", len(o.profiled), o.units)
	case stop == "budget" && len(o.unprofiled) == 0:
		stop = "" // every benchmark got its profile before the budget ran out
		fallthrough
	case stop == "" && len(o.profiled) > 0:
		how := fmt.Sprintf("for about %v", p.Time)
		if o.shortest < p.Time {
			how = fmt.Sprintf("for %v to %v (shortened to fit the time budget)", o.shortest.Round(time.Millisecond), p.Time)
		}
		s.run.Notes = append(s.run.Notes, gotestNote(model.NoteProfile, fmt.Sprintf(
			"After the timed rounds every benchmark ran once more per side, untimed, %s, writing %s to %s; the bottleneck notes use them.",
			how, files, filepath.Join(s.cfg.Out, "profiles"))))
	case stop == "budget" && len(o.profiled) == 0 && o.runs == 0:
		s.note(model.NoteProfile, "No profiling pass: the rounds spent the %v time budget, so the bottleneck notes rest on process statistics alone; a longer budget leaves room for it.", s.cfg.Time)
	case stop == "budget" && len(o.profiled) == 0:
		// Some runs were made (their time is in the budget's line, their
		// files in the profiles directory), none on every side.
		what := "after " + words.Count(o.runs, "profiling run", "profiling runs") + " that gave no profile, so"
		if len(o.partial) > 0 {
			what = "having profiled " + words.JoinList(o.partial, 5) + " only: one side's profile cannot tell the sides apart, so"
		}
		s.note(model.NoteProfile, "The profiling pass stopped when the %v time budget was spent, %s the bottleneck notes rest on process statistics alone; a longer budget leaves room for it.",
			s.cfg.Time, what)
	case stop == "budget":
		text := fmt.Sprintf("The profiling pass stopped when the %v time budget was spent: %d of %d benchmarks profiled; the bottleneck notes of the others (%s) rest on process statistics alone",
			s.cfg.Time, len(o.profiled), o.units, words.JoinList(o.unprofiled, 5))
		if len(o.partial) > 0 {
			text += " (" + words.JoinList(o.partial, 5) + " only)"
		}
		s.note(model.NoteProfile, "%s.", text)
	}
}

// profileRun runs u once on sd for about d (of CPU time where it can, in
// at most maxWall) with profiles written to dir, and reads them.
func (s *session) profileRun(ctx context.Context, u *unit, sd *sideState, dir string, d, maxWall time.Duration) profiledRun {
	p := s.cfg.Profile
	r := profiledRun{side: sd.Label}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.problem = err.Error()
		return r
	}
	inv := Invocation{
		Bench:      u.pattern,
		Iters:      s.profileIters(u, sd.Label, d, maxWall),
		CPU:        u.cpu,
		Timeout:    s.cfg.Timeout,
		CPUProfile: filepath.Join(dir, sd.Label+".cpu.pprof"),
	}
	if p.ReadMutex != nil {
		inv.MutexProfile = filepath.Join(dir, sd.Label+".mutex.pprof")
	}
	obs := s.cfg.Observer
	if obs != nil {
		obs.Mark(u.key, sd.Label, 0)
	}
	// The first layout's binary (see Config.Layouts): the profile says
	// where the CPU time went, by function, and a layout moves each
	// function's time by a few percent, not which ones limit it.
	out, err := sd.bins[u.pkg].Run(ctx, inv)
	if err == nil {
		r.elapsed = out.Elapsed
		if r.cpu, err = readProfile(inv.CPUProfile, p.ReadCPU); err != nil {
			r.problem = err.Error()
		}
		if inv.MutexProfile != "" {
			_, err := readProfile(inv.MutexProfile, func(rd io.Reader) (_ struct{}, err error) {
				r.wait, r.contentions, err = p.ReadMutex(rd)
				return struct{}{}, err
			})
			if err == nil {
				r.mutex = true
			} else if r.problem == "" {
				r.problem = err.Error()
			}
		}
	} else {
		r.problem = "the run failed: " + firstLine(err.Error())
	}
	if obs != nil {
		if r.cpu != nil {
			obs.AddProfile(r.cpu)
		}
		obs.Pause()
	}
	return r
}

// readProfile opens path and reads it with read.
func readProfile[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f)
}

// profileIters is the iteration count that makes a run of u on side last
// about d: d over the side's median sec/op, or the rounds' count when
// there is none. A CPU profile's samples count CPU time, so where the
// rounds measured the side's CPU time and it fell short of its wall time
// (a busy machine gave the benchmark a third of a CPU: a profile of d
// holds a third of the samples), the run lasts d of CPU time instead, as
// long as that fits in maxWall and in profileStretch times d.
func (s *session) profileIters(u *unit, side string, d, maxWall time.Duration) int64 {
	b := &s.run.Benchmarks[s.bench[u.key]]
	wall := sideMedian(b, "sec/op", side)
	if !(wall > 0) {
		return u.iters
	}
	n := d.Seconds() / wall
	if cpu := sideMedian(b, CPUUnit, side); cpu > 0 && cpu < wall {
		longest := min(maxWall.Seconds(), profileStretch*d.Seconds()) / wall
		n = max(n, min(d.Seconds()/cpu, longest))
	}
	return int64(min(max(math.Ceil(n), 1), 1e12))
}

// profileStretch bounds how much longer than its planned time a profiling
// run may last to get its CPU profile's samples on a busy machine.
const profileStretch = 4

// recentSamples is how many of a side's latest samples sideMedian reads:
// the profiling run follows the rounds, and the pass's reserve is asked
// for after every round, where reading every sample would cost rigor
// CPU in proportion to the rounds run.
const recentSamples = 32

// sideMedian is the median of the latest recentSamples samples of b's
// unit on side, NaN without samples.
func sideMedian(b *model.Benchmark, unit, side string) float64 {
	m := b.Metric(unit)
	if m == nil {
		return math.NaN()
	}
	var v []float64
	for i := len(m.Samples) - 1; i >= 0 && len(v) < recentSamples; i-- {
		if m.Samples[i].Side == side {
			v = append(v, m.Samples[i].Value)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	return stats.Median(v)
}

// profileDir names u's profile directory: the package's last element and
// the benchmark's name, or its whole key when that is taken.
func profileDir(u *unit, used map[string]bool) string {
	r := strings.NewReplacer("/", "_", "\\", "_", ":", "_", "*", "_", "?", "_", "\"", "_", "<", "_", ">", "_", "|", "_")
	name := r.Replace(path.Base(u.pkg) + "." + strings.TrimPrefix(u.key, u.pkg+"."))
	if used[name] {
		name = r.Replace(u.key)
	}
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%s.%d", strings.TrimSuffix(name, fmt.Sprintf(".%d", i-1)), i)
	}
	used[name] = true
	return name
}

// profileNote describes a benchmark's profiling runs: the mutex wait of
// each side and where the files are, or what went wrong.
func profileNote(runs []profiledRun, dir string, mutex bool) string {
	var waits, problems, sides []string
	contended := false
	for _, r := range runs {
		contended = contended || r.contentions > 0
		if r.problem != "" {
			problems = append(problems, fmt.Sprintf("on %s, %s", r.side, r.problem))
		}
		if r.cpu != nil {
			sides = append(sides, r.side)
		}
		if r.mutex {
			waits = append(waits, fmt.Sprintf("%s during %s's %s run", seconds(r.wait), r.side, seconds(r.elapsed)))
		}
	}
	if len(sides) == 0 && len(problems) == 0 {
		return ""
	}
	var parts []string
	switch {
	case len(waits) > 0 && contended:
		parts = append(parts, fmt.Sprintf("goroutines waited on sync mutexes for %s (estimated from 1 in %d contentions)",
			strings.Join(waits, ", "), MutexProfileFraction))
	case len(waits) > 0:
		parts = append(parts, fmt.Sprintf("no contention on sync mutexes recorded (1 in %d sampled)", MutexProfileFraction))
	}
	if len(sides) > 0 {
		ext := "cpu"
		if mutex {
			ext = "{cpu,mutex}"
		}
		set := sides[0]
		if len(sides) > 1 {
			set = "{" + strings.Join(sides, ",") + "}"
		}
		parts = append(parts, fmt.Sprintf("profiles in %s.%s.pprof", filepath.Join(dir, set), ext))
	}
	if len(problems) > 0 {
		parts = append(parts, "profiling went wrong "+strings.Join(problems, "; "))
	}
	return "profiled in an untimed run after the rounds: " + strings.Join(parts, "; ")
}

// seconds formats d in seconds to three significant digits: "0.0394 s".
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.3g s", d.Seconds())
}
