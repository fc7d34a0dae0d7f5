package gotest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// calibrate lists the benchmarks of every package and side, runs each
// top-level benchmark once per side with the target benchtime to find its
// sub-benchmarks and the iteration count that lasts about that long, and
// schedules every benchmark found on all sides with the smallest count.
// It runs the first layout's binaries (see Config.Layouts), the only
// ones linked yet: the number of layouts follows from what it finds.
func (s *session) calibrate(ctx context.Context) error {
	filter, err := newBenchFilter(s.cfg.Bench)
	if err != nil {
		return err
	}
	s.filter = filter
	var work []todo
	for _, pkg := range s.pkgs {
		names, err := s.listBenchmarks(ctx, pkg)
		if err != nil {
			return err
		}
		for _, n := range names {
			if p := filter.pattern(n); p != "" {
				work = append(work, todo{pkg, n, p})
			}
		}
	}
	if s.cfg.Shard != nil {
		work = s.shardWork(work)
	}
	cpus := s.cfg.CPU
	if len(cpus) == 0 {
		cpus = []int{0}
	}
	steps := len(work) * len(cpus) * len(s.sides)
	step := 0
	for _, w := range work {
		for _, cpu := range cpus {
			inv := Invocation{Bench: w.pattern, Benchtime: s.calibrationTime(), CPU: cpu, Timeout: s.cfg.Timeout}
			if s.cfg.Iters > 0 {
				inv.Benchtime, inv.Iters = 0, 1 // only to find the sub-benchmarks
			}
			found := make([][]Result, len(s.sides))
			failed := false
			for i, sd := range s.sides {
				step++
				s.progress(Progress{Phase: PhaseCalibrate, Step: step, Steps: steps, Current: sd.Label + " " + strings.TrimPrefix(w.name, "Benchmark")})
				out, err := sd.bins[w.pkg].Run(ctx, inv)
				s.keepPrinted(sd.Label, w.pkg+"."+w.name, 0, out)
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if err != nil {
					s.note(model.NoteFailure, "%s.%s failed on %s during calibration, so it is not measured: %v", w.pkg, w.name, sd.Label, err)
					s.lost(w.pkg, found[0], sd, i, runErrReason(err)+" during calibration")
					failed = true
					break
				}
				var warnings []string
				found[i], warnings = ParseResults(out.Stdout)
				s.outputWarnings(w.pkg, sd.Label, warnings)
				if len(found[i]) == 0 {
					s.note(model.NoteFailure, "%s.%s printed no result on %s (skipped?), so it is not measured.", w.pkg, w.name, sd.Label)
					s.lost(w.pkg, found[0], sd, i, "printed no result during calibration")
					failed = true
					break
				}
			}
			if !failed {
				s.schedule(w.pkg, cpu, found)
			}
		}
	}
	if len(s.units) == 0 && len(work) == 0 && len(s.pkgs) > 0 && (s.run.Shard == nil || s.run.Shard.Selected == 0) {
		// Packages built, but the pattern matches nothing in them.
		return fmt.Errorf("no benchmark matches %q", s.cfg.Bench)
	}
	return s.measureStartup(ctx)
}

// lost records that side sd (the i-th) lacks the results the baseline's
// calibration run printed, so that the gate can tell a benchmark that ran
// on the baseline and fails on another side from one that never existed.
func (s *session) lost(pkg string, base []Result, sd *sideState, i int, reason string) {
	if i == 0 {
		return // the baseline itself failed: nothing was lost
	}
	for _, r := range base {
		s.run.MarkMissing(pkg, r.Name, r.Procs, sd.Label, model.MissingFailed, reason)
	}
}

