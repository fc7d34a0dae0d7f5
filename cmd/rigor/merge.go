package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/report"
)

// mergeOptions are rigor merge's flags and arguments.
type mergeOptions struct {
	verdict verdictFlags
	dirs    []string
	// out, when set, is a directory that gets the merged run's run.json,
	// for rigor report, compare or import.
	out string
	// cmd is the command, whose analysis flags not given take the
	// shards' values.
	cmd *cobra.Command
}

func newMergeCmd(s stdio) *cobra.Command {
	var o mergeOptions
	cmd := &cobra.Command{
		Use:   "merge [flags] DIR...",
		Short: "Merge the results of rigor ab --shard run on several machines into one report and one gate",
		Long: `merge reads the results directories (or their run.json) of the shards of one
suite, each measured by rigor ab --shard INDEX/COUNT (or rigor run --shard) on
its own machine, and analyses them as one run: one report, one headline, the
multiple-comparison correction over every benchmark of the suite, one gate.
Each benchmark's change, interval and p-value before the correction are the
ones its shard found on its own.

The same shard measured again, on another machine or at another time (a
directory per session), is a benchmark measured on several machines: each
session's pairs stay on the machine that made them, and the change is the
mean of the machines' own centers with Student's t interval on their spread
(test "machines"), so that what a machine moves the change by is inside the
interval; their rounds are never pooled as if from one machine. The report's
notes list the machines (hostname, CPU) and the shards each ran.

The analysis flags (--correction, --alpha, --noise, --confidence, --test,
--resamples, --seed, --gate, --instructions-tolerance) default to the values
the shards were run with; given here, they override them.

merge refuses, in one line with exit status 2, a directory that is not a
shard's result, and shards of different suites or settings: another COUNT,
another list of selected benchmarks, another split, other resolved old or
new revisions, or other flags that shards must share (all but --shard,
--shard-costs, whose digest is compared instead, --time, --timeout, --out,
the output and gate flags, the checks before timing and the history
store's), which each shard records as a hash.

Exit status: 0; or 1 when --max-regression is set and a benchmark regressed
by more than it, or when a shard of 0 to COUNT-1 is missing or failed (was
interrupted or cut short), the gate saying which, unless --allow-missing; or 2
for unreadable or incompatible input.`,
		Example: `  rigor merge shard-0 shard-1 shard-2 shard-3
  rigor merge --max-regression 5 --format md -o report.md results/*/
  rigor merge --allow-missing results/*/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.dirs, o.cmd = args, cmd
			return runMerge(cmd.Context(), &o, s)
		},
	}
	o.verdict.register(cmd.Flags())
	cmd.Flags().StringVar(&o.out, "out", "", "also write the merged run to `DIR`/run.json (rigor report, rigor import --store to record a sharded run in the history)")
	cmd.Flags().Lookup("allow-missing").Usage = "pass the gate with a shard missing or failed, or a benchmark that the baseline has but that failed, did not build or is missing on another side (by default each fails it)"
	return cmd
}

// runMerge merges o's shards, renders the report and applies the gate.
func runMerge(_ context.Context, o *mergeOptions, s stdio) error {
	var runs []*model.Run
	var dirs, empty []string
	for _, d := range o.dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			if _, err := os.Stat(filepath.Join(d, gotest.RunFile)); errors.Is(err, fs.ErrNotExist) {
				// A shard that failed before measuring (its package did
				// not build) may leave an empty directory behind: a
				// failed shard, not a bad argument.
				empty = append(empty, d)
				continue
			}
		}
		r, err := readResults(d)
		if err != nil {
			return usageErrorf("%s: %v", d, err)
		}
		runs, dirs = append(runs, r), append(dirs, d)
	}
	if len(runs) == 0 {
		return usageErrorf("no results to merge: %s holds no %s", o.dirs[0], gotest.RunFile)
	}
	m, err := mergeShards(dirs, runs)
	if err != nil {
		return usageErrorf("%v", err)
	}
	for _, d := range empty {
		p := fmt.Sprintf("%s holds no %s: its shard failed before measuring", d, gotest.RunFile)
		m.problems = append(m.problems, p)
		m.run.Notes = append(m.run.Notes, mergeNote("%s.", upperFirst(p)))
	}
	if o.out != "" {
		if err := writeMerged(o.out, m.run); err != nil {
			return err
		}
	}
	// The shards' analysis options, unless given here.
	for name, v := range runs[0].Shard.Options {
		if fl := o.cmd.Flags().Lookup(name); fl != nil && !fl.Changed && slices.Contains(analysisFlags, name) {
			if err := fl.Value.Set(v); err != nil {
				return usageErrorf("%s: the shards' --%s %q: %v", o.dirs[0], name, v, err)
			}
		}
	}
	opts, err := o.verdict.options()
	if err != nil {
		return err
	}
	rep, err := analysis.Analyze(m.run, opts)
	if err != nil {
		return usageErrorf("%v", err)
	}
	err = o.verdict.emit(s, rep)
	if len(m.problems) > 0 && !o.verdict.allowMissing {
		for _, p := range m.problems {
			fmt.Fprintln(s.err, "rigor: gate: "+report.TerminalSafe(p))
		}
		return &exitError{code: exitGateFail}
	}
	return err
}

// writeMerged writes run to dir/run.json, making dir.
func writeMerged(dir string, run *model.Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	var b bytes.Buffer
	if err := run.WriteJSON(&b); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, gotest.RunFile), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// A merged is the run rigor merge analyses, and what makes its gate fail
// whatever the benchmarks did: shards missing or failed.
type merged struct {
	run      *model.Run
	problems []string
}

// mergeShards checks that runs (read from dirs) are shards of one suite
// measured alike, and merges them into one run: each run's rounds
// numbered after the previous runs', each sample tagged with its run
// (Sample.Machine), so that pairs never span two machines.
func mergeShards(dirs []string, runs []*model.Run) (*merged, error) {
	first := runs[0]
	for i, r := range runs {
		if r.Shard == nil {
			return nil, fmt.Errorf("%s is not a shard's result (rigor ab --shard INDEX/COUNT): it has no shard record", dirs[i])
		}
		if len(r.Machines) > 0 {
			return nil, fmt.Errorf("%s is already merged", dirs[i])
		}
		// A shard record --shard could not have written (a forged or
		// damaged run.json): a negative count made every shard "present"
		// and passed the gate, a huge one ran for minutes.
		if s := r.Shard; s.Count < 1 || s.Count > gotest.MaxShards || s.Index < 0 || s.Index >= s.Count {
			return nil, fmt.Errorf("%s: shard %d/%d is no shard rigor ab --shard writes (INDEX from 0 to COUNT-1, COUNT from 1 to %d)", dirs[i], s.Index, s.Count, gotest.MaxShards)
		}
		if i == 0 {
			continue
		}
		a, b := first.Shard, r.Shard
		switch {
		case r.Kind != first.Kind:
			return nil, fmt.Errorf("%s is a rigor %s result and %s a rigor %s one", dirs[0], first.Kind, dirs[i], r.Kind)
		case a.Count != b.Count:
			return nil, fmt.Errorf("%s is a shard of %d and %s of %d: shards of one suite share COUNT", dirs[0], a.Count, dirs[i], b.Count)
		case a.Digest != b.Digest || a.Selected != b.Selected:
			return nil, fmt.Errorf("%s and %s selected different benchmarks (%d and %d, or other names): shards of one suite list the same", dirs[0], dirs[i], a.Selected, b.Selected)
		case a.Split != b.Split || a.CostsDigest != b.CostsDigest:
			return nil, fmt.Errorf("%s and %s split the suite differently (%s, %s): give every shard the same --shard-costs", dirs[0], dirs[i], splitWords(a), splitWords(b))
		case a.Config != b.Config:
			return nil, fmt.Errorf("%s and %s were run with different flags (configuration %s and %s): shards of one suite share every flag but --shard, --time, --out and the output's", dirs[0], dirs[i], a.Config, b.Config)
		}
		if err := sameSides(first, r); err != nil {
			return nil, fmt.Errorf("%s and %s: %v", dirs[0], dirs[i], err)
		}
	}
	out := &merged{run: &model.Run{
		SchemaVersion: model.SchemaVersion,
		ID:            "merged",
		Kind:          first.Kind,
		Paired:        first.Paired,
		Sides:         slices.Clone(first.Sides),
		Benchmarks:    []model.Benchmark{},
	}}
	if first.Env != nil {
		env := *first.Env
		out.run.Env = &env
	}
	// Which shard holds each benchmark, and which shards are here.
	owner := map[string]int{}
	present := map[int][]int{} // shard index -> runs
	for i, r := range runs {
		present[r.Shard.Index] = append(present[r.Shard.Index], i)
		for _, k := range r.Shard.Benchmarks {
			if j, ok := owner[k]; ok && j != r.Shard.Index {
				return nil, fmt.Errorf("%s: shards %d and %d both hold %s: the split differs between machines", dirs[i], j, r.Shard.Index, k)
			}
			owner[k] = r.Shard.Index
		}
	}
	count := first.Shard.Count
	for idx := range count {
		if len(present[idx]) == 0 {
			out.problems = append(out.problems, fmt.Sprintf("shard %d/%d is missing: no results directory of it was given", idx, count))
		}
	}
	if len(out.problems) > 0 {
		out.run.Notes = append(out.run.Notes, mergeNote("%s; %d of the suite's %d benchmarks %s not measured.",
			upperFirst(strings.Join(out.problems, "; ")), first.Shard.Selected-len(owner), first.Shard.Selected, isAre(first.Shard.Selected-len(owner))))
	}
	offset := 0
	hosts := map[string]bool{}
	// The shards' run notes, each said once with the shards that made it.
	type noteKey struct {
		kind      model.NoteKind
		benchmark string
		text      string
	}
	said := map[noteKey][]string{}
	var order []model.Note
	for i, r := range runs {
		mi := i + 1
		rounds := maxRound(r)
		env := r.Env
		if env == nil {
			env = &model.Env{}
		}
		hosts[env.Hostname+"\x00"+env.CPUModel] = true
		out.run.Machines = append(out.run.Machines, model.Machine{Dir: dirs[i], ID: r.ID, Hostname: env.Hostname,
			CPUModel: env.CPUModel, Shard: r.Shard.Index, Rounds: rounds})
		if why := failed(r); why != "" {
			p := fmt.Sprintf("shard %d/%d failed (%s): %s", r.Shard.Index, count, dirs[i], why)
			out.problems = append(out.problems, p)
			out.run.Notes = append(out.run.Notes, mergeNote("%s.", upperFirst(p)))
		}
		if out.run.Start.IsZero() || r.Start.Before(out.run.Start) {
			out.run.Start = r.Start
		}
		if r.End.After(out.run.End) {
			out.run.End = r.End
		}
		for _, n := range r.Notes {
			k := noteKey{n.Kind, n.Benchmark, n.Text}
			if _, seen := said[k]; !seen {
				order = append(order, n)
			}
			said[k] = append(said[k], fmt.Sprintf("%d/%d", r.Shard.Index, count))
		}
		for _, ob := range r.Observations {
			if ob.Round > 0 {
				ob.Round += offset
			}
			out.run.Observations = append(out.run.Observations, ob)
		}
		for _, b := range r.Benchmarks {
			addBenchmark(out.run, b, mi, offset)
		}
		offset += rounds
	}
	for _, n := range order {
		shards := said[noteKey{n.Kind, n.Benchmark, n.Text}]
		n.Text = fmt.Sprintf("%s %s: %s", plural(len(shards), "Shard", "Shards"), words.JoinList(shards, len(shards)), n.Text)
		out.run.Notes = append(out.run.Notes, n)
	}
	if len(hosts) > 1 && out.run.Env != nil {
		out.run.Env.Hostname = "several (see the machines)"
	}
	out.run.Notes = append(out.run.Notes, machinesNote(out.run.Machines, count))
	return out, nil
}

// addBenchmark adds b, measured by the mi-th run, to m: its samples
// tagged with the run and their rounds moved by offset; a benchmark
// another run measured too gets these samples beside its own.
func addBenchmark(m *model.Run, b model.Benchmark, mi, offset int) {
	for i := range b.Metrics {
		ss := slices.Clone(b.Metrics[i].Samples)
		for j := range ss {
			ss[j].Machine = mi
			if ss[j].Round > 0 {
				ss[j].Round += offset
			}
		}
		b.Metrics[i].Samples = ss
	}
	key := b.Key()
	at := slices.IndexFunc(m.Benchmarks, func(x model.Benchmark) bool { return x.Key() == key })
	if at < 0 {
		b.Metrics = slices.Clone(b.Metrics)
		m.Benchmarks = append(m.Benchmarks, b)
		return
	}
	have := &m.Benchmarks[at]
	for _, mt := range b.Metrics {
		if hm := have.Metric(mt.Unit); hm != nil {
			hm.Samples = append(hm.Samples, mt.Samples...)
			// Each side's samples together, as readers leave them.
			slices.SortStableFunc(hm.Samples, func(x, y model.Sample) int { return sideIndex(m, x.Side) - sideIndex(m, y.Side) })
		} else {
			have.Metrics = append(have.Metrics, mt)
		}
	}
	for side, miss := range b.Missing {
		have.MarkMissing(side, miss.Kind, miss.Reason)
	}
	have.Notes = append(have.Notes, b.Notes...)
}

// sideIndex is side's position in m.Sides.
func sideIndex(m *model.Run, side string) int {
	return slices.IndexFunc(m.Sides, func(s model.Side) bool { return s.Label == side })
}

// sameSides says how a's and b's sides differ in what they measured:
// labels, resolved revisions, uncommitted changes.
func sameSides(a, b *model.Run) error {
	if len(a.Sides) != len(b.Sides) {
		return fmt.Errorf("%d and %d sides", len(a.Sides), len(b.Sides))
	}
	for i := range a.Sides {
		x, y := a.Sides[i], b.Sides[i]
		switch {
		case x.Label != y.Label:
			return fmt.Errorf("sides %q and %q", x.Label, y.Label)
		case x.Rev != y.Rev:
			return fmt.Errorf("the %s side is commit %s in one and %s in the other", x.Label, shortRev(x.Rev), shortRev(y.Rev))
		case x.Dirty != y.Dirty:
			return fmt.Errorf("the %s side has uncommitted changes in one only", x.Label)
		}
	}
	return nil
}

// failed says why a shard's run did not finish, or "".
func failed(r *model.Run) string {
	for _, n := range r.Notes {
		if n.Kind == model.NoteInterrupted {
			return "interrupted: its results are partial"
		}
	}
	if r.End.IsZero() {
		return "cut short: its run.json has no end, as a killed run leaves it"
	}
	return ""
}

// maxRound is the last round of r's samples.
func maxRound(r *model.Run) int {
	n := 0
	for _, b := range r.Benchmarks {
		for _, m := range b.Metrics {
			for _, s := range m.Samples {
				n = max(n, s.Round)
			}
		}
	}
	return n
}

// machinesNote lists the machines the shards ran on.
func machinesNote(ms []model.Machine, count int) model.Note {
	var parts []string
	for _, m := range ms {
		host := m.Hostname
		if host == "" {
			host = "an unnamed machine"
		}
		cpu := ""
		if m.CPUModel != "" {
			cpu = " (" + m.CPUModel + ")"
		}
		parts = append(parts, fmt.Sprintf("shard %d/%d on %s%s, %d rounds", m.Shard, count, host, cpu, m.Rounds))
	}
	return mergeNote("Merged from %d results: %s.", len(ms), strings.Join(parts, "; "))
}

// mergeNote is a run-level note of rigor merge.
func mergeNote(format string, args ...any) model.Note {
	return model.Note{Kind: model.NoteMachine, Source: "merge", Text: fmt.Sprintf(format, args...)}
}

// splitWords names a shard's split rule.
func splitWords(s *model.Shard) string {
	if s.Split == "costs" && len(s.CostsDigest) >= 12 {
		return "costs " + s.CostsDigest[:12]
	}
	return s.Split
}

// isAre agrees with n.
func isAre(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}
