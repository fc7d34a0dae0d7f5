package execbench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// Units of the metrics a run records, per run of a command.
const (
	WallUnit = analysis.WallUnit // wall time, from start to reaping
	CPUUnit  = analysis.CPUUnit  // user plus system CPU time
	RSSUnit  = model.MaxRSSUnit  // peak resident set size
)

// lookGrowth spaces the stopping rule's looks by how long a round takes
// (estimated from the warm-up): after every round when rounds are long,
// when the rounds have grown by a tenth when they are shorter than
// 100 ms, and by a quarter below 10 ms. A look analyses every round so
// far (about 50 ms at 2000 rounds of two commands, measured; when the
// paired interval sorted all n(n+1)/2 Walsh averages, 0.8 s), so that
// rounds of 1 ms commands looked at by a tenth spent more time analysing
// than measuring on a busy machine; by a quarter the run overshoots its
// resolution by at most a quarter of its rounds, a quarter of a second
// of 1 ms rounds.
func lookGrowth(round time.Duration) float64 {
	switch {
	case round >= 100*time.Millisecond:
		return 0
	case round >= 10*time.Millisecond:
		return 0.1
	}
	return 0.25
}

// lookShare bounds the looks' share of the rounds' time whatever the
// warm-up said: a warm-up slowed by a cold start or a busy machine makes
// lookGrowth look after every round of a quick command (one session of
// 1000 rounds of 'true true' took 30 s instead of about 2.5 s on a busy
// machine, nearly all of it in looks, consistent with that), and a look
// grows with the rounds.
const lookShare = 0.1

// checkpointEvery is how often run.json is rewritten during the rounds:
// a run killed outright (kill -9, a power cut) loses at most the samples
// of the last checkpointEvery (or of the spacing checkpointCost sets);
// one interrupted (Ctrl-C, SIGTERM, a failing command) or ended writes
// every sample. Rewriting it after every round of a quick command would
// make the run quadratic in its length; every second, a run of 1000 runs
// of true (about 2-4 s) spent about a seventh of rigor's own CPU
// rewriting it (BenchmarkExecOverhead's profile, issue 28).
const checkpointEvery = 5 * time.Second

// checkpointCost spaces the rewrites further once one takes longer than
// checkpointEvery/checkpointCost: each rewrite encodes every sample so
// far (91 ms at 24640 samples, measured), so that a minute of 1 ms runs
// spent about 2.7 s of rigor's CPU rewriting run.json, 220 µs per run.
// The next rewrite then waits checkpointCost times the last one's
// duration, which keeps the rewrites within 2% of the run's time. The
// final run.json is written whatever the spacing, interrupted or not.
const checkpointCost = 50

// checkpointDue reports whether run.json is due to be rewritten at now.
func (s *session) checkpointDue(now time.Time) bool {
	return now.Sub(s.lastWrite) >= max(checkpointEvery, checkpointCost*s.writeCost)
}

// measure runs the rounds until the design stops them.
func (s *session) measure(ctx context.Context) error {
	out, err := experiment.Loop(ctx, s.design(), (*sampler)(s))
	s.roundsNote(out)
	return err
}

// design is the rounds' design: Config's rounds and budget, and the
// looks spaced by lookGrowth and lookShare.
func (s *session) design() experiment.Design {
	growth := lookGrowth(0) // no warm-up: assume short rounds
	if s.warmRuns > 0 {
		growth = lookGrowth(s.budget.Spent("warm-up") / time.Duration(s.warmRuns) * time.Duration(len(s.units)*len(s.labels)))
	}
	return experiment.Design{
		MinRounds:     s.cfg.MinRounds,
		MaxRounds:     s.cfg.MaxRounds,
		MinOverBudget: s.cfg.Runs > 0 && !s.cfg.RunsTimed,
		Budget:        s.budget,
		LookGrowth:    growth,
		LookShare:     lookShare,
		Progress: func(round int, unresolved []string) {
			s.progress(Progress{Phase: PhaseMeasure, Round: round, Unresolved: unresolved})
		},
	}
}

// A sampler is a session seen by the experiment's round loop.
type sampler session

