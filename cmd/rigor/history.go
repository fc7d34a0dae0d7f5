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
	fs.Float64Var(&f.maxP, "p", history.DefaultMaxPValue, "significance level of a change (its q-value): the chance that a series without a step shows one")
	fs.Float64Var(&f.minMagnitude, "min-magnitude", 0, "smallest relative change reported (0.05 is 5%)")
	fs.BoolVar(&f.otava, "otava", false, "Apache Otava's change points exactly, with its p-values, not corrected for the search: its merge step (which can lose a step), no outliers or transients")
	fs.IntVar(&f.transient, "transient", history.DefaultTransient, "up to this many results in a row, off the results on either side and back, are a transient, not two changes; one is an outlier (0: look for neither)")
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
	return groupSeriesOf(pts, re, nil)
}

// groupSeriesOf is groupSeries, which also sets, when from is not nil,
// the index in pts of each point of each series.
func groupSeriesOf(pts []sqlstore.Point, re *regexp.Regexp, from map[*history.Series][]int) []*history.Series {
	byKey := map[string]*history.Series{}
	var out []*history.Series
	for i := range pts {
		p := &pts[i]
		k, full := seriesKeyOf(p)
		if re != nil && !re.MatchString(full) && !re.MatchString(p.Pkg+"."+full) {
			continue
		}
		s := byKey[k]
		if s == nil {
			s = newSeriesOf(p, full)
			byKey[k] = s
			out = append(out, s)
		}
		s.Points = append(s.Points, historyPoint(p))
		if from != nil {
			from[s] = append(from[s], i)
		}
	}
	nameSeries(out)
	return out
}

// seriesKeyOf is the series p belongs to, and its benchmark's full name
// (with its GOMAXPROCS, or rigor exec's command).
func seriesKeyOf(p *sqlstore.Point) (key, full string) {
	full = p.Name
	if p.Procs > 0 {
		full = fmt.Sprintf("%s-%d", p.Name, p.Procs)
	}
	key = p.SeriesKey()
	if p.Kind == execbench.Kind {
		// The sides of rigor exec are commands, not revisions of
		// one benchmark: each command is a series of its own.
		full = p.Side
		if p.Name != execbench.DefaultName {
			full += "/" + p.Name
		}
		key += "\x00" + p.Side
	}
	return key, full
}

// newSeriesOf is the series of p, of no points yet.
func newSeriesOf(p *sqlstore.Point, full string) *history.Series {
	name := full
	if p.Pkg != "" {
		name = p.Pkg + "." + full
	}
	return &history.Series{Name: name, Project: p.Project, Pkg: p.Pkg, Benchmark: full, Unit: p.Unit, Machine: p.Machine, Branch: p.Branch, Better: p.Better}
}

// historyPoint is p as a point of its series.
func historyPoint(p *sqlstore.Point) history.Point {
	samples := p.Values
	if samples == nil && p.N > 0 {
		// A summary (Store.Summaries, for serve's index): its median
		// stands for its values, as the point's value (history.Point.Value)
		// is all that reads them.
		samples = []float64{p.Median}
	}
	return history.Point{Commit: p.Commit, Subject: p.Subject, Time: p.Time(), RunID: p.RunID, Samples: samples}
}

// nameSeries names with their project the series of two projects that
// would show the same title (rigor exec's, named by their commands), and
// puts the series in the order of their names.
func nameSeries(out []*history.Series) {
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
run's samples) in commit order, and the changes found in it: Apache
Otava's windowed E-divisive means proposes them, and a change is kept when
its q-value, corrected for the search, is below --p (so that a series
without a step shows one by chance at most that often); transients (runs of
results off the series and back) and outliers are marked. Each series is
analyzed on its own: what history says of one does not depend on which
others are shown.

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
	unusual := map[*history.Series][]history.Transient{}
	for _, tr := range append(slices.Clone(a.Transients), a.Outliers...) {
		unusual[tr.Series] = append(unusual[tr.Series], tr)
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
			writeTable(stdout, s, changes[s], unusual[s], opts.last)
		} else {
			writeSpark(stdout, s, changes[s], opts.last)
		}
	}
	fmt.Fprintln(stdout)
	for _, r := range renameLines(history.Renames(series), nil) {
		fmt.Fprintln(stdout, r)
	}
	fmt.Fprintf(stdout, "%d %s, %d %s, %d %s, %d %s (%s)\n",
		len(series), words.Plural(len(series), "series", "series"), len(a.Changes), words.Plural(len(a.Changes), "change", "changes"),
		len(a.Transients), words.Plural(len(a.Transients), "transient", "transients"),
		len(a.Outliers), words.Plural(len(a.Outliers), "outlier", "outliers"), methodLine(hopts))
	if line := shortLine(a); line != "" {
		fmt.Fprintln(stdout, line)
	}
	return nil
}

// methodLine says how the changes were found and how often one is found
// by chance, for a summary line.
func methodLine(o history.Options) string {
	if o.OtavaMerge {
		return fmt.Sprintf("Otava's E-divisive, window %d, p < %g, not corrected for the search", o.WindowLen, o.MaxPValue)
	}
	return fmt.Sprintf("E-divisive, window %d; a change needs q < %g, which a series without one reaches by chance at most 1 time in %.0f",
		o.WindowLen, o.MaxPValue, 1/o.MaxPValue)
}

