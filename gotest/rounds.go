package gotest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// measure calibrates every benchmark, then runs rounds until the stopping
// rule ends them.
func (s *session) measure(ctx context.Context) error {
	s.budget = experiment.NewBudget(s.cfg.Time, time.Now())
	s.start = s.budget.Start()
	t0 := time.Now()
	if err := s.calibrate(ctx); err != nil {
		return err
	}
	if len(s.units) == 0 {
		return nil
	}
	s.budget.Spend("calibration", time.Since(t0), "")
	s.planProfile()
	s.planSamples()
	s.planLayouts()
	if s.cfg.Plan != nil {
		s.cfg.Plan(s.plan())
		return errPlanned
	}
	if err := s.link(ctx); err != nil {
		return err
	}
	out, err := experiment.Loop(ctx, experiment.Design{
		MinRounds: s.cfg.MinRounds,
		MaxRounds: s.cfg.MaxRounds,
		Budget:    s.budget,
		Reserve:   s.reserve,
		Progress: func(round int, unresolved []string) {
			s.progress(Progress{Phase: PhaseMeasure, Round: round, Unresolved: unresolved})
		},
	}, (*sampler)(s))
	s.roundsNote(out)
	return err
}

// roundsNote says why the rounds stopped and which benchmarks retired
// early, naming them as the tables do (without their package).
func (s *session) roundsNote(out experiment.Outcome) {
	r := experiment.StopReport{Budget: s.cfg.Time, MinRounds: s.cfg.MinRounds, Noise: s.cfg.Analysis.Noise,
		Noun: [2]string{"benchmark", "benchmarks"}}
	shown := out
	shown.Unresolved = make([]string, len(out.Unresolved))
	for i, k := range out.Unresolved {
		shown.Unresolved[i] = s.shortKey(k)
	}
	shown.Retired = make(map[string]int, len(out.Retired))
	for k, last := range out.Retired {
		shown.Retired[s.shortKey(k)] = last
	}
	msg := r.Words(shown)
	if msg == "" {
		return // interrupted: Run says so
	}
	if s.cfg.minLowered {
		msg += fmt.Sprintf(" The maximum of %d rounds is below the default minimum of %d, so the minimum was %d.", s.cfg.MaxRounds, DefaultMinRounds, s.cfg.MinRounds)
	}
	s.run.Notes = append(s.run.Notes, gotestNote(model.NoteRounds, msg))
	order := make([]string, len(s.units))
	for i, u := range s.units {
		order[i] = u.key
	}
	if early := experiment.EarlyWords(out, order, s.shortKey); early != "" {
		s.run.Notes = append(s.run.Notes, gotestNote(model.NoteRounds, early))
	}
}

// shortKey is the benchmark key as the report's tables show it, without
// its package (which heads the table): "Sum64/4KB-2", not
// "github.com/cespare/xxhash/v2.Sum64/4KB-2".
func (s *session) shortKey(key string) string {
	for _, u := range s.units {
		if u.key == key {
			return strings.TrimPrefix(key, u.pkg+".")
		}
	}
	return key
}

// budgetNote says how the time budget was spent.
func (s *session) budgetNote() string {
	msg := "The " + s.budget.Summary()
	var samples int
	var startup time.Duration
	for _, u := range s.units {
		samples += u.samples
		startup += time.Duration(u.samples) * u.startWall
	}
	if samples > 0 {
		msg += fmt.Sprintf("; %d samples, about %v of them process start-up", samples, startup.Round(time.Millisecond))
	}
	floor := fmt.Sprintf("%v or %d start-ups", minSampleWork, minWorkStartups)
	held := fmt.Sprintf("%v of its own work or %d process start-ups", minSampleWork, minWorkStartups)
	if s.allWindow() { // no start-up is subtracted
		floor, held = fmt.Sprint(minSampleWork), fmt.Sprintf("%v of its own work", minSampleWork)
	}
	switch {
	case !s.shortened:
	case s.sampleTime < DefaultBenchtime:
		msg += fmt.Sprintf("; samples were shortened to about %v of work (from %v) so that %d rounds would fit, no shorter than %s", roundDuration(s.sampleTime), DefaultBenchtime, experiment.TargetPairs, floor)
	default:
		// The floor, not the budget, set the samples' length.
		msg += fmt.Sprintf("; samples could not be shortened to fit %d rounds: none is shorter than %s, which held them at about %v of work (the default is %v)", experiment.TargetPairs, held, roundDuration(s.sampleTime), DefaultBenchtime)
	}
	return msg
}

func roundDuration(d time.Duration) time.Duration {
	if d >= 10*time.Millisecond {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Microsecond)
}

// A sampler is a session seen by the experiment's round loop.
type sampler session

func (p *sampler) Units() []string {
	return experiment.LiveKeys(p.units, func(u *unit) (string, bool) { return u.key, !u.failed })
}

func (p *sampler) Round(ctx context.Context, k int, active []string) error {
	return (*session)(p).round(ctx, k, active)
}

func (p *sampler) Checkpoint() error { return (*session)(p).writeJSON() }

