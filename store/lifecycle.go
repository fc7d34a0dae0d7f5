package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// A Plan is what one run does with baselines: compare its result with
// one, store its result as one, and replace the one it was compared with
// when the comparison passed.
type Plan struct {
	// Compare is the baseline to compare the result with: a name, a
	// file (rigor JSON, Go benchmark output) or a results directory
	// (its run.json); "" for none.
	Compare string
	// Save names the baseline to store the result as; "" for none.
	Save string
	// UpdateOnPass replaces the named baseline Compare with the result
	// when the run passed.
	UpdateOnPass bool
}

// Pointers keeps named baselines as pointers into the history store
// (package sqlstore), for one project, on the machine the caller measures
// on. Package store does not open databases itself: the command that
// knows where the store is implements Pointers.
type Pointers interface {
	// Load returns the baseline name of this machine, a run of one side.
	// Its error wraps ErrNotFound when there is none, and also
	// ErrOtherMachine when other machines have one of that name.
	Load(ctx context.Context, name string) (*model.Run, error)
	// Save points name at the side label of run, recording run in the
	// store first (a run recorded before is not recorded twice). It
	// returns where the run is, for people ("run 12 in .rigor/rigor.db").
	Save(ctx context.Context, name string, run *model.Run, label string) (string, error)
	// Names lists this machine's baselines, sorted.
	Names(ctx context.Context) ([]string, error)
}

// ErrOtherMachine is wrapped by a Pointers' Load error when the baseline
// asked for was saved on other machines only: it is not compared with.
var ErrOtherMachine = errors.New("saved on another machine")

// A Lifecycle carries one run's baselines from before it is measured to
// after its verdict: Open loads the baseline to compare with, Against
// builds the comparison, Finish stores what the plan says.
type Lifecycle struct {
	Plan
	// Files is the module's .rigor directory, where baselines were kept
	// as files before the history store (BaselinePath); nil outside a
	// module.
	Files *Store
	// Pointers are the named baselines of the history store; nil when
	// there is none to use.
	Pointers Pointers
	// Base is the baseline to compare with, loaded; nil without one.
	Base *model.Run
	// Label is Base's label in the comparison: the baseline's name, or
	// the file's name without its extension.
	Label string
	// File is the file Base was read from: Compare itself, or the file
	// of a baseline saved before the history store; "" when Base came
	// from the store. A file says nothing reliable about the machine it
	// was measured on: the caller compares its environment with its own.
	File string

	// side is the label of the side being measured.
	side string
	// named is true when Compare is a baseline's name (not a file the
	// user gave).
	named bool
}

// Open checks p, and loads the baseline to compare with: Compare is a
// file when one of that name exists, or a results directory holding a
// run.json (and no baseline has the same name: that is refused as
// ambiguous), else a baseline's name, looked up in
// ptrs for this machine, then in .rigor/baselines of the module that
// holds dir. label is the label of the side being measured, which a
// baseline cannot share. ptrs may be nil when the plan saves nothing.
func (p Plan) Open(ctx context.Context, dir, label string, ptrs Pointers) (*Lifecycle, error) {
	l := &Lifecycle{Plan: p, Pointers: ptrs, side: label}
	if p.UpdateOnPass && p.Compare == "" {
		return nil, errors.New("updating a baseline on pass needs a baseline to compare with")
	}
	if p.Save != "" {
		if err := CheckName(p.Save); err != nil {
			return nil, err
		}
		if ptrs == nil {
			return nil, fmt.Errorf("saving baseline %s needs the history store", p.Save)
		}
	}
	if root, err := ModuleRoot(dir); err == nil {
		l.Files = Open(root)
	}
	if p.Compare == "" {
		return l, nil
	}
	// A file, or a results directory's run.json.
	path, isFile := p.Compare, false
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		isFile = true
	} else if err == nil && fi.IsDir() {
		if fi, err := os.Stat(filepath.Join(path, experiment.RunFile)); err == nil && fi.Mode().IsRegular() {
			path, isFile = filepath.Join(path, experiment.RunFile), true
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) && CheckName(p.Compare) != nil {
		return nil, fmt.Errorf("baseline %s: %w", p.Compare, err)
	}
	if CheckName(p.Compare) != nil {
		if !isFile {
			return nil, fmt.Errorf("baseline %q: no such file (or results directory with a %s), and not a baseline name (letters, digits, '.', '_' and '-', starting with a letter or digit)", p.Compare, experiment.RunFile)
		}
		return l, l.openFile(path)
	}
	run, file, err := l.loadNamed(ctx, p.Compare)
	switch {
	case isFile && err == nil:
		return nil, fmt.Errorf("baseline %s is both a file here and a saved baseline: write ./%s for the file, or move it", p.Compare, p.Compare)
	case isFile && errors.Is(err, ErrNotFound):
		return l, l.openFile(path)
	case err != nil:
		return nil, err
	}
	if p.Compare == label {
		return nil, fmt.Errorf("a baseline cannot be named %q, the label of the side being measured", label)
	}
	l.Base, l.Label, l.File, l.named = run, p.Compare, file, true
	return l, nil
}

// openFile loads the baseline file path.
func (l *Lifecycle) openFile(path string) error {
	if l.UpdateOnPass {
		return fmt.Errorf("--update-on-pass replaces a named baseline, and %s is a file, which rigor does not overwrite", path)
	}
	label := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if filepath.Base(path) == experiment.RunFile {
		label = filepath.Base(filepath.Dir(path)) // the results directory's ID
	}
	if label == "" || label == "." || label == string(filepath.Separator) || label == l.side {
		label = "baseline"
	}
	run, err := model.ReadFile(path, label)
	if err != nil {
		return fmt.Errorf("baseline file %s: %w", path, err)
	}
	if len(run.Sides) != 1 {
		return fmt.Errorf("baseline file %s has %d sides; a baseline has one (rigor baseline set NAME RUN --side LABEL picks one of a recorded run)", path, len(run.Sides))
	}
	l.Base, l.Label, l.File = run, run.Sides[0].Label, path
	return nil
}

