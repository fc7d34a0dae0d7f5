package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/history"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/report"
)

// changesOptions are rigor changes' flags.
type changesOptions struct {
	series           seriesFlags
	bench            string
	since            string
	failOnRegression bool
}

func newChangesCmd(s stdio) *cobra.Command {
	var opts changesOptions
	cmd := &cobra.Command{
		Use:   "changes [flags]",
		Short: "List the steps found in the recorded history, newest first; gate CI on regressions",
		Long: `changes finds the changes of every series in the history store (one
benchmark's metric on one machine and branch), each series on its own:
Apache Otava's windowed E-divisive means (deterministic) proposes them, and
each split's t-test is corrected for where in the series it was searched
(docs/history.md). Each change is listed with the commits it lies between
(the last result before it and the first after), the change of the median
with a 95% confidence interval, its p-value and q-value, newest first.

A change is kept when its q-value is below --p: on a series without any
step that happens by chance at most that often (1 time in 1000 at the
default), whatever the other series; experiments/changepoints measures it.

Runs of 2 to --transient (10) results off the results on either side, which
agree, are listed as transients: a regression (or improvement) that came
and went, with its commits. A single unusual result is an outlier: left
out of the comparisons, and not listed.

It also checks each series' newest result against the segment since its
last change: the prediction interval's t-test of its median against the
segment's medians, widened when the newest run's own samples are noisier
than theirs (see docs/history.md). A newest result that breaks away is
listed as "newest result", since a change needs 2 results on either side;
an event is listed once. A series that ends where another of its package
begins is pointed out as a likely rename.

--since REV|TIME keeps the changes after a commit (a hash, or anything git
rev-parse accepts here) or a time (RFC 3339, or a duration such as 168h
before now). With --fail-on-regression, the exit status is 1 when a change
listed, or a newest result, is for the worse (a transient, which has come
and gone, does not count).

Exit status: 0; 1 with --fail-on-regression and a regression; 2 for bad
flags or no store.`,
		Example: `  rigor changes
  rigor changes --since 168h --unit ''
  rigor changes --store "$RIGOR_STORE" --branch main --since "$(git merge-base origin/main HEAD)" --fail-on-regression`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runChanges(cmd.Context(), opts, s)
		},
	}
	opts.series.register(cmd.Flags(), "")
	cmd.Flags().StringVar(&opts.bench, "bench", "", "only benchmarks matching this `regexp`")
	cmd.Flags().StringVar(&opts.since, "since", "", "only changes after this commit (`REV`) or time (RFC 3339, or a duration before now: 168h)")
	cmd.Flags().BoolVar(&opts.failOnRegression, "fail-on-regression", false, "exit 1 when a change listed, or a series' newest result, is a regression (transients do not count)")
	return cmd
}

// sinceFilter tells whether a point is after --since.
type sinceFilter func(p history.Point, s *history.Series) bool

// parseSince reads --since. A hash that git does not know here is
// returned as unknown: the store must know it (checkSince).
func parseSince(ctx context.Context, since string) (after sinceFilter, unknown string, err error) {
	if since == "" {
		return func(history.Point, *history.Series) bool { return true }, "", nil
	}
	if d, err := time.ParseDuration(since); err == nil {
		if d < 0 {
			return nil, "", usageErrorf("--since %s: want a duration before now, not after", since)
		}
		t := time.Now().Add(-d)
		return func(p history.Point, _ *history.Series) bool { return p.Time.After(t) }, "", nil
	}
	if t, err := time.Parse(time.RFC3339, since); err == nil {
		return func(p history.Point, _ *history.Series) bool { return p.Time.After(t) }, "", nil
	}
	commit := strings.ToLower(since)
	var when time.Time
	if c, ok := gitCommit(ctx, ".", since); ok {
		commit, when = c.Hash, c.Time
	} else if !isHash(since) {
		return nil, "", usageErrorf("--since %q: not a duration, an RFC 3339 time, a commit hash, or a revision git knows here", report.TerminalSafe(since))
	} else {
		unknown = commit
	}
	// After the commit: in a series that has it, the points after its
	// first; in one that does not, the points after its time when git
	// knows it, else all of them.
	return func(p history.Point, s *history.Series) bool {
		for i, q := range s.Points {
			if strings.HasPrefix(q.Commit, commit) {
				return slices.ContainsFunc(s.Points[i+1:], func(r history.Point) bool { return r.RunID == p.RunID && r.Commit == p.Commit })
			}
		}
		return when.IsZero() || p.Time.After(when)
	}, unknown, nil
}

