package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/gotest"
)

// abOptions are rigor ab's flags and arguments.
type abOptions struct {
	measureOptions
	old, new sideFlags
	// tags are both sides' build tags, unless a side's own flag was
	// given (sideFlags.tagsSet).
	tags string
	// shard is --shard and --shard-costs; plan is --plan.
	shard shardFlags
	plan  bool
}

func newABCmd(s stdio) *cobra.Command {
	var o abOptions
	cmd := &cobra.Command{
		Use:   "ab [flags] [packages] [-- ARGS...]",
		Short: "Compare two revisions' benchmarks in interleaved, paired rounds",
		Long: `ab builds the test binaries of two sides, old (--old, default HEAD) and new
(--new, default ".", the working tree with its uncommitted changes), and runs
their benchmarks in interleaved rounds: each round runs every benchmark once
on each side, old and new back to back in counterbalanced order, benchmarks
shuffled, with one iteration count per round shared by both sides and
jittered ±20% between rounds. Round i of old and round i of new ran under the
same conditions, so they are compared as pairs.

A revision is anything git rev-parse accepts; it is checked out into a
temporary git worktree, removed on exit. Each side has its own build
settings (--old-tags, --new-env K=V, --new-gcflags, --new-go). When both
sides are the same source built the same way and run with the same
arguments, the run is an A/A run: it measures the noise floor.

ARGS after -- are passed to every test binary after rigor's own flags, as
go test -args passes them: the benchmarks' own flags, such as
-benchdataDir=testdata. --old-args and --new-args (one argument each,
repeatable) replace them for one side. rigor sets every -test.* flag
itself, so those are refused.

A test binary is one draw from the possible code layouts: where the linker
puts each function moves the cache sets, branch-predictor entries and
alignment its hot loops get, so the same code reads a few percent faster or
slower from one link to the next. With one binary per side that luck is a
bias no interval covers, and more rounds only make it look surer. So each
side is compiled once and linked several times, each link with its own
random function layout (the linker's -randlayout, Go 1.23 and later), round
r runs link (r-1) mod N + 1 on both sides, and a change's interval spans the
links. --layouts auto (the default) links each side 4 to 8 times, by the
rounds --time fits (and --min-rounds is raised to that number); --layouts 1
links once with the linker's own layout, as go test does, with a note. The
extra links only link (the compile is shared) and, like builds, are outside
--time; their seeds follow --seed, the same on both sides, and run.json
keeps them. Your own -ldflags in GOFLAGS are kept.

Each benchmark is calibrated once so that a sample lasts about --benchtime.
Rounds go on until every benchmark is resolved (its confidence interval
clears the noise band or lies inside it) after --min-rounds, or until --time
or --max-rounds. Since the rule looks after every round, it ends the run
early on a change only when its corrected p-value is below 0.001; the verdict
printed at the end uses --alpha as usual. Every sample is written as it arrives to --out (default
.rigor/runs/ID in the module root): old.txt and new.txt in Go benchmark
format, which benchstat reads, and run.json. --seed also seeds the schedule.

After the rounds comes a profiling pass (--profile auto, the default): each
benchmark runs once more per side, untimed so that profiling never perturbs
a sample, for about half a second with a CPU profile and a mutex profile.
The footnotes then name what limited the benchmark from where its CPU time
went (a lock, the garbage collector, the kernel) and how long goroutines
waited on mutexes. The profiles stay in --out, as
profiles/BENCHMARK/SIDE.cpu.pprof and SIDE.mutex.pprof, for go tool pprof.
The rounds leave the pass room within --time (up to a tenth of it); a budget
too short for runs of at least a quarter second skips the pass with a note,
so that the time goes to the paired rounds. When what is left is short the
profiled runs are shortened, and when the budget is spent anyway, or on
Ctrl-C during the pass, the pass is cut short with a note and the verdict,
already complete, is printed as usual. --profile off skips it.

--instructions says how instructions per op (instructions/op) are read: the
code's work, which no neighbour on the machine moves, as evidence beside
time. auto (the default) reads them, and cycles/op, in every sample's timed
window from the CPU's hardware counters where the machine has them; where
it has none (most cloud VMs and CI runners) a note says why. simulate
counts them under Valgrind's callgrind (Debian's valgrind package; without
it, exit 2 before anything is built): after the rounds and before the
profiling pass, each benchmark runs again per side, untimed, with
GOMAXPROCS=1 and asynchronous preemption off, in windows of about a
millisecond of native time (2 iterations at least), four windows a
process, in two processes per side (up to five while no two agree within
0.2%), one process at a time. Every window's count is a sample
of instructions/op, in old.txt, new.txt and run.json, paired with no round.
A benchmark that calls RunParallel, stops its timer in every iteration, fails
under Valgrind or whose count varies by more than 2% between processes
gets a note saying so instead. The rounds leave the pass its time within
--time (up to half of it); benchmarks that do not fit are named in a note
with a --time that fits them, and Ctrl-C during the pass keeps what was
measured. off reads none.

With --benchtime auto (the default) a sample lasts 100ms, less when the
budget would otherwise fit fewer than 20 rounds (down to a process's
start-up time, 10ms at least), and shorter still when the rounds turn out
slower than planned (a busy machine). Every sample has two clocks, both
read for exactly the window the benchmark's own timer measured: wall time
(sec/op, go test's ns/op) and the process's CPU time (cpu-sec/op), with how
long the benchmark's threads waited for a CPU in that window (wait-sec/op,
from the kernel's run-queue delay). rigor reads them through a build
overlay of the side's own toolchain's testing package, generated from its
source; your code is untouched, and the side's benchmark file still reads
in benchstat (--cpu-clock process reads the whole process less its
start-up instead, as does a toolchain or platform the overlay cannot
serve, with a note). Wall time decides; when the benchmark waited for a
CPU in at least a tenth of its samples (someone else was busy) and is
CPU-bound, CPU time decides and a note says why, unless it would contradict
a wall-time interval wholly on the other side of zero.
The run's notes say how the budget was spent.

A suite too big for one machine's budget runs on N machines: --shard I/N
(0/4 to 3/4) measures the part of the selected top-level benchmarks that a
split by their names alone gives shard I (the same on every machine; adding
a benchmark moves no other), or, with --shard-costs, a split balanced by an
earlier run's costs, which every machine must be given alike. Each shard has
its own --time and results directory; rigor merge makes one report and one
gate of them (docs/shards.md). --plan builds and calibrates only, and says
how many rounds each benchmark would get at this --time and how many shards
would give it the rounds the stopping rule aims at.

Output and exit status are compare's: 0, or 1 when --max-regression is set and
a benchmark regressed by more than it, or 2 for bad input, a run where nothing
could be measured, or an interrupted run (its partial verdict is printed).`,
		Example: `  rigor ab ./...
  rigor ab --old main --max-regression 5 ./pkg/...
  rigor ab --old-tags '' --new-tags optimized --bench Build .
  rigor ab --old HEAD~1 --new HEAD --format json .
  rigor ab --old HEAD~1 . -- -benchdataDir=testdata
  rigor ab --old main --layouts 1 ./...`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.parsed(cmd, args)
			o.old.tagsSet = cmd.Flags().Changed("old-tags")
			o.new.tagsSet = cmd.Flags().Changed("new-tags")
			o.old.argsSet = cmd.Flags().Changed("old-args")
			o.new.argsSet = cmd.Flags().Changed("new-args")
			o.shard.parsed(cmd, o.packages, o.testArgs)
			return runAB(cmd.Context(), &o, s)
		},
	}
	cmd.Flags().StringVar(&o.tags, "tags", "", "build `tags` of both sides (go build -tags); --old-tags and --new-tags override it per side")
	o.old.register(cmd.Flags(), "old", "HEAD")
	o.new.register(cmd.Flags(), "new", gotest.WorkingTree)
	o.measureOptions.register(cmd.Flags())
	o.shard.register(cmd.Flags())
	cmd.Flags().BoolVar(&o.plan, "plan", false, "build and calibrate only, then say how many rounds each benchmark would get at this --time and how many --shard machines would give it the rounds the stopping rule aims at")
	return cmd
}

// runAB measures o's two sides in paired rounds and prints the verdict.
func runAB(ctx context.Context, o *abOptions, s stdio) error {
	// --tags builds both sides with the same tags, unless a side's own
	// --old-tags/--new-tags says otherwise.
	oldF, newF := o.old, o.new
	if !oldF.tagsSet {
		oldF.tags = o.tags
	}
	if !newF.tagsSet {
		newF.tags = o.tags
	}
	opts, cfg, err := o.config(labelledSide{"old", oldF}, labelledSide{"new", newF})
	if err != nil {
		return err
	}
	if cfg.Shard, err = o.shard.config(); err != nil {
		return err
	}
	if o.plan {
		return runPlan(ctx, cfg, s)
	}
	run, err := measure(ctx, cfg, s)
	if run == nil {
		return err
	}
	rep, aerr := analysis.Analyze(run, opts)
	if aerr != nil {
		return usageErrorf("%v", aerr)
	}
	result := finish(s, &o.verdict, rep, err)
	if err != nil {
		return result // an interrupted run, or one that measured nothing, is never recorded
	}
	return o.record.after(ctx, s.err, run, result)
}