// runErrReason is the first line of why a test binary failed.
func runErrReason(err error) string {
	var re *RunError
	if errors.As(err, &re) {
		return re.Reason
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// calibrationTime is the sample duration calibration aims at: Benchtime
// when set; otherwise DefaultBenchtime, or a fiftieth of the time budget
// when that is shorter, so that a short budget is not spent calibrating.
// planSamples scales the counts to the sample time the rounds use.
func (s *session) calibrationTime() time.Duration {
	if s.cfg.Benchtime > 0 {
		return s.cfg.Benchtime
	}
	return max(min(DefaultBenchtime, s.cfg.Time/50), minSampleTime)
}

// startupRuns is how many one-iteration processes per side measure a
// benchmark's fixed cost.
const startupRuns = 3

// measureStartup measures, for every scheduled benchmark, the CPU and wall
// time of a process that runs it for one iteration (-test.benchtime=1x):
// the process's start-up, the benchmark's set-up and one operation. The
// sides alternate, and the median over all of them is the benchmark's
// fixed cost, shared by the sides: subtracted from each sample's CPU time,
// a shared constant cannot make a difference between the sides appear, so
// an error in it scales the measured change a little and never creates
// one. What remains in a sample's CPU time beyond its iterations is the
// benchmark's set-up once more (a timed process runs the function once for
// one iteration, then for the count), spread over the count: the residual
// bias the run's note states.
//
// When every side reads its CPU time inside the timed window (package
// window), nothing is subtracted, and the start-up serves only to plan the
// samples: one one-iteration process per side and package measures it
// (the package's start-up dominates; each sample refines its benchmark's
// figure, see observeStartup).
func (s *session) measureStartup(ctx context.Context) error {
	if s.cfg.Iters == 1 {
		return nil // a sample is a one-iteration run: nothing to subtract
	}
	if s.allWindow() {
		return s.measurePackageStartup(ctx)
	}
	for _, u := range s.units {
		var cpus, walls []float64
		for rep := range startupRuns {
			for _, si := range experiment.SideOrder(s.cfg.Order, rep+1, len(s.sides)) {
				sd := s.sides[si]
				s.progress(Progress{Phase: PhaseCalibrate, Current: sd.Label + " " + strings.TrimPrefix(u.key, u.pkg+".") + " start-up"})
				out, err := sd.bins[u.pkg].Run(ctx, Invocation{Bench: u.pattern, Iters: 1, CPU: u.cpu, Timeout: s.cfg.Timeout})
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if err != nil || out.State == nil {
					continue // the timed rounds will say what is wrong
				}
				cpus = append(cpus, float64(processCPU(out)))
				walls = append(walls, float64(out.Elapsed))
			}
		}
		if len(cpus) > 0 {
			u.startCPU, u.startWall = time.Duration(stats.Median(cpus)), time.Duration(stats.Median(walls))
			u.startOne = u.startWall
		}
	}
	return nil
}

// measurePackageStartup measures the wall time of a one-iteration process
// of each package's first benchmark, once per side, and gives it to every
// benchmark of the package.
func (s *session) measurePackageStartup(ctx context.Context) error {
	walls := map[string][]float64{}
	for _, u := range s.units {
		if _, done := walls[u.pkg]; done {
			continue
		}
		walls[u.pkg] = []float64{}
		for _, si := range experiment.SideOrder(s.cfg.Order, 1, len(s.sides)) {
			sd := s.sides[si]
			s.progress(Progress{Phase: PhaseCalibrate, Current: sd.Label + " " + strings.TrimPrefix(u.key, u.pkg+".") + " start-up"})
			out, err := sd.bins[u.pkg].Run(ctx, Invocation{Bench: u.pattern, Iters: 1, CPU: u.cpu, Timeout: s.cfg.Timeout})
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil || out.State == nil {
				continue // the timed rounds will say what is wrong
			}
			walls[u.pkg] = append(walls[u.pkg], float64(out.Elapsed))
		}
	}
	for _, u := range s.units {
		if w := walls[u.pkg]; len(w) > 0 {
			u.startWall = time.Duration(stats.Median(w))
			u.startOne = u.startWall
		}
	}
	return nil
}

// observeStartup refines u's start-up wall time from a timed sample whose
// CPU time was read in the window: what the process took beyond the
// window's own wall time, the median over the samples so far.
func (u *unit) observeStartup(out *Output, r *Result) {
	for _, v := range r.Values {
		if v.Unit == analysis.WallUnit && r.Iters > 0 {
			if extra := out.Elapsed.Seconds() - v.Value*float64(r.Iters); extra > 0 {
				u.overheads = append(u.overheads, extra)
				u.startWall = time.Duration(stats.Median(u.overheads) * float64(time.Second))
			}
			return
		}
	}
}

// meanStartWall is the mean wall time of a one-iteration process over the
// benchmarks: the cost of starting one.
func (s *session) meanStartWall() time.Duration {
	if len(s.units) == 0 {
		return 0
	}
	var sum time.Duration
	for _, u := range s.units {
		sum += u.startWall
	}
	return sum / time.Duration(len(s.units))
}

// minSampleTime is the shortest sample planSamples makes: below it, a
// process's start-up (about 5-20 ms of wall time for a test binary) would
// be most of each sample's cost.
const minSampleTime = 10 * time.Millisecond

// planSamples shortens the samples when the time budget would otherwise
// fit fewer than experiment.TargetPairs rounds: the iteration counts found
// by calibration are scaled to the sample time experiment.SampleTime
// gives, no shorter than the start-up of a process (so that at least half
// of each sample's cost is measuring) nor minSampleTime.
func (s *session) planSamples() {
	calib := s.calibrationTime()
	if s.cfg.Iters > 0 || s.cfg.Benchtime > 0 || len(s.units) == 0 {
		s.sampleTime = calib
		return
	}
	startup := s.meanStartWall()
	left := s.budget.Left() - s.reserve(0)
	d, short := experiment.SampleTime(DefaultBenchtime, max(minSampleTime, startup), left, startup, len(s.units)*len(s.sides))
	s.sampleTime, s.shortened = d, short
	for _, u := range s.units {
		// The operation's time as calibration measured it.
		u.perOp = calib.Seconds() / float64(max(u.iters, 1))
		work := minSampleWork
		if !s.allWindow() {
			// The start-up estimate is subtracted from the CPU time.
			work = max(work, minWorkStartups*u.startCPU)
		}
		u.minIters = max(int64(math.Ceil(work.Seconds()/u.perOp)), 1)
		u.iters = max(int64(math.Round(float64(u.iters)*float64(d)/float64(calib))), u.minIters)
	}
	if short {
		// The floors may hold samples above d.
		s.sampleTime = s.meanWork()
	}
}

// A sample is never shortened below minSampleWork of the benchmark's own
// operations, nor below minWorkStartups times its process's start-up CPU
// time: the start-up is subtracted from every sample's CPU time as an
// estimate, and its scatter (about 0.2 ms in 2.5 ms on a quiet machine,
// several times that beside a busy neighbour) must stay small next to the
// work. experiments/busy measured what shorter samples cost: 6 ms of
// work beside a 2.5 ms start-up left the per-round CPU ratios scattered
// by 8-12%.
const (
	minSampleWork   = 20 * time.Millisecond
	minWorkStartups = 8
)

// listBenchmarks returns the top-level benchmarks of pkg present on every
// side, noting those present on some sides only.
func (s *session) listBenchmarks(ctx context.Context, pkg string) ([]string, error) {
	var common []string
	where := map[string][]string{}
	for i, sd := range s.sides {
		names, err := sd.bins[pkg].Benchmarks(ctx, s.cfg.Timeout)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			s.note(model.NoteFailure, "listing the benchmarks of %s on %s failed, so it is not measured: %v", pkg, sd.Label, err)
			return nil, nil
		}
		for _, n := range names {
			where[n] = append(where[n], sd.Label)
			if i == 0 {
				common = append(common, n)
			}
		}
	}
	var only []string
	for n, labels := range where {
		if len(labels) < len(s.sides) {
			only = append(only, fmt.Sprintf("%s (only on %s)", n, strings.Join(labels, ", ")))
			if labels[0] == s.sides[0].Label && s.filter.pattern(n) != "" {
				for _, sd := range s.sides[1:] {
					if !slices.Contains(labels, sd.Label) {
						s.run.MarkMissing(pkg, strings.TrimPrefix(n, "Benchmark"), 0, sd.Label, model.MissingAbsent, "not in "+sd.Label+"'s source")
					}
				}
			}
		}
	}
	if len(only) > 0 {
		slices.Sort(only)
		s.note(model.NoteOneSide, "%s: %d %s on one side only, not compared: %s.", pkg, len(only), words.Plural(len(only), "benchmark is", "benchmarks are"), strings.Join(only, ", "))
	}
	return slices.DeleteFunc(common, func(n string) bool { return len(where[n]) < len(s.sides) }), nil
}

// schedule adds a unit for every benchmark a calibration run found on all
// sides, with the smallest iteration count among them.
func (s *session) schedule(pkg string, cpu int, found [][]Result) {
	index := make([]map[string]Result, len(found))
	for i, rs := range found {
		index[i] = map[string]Result{}
		for _, r := range rs {
			index[i][r.FullName()] = r
		}
	}
	var only []string
	for i, rs := range found {
		for _, r := range rs {
			var missing bool
			for j := range found {
				if _, ok := index[j][r.FullName()]; !ok {
					missing = true
				}
			}
			if missing {
				only = append(only, fmt.Sprintf("%s (on %s)", r.FullName(), s.sides[i].Label))
				if i == 0 {
					for j := 1; j < len(found); j++ {
						if _, ok := index[j][r.FullName()]; !ok {
							s.run.MarkMissing(pkg, r.Name, r.Procs, s.sides[j].Label, model.MissingAbsent, "not run on "+s.sides[j].Label)
						}
					}
				}
			}
		}
	}
	if len(only) > 0 {
		s.note(model.NoteOneSide, "%s: %d %s on one side only, not compared: %s.", pkg, len(only), words.Plural(len(only), "sub-benchmark is", "sub-benchmarks are"), strings.Join(only, ", "))
	}
	// Keep the order the first side printed them in.
	for _, r0 := range found[0] {
		n := r0.FullName()
		iters := r0.Iters
		common := true
		for i := 1; i < len(found); i++ {
			r, ok := index[i][n]
			if !ok {
				common = false
				break
			}
			iters = min(iters, r.Iters)
		}
		key := pkg + "." + n
		if _, dup := s.bench[key]; dup || !common {
			continue
		}
		if s.cfg.Iters > 0 {
			iters = s.cfg.Iters
		}
		var op float64 // the slowest side's
		for i := range found {
			r := index[i][n]
			op = max(op, r.value(analysis.WallUnit))
		}
		s.units = append(s.units, &unit{pkg: pkg, key: key, pattern: leafPattern(r0.Name, r0.Procs), cpu: cpu, iters: max(iters, 1), calOp: op})
		s.bench[key] = len(s.run.Benchmarks)
		s.run.Benchmarks = append(s.run.Benchmarks, model.Benchmark{
			Name:    r0.Name,
			Procs:   r0.Procs,
			Pkg:     pkg,
			Config:  r0.fileConfig,
			Metrics: []model.Metric{},
		})
	}
}