func (p *sampler) Units() []string {
	return experiment.LiveKeys(p.units, func(u *unit) (string, bool) { return u.key, !u.failed })
}

func (p *sampler) Round(ctx context.Context, k int, active []string) error {
	return (*session)(p).round(ctx, k, active)
}

// Checkpoint rewrites run.json when it is due (see checkpointDue).
func (p *sampler) Checkpoint() error {
	s := (*session)(p)
	if !s.checkpointDue(time.Now()) {
		return nil
	}
	return s.writeJSON()
}

// Unresolved applies the stopping rule to the rounds so far.
func (p *sampler) Unresolved() ([]string, error) {
	s := (*session)(p)
	run := s.run
	if s.cfg.Observer != nil {
		run = experiment.Interim(run, s.cfg.Observer.Observations())
	}
	keys, err := experiment.Unresolved(run, s.cfg.Analysis)
	if err != nil {
		return nil, fmt.Errorf("analysing round: %w", err)
	}
	return keys, nil
}

// round runs every active benchmark once on every side: benchmarks
// shuffled, the sides in the round's counterbalanced order (two sides
// alternate as Order says, more rotate). A sample is one run, so there is
// no iteration count to jitter.
func (s *session) round(ctx context.Context, k int, active []string) error {
	order := make([]*unit, 0, len(active))
	for _, u := range s.units {
		if !u.failed && slices.Contains(active, u.key) {
			order = append(order, u)
		}
	}
	s.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	sides := experiment.SideOrder(s.cfg.Order, k, len(s.labels))
	steps, step := len(order)*len(sides), 0
	for _, u := range order {
		for _, si := range sides {
			if u.failed {
				break
			}
			step++
			s.progress(Progress{Phase: PhaseMeasure, Round: k, Step: step, Steps: steps, Current: s.current(u, si)})
			if err := s.sample(ctx, u, si, k); err != nil {
				return err
			}
		}
	}
	return nil
}