// loadNamed loads the baseline name: this machine's pointer, else a file
// saved before the history store (file is then its path). When neither
// exists the error says which baselines there are, or that other
// machines have this one.
func (l *Lifecycle) loadNamed(ctx context.Context, name string) (run *model.Run, file string, err error) {
	var perr error = fmt.Errorf("baseline %s: %w", name, ErrNotFound)
	if l.Pointers != nil {
		run, perr = l.Pointers.Load(ctx, name)
		if perr == nil {
			return run, "", nil
		}
		if !errors.Is(perr, ErrNotFound) {
			return nil, "", perr
		}
	}
	if l.Files != nil {
		run, err := l.Files.Load(name)
		if err == nil {
			return run, l.Files.BaselinePath(name), nil
		}
		if !errors.Is(err, ErrNotFound) {
			return nil, "", err
		}
	}
	if errors.Is(perr, ErrOtherMachine) {
		return nil, "", perr
	}
	var have []string
	if l.Pointers != nil {
		if names, err := l.Pointers.Names(ctx); err == nil {
			have = names
		}
	}
	if l.Files != nil {
		if names, err := l.Files.Baselines(); err == nil {
			have = append(have, names...)
		}
	}
	slices.Sort(have)
	have = slices.Compact(have)
	if len(have) == 0 {
		return nil, "", fmt.Errorf("baseline %s: %w on this machine (none saved yet; save one with --save-baseline %s)", name, ErrNotFound, name)
	}
	return nil, "", fmt.Errorf("baseline %s: %w on this machine (saved: %s)", name, ErrNotFound, strings.Join(have, ", "))
}

// Against returns run compared with the loaded baseline (see the function
// Against), or run itself when the plan compares with none.
func (l *Lifecycle) Against(run *model.Run) (*model.Run, error) {
	if l.Base == nil {
		return run, nil
	}
	return Against(l.Base, l.Label, run)
}

// Finish stores run as the plan says, once its comparison has a verdict:
// as Save, and, with UpdateOnPass, as Compare when failed (how many
// comparisons failed the gate) is zero. It returns what it did, one
// sentence each, in order, also when it fails part way. A partial run
// (interrupted) must never reach Finish.
func (l *Lifecycle) Finish(ctx context.Context, run *model.Run, failed int) (done []string, err error) {
	if l.Save != "" {
		where, err := l.Pointers.Save(ctx, l.Save, run, l.side)
		if err != nil {
			return done, err
		}
		done = append(done, fmt.Sprintf("saved baseline %s (%s)", l.Save, where))
	}
	if !l.UpdateOnPass || !l.named {
		return done, nil
	}
	if failed > 0 {
		return append(done, fmt.Sprintf("baseline %s kept: %d %s regressed", l.Compare, failed, words.Plural(failed, "comparison", "comparisons"))), nil
	}
	if l.Pointers == nil {
		// No history store: the file it came from is replaced.
		if err := l.Files.Save(l.Compare, run); err != nil {
			return done, err
		}
		return append(done, fmt.Sprintf("the run passed; baseline %s updated (%s)", l.Compare, l.Files.BaselinePath(l.Compare))), nil
	}
	where, err := l.Pointers.Save(ctx, l.Compare, run, l.side)
	if err != nil {
		return done, err
	}
	return append(done, fmt.Sprintf("the run passed; baseline %s updated (%s)", l.Compare, where)), nil
}

// OneSide returns the run of side label of run: that side, its samples,
// the benchmarks it has samples of or is marked missing on, and the
// observations of it or of no side. It is unpaired. run is not modified.
func OneSide(run *model.Run, label string) (*model.Run, error) {
	i := slices.IndexFunc(run.Sides, func(s model.Side) bool { return s.Label == label })
	if i < 0 {
		return nil, fmt.Errorf("run %s has no side %q", run.ID, label)
	}
	out := *run
	out.Paired = false
	out.Sides = []model.Side{run.Sides[i]}
	out.Benchmarks = nil
	for _, b := range run.Benchmarks {
		nb := b
		nb.Metrics = nil
		nb.Missing = nil
		for _, m := range b.Metrics {
			nm := m
			nm.Samples = nil
			for _, s := range m.Samples {
				if s.Side == label {
					nm.Samples = append(nm.Samples, s)
				}
			}
			if len(nm.Samples) > 0 {
				nb.Metrics = append(nb.Metrics, nm)
			}
		}
		if ms, ok := b.Missing[label]; ok {
			nb.Missing = map[string]model.Missing{label: ms}
		}
		nb.Notes = slices.DeleteFunc(slices.Clone(b.Notes), func(n model.Note) bool { return n.Side != "" && n.Side != label })
		if len(nb.Metrics) > 0 || nb.Missing != nil {
			if nb.Metrics == nil {
				nb.Metrics = []model.Metric{}
			}
			out.Benchmarks = append(out.Benchmarks, nb)
		}
	}
	if out.Benchmarks == nil {
		out.Benchmarks = []model.Benchmark{}
	}
	out.Observations = slices.DeleteFunc(slices.Clone(run.Observations), func(o model.Observation) bool { return o.Side != "" && o.Side != label })
	out.Notes = slices.DeleteFunc(slices.Clone(run.Notes), func(n model.Note) bool { return n.Side != "" && n.Side != label })
	return &out, nil
}
