package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/rigorbench/rigor/internal/bisect"
)

// bisectResult is rigor bisect's result, as --format json writes it.
type bisectResult struct {
	Good, Bad  bisectCommit
	Commits    int
	Benchmark  string `json:",omitempty"`
	Chosen     string `json:",omitempty"`
	NoChange   string `json:",omitempty"`
	Confidence float64
	// Alpha is the search's level, IntervalAlpha the level of each
	// interval a step read.
	Alpha, IntervalAlpha float64
	// Change is the change from good to bad (relative: 0.1 for +10%).
	Change     *bisectChange `json:",omitempty"`
	Found      []bisectFound `json:",omitempty"`
	Drift      []bisectSpan  `json:",omitempty"`
	Unresolved []bisectSpan  `json:",omitempty"`
	// Pending are the ranges not searched because the --time budget
	// was spent: --resume continues with them.
	Pending []bisectSpan `json:",omitempty"`
	Steps   []bisectStep `json:",omitempty"`
	Rounds  int
	Elapsed time.Duration
	Dir     string
}

type bisectChange struct{ Estimate, Lo, Hi float64 }

type bisectFound struct {
	Commit bisectCommit
	// Parent is the last commit before it that was measured.
	Parent bisectCommit
	// Skipped are commits between Parent and Commit that could not be
	// measured: the change was made by one of them or by Commit.
	Skipped []bisectCommit `json:",omitempty"`
	Change  bisectChange
	// Share is the commit's part of the change from good to bad, as a
	// fraction of its log ratio.
	Share float64
}

type bisectSpan struct {
	From, To bisectCommit
	Commits  int
	Change   bisectChange
	Why      string `json:",omitempty"`
}

type bisectStep struct {
	From, Mid, To bisectCommit
	// Left and Right are the changes from From to Mid and from Mid to
	// To, at the search's interval level; LeftPart and RightPart what
	// they said (holds, none, undecided).
	Left, Right         bisectChange
	LeftPart, RightPart string
	Rounds              int
}

func change(iv bisect.Interval) bisectChange {
	e, l, h := iv.Ratio()
	return bisectChange{e, l, h}
}

func (b *bisector) result() bisectResult {
	st := b.st
	c := st.Commits
	r := bisectResult{
		Good: c[0], Bad: c[len(c)-1], Commits: len(c) - 1,
		Benchmark: st.Benchmark, Chosen: st.Chosen, NoChange: st.NoChange,
		Confidence: b.opts.Confidence, Alpha: st.Alpha, IntervalAlpha: st.IntervalAlpha,
		Rounds: st.Rounds, Elapsed: st.Elapsed, Dir: b.dir,
	}
	s := st.Search
	if s == nil {
		return r
	}
	ch := change(st.Total)
	r.Change = &ch
	for _, f := range s.Found {
		x := bisectFound{Commit: c[f.Hi], Parent: c[f.Lo], Change: change(f.Change), Share: s.ShareOf(f.Range)}
		for _, i := range f.Skipped {
			x.Skipped = append(x.Skipped, c[i])
		}
		r.Found = append(r.Found, x)
	}
	for _, d := range s.Drift {
		r.Drift = append(r.Drift, bisectSpan{From: c[d.Lo], To: c[d.Hi], Commits: d.Hi - d.Lo, Change: change(d.Change)})
	}
	for _, u := range s.Unresolved {
		r.Unresolved = append(r.Unresolved, bisectSpan{From: c[u.Lo], To: c[u.Hi], Commits: u.Hi - u.Lo, Change: change(u.Change), Why: u.Why})
	}
	if st.TimeSpent {
		for _, p := range s.Pending {
			r.Pending = append(r.Pending, bisectSpan{From: c[p.Lo], To: c[p.Hi], Commits: p.Hi - p.Lo, Change: change(p.Change),
				Why: "the --time budget was spent: rigor bisect --resume " + b.dir + " continues"})
		}
	}
	for _, p := range s.Steps {
		r.Steps = append(r.Steps, bisectStep{From: c[p.Range.Lo], Mid: c[p.Mid], To: c[p.Range.Hi],
			Left: change(p.Left), Right: change(p.Right), LeftPart: string(p.LeftPart), RightPart: string(p.RightPart), Rounds: p.Rounds})
	}
	return r
}

