package gotest

import (
	"errors"
	"math"
	"slices"
	"time"

	"github.com/rigorbench/rigor/experiment"
)

// A Plan says, from calibration alone, what a run's budget buys: how
// many rounds every benchmark would get, and how many shards of the same
// budget each (see Shard) would give each benchmark the rounds the
// stopping rule aims at. Config.Plan receives it.
type Plan struct {
	// Budget is Config.Time; Calibration what calibrating took of it,
	// and Reserve what the rounds leave for the passes after them
	// (profiling, simulation).
	Budget, Calibration, Reserve time.Duration
	// Sides is how many sides each round runs every benchmark on.
	Sides int
	// Sample is what a sample would last, about (shortened from
	// Benchtime when the budget fits fewer than Target rounds);
	// Benchtime what it lasts unshortened.
	Sample, Benchtime time.Duration
	// Round is one round of every benchmark on every side with samples
	// of Sample, start-ups included; FullRound with samples of
	// Benchtime.
	Round, FullRound time.Duration
	// Rounds is how many rounds the budget left after calibration fits:
	// every benchmark gets as many, unless the stopping rule retires it
	// sooner.
	Rounds int
	// MinRounds is the stopping rule's minimum (raised to the number of
	// layouts), Target the rounds a budget is planned for
	// (experiment.TargetPairs).
	MinRounds, Target int
	// Shards is how many shards of Budget each would fit Target rounds
	// (at least MinRounds) of samples of Benchtime, if the benchmarks
	// split evenly by cost: 1 when this one does.
	Shards int
	// Benchmarks are the benchmarks calibrated, most costly first.
	Benchmarks []PlanBenchmark
}

// A PlanBenchmark is one benchmark's part of a Plan.
type PlanBenchmark struct {
	Key string
	// Round is what the benchmark takes of one round, on every side,
	// start-ups included, with samples of Plan.Sample.
	Round time.Duration
	// Op is its operation's time, as calibration measured it (the
	// slowest side's).
	Op time.Duration
}

// errPlanned ends a run that Config.Plan asked only to plan.
var errPlanned = errors.New("planned")

// plan computes the Plan once calibration and planning are done.
func (s *session) plan() Plan {
	p := Plan{Budget: s.cfg.Time, Calibration: s.budget.Spent("calibration"), Reserve: s.reserve(0),
		Sides: len(s.sides), Sample: s.sampleTime, Benchtime: s.calibrationTime(),
		MinRounds: s.cfg.MinRounds, Target: experiment.TargetPairs}
	if s.cfg.Benchtime == 0 && s.cfg.Iters == 0 {
		p.Benchtime = DefaultBenchtime
	}
	for _, u := range s.units {
		op := u.perOp
		if op == 0 {
			op = u.calOp
		}
		work := time.Duration(float64(u.iters) * op * float64(time.Second))
		full := max(work, p.Benchtime)
		if s.cfg.Iters > 0 {
			full = work
		}
		r := time.Duration(p.Sides) * (work + u.startWall)
		p.Round += r
		p.FullRound += time.Duration(p.Sides) * (full + u.startWall)
		p.Benchmarks = append(p.Benchmarks, PlanBenchmark{Key: u.key, Round: r, Op: time.Duration(u.calOp * float64(time.Second))})
	}
	slices.SortStableFunc(p.Benchmarks, func(a, b PlanBenchmark) int { return int(b.Round - a.Round) })
	left := s.budget.Left() - p.Reserve
	if p.Round > 0 {
		p.Rounds = int(left / p.Round)
	}
	p.Shards = shardsFor(p.Budget-p.Reserve, p.Calibration, p.FullRound, max(p.Target, p.MinRounds))
	return p
}

// shardsFor is how many shards of budget each fit need rounds of round
// (every benchmark's, on one machine) after calibration (ditto), if the
// benchmarks split evenly: each shard calibrates and runs a 1/N part, so
// N*budget >= calibration + need*round.
func shardsFor(budget, calibration, round time.Duration, need int) int {
	if budget <= 0 {
		return 0
	}
	total := calibration.Seconds() + float64(need)*round.Seconds()
	return max(1, int(math.Ceil(total/budget.Seconds())))
}
