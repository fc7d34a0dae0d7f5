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
		Long: `changes finds the change points of every series in the history store (one
benchmark's metric on one machine and branch): Apache Otava's windowed
E-divisive means with a t-test (deterministic), kept when their p-value
after a Benjamini-Hochberg correction across all the series is below --p.
Each change is listed with the commits it lies between (the last result
before it and the first after), the change of the median with a 95%
confidence interval, the p-value and the corrected q-value, newest first.

It also checks each series' newest result against the segment since its
last change: a t-test of its median against the segment's medians that
counts the run-to-run spread and the newest run's own noise, from its
samples (see docs/history.md). A newest result that breaks away for the
worse is listed as "newest result", since a change point needs results on
both sides to be found.

--since REV|TIME keeps the changes after a commit (a hash, or anything git
rev-parse accepts here) or a time (RFC 3339, or a duration such as 168h
before now). With --fail-on-regression, the exit status is 1 when a change
listed, or a newest result, is for the worse.

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
	cmd.Flags().BoolVar(&opts.failOnRegression, "fail-on-regression", false, "exit 1 when a change listed, or a series' newest result, is a regression")
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

// A listed change: a change point, or a newest result that breaks away.
type listed struct {
	series     *history.Series
	when       time.Time
	from, to   history.Point
	text       string
	regression bool
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
		out = append(out, listed{series: c.Series, when: c.After.Time, from: c.Before, to: c.After, text: changeLine(c), regression: c.Regression})
	}
	// The newest result of each series against the segment before it.
	for _, s := range series {
		n := len(s.Points)
		if n < 3 || !after(s.Points[n-1], s) {
			continue
		}
		prefix := &history.Series{Better: s.Better, Points: s.Points[:n-1]}
		v := history.Check(prefix, s.Points[n-1], hopts)
		if !v.Breaks {
			continue
		}
		what := "improved"
		if v.Regression {
			what = "regressed"
		}
		out = append(out, listed{series: s, when: s.Points[n-1].Time, from: s.Points[v.Since], to: s.Points[n-1], regression: v.Regression,
			text: fmt.Sprintf("newest result %s %s from the %d since %s, p %s", what, signedPct(v.Change()), v.Points, shortHash(s.Points[v.Since].Commit), fmtP(v.P))})
	}
	slices.SortStableFunc(out, func(a, b listed) int { return b.when.Compare(a.when) })
	regressions := 0
	for _, l := range out {
		if l.regression {
			regressions++
		}
		subject := subjectCell(l.to.Subject, 60)
		fmt.Fprintf(stdout, "%s  %s..%s  %s\n    %s\n", l.when.UTC().Format("2006-01-02 15:04"), shortHash(l.from.Commit), shortHash(l.to.Commit),
			seriesTitle(l.series), l.text)
		if subject != "" {
			fmt.Fprintf(stdout, "    %s\n", subject)
		}
	}
	fmt.Fprintf(stdout, "%d %s in %d series (%d %s, %d %s; E-divisive, window %d, p < %g after Benjamini-Hochberg over %d tests)\n",
		len(out), words.Plural(len(out), "change", "changes"), len(series), regressions, words.Plural(regressions, "regression", "regressions"),
		len(a.Transients), words.Plural(len(a.Transients), "transient", "transients"), hopts.WindowLen, hopts.MaxPValue, a.Tests)
	if opts.failOnRegression && regressions > 0 {
		return &exitError{code: exitGateFail}
	}
	return nil
}
