package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/history"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/report"
	"github.com/rigorbench/rigor/stats"
	"github.com/rigorbench/rigor/store"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// remeasureSide returns the side that measures life's baseline again,
// beside the working tree in interleaved rounds: when the baseline is a
// pointer into the history store (not a file) to a side that names a
// commit, without uncommitted changes, that this repository still has.
// The side is built with the baseline's own settings.
func remeasureSide(ctx context.Context, life *store.Lifecycle) (gotest.Side, bool) {
	if life == nil || life.Base == nil || life.File != "" || len(life.Base.Sides) != 1 {
		return gotest.Side{}, false
	}
	sd := life.Base.Sides[0]
	if sd.Rev == "" || sd.Dirty {
		return gotest.Side{}, false
	}
	c, ok := gitCommit(ctx, ".", sd.Rev+"^{commit}")
	if !ok || !strings.EqualFold(c.Hash, sd.Rev) {
		return gotest.Side{}, false
	}
	return gotest.Side{Label: life.Label, Rev: c.Hash, Settings: gotest.Settings{
		Tags: sd.Tags, Env: sd.BuildEnv, GCFlags: sd.GCFlags, Toolchain: sd.Toolchain,
	}}, true
}

// remeasuredNote says that the baseline was measured again, and how this
// session's results of its commit compare with the saved ones: the
// variation between sessions that the interleaved rounds avoid.
func remeasuredNote(life *store.Lifecycle, run *model.Run) model.Note {
	sd := life.Base.Sides[0]
	saved := ""
	if !life.Base.Start.IsZero() {
		saved = ", measured " + life.Base.Start.Format("2006-01-02 15:04")
	}
	text := fmt.Sprintf("The baseline %s names commit %s%s, which this repository has: it was measured again, in interleaved rounds with the working tree, as rigor ab does, and the comparison is paired. The saved results are context only",
		report.TerminalSafe(life.Label), shortRev(sd.Rev), saved)
	var ratios []float64
	for _, b := range run.Benchmarks {
		for _, m := range b.Metrics {
			if m.Unit != "sec/op" {
				continue
			}
			now := stats.Median(m.Values(life.Label))
			before := savedMedian(life.Base, b.Key(), m.Unit)
			if now > 0 && before > 0 {
				ratios = append(ratios, now/before)
			}
		}
	}
	if len(ratios) > 0 {
		g := 0.0
		for _, r := range ratios {
			g += math.Log(r)
		}
		g = math.Exp(g / float64(len(ratios)))
		text += fmt.Sprintf(": this session's sec/op of %s differ from them by %+.1f%%", shortRev(sd.Rev), 100*(g-1))
		if len(ratios) > 1 {
			text += fmt.Sprintf(" (geometric mean of %d benchmarks, from %+.1f%% to %+.1f%%)", len(ratios), 100*(slices.Min(ratios)-1), 100*(slices.Max(ratios)-1))
		}
		text += ", the same code measured in another session"
	}
	return model.Note{Kind: model.NoteBaseline, Source: "store", Text: text + "."}
}

// savedMedian is the median of the baseline's benchmark key in unit, or
// NaN.
func savedMedian(base *model.Run, key, unit string) float64 {
	for _, b := range base.Benchmarks {
		if b.Key() != key {
			continue
		}
		for _, m := range b.Metrics {
			if m.Unit == unit {
				return stats.Median(m.Values(base.Sides[0].Label))
			}
		}
	}
	return math.NaN()
}

func shortRev(r string) string { return r[:min(len(r), 12)] }

