package harness

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/rigorbench/rigor/history"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/store"
)

// A comparison with a saved baseline (-rigor.baseline) is across
// sessions: no interleaving protects it from how the machine changed in
// between. How much results vary between sessions is learnt from the
// sessions saved under the baseline's name: every -rigor.save-baseline
// NAME also keeps its results, the last keptSessions saves, in
// .rigor/sessions/baselines/NAME.json, one side a session. The harness
// does not know which version of the code each session measured, so their
// spread counts any change of the code too: an estimate too large, never
// too small, of the variation between sessions of the same code.

// keptSessions is how many saved sessions a baseline name keeps.
const keptSessions = 20

// sessionStore is where the sessions of baselines are kept.
func sessionStore(st *store.Store) *store.Store {
	return &store.Store{Dir: filepath.Join(st.Dir, "sessions")}
}

// keepSession adds flat, one group's results just saved as the baseline
// name, to the sessions kept for that name.
func keepSession(st *store.Store, name string, flat *model.Run) error {
	ss := sessionStore(st)
	kept, err := ss.Load(name)
	if errors.Is(err, store.ErrNotFound) {
		kept, err = &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindHarness, Benchmarks: []model.Benchmark{}}, nil
	}
	if err != nil {
		return fmt.Errorf("keeping the session of baseline %s: %w", name, err)
	}
	label := "1"
	if n := len(kept.Sides); n > 0 {
		last, _ := strconv.Atoi(kept.Sides[n-1].Label)
		label = strconv.Itoa(last + 1)
	}
	session := flat.Relabel(flat.Sides[0].Label, label)
	session.Notes, session.Observations = nil, nil
	merged, err := model.Merge(kept, session)
	if err != nil {
		return fmt.Errorf("keeping the session of baseline %s: %w", name, err)
	}
	for len(merged.Sides) > keptSessions {
		merged = dropSide(merged, merged.Sides[0].Label)
	}
	merged.Paired, merged.Env, merged.Notes = false, nil, nil
	return ss.Save(name, merged)
}

// dropSide returns run without side label and its samples.
func dropSide(run *model.Run, label string) *model.Run {
	out := *run
	out.Sides = slices.DeleteFunc(slices.Clone(run.Sides), func(s model.Side) bool { return s.Label == label })
	out.Benchmarks = nil
	for _, b := range run.Benchmarks {
		nb := b
		nb.Metrics = nil
		for _, m := range b.Metrics {
			nm := m
			nm.Samples = slices.DeleteFunc(slices.Clone(m.Samples), func(s model.Sample) bool { return s.Side == label })
			if len(nm.Samples) > 0 {
				nb.Metrics = append(nb.Metrics, nm)
			}
		}
		if len(nb.Metrics) > 0 {
			out.Benchmarks = append(out.Benchmarks, nb)
		}
	}
	return &out
}

// sessionsOf is what the sessions kept for the baseline name say of the
// variation between sessions, for flat's benchmarks.
func sessionsOf(st *store.Store, name string, flat *model.Run) *model.Sessions {
	out := &model.Sessions{Remedy: "make both versions variants of one rigor.Group, or run rigor ab --old REV on the benchmark that runs the group"}
	kept, err := sessionStore(st).Load(name)
	if err != nil {
		out.Source = fmt.Sprintf("no earlier sessions saved as %s to learn it from", name)
		return out
	}
	sessions := map[string]bool{}
	for _, b := range flat.Benchmarks {
		for _, m := range b.Metrics {
			var results [][]float64
			for _, kb := range kept.Benchmarks {
				if kb.Key() != b.Key() {
					continue
				}
				for _, km := range kb.Metrics {
					if km.Unit != m.Unit {
						continue
					}
					for _, sd := range kept.Sides {
						if v := km.Values(sd.Label); len(v) > 0 {
							results = append(results, v)
							sessions[sd.Label] = true
						}
					}
				}
			}
			sp, ok := history.SessionSpread([][][]float64{results})
			if !ok {
				continue
			}
			out.Spreads = append(out.Spreads, model.SessionSpread{Benchmark: b.Key(), Unit: m.Unit, SD: sp.SD, Within: sp.Within, DF: sp.DF, Results: sp.Sessions})
		}
	}
	out.Source = fmt.Sprintf("the %d sessions saved as %s, whose code may have changed in between", len(sessions), name)
	if len(out.Spreads) == 0 {
		out.Source = fmt.Sprintf("fewer than two sessions saved as %s to learn it from", name)
	}
	return out
}
