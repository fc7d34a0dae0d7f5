package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/mattn/go-runewidth"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/perf/benchunit"

	"github.com/rigorbench/rigor/execbench"
	"github.com/rigorbench/rigor/history"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/report"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// seriesFlags select series in the store and set the detection's
// parameters; history and changes share them.
type seriesFlags struct {
	store        string
	project      string
	branch       string
	machine      string
	unit         string
	dirty        bool
	window       int
	maxP         float64
	minMagnitude float64
	transient    int
	otava        bool
}

func (f *seriesFlags) register(fs *pflag.FlagSet, unit string) {
	registerStoreFlag(fs, &f.store)
	fs.StringVar(&f.project, "project", "", "only this `project` (a module path; default: every project in the store)")
	fs.StringVar(&f.branch, "branch", "", "only this `branch` (default: every branch, each its own series)")
	fs.StringVar(&f.machine, "machine", "", "only this machine (a `fingerprint` or its prefix; default: every machine, each its own series)")
	fs.StringVar(&f.unit, "unit", unit, "only this `unit` (sec/op, B/op, allocs/op, ...; \"\" for every unit)")
	fs.BoolVar(&f.dirty, "dirty", false, "include results that are no commit's: measured from a working tree with uncommitted changes, or from files that named no commit")
	fs.IntVar(&f.window, "window", history.DefaultWindowLen, "length of E-divisive's sliding windows, in points")
	fs.Float64Var(&f.maxP, "p", history.DefaultMaxPValue, "significance level of a change, after the Benjamini-Hochberg correction across series")
	fs.Float64Var(&f.minMagnitude, "min-magnitude", 0, "smallest relative change reported (0.05 is 5%)")
	fs.BoolVar(&f.otava, "otava", false, "Apache Otava's change points exactly: its merge step (which can lose a step) and no transients (--transient 0)")
	fs.IntVar(&f.transient, "transient", history.DefaultTransient, "up to this many unusual results in a row, between two change points, are outliers, not two steps (0: report Otava's change points as they are)")
}

func (f *seriesFlags) options() (history.Options, error) {
	if f.window < 2 || f.window > 10000 {
		return history.Options{}, usageErrorf("--window %d: want 2 to 10000 points", f.window)
	}
	if !(f.maxP > 0 && f.maxP < 1) {
		return history.Options{}, usageErrorf("--p %v: want a level between 0 and 1", f.maxP)
	}
	if !(f.minMagnitude >= 0 && f.minMagnitude < 100) {
		return history.Options{}, usageErrorf("--min-magnitude %v: want a fraction, 0 or more (0.05 is 5%%)", f.minMagnitude)
	}
	if f.transient < 0 || f.transient > 100 {
		return history.Options{}, usageErrorf("--transient %d: want 0 to 100 results", f.transient)
	}
	transient := f.transient
	if transient == 0 || f.otava {
		transient = -1 // history.Options: none
	}
	return history.Options{WindowLen: f.window, MaxPValue: f.maxP, MinMagnitude: f.minMagnitude, Transient: transient, OtavaMerge: f.otava}, nil
}

// load opens the store (which must exist) and returns the series that
// match the flags and, when bench is set, whose benchmark matches it.
func (f *seriesFlags) load(ctx context.Context, bench string) ([]*history.Series, error) {
	var re *regexp.Regexp
	if bench != "" {
		var err error
		if re, err = regexp.Compile(bench); err != nil {
			return nil, usageErrorf("benchmark pattern %q: %v", bench, err)
		}
	}
	loc, _, err := storeLocation(f.store)
	if err != nil {
		return nil, err
	}
	s, err := openReader(ctx, loc)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	pts, err := s.Points(ctx, sqlstore.Filter{Project: f.project, Branch: f.branch, Machine: f.machine, Unit: f.unit, Dirty: f.dirty})
	if err != nil {
		return nil, usageErrorf("%s", storeError(err))
	}
	return groupSeries(pts, re), nil
}