// acrossSessions is what is known of the variation between sessions, for
// comparing a run with life's baseline, which cannot be measured again:
// for every benchmark and unit of the baseline, the spread of the
// results of one commit recorded in the history store on this machine
// (history.SessionSpread). machineWarning, when set, says the baseline
// was measured on another machine, or does not say where: the spreads of
// this machine say nothing of that, and none is given. The remedy is the
// rigor ab command that would compare in one session.
func acrossSessions(ctx context.Context, rec *recordFlags, life *store.Lifecycle, packages []string, machineWarning string) *model.Sessions {
	rev := "REV"
	if sd := life.Base.Sides[0]; sd.Rev != "" && !sd.Dirty {
		rev = shortRev(sd.Rev)
	}
	pkgs := "./..."
	if len(packages) > 0 {
		pkgs = strings.Join(packages, " ")
	}
	out := &model.Sessions{Remedy: fmt.Sprintf("rigor ab --old %s --new . %s", rev, pkgs)}
	if rev == "REV" {
		out.Remedy += " (REV: the revision the baseline measured, committed)"
	}
	if machineWarning != "" {
		out.Source = "the baseline was not measured on this machine, or does not say where"
		return out
	}
	p := newPointers(rec.store)
	if p == nil || !sqlstore.Exists(p.loc) {
		out.Source = "there is no history store to learn it from"
		return out
	}
	st, err := sqlstore.Open(ctx, p.loc, sqlstore.Options{})
	if err != nil {
		out.Source = "the history store could not be read: " + oneLine(err)
		return out
	}
	defer st.Close()
	here := p.machine(ctx).Fingerprint
	runs, commits := map[int64]bool{}, map[string]bool{}
	for _, b := range life.Base.Benchmarks {
		pts, err := st.Points(ctx, sqlstore.Filter{Project: p.project, Machine: here, Pkg: b.Pkg, Name: b.Name})
		if err != nil {
			continue
		}
		for _, m := range b.Metrics {
			byCommit := map[string][][]float64{}
			var order []string
			seen := map[string]bool{}
			for _, pt := range pts {
				key := fmt.Sprint(pt.RunID, "\x00", pt.Commit)
				if pt.Procs != b.Procs || pt.Unit != m.Unit || pt.Machine != here || pt.Commit == "" || pt.Dirty || seen[key] {
					continue
				}
				seen[key] = true // one result a session
				if byCommit[pt.Commit] == nil {
					order = append(order, pt.Commit)
				}
				byCommit[pt.Commit] = append(byCommit[pt.Commit], pt.Values)
			}
			var groups [][][]float64
			for _, c := range order {
				groups = append(groups, byCommit[c])
			}
			sp, ok := history.SessionSpread(groups)
			if !ok {
				continue
			}
			out.Spreads = append(out.Spreads, model.SessionSpread{Benchmark: b.Key(), Unit: m.Unit, SD: sp.SD, Within: sp.Within, DF: sp.DF, Results: sp.Sessions})
			for _, pt := range pts {
				if len(byCommit[pt.Commit]) > 1 && pt.Unit == m.Unit && pt.Procs == b.Procs {
					runs[pt.RunID], commits[pt.Commit] = true, true
				}
			}
		}
	}
	if len(out.Spreads) == 0 {
		out.Source = fmt.Sprintf("%s has no two results of one commit on this machine to learn it from", locationName(p.loc))
		return out
	}
	out.Source = fmt.Sprintf("from %d %s of %d %s recorded more than once on this machine in %s", len(runs), words.Plural(len(runs), "run", "runs"),
		len(commits), words.Plural(len(commits), "commit", "commits"), locationName(p.loc))
	return out
}

// sessionsAgainst returns a function that compares a run with life's
// baseline across sessions, carrying sess.
func sessionsAgainst(life *store.Lifecycle, sess *model.Sessions) func(*model.Run) (*model.Run, error) {
	return func(r *model.Run) (*model.Run, error) {
		a, err := life.Against(r)
		if err != nil || a == r {
			return a, err
		}
		a.Sessions = sess
		return a, nil
	}
}

// unresolvedAgainst is the stopping rule of a run compared with a
// baseline: every comparison resolved, or one more rounds cannot resolve.
func unresolvedAgainst(against func(*model.Run) (*model.Run, error), opts analysis.Options) func(*model.Run) ([]string, error) {
	return func(r *model.Run) ([]string, error) {
		a, err := against(r)
		if err != nil {
			return nil, err
		}
		return experiment.Unresolved(a, opts)
	}
}
