package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/report"
	"github.com/rigorbench/rigor/store"
)

// currentLabel labels the side rigor run measures.
const currentLabel = "current"

// runOptions are rigor run's flags and arguments.
type runOptions struct {
	measureOptions
	side      sideFlags
	baselines store.Plan
	shard     shardFlags
}

func newRunCmd(s stdio) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run [flags] [packages] [-- ARGS...]",
		Short: "Benchmark the working tree in interleaved rounds; keep or check a baseline",
		Long: `run builds the working tree's test binaries and runs every benchmark in
shuffled rounds, with the calibration, random function layouts
(--layouts), stopping rule, profiling pass (--profile) and files of rigor ab (current.txt in Go benchmark format,
run.json and profiles/, in --out or .rigor/runs/ID). Without a baseline it stops once every benchmark's median is
known to within the noise band. ARGS after -- are passed to every test
binary after rigor's own flags, as go test -args passes them.

--save-baseline NAME records the result in the history store (creating
.rigor/rigor.db, or --store) and points the baseline NAME of this project and
machine at it (see rigor baseline). --baseline NAME compares the working tree
with this machine's baseline NAME; one saved on other machines only is
refused, since results of different hardware are not comparable.

A saved baseline is a place to measure against, not only numbers: when it
names a commit that this repository still has (without uncommitted
changes), that commit is measured again, with the baseline's build
settings, in rounds interleaved with the working tree, exactly as rigor ab
--old COMMIT does, and the comparison is paired; the saved numbers are
context (a note says how far this session's results of the same commit are
from them). Otherwise (a baseline with uncommitted changes or a commit this
repository no longer has, --baseline FILE, a baseline saved by earlier
versions as .rigor/baselines/NAME.json) the comparison is across sessions,
which no interleaving protects from the machine's drift: each change's
interval counts how much results of one commit vary between sessions on
this machine, learnt from the history store (commits recorded more than
once: baselines measured again, repeated runs), and a benchmark the store
knows nothing of is inconclusive, with the rigor ab command that would
answer. --baseline FILE compares with a file (rigor JSON, such as a results
directory's run.json, or Go benchmark output) or a results directory
(.rigor/runs/ID); a file measured on another machine, or that does not say,
gets a warning and is inconclusive.

With --update-on-pass the baseline NAME is pointed at this result when the
comparison passes: no benchmark regressed by more than --max-regression (or,
without it, none regressed at all).

Exit status: 0, or 1 when --max-regression is set and a benchmark regressed by
more than it against the baseline, or 2 for bad input, a missing baseline
(or another machine's), a baseline that could not be saved, a run where
nothing could be measured, or an interrupted run.`,
		Example: `  rigor run --save-baseline main ./...
  rigor run --baseline main --max-regression 5 ./...
  rigor run --baseline main --update-on-pass --max-regression 5 ./...
  rigor run --baseline old/run.json ./...`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.parsed(cmd, args)
			o.shard.parsed(cmd, o.packages, o.testArgs)
			return runRun(cmd.Context(), &o, s)
		},
	}
	o.side.registerBuild(cmd.Flags(), "")
	cmd.Flags().StringVar(&o.baselines.Save, "save-baseline", "", "record the result in the history store and point the baseline `NAME` (of this machine) at it")
	cmd.Flags().StringVar(&o.baselines.Compare, "baseline", "", "compare with this machine's baseline `NAME` (its commit measured again when the repository has it), or a FILE (across sessions)")
	cmd.Flags().BoolVar(&o.baselines.UpdateOnPass, "update-on-pass", false, "point the --baseline NAME at this result when no benchmark regressed beyond --max-regression")
	o.measureOptions.register(cmd.Flags())
	o.shard.register(cmd.Flags())
	return cmd
}

// runRun measures the working tree, prints the result or its comparison
// with a baseline, and saves baselines as o says.
func runRun(ctx context.Context, o *runOptions, s stdio) error {
	opts, cfg, err := o.config(labelledSide{currentLabel, o.side})
	if err != nil {
		return err
	}
	if cfg.Shard, err = o.shard.config(); err != nil {
		return err
	}
	if o.baselines.UpdateOnPass && o.baselines.Compare == "" {
		return usageErrorf("--update-on-pass needs --baseline")
	}
	life, warning, err := openBaselines(ctx, o.baselines, &o.record, currentLabel, s)
	if err != nil {
		return err
	}
	// A baseline whose commit this repository has is measured again,
	// beside the working tree, in paired rounds (as rigor ab); otherwise
	// the comparison is across sessions, and says what is known of their
	// variation.
	against := life.Against
	remeasure, again := remeasureSide(ctx, life)
	switch {
	case again:
		cfg.Sides = append([]gotest.Side{remeasure}, cfg.Sides...)
		fmt.Fprintf(s.err, "rigor: baseline %s: measuring its commit %s again, in rounds interleaved with the working tree\n",
			report.TerminalSafe(life.Label), shortRev(remeasure.Rev))
		against = func(r *model.Run) (*model.Run, error) { return r, nil }
	case life.Base != nil:
		against = sessionsAgainst(life, acrossSessions(ctx, &o.record, life, o.packages, warning))
		// Stop once every comparison with the baseline is resolved, or
		// cannot be by more rounds.
		cfg.Unresolved = unresolvedAgainst(against, opts)
	}
	run, interrupted := measure(ctx, cfg, s)
	if run == nil {
		return interrupted
	}
	shown, err := against(run)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if again {
		shown.Notes = append(shown.Notes, remeasuredNote(life, run))
	}
	if warning != "" {
		shown.Notes = append(shown.Notes, model.Note{Kind: model.NoteBaseline, Source: "store", Text: upperFirst(warning) + "."})
	}
	rep, err := analysis.Analyze(shown, opts)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if life.Base != nil && !rep.Comparable() {
		return usageErrorf("no benchmark in common with the baseline %s", life.Compare)
	}
	result := finish(s, &o.verdict, rep, interrupted)
	if interrupted != nil {
		return result // a partial run is never stored
	}
	// --update-on-pass without a gate replaces the baseline only when
	// nothing regressed at all.
	failed := 0
	if o.baselines.UpdateOnPass {
		failed = len(o.verdict.gate(rep, max(o.verdict.maxRegression, 0)))
		// A comparison across sessions that could not be decided is no
		// pass either.
		if n := rep.AcrossUnknown(); failed == 0 && n > 0 {
			life.UpdateOnPass = false
			fmt.Fprintf(s.err, "rigor: baseline %s kept: %d %s not be decided across sessions\n", report.TerminalSafe(life.Compare), n,
				words.Plural(n, "comparison could", "comparisons could"))
		}
	}
	// Recorded first (when a store exists, or --record), so that saving
	// a baseline finds the run there.
	result = o.record.after(ctx, s.err, run, result)
	done, err := life.Finish(ctx, run, failed)
	for _, d := range done {
		fmt.Fprintf(s.err, "rigor: %s\n", d)
	}
	if err != nil {
		// A baseline that could not be saved: exit 2, unless the gate
		// already failed (exit 1 says more).
		fmt.Fprintln(s.err, "rigor:", oneLine(err))
		if result == nil {
			return &exitError{code: exitUsage}
		}
	}
	return result
}

// upperFirst returns s with its first letter upper-cased.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