// groupSeries makes one series per benchmark, unit, machine and branch
// (and per command for rigor exec's runs), in the order of their names;
// points keep the store's order (oldest first).
func groupSeries(pts []sqlstore.Point, re *regexp.Regexp) []*history.Series {
	byKey := map[string]*history.Series{}
	var out []*history.Series
	for _, p := range pts {
		full := p.Name
		if p.Procs > 0 {
			full = fmt.Sprintf("%s-%d", p.Name, p.Procs)
		}
		k := p.SeriesKey()
		if p.Kind == execbench.Kind {
			// The sides of rigor exec are commands, not revisions of
			// one benchmark: each command is a series of its own.
			full = p.Side
			if p.Name != execbench.DefaultName {
				full += "/" + p.Name
			}
			k += "\x00" + p.Side
		}
		if re != nil && !re.MatchString(full) && !re.MatchString(p.Pkg+"."+full) {
			continue
		}
		s := byKey[k]
		if s == nil {
			name := full
			if p.Pkg != "" {
				name = p.Pkg + "." + full
			}
			s = &history.Series{Name: name, Project: p.Project, Pkg: p.Pkg, Benchmark: full, Unit: p.Unit, Machine: p.Machine, Branch: p.Branch, Better: p.Better}
			byKey[k] = s
			out = append(out, s)
		}
		s.Points = append(s.Points, history.Point{Commit: p.Commit, Subject: p.Subject, Time: p.Time(), RunID: p.RunID, Samples: p.Values})
	}
	// Series of two projects that would show the same title (rigor
	// exec's, named by their commands) are named with their project.
	type title struct{ name, unit, machine, branch string }
	projects := map[title]map[string]bool{}
	for _, s := range out {
		t := title{s.Name, s.Unit, s.Machine, s.Branch}
		if projects[t] == nil {
			projects[t] = map[string]bool{}
		}
		projects[t][s.Project] = true
	}
	for _, s := range out {
		if len(projects[title{s.Name, s.Unit, s.Machine, s.Branch}]) > 1 {
			s.Name = s.Project + ": " + s.Name
		}
	}
	slices.SortStableFunc(out, func(a, b *history.Series) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Unit, b.Unit), cmp.Compare(a.Machine, b.Machine), cmp.Compare(a.Branch, b.Branch),
			cmp.Compare(a.Project, b.Project))
	})
	return out
}

// historyOptions are rigor history's flags.
type historyOptions struct {
	series seriesFlags
	format string
	last   int
	bench  string // the BENCH argument
}

func newHistoryCmd(s stdio) *cobra.Command {
	var opts historyOptions
	cmd := &cobra.Command{
		Use:   "history [flags] [BENCH]",
		Short: "Show benchmarks' results across commits, with the change points found",
		Long: `history reads the history store and shows, per series (one benchmark's
metric on one machine and branch), each recorded result (the median of a
run's samples) in commit order, and the change points found in it: Apache
Otava's windowed E-divisive means with a t-test, at --p after a
Benjamini-Hochberg correction across the series shown.

BENCH is a regular expression matched against the benchmark's name, with
and without its package. --format table lists the points with the changes
between them; --format spark draws one line per series, a sparkline with
each change marked |. The default is the table for one series, sparklines
for several.

Exit status: 0, or 2 for bad flags, no store, or no matching series.`,
		Example: `  rigor history
  rigor history --format table 'Encode/size=1024'
  rigor history --store postgres://rigor@db/rigor --branch main --unit B/op`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.bench = ""
			if len(args) == 1 {
				opts.bench = args[0]
			}
			return runHistory(cmd.Context(), opts, s)
		},
	}
	opts.series.register(cmd.Flags(), "sec/op")
	cmd.Flags().StringVar(&opts.format, "format", "", "`format`: table or spark (default: table for one series, spark for several)")
	cmd.Flags().IntVar(&opts.last, "last", 0, "show only the last `N` points of each series (the analysis still uses all)")
	return cmd
}