// shortLine says, when some series are too short to show a change, how
// many; "" when none is.
func shortLine(a *history.Analysis) string {
	if len(a.Short) == 0 {
		return ""
	}
	var names []string
	for _, s := range a.Short {
		names = append(names, fmt.Sprintf("%s %s (%d)", report.TerminalSafe(s.Name), report.TerminalSafe(s.Unit), len(s.Points)))
	}
	return fmt.Sprintf("%d %s too short to show a change, which needs %d results on either side: %s",
		len(a.Short), words.Plural(len(a.Short), "series is", "series are"), history.MinPoints/2, words.JoinList(names, 5))
}

// renameLines points out the likely renames, one line each for the
// benchmarks of a package (every unit of theirs at once), those whose
// first new result keep (nil: all) accepts.
func renameLines(renames []history.Rename, keep func(history.Point, *history.Series) bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range renames {
		if keep != nil && !keep(r.First, r.Began[0]) {
			continue
		}
		var ended, began []string
		for _, s := range r.Ended {
			ended = append(ended, report.TerminalSafe(s.Benchmark))
		}
		for _, s := range r.Began {
			began = append(began, report.TerminalSafe(s.Benchmark))
		}
		pkg := r.Ended[0].Pkg
		line := fmt.Sprintf("likely rename: %s ended at %s and %s began at %s (%smachine %s%s): their results are separate series, and no change between them is looked for",
			words.JoinList(ended, 5), shortHash(r.Last.Commit), words.JoinList(began, 5), shortHash(r.First.Commit),
			map[bool]string{true: "", false: "package " + report.TerminalSafe(pkg) + ", "}[pkg == ""], r.Ended[0].Machine, branchWords(r.Ended[0].Branch))
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	return out
}

func branchWords(b string) string {
	if b == "" {
		return ""
	}
	return ", branch " + report.TerminalSafe(b)
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
	line := fmt.Sprintf("%s %s %s, p %s, q %s", what, signedPct(c.Ratio.Estimate-1), pctInterval(c.Ratio.Lo-1, c.Ratio.Hi-1), fmtP(c.P), fmtP(c.Q))
	if c.Outliers > 0 {
		line += fmt.Sprintf(" (%d unusual %s just before it left out)", c.Outliers, words.Plural(c.Outliers, "result", "results"))
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

func writeTable(w io.Writer, s *history.Series, changes []history.Change, unusual []history.Transient, last int) {
	fmt.Fprintln(w, seriesTitle(s))
	start := 0
	if last > 0 && len(s.Points) > last {
		start = len(s.Points) - last
		fmt.Fprintf(w, "  (%d earlier points not shown)\n", start)
	}
	at := map[int]*history.Change{}
	for i := range changes {
		c := &changes[i]
		at[c.Index-c.Outliers] = c
	}
	mark := map[int]string{}
	transientAt := map[int]history.Transient{}
	inTransient, outlier := false, false
	for _, tr := range unusual {
		m := "*"
		if tr.Len() > 1 {
			transientAt[tr.From], m, inTransient = tr, "^", true
		} else {
			outlier = true
		}
		for k := tr.From; k < tr.To; k++ {
			mark[k] = m
		}
	}
	fmt.Fprintf(w, "  %5s  %-10s  %-16s  %12s  %7s  %s\n", "#", "commit", "time", "median", "samples", "subject")
	defer func() {
		if inTransient {
			fmt.Fprintln(w, "  ^ in a transient: results off the series, which came back; left out of the changes' comparisons")
		}
		if outlier {
			fmt.Fprintln(w, "  * an outlier: one result off the results around it; left out of the comparisons")
		}
		if len(s.Points) < history.MinPoints {
			fmt.Fprintf(w, "  %d %s: too few to show a change, which needs %d results on either side\n", len(s.Points),
				words.Plural(len(s.Points), "result", "results"), history.MinPoints/2)
		}
	}()
	for i := start; i < len(s.Points); i++ {
		if c := at[i]; c != nil {
			fmt.Fprintf(w, "  ----- change: %s -----\n", changeLine(c))
		}
		if tr, ok := transientAt[i]; ok {
			fmt.Fprintf(w, "  ----- %s -----\n", transientLine(tr))
		}
		p := s.Points[i]
		subject := subjectCell(p.Subject, 50)
		m := mark[i]
		if m == "" {
			m = " "
		}
		fmt.Fprintf(w, "  %5d%s %-10s  %-16s  %12s  %7d  %s\n", i+1, m, shortHash(p.Commit), p.Time.UTC().Format("2006-01-02 15:04"),
			scaleValue(p.Value(), s.Unit), len(p.Samples), subject)
	}
}

// subjectCell is a commit's subject in at most w columns, cut at a
// character (it was cut at a byte: mid-character in a subject of
// multi-byte ones) and ended with "..." when cut, escaped for a terminal.
func subjectCell(subject string, w int) string {
	return report.TerminalSafe(runewidth.Truncate(subject, w, "..."))
}

// transientLine describes a transient in one line.
func transientLine(tr history.Transient) string {
	what := "improvement"
	if tr.Regression {
		what = "regression"
	}
	s := tr.Series
	return fmt.Sprintf("transient %s %s on %d results (%s to %s), then back; p %s", what, signedPct(tr.Ratio-1), tr.Len(),
		shortHash(s.Points[tr.From].Commit), shortHash(s.Points[tr.To-1].Commit), fmtP(tr.P))
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