// emit writes the result as --format and --output say.
func (b *bisector) emit() error {
	r := b.result()
	return b.o.verdict.write(b.s.out, func(w io.Writer) error {
		if b.o.verdict.format == "json" {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(r)
		}
		// Benchmark names and commit subjects are the repository's:
		// escaped for a terminal.
		writeBisectText(safeLines{w}, &r)
		return nil
	})
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", 100*x)
}

func (c bisectChange) String() string {
	return fmt.Sprintf("%s [%s, %s]", pct(c.Estimate), pct(c.Lo), pct(c.Hi))
}

func fmtInterval(iv bisect.Interval) string { return change(iv).String() }

func (c bisectCommit) line() string {
	return fmt.Sprintf("%s %q (%s)", c.short(), c.Subject, c.Date.Format("2006-01-02"))
}

// stepWords says what a step found, for the log as it happens.
func stepWords(st *bisectState, p bisect.Step, left, right bisect.Interval) string {
	c := st.Commits
	return fmt.Sprintf("%s..%s, midpoint %s (%d commits): before it %s (%s), after it %s (%s), %d rounds",
		c[p.Range.Lo].short(), c[p.Range.Hi].short(), c[p.Mid].short(), p.Range.Hi-p.Range.Lo,
		fmtInterval(left), p.LeftPart, fmtInterval(right), p.RightPart, p.Rounds)
}

func writeBisectText(w io.Writer, r *bisectResult) {
	if r.NoChange != "" {
		fmt.Fprintln(w, r.NoChange)
		return
	}
	conf := fmt.Sprintf("%g%%", r.Confidence*100)
	fmt.Fprintf(w, "%s: %s (%s interval) from good %s to bad %s, over %d commits\n",
		r.Benchmark, r.Change, conf, r.Good.short(), r.Bad.short(), r.Commits)
	if r.Chosen != "" {
		fmt.Fprintf(w, "  (%s)\n", r.Chosen)
	}
	switch len(r.Found) {
	case 0:
	case 1:
		fmt.Fprintln(w, "\nfound the commit:")
	default:
		fmt.Fprintf(w, "\nfound %d commits, each with its share of the change:\n", len(r.Found))
	}
	for _, f := range r.Found {
		fmt.Fprintf(w, "  %s\n    %s against its parent, %.0f%% of the change\n", f.Commit.line(), f.Change, 100*f.Share)
		if len(f.Skipped) > 0 {
			var names []string
			for _, s := range f.Skipped {
				names = append(names, s.short())
			}
			fmt.Fprintf(w, "    or one of the commits before it that could not be measured: %s (against %s)\n", strings.Join(names, ", "), f.Parent.short())
		}
	}
	for _, d := range r.Drift {
		fmt.Fprintf(w, "\na gradual drift: %s over the %d commits %s..%s, no one of them making a quarter of the change\n", d.Change, d.Commits, d.From.short(), d.To.short())
	}
	for _, u := range r.Unresolved {
		fmt.Fprintf(w, "\ninconclusive: %s over the %d commits %s..%s: %s\n", u.Change, u.Commits, u.From.short(), u.To.short(), u.Why)
	}
	for _, u := range r.Pending {
		fmt.Fprintf(w, "\nnot searched yet: %s over the %d commits %s..%s: %s\n", u.Change, u.Commits, u.From.short(), u.To.short(), u.Why)
	}
	fmt.Fprintf(w, "\n%d steps, %d rounds, %s; each step's intervals at confidence 1-%.2g, so that the whole search errs with probability at most %g:\n",
		len(r.Steps), r.Rounds, r.Elapsed.Round(time.Second), r.IntervalAlpha, r.Alpha)
	for i, p := range r.Steps {
		fmt.Fprintf(w, "  %d. %s..%s at %s: before %s %s, after %s %s (%d rounds)\n", i+1,
			p.From.short(), p.To.short(), p.Mid.short(), p.Left, p.LeftPart, p.Right, p.RightPart, p.Rounds)
	}
	fmt.Fprintf(w, "samples in %s\n", r.Dir)
}