func runHistory(ctx context.Context, opts historyOptions, s stdio) error {
	bench, stdout := opts.bench, s.out
	hopts, err := opts.series.options()
	if err != nil {
		return err
	}
	switch opts.format {
	case "", "table", "spark":
	default:
		return usageErrorf("--format %q: want table or spark", opts.format)
	}
	if opts.last < 0 {
		return usageErrorf("--last %d: want 0 (all) or more", opts.last)
	}
	series, err := opts.series.load(ctx, bench)
	if err != nil {
		return err
	}
	if len(series) == 0 {
		return usageErrorf("no recorded results match%s", describeFilter(bench, opts.series))
	}
	a := history.Analyze(series, hopts)
	changes := map[*history.Series][]history.Change{}
	for _, c := range a.Changes {
		changes[c.Series] = append(changes[c.Series], c)
	}
	transients := map[*history.Series][]history.Transient{}
	for _, tr := range a.Transients {
		transients[tr.Series] = append(transients[tr.Series], tr)
	}
	format := opts.format
	if format == "" {
		format = "spark"
		if len(series) == 1 {
			format = "table"
		}
	}
	for i, s := range series {
		if format == "table" {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			writeTable(stdout, s, changes[s], transients[s], opts.last)
		} else {
			writeSpark(stdout, s, changes[s], opts.last)
		}
	}
	fmt.Fprintf(stdout, "\n%d %s, %d %s, %d %s (E-divisive, window %d, p < %g after Benjamini-Hochberg over %d tests)\n",
		len(series), words.Plural(len(series), "series", "series"), len(a.Changes), words.Plural(len(a.Changes), "change", "changes"),
		len(a.Transients), words.Plural(len(a.Transients), "transient", "transients"), hopts.WindowLen, hopts.MaxPValue, a.Tests)
	return nil
}

func describeFilter(bench string, f seriesFlags) string {
	var parts []string
	if bench != "" {
		parts = append(parts, fmt.Sprintf(" %q", bench))
	}
	for _, kv := range [][2]string{{"project", f.project}, {"unit", f.unit}, {"branch", f.branch}, {"machine", f.machine}} {
		if kv[1] != "" {
			parts = append(parts, fmt.Sprintf(" %s %s", kv[0], kv[1]))
		}
	}
	return strings.Join(parts, ",")
}

// seriesTitle names a series: benchmark, unit, machine, branch.
func seriesTitle(s *history.Series) string {
	t := report.TerminalSafe(s.Name) + "  " + report.TerminalSafe(s.Unit) + "  machine " + s.Machine
	if s.Branch != "" {
		t += "  branch " + report.TerminalSafe(s.Branch)
	}
	return t
}

func shortHash(h string) string {
	if h == "" {
		return "-"
	}
	return report.TerminalSafe(h[:min(len(h), 10)])
}

func scaleValue(v float64, unit string) string {
	return benchunit.Scale(v, benchunit.ClassOf(unit)) + benchUnitSuffix(unit)
}

// benchUnitSuffix is what benchunit.Scale leaves out: the unit, less
// the "sec" or "B" that its scaled form already carries.
func benchUnitSuffix(unit string) string {
	switch {
	case strings.HasPrefix(unit, "sec/"):
		return "s/" + strings.TrimPrefix(unit, "sec/")
	case strings.HasPrefix(unit, "B/"):
		return "B/" + strings.TrimPrefix(unit, "B/")
	}
	return " " + unit
}

// changeLine describes a change in one line.
func changeLine(c *history.Change) string {
	what := "improved"
	if c.Regression {
		what = "regressed"
	}
	line := fmt.Sprintf("%s %s %s, p %s, q %s", what, signedPct(c.Ratio.Estimate-1), pctInterval(c.Ratio.Lo-1, c.Ratio.Hi-1), fmtP(c.Test.P), fmtP(c.Q))
	if c.Outliers > 0 {
		line += fmt.Sprintf(" (%d unusual %s before it left out)", c.Outliers, words.Plural(c.Outliers, "result", "results"))
	}
	return line
}

func signedPct(f float64) string {
	if math.IsNaN(f) {
		return "?"
	}
	return fmt.Sprintf("%+.1f%%", 100*f)
}

