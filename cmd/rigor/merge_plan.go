package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/observe"
)

// runPlan builds and calibrates cfg's benchmarks, runs no round, and says
// what the budget buys (rigor ab --plan).
func runPlan(ctx context.Context, cfg gotest.Config, s stdio) error {
	dir, err := os.MkdirTemp("", "rigor-plan-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg.Out, cfg.ID = dir, "plan"
	env := observe.CaptureEnv(ctx)
	cfg.Env = &env
	cfg.Log = safeLines{s.err}
	var plan *gotest.Plan
	cfg.Plan = func(p gotest.Plan) { plan = &p }
	bar := newProgressBar(s.err, cfg.Time)
	if bar != nil {
		cfg.Progress, cfg.Log = bar.update, safeLines{bar}
	}
	_, err = gotest.Run(ctx, cfg)
	bar.done()
	switch {
	case ctx.Err() != nil:
		return &exitError{code: exitUsage, err: errors.New("interrupted")}
	case err != nil:
		return usageErrorf("%w", err)
	case plan == nil || len(plan.Benchmarks) == 0:
		return usageErrorf("no benchmark could be calibrated, so there is nothing to plan (the notes above say why)")
	}
	return writePlan(s.out, cfg, plan)
}

// writePlan says what plan means, in words, then each benchmark's cost.
func writePlan(w io.Writer, cfg gotest.Config, p *gotest.Plan) error {
	var b strings.Builder
	n := len(p.Benchmarks)
	what := fmt.Sprintf("%d benchmarks", n)
	if cfg.Shard != nil {
		what += fmt.Sprintf(" (shard %s)", cfg.Shard)
	}
	fmt.Fprintf(&b, "Plan for %s at --time %v: calibrating took %v.\n", what, p.Budget, p.Calibration.Round(10*time.Millisecond))
	fmt.Fprintf(&b, "One round of every benchmark on %d %s takes about %v with samples of %v",
		p.Sides, plural(p.Sides, "side", "sides"), p.Round.Round(10*time.Millisecond), roundTo(p.Sample))
	if p.Sample < p.Benchtime {
		fmt.Fprintf(&b, " (shortened from %v to fit more rounds)", roundTo(p.Benchtime))
	}
	fmt.Fprintf(&b, ", so each benchmark would get about %d %s.\n", p.Rounds, plural(p.Rounds, "round", "rounds"))
	need := max(p.Target, p.MinRounds)
	switch {
	case p.Rounds < p.MinRounds:
		fmt.Fprintf(&b, "That is fewer than the %d rounds the stopping rule needs before it may stop, so the verdicts would rest on too few pairs.\n", p.MinRounds)
	case p.Rounds < p.Target:
		fmt.Fprintf(&b, "That is at least the %d rounds the stopping rule needs, but fewer than the %d a budget is planned for: small changes would likely stay inconclusive.\n", p.MinRounds, p.Target)
	default:
		fmt.Fprintf(&b, "That is enough: the stopping rule needs %d rounds and a budget is planned for %d.\n", p.MinRounds, p.Target)
	}
	if p.Shards <= 1 {
		fmt.Fprintf(&b, "One machine suffices: no --shard needed.\n")
	} else {
		fmt.Fprintf(&b, "%d shards of --time %v each (rigor ab --shard 0/%d to %d/%d on %d machines, then rigor merge) would give each benchmark about %d rounds with samples of %v, if the benchmarks split evenly by cost.\n",
			p.Shards, p.Budget, p.Shards, p.Shards-1, p.Shards, p.Shards, need, roundTo(p.Benchtime))
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "benchmark\tof a round\tsec/op\n")
	for _, pb := range p.Benchmarks {
		fmt.Fprintf(tw, "%s\t%v\t%v\n", pb.Key, roundTo(pb.Round), pb.Op)
	}
	tw.Flush()
	_, err := io.WriteString(w, b.String())
	return err
}

// roundTo rounds d for a person: to a millisecond above 10ms, else to
// ten microseconds.
func roundTo(d time.Duration) time.Duration {
	if d >= 10*time.Millisecond {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