// Unresolved applies the stopping rule to the rounds so far.
func (p *sampler) Unresolved() ([]string, error) {
	s := (*session)(p)
	var keys []string
	var err error
	run := s.run
	if s.cfg.Observer != nil {
		run = experiment.Interim(run, s.cfg.Observer.Observations())
	}
	if s.cfg.Unresolved != nil {
		keys, err = s.cfg.Unresolved(run)
	} else {
		keys, err = experiment.Unresolved(run, s.cfg.Analysis)
	}
	if err != nil {
		return nil, fmt.Errorf("analysing round: %w", err)
	}
	return keys, nil
}

// round runs every active benchmark once on every side: benchmarks
// shuffled, the sides in the round's counterbalanced order, and one
// jittered iteration count per benchmark shared by the sides.
func (s *session) round(ctx context.Context, round int, active []string) error {
	t0 := time.Now()
	defer func() { s.lastRound = time.Since(t0) }()
	order := make([]*unit, 0, len(active))
	for _, u := range s.units {
		if !u.failed && slices.Contains(active, u.key) {
			order = append(order, u)
		}
	}
	s.replan(round, len(order)*len(s.sides))
	s.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	sides := experiment.SideOrder(s.cfg.Order, round, len(s.sides))
	steps := len(order) * len(sides)
	step := 0
	for _, u := range order {
		iters := u.iters
		if s.cfg.Iters == 0 {
			iters = experiment.Jitter(s.rng, u.iters)
		}
		for _, si := range sides {
			sd := s.sides[si]
			step++
			s.progress(Progress{Phase: PhaseMeasure, Round: round, Step: step, Steps: steps,
				Current: sd.Label + " " + strings.TrimPrefix(u.key, u.pkg+".")})
			if u.failed {
				break
			}
			if err := s.sample(ctx, u, sd, round, iters); err != nil {
				return err
			}
		}
	}
	return nil
}

// replan shortens the samples of later rounds when the rounds so far ran
// slower than planned (a busy machine gives each process less of a CPU),
// so that experiment.TargetPairs rounds still fit in the budget: it never
// lengthens them, and never below planSamples's floor. Only with the
// default --benchtime.
func (s *session) replan(round, perRound int) {
	if s.cfg.Benchtime > 0 || s.cfg.Iters > 0 || round <= 2 || perRound == 0 {
		return
	}
	startup := s.meanStartWall()
	f := experiment.Shrink(s.budget.Left()-s.reserve(0), s.lastRound,
		experiment.TargetPairs-(round-1), perRound, startup, max(minSampleTime, startup))
	if f >= 0.95 { // within the jitter: leave the counts alone
		return
	}
	for _, u := range s.units {
		u.iters = max(int64(float64(u.iters)*f), u.minIters, 1)
	}
	s.sampleTime = s.meanWork()
	s.shortened = true
}

// meanWork is what a sample does on average, in the operations' own time
// (a busy machine stretches it on the wall clock), floors included.
func (s *session) meanWork() time.Duration {
	if len(s.units) == 0 {
		return 0
	}
	var work time.Duration
	for _, u := range s.units {
		work += time.Duration(float64(u.iters) * u.perOp * float64(time.Second))
	}
	return work / time.Duration(len(s.units))
}

// sample runs one benchmark on one side once, with the round's layout
// (see Config.Layouts), and records what it printed, with the process's
// CPU time per operation.
func (s *session) sample(ctx context.Context, u *unit, sd *sideState, round int, iters int64) error {
	obs := s.cfg.Observer
	if obs != nil {
		obs.Mark(u.key, sd.Label, round)
	}
	out, err := s.binaryFor(sd, u.pkg, round).Run(ctx, Invocation{Bench: u.pattern, Iters: iters, CPU: u.cpu, Timeout: s.cfg.Timeout})
	s.keepPrinted(sd.Label, u.key, round, out)
	if obs != nil {
		if out != nil && out.State != nil && s.cfg.ProcessStats != nil {
			obs.AddProcess(s.cfg.ProcessStats(out.State))
		}
		obs.Pause()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var results []Result
	if err == nil {
		var warnings []string
		results, warnings = ParseResults(out.Stdout)
		s.outputWarnings(u.pkg, sd.Label, warnings)
		if len(results) == 0 {
			err = &RunError{Reason: "printed no benchmark result", Tail: words.Tail(out.Combined, tailLines)}
		}
	}
	if err != nil {
		u.failed = true
		msg := fmt.Sprintf("failed on %s in round %d and was dropped from later rounds: %v", sd.Label, round, err)
		b := &s.run.Benchmarks[s.bench[u.key]]
		b.Notes = append(b.Notes, model.Note{Kind: model.NoteFailure, Source: source, Benchmark: u.key, Side: sd.Label, Text: msg})
		b.MarkMissing(sd.Label, model.MissingFailed, fmt.Sprintf("%s in round %d", runErrReason(err), round))
		fmt.Fprintf(s.cfg.Log, "rigor: %s %s\n", u.key, msg)
		return nil
	}
	u.samples++
	if len(results) == 1 && out.State != nil {
		if sd.window {
			u.observeStartup(out, &results[0])
		} else {
			addCPU(&results[0], processCPU(out), u.startCPU)
		}
	}
	return s.record(sd, round, results)
}