func pctInterval(lo, hi float64) string {
	return "[" + signedPct(lo) + ", " + signedPct(hi) + "]"
}

func fmtP(p float64) string {
	if p < 1e-4 {
		return fmt.Sprintf("%.0e", p)
	}
	return fmt.Sprintf("%.4f", p)
}

func writeTable(w io.Writer, s *history.Series, changes []history.Change, transients []history.Transient, last int) {
	fmt.Fprintln(w, seriesTitle(s))
	start := 0
	if last > 0 && len(s.Points) > last {
		start = len(s.Points) - last
		fmt.Fprintf(w, "  (%d earlier points not shown)\n", start)
	}
	at := map[int]*history.Change{}
	outlier := map[int]bool{}
	for i := range changes {
		c := &changes[i]
		at[c.Index-c.Outliers] = c
		for k := c.Index - c.Outliers; k < c.Index; k++ {
			outlier[k] = true
		}
	}
	for _, tr := range transients {
		for k := tr.From; k < tr.To; k++ {
			outlier[k] = true
		}
	}
	fmt.Fprintf(w, "  %5s  %-10s  %-16s  %12s  %7s  %s\n", "#", "commit", "time", "median", "samples", "subject")
	defer func() {
		if len(outlier) > 0 {
			fmt.Fprintln(w, "  * an unusual result between change points, left out of the comparison (an outlier, not a step)")
		}
	}()
	for i := start; i < len(s.Points); i++ {
		if c := at[i]; c != nil {
			fmt.Fprintf(w, "  ----- change: %s -----\n", changeLine(c))
		}
		p := s.Points[i]
		subject := subjectCell(p.Subject, 50)
		mark := " "
		if outlier[i] {
			mark = "*"
		}
		fmt.Fprintf(w, "  %5d%s %-10s  %-16s  %12s  %7d  %s\n", i+1, mark, shortHash(p.Commit), p.Time.UTC().Format("2006-01-02 15:04"),
			scaleValue(p.Value(), s.Unit), len(p.Samples), subject)
	}
}

// subjectCell is a commit's subject in at most w columns, cut at a
// character (it was cut at a byte: mid-character in a subject of
// multi-byte ones) and ended with "..." when cut, escaped for a terminal.
func subjectCell(subject string, w int) string {
	return report.TerminalSafe(runewidth.Truncate(subject, w, "..."))
}

// sparkWidth is the number of points a sparkline shows.
const sparkWidth = 60

func writeSpark(w io.Writer, s *history.Series, changes []history.Change, last int) {
	v := s.Values()
	n := sparkWidth
	if last > 0 {
		n = last
	}
	start := max(0, len(v)-n)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v[start:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	at := map[int]bool{}
	for _, c := range changes {
		at[c.Index] = true
	}
	const bars = "▁▂▃▄▅▆▇█"
	runes := []rune(bars)
	var b strings.Builder
	for i := start; i < len(v); i++ {
		if at[i] {
			b.WriteRune('|')
		}
		k := 0
		if hi > lo {
			k = int(math.Round((v[i] - lo) / (hi - lo) * float64(len(runes)-1)))
		}
		b.WriteRune(runes[k])
	}
	summary := "no change"
	if len(changes) > 0 {
		c := changes[len(changes)-1]
		summary = fmt.Sprintf("%d %s; last at %s: %s", len(changes), words.Plural(len(changes), "change", "changes"), shortHash(c.After.Commit), changeLine(&c))
	}
	// The count and the range are those of the points drawn.
	shown := fmt.Sprintf("%d %s", len(v), words.Plural(len(v), "point", "points"))
	if start > 0 {
		shown = fmt.Sprintf("last %d of %d points", len(v)-start, len(v))
	}
	fmt.Fprintf(w, "%s\n  %s  %s, %s .. %s\n  %s\n", seriesTitle(s), b.String(), shown,
		scaleValue(lo, s.Unit), scaleValue(hi, s.Unit), summary)
}