// checkSince refuses a --since hash that git does not know here when no
// series shown has it either (it was taken for "since the beginning"),
// or when it names more than one commit of theirs.
func checkSince(prefix string, series []*history.Series) error {
	if prefix == "" {
		return nil
	}
	found := map[string]bool{}
	for _, s := range series {
		for _, p := range s.Points {
			if strings.HasPrefix(p.Commit, prefix) {
				found[p.Commit] = true
			}
		}
	}
	switch len(found) {
	case 0:
		return usageErrorf("--since %s: no such commit: git does not know it here, and no result in the store was measured at it", prefix)
	case 1:
		return nil
	}
	hashes := slices.Sorted(maps.Keys(found))
	for i, h := range hashes {
		hashes[i] = shortHash(h)
	}
	return usageErrorf("--since %s names %d commits of the store (%s): give more of the hash", prefix, len(found), strings.Join(hashes, ", "))
}

// A listed change: a change point, a transient, or a newest result that
// breaks away.
type listed struct {
	series     *history.Series
	when       time.Time
	from, to   history.Point
	text       string
	regression bool
	// transient is true for a transient: listed, and not counted as a
	// regression by --fail-on-regression (the series came back).
	transient bool
	// bisect is the rigor bisect command that would find the commit
	// of a change between commits that are not adjacent, or "".
	bisect string
}

func runChanges(ctx context.Context, opts changesOptions, s stdio) error {
	stdout := s.out
	hopts, err := opts.series.options()
	if err != nil {
		return err
	}
	after, unknown, err := parseSince(ctx, opts.since)
	if err != nil {
		return err
	}
	series, err := opts.series.load(ctx, opts.bench)
	if err != nil {
		return err
	}
	if err := checkSince(unknown, series); err != nil {
		return err
	}
	a := history.Analyze(series, hopts)
	var out []listed
	for i := range a.Changes {
		c := &a.Changes[i]
		if !after(c.After, c.Series) {
			continue
		}
		out = append(out, listed{series: c.Series, when: c.After.Time, from: c.Before, to: c.After, text: changeLine(c), regression: c.Regression,
			bisect: bisectSuggestion(ctx, c.Series, c.Before, c.After)})
	}
	for _, tr := range a.Transients {
		first, last := tr.Series.Points[tr.From], tr.Series.Points[tr.To-1]
		if !after(first, tr.Series) {
			continue
		}
		out = append(out, listed{series: tr.Series, when: first.Time, from: first, to: last, text: transientLine(tr), transient: true, regression: tr.Regression})
	}
	// The newest result of each series against the segment before it,
	// when no change already reports it.
	for _, nw := range a.Newest {
		sr, v := nw.Series, nw.Verdict
		newest := sr.Points[len(sr.Points)-1]
		if !after(newest, sr) {
			continue
		}
		what := "improved"
		if v.Regression {
			what = "regressed"
		}
		out = append(out, listed{series: sr, when: newest.Time, from: sr.Points[v.Since], to: newest, regression: v.Regression,
			text: fmt.Sprintf("newest result %s %s from the %d since %s, p %s", what, signedPct(v.Change()), v.Points, shortHash(sr.Points[v.Since].Commit), fmtP(v.P))})
	}
	slices.SortStableFunc(out, func(a, b listed) int { return b.when.Compare(a.when) })
	regressions, transients := 0, 0
	for _, l := range out {
		switch {
		case l.transient:
			transients++
		case l.regression:
			regressions++
		}
		subject := subjectCell(l.to.Subject, 60)
		fmt.Fprintf(stdout, "%s  %s..%s  %s\n    %s\n", l.when.UTC().Format("2006-01-02 15:04"), shortHash(l.from.Commit), shortHash(l.to.Commit),
			seriesTitle(l.series), l.text)
		if subject != "" {
			fmt.Fprintf(stdout, "    %s\n", subject)
		}
		if l.bisect != "" {
			fmt.Fprintf(stdout, "    %s\n", report.TerminalSafe(l.bisect))
		}
	}
	for _, r := range renameLines(history.Renames(series), after) {
		fmt.Fprintln(stdout, r)
	}
	changes := len(out) - transients
	fmt.Fprintf(stdout, "%d %s, %d %s in %d series (%d %s; %s)\n",
		changes, words.Plural(changes, "change", "changes"), transients, words.Plural(transients, "transient", "transients"), len(series),
		regressions, words.Plural(regressions, "regression", "regressions"), methodLine(hopts))
	if line := shortLine(a); line != "" {
		fmt.Fprintln(stdout, line)
	}
	if opts.failOnRegression && regressions > 0 {
		return &exitError{code: exitGateFail}
	}
	return nil
}