// sample times one run of side si of u in round k and records it.
func (s *session) sample(ctx context.Context, u *unit, si, k int) error {
	if err := s.aux(ctx, "--prepare", u.prepare[si]); err != nil {
		return err
	}
	label := s.labels[si]
	obs := s.cfg.Observer
	if obs != nil {
		obs.Mark(u.key, label, k)
	}
	m, err := s.runner.run(ctx, u.argv[si], s.timeout, false)
	if ctx.Err() == nil {
		s.timedRuns++ // a run cut short by an interrupt is not one
	}
	s.leftBehind(u, si, m)
	if obs != nil {
		if m != nil && s.cfg.ProcessStats {
			obs.AddProcess(&m.usage)
		}
		obs.Pause()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	had := len(u.runs[si]) > 0
	switch {
	case err != nil && !had:
		return &CommandError{s.what(u, si) + " " + s.explain(err)}
	case err != nil:
		what, hint := s.explainParts(err)
		var se *startError
		reason := err.Error()
		if errors.As(err, &se) {
			reason = se.reason
		}
		s.drop(u, si, k, what, hint, reason)
		return nil
	case m.failed() && !s.cfg.ignores(m) && !had:
		return s.failure(u, si, m, "in its first timed run")
	case m.failed() && !s.cfg.ignores(m):
		s.drop(u, si, k, "failed ("+m.status()+")", "--ignore-failure measures such runs as the others", m.status())
		return nil
	}
	s.record(u, si, k, m)
	return s.aux(ctx, "--conclude", u.conclude[si])
}

// drop records that side si of u failed in round k after it had
// succeeded, and leaves u out of later rounds: its verdict rests on the
// rounds before, and the gate sees the failure. what is what the command
// did ("failed (exit status 1)"), hint what to do about it or "", and
// reason the short form for the gate ("exit status 1").
func (s *session) drop(u *unit, si, k int, what, hint, reason string) {
	u.failed = true
	b := &s.run.Benchmarks[u.index]
	msg := fmt.Sprintf("%s %s in round %d, so it was dropped from later rounds", s.what(u, si), what, k)
	if hint != "" {
		msg += " (" + hint + ")"
	}
	b.Notes = append(b.Notes, model.Note{Kind: model.NoteFailure, Source: source, Benchmark: u.key, Side: s.labels[si], Text: msg + "."})
	b.MarkMissing(s.labels[si], model.MissingFailed, fmt.Sprintf("%s in round %d", reason, k))
	s.dropped = append(s.dropped, msg)
	fmt.Fprintln(s.cfg.Log, "rigor:", msg)
}

// record adds a run's samples: wall time and CPU time less the shell's
// start-up, and the peak RSS. A wall time no longer than the shell's
// start-up is not a measurement of the command: the run is left out (the
// run's note counts them). A CPU time that is not positive is left out
// too.
func (s *session) record(u *unit, si, k int, m *measurement) {
	rec := runRecord{round: k, wall: math.NaN(), cpu: math.NaN(), rss: m.commandRSS(), exit: m.exit, rssFloor: m.rssFloor}
	if m.failed() {
		rec.status = m.status()
	}
	if w := m.wall - s.shellWall; w > 0 {
		rec.wall = w.Seconds()
	}
	if c := m.user + m.sys - s.shellCPU; c > 0 {
		rec.cpu = c.Seconds()
	}
	if math.IsNaN(rec.wall) {
		rec.cpu, rec.rss = math.NaN(), 0 // the run is not recorded
	}
	u.runs[si] = append(u.runs[si], rec)
	b := &s.run.Benchmarks[u.index]
	add := func(unit string, v float64) {
		if math.IsNaN(v) || v <= 0 {
			return
		}
		mt := b.Metric(unit)
		if mt == nil {
			b.Metrics = append(b.Metrics, model.Metric{Unit: unit, Better: model.LowerIsBetter, Assume: model.AssumeNothing})
			mt = &b.Metrics[len(b.Metrics)-1]
		}
		mt.Samples = append(mt.Samples, model.Sample{Side: s.labels[si], Round: k, Iters: 1, Value: v})
	}
	add(WallUnit, rec.wall)
	add(CPUUnit, rec.cpu)
	add(RSSUnit, float64(rec.rss))
}

// roundsNote says why the rounds stopped.
func (s *session) roundsNote(out experiment.Outcome) {
	r := experiment.StopReport{Budget: s.cfg.Time, MinRounds: s.cfg.MinRounds, Runs: s.cfg.Runs, Noise: s.cfg.Analysis.Noise,
		Noun:      [2]string{"benchmark", "benchmarks"},
		Anonymous: len(s.units) == 1 && len(s.units[0].bind) == 0,
		// The stopping rule leaves out a benchmark a side has no sample
		// of: it was not resolved, it could not be compared.
		Unrecorded: s.unrecorded()}
	msg := r.Words(out)
	if msg == "" {
		return // interrupted or failed: finish says so
	}
	s.note(model.NoteRounds, msg)
	order := make([]string, len(s.units))
	for i, u := range s.units {
		order[i] = u.key
	}
	if early := experiment.EarlyWords(out, order, func(k string) string { return k }); early != "" && len(out.Retired) > 1 {
		s.note(model.NoteRounds, early)
	}
}

// unrecorded names the sides of the benchmarks that ran without a
// recorded run (every run no longer than the shell's start-up), when
// commands are compared.
func (s *session) unrecorded() []string {
	if len(s.labels) < 2 {
		return nil
	}
	var out []string
	for _, u := range s.units {
		for si := range s.labels {
			if len(u.runs[si]) > 0 && !slices.ContainsFunc(u.runs[si], func(r runRecord) bool { return !math.IsNaN(r.wall) }) {
				out = append(out, s.current(u, si))
			}
		}
	}
	return out
}

// finish adds the run's closing notes and observations.
func (s *session) finish(interrupted bool) {
	s.run.End = time.Now()
	msg := "The " + s.budget.Summary() + fmt.Sprintf("; %d timed %s", s.timedRuns, plural(s.timedRuns, "run", "runs"))
	s.note(model.NoteBudget, msg+".")
	s.note(model.NoteProcess, "Each sample is one run of a command: wall time from its start to its end, CPU time (user plus system) and peak RSS as wait4 reported them; the commands ran in counterbalanced order within each round.")
	if len(s.cfg.Shell) > 0 {
		sh := strings.Join(s.cfg.Shell, " ")
		text := fmt.Sprintf("Commands ran through %s -c: the shell's own start-up, timed by running it with an empty command %d times (median %v wall time, %v CPU time), is subtracted from every sample, as hyperfine does.",
			sh, ShellRuns, roundDuration(s.shellWall), roundDuration(s.shellCPU))
		var short []string
		for _, u := range s.units {
			for si := range s.labels {
				n := 0
				for _, r := range u.runs[si] {
					if math.IsNaN(r.wall) {
						n++
					}
				}
				if n > 0 {
					short = append(short, fmt.Sprintf("%s %d of %d", s.current(u, si), n, len(u.runs[si])))
				}
			}
		}
		if len(short) > 0 {
			text += fmt.Sprintf(" Runs no longer than that are not recorded, as they do not measure the command (%s): it is too short to time through a shell; -N runs it directly.", joinMax(short, 3))
		}
		s.run.Notes = append(s.run.Notes, model.Note{Kind: model.NoteProcess, Source: source, Topic: "shell",
			Evidence: map[string]float64{"shell_wall_sec": s.shellWall.Seconds(), "shell_cpu_sec": s.shellCPU.Seconds()}, Text: text})
	}
	s.rssNote()
	s.leftoversNotes()
	if s.cfg.IgnoreFailure {
		for _, u := range s.units {
			for si, label := range s.labels {
				failed, statuses := 0, map[string]int{}
				for _, r := range u.runs[si] {
					if r.exit != 0 {
						failed++
						statuses[r.status]++
					}
				}
				if failed == 0 {
					continue
				}
				var ss []string
				for _, st := range slices.Sorted(maps.Keys(statuses)) {
					ss = append(ss, fmt.Sprintf("%s in %d", st, statuses[st]))
				}
				b := &s.run.Benchmarks[u.index]
				b.Notes = append(b.Notes, model.Note{Kind: model.NoteFailure, Source: source, Benchmark: u.key, Side: label,
					Evidence: map[string]float64{"failed_runs": float64(failed), "runs": float64(len(u.runs[si]))},
					Text:     fmt.Sprintf("%s failed in %d of %d runs (%s); --ignore-failure measured them as the others.", s.what(u, si), failed, len(u.runs[si]), strings.Join(ss, ", "))})
			}
		}
	}
	if s.cfg.Observer != nil {
		s.run.Observations = append(s.run.Observations, s.cfg.Observer.Stop()...)
	}
	if s.cfg.Annotate != nil {
		s.cfg.Annotate(s.run)
	}
	if interrupted {
		s.note(model.NoteInterrupted, "The run was interrupted: these are partial results.")
	}
}

// rssNote says which commands' peak RSS was not recorded because it
// stayed below rigor's own resident set (see rssFloor).
func (s *session) rssNote() {
	var below []string
	var floors []float64
	for _, u := range s.units {
		for si := range s.labels {
			n, runs := 0, 0
			for _, r := range u.runs[si] {
				if math.IsNaN(r.wall) {
					continue
				}
				runs++
				if r.rss == 0 {
					n++
					floors = append(floors, float64(r.rssFloor))
				}
			}
			if n > 0 {
				below = append(below, fmt.Sprintf("%s in %d of %d runs", s.current(u, si), n, runs))
			}
		}
	}
	if len(below) == 0 {
		return
	}
	floor := stats.Median(floors)
	text := fmt.Sprintf("Peak RSS (%s) is recorded only above rigor's own resident set (median %.1f MiB), since Linux reports that as the peak of a spawned command that uses less; these stayed below it: %s.",
		RSSUnit, floor/(1<<20), joinMax(below, 3))
	s.run.Notes = append(s.run.Notes, model.Note{Kind: model.NoteProcess, Source: source, Topic: "rss",
		Evidence: map[string]float64{"rss_floor_bytes": floor}, Text: text})
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	case d >= 100*time.Microsecond:
		return d.Round(time.Microsecond)
	}
	return d
}

func joinMax(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}
