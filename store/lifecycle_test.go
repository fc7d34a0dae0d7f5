package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// module makes a module root with a go.mod and returns a directory inside
// it, where a command would run.
func module(t *testing.T) (root, sub string) {
	t.Helper()
	root = t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/lab\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub = filepath.Join(root, "pkg")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, sub
}

// pointers is Pointers in memory: this machine's baselines, the names
// other machines have, and an error for Save to fail with.
type pointers struct {
	runs  map[string]*model.Run
	other map[string]bool
	fail  error
	saves int
}

func newPointers() *pointers {
	return &pointers{runs: map[string]*model.Run{}, other: map[string]bool{}}
}

func (p *pointers) Load(_ context.Context, name string) (*model.Run, error) {
	if r, ok := p.runs[name]; ok {
		return r, nil
	}
	if p.other[name] {
		return nil, fmt.Errorf("baseline %s: %w on this machine: it was %w, 0123abcd", name, ErrNotFound, ErrOtherMachine)
	}
	return nil, fmt.Errorf("baseline %s: %w", name, ErrNotFound)
}

func (p *pointers) Save(_ context.Context, name string, run *model.Run, label string) (string, error) {
	if p.fail != nil {
		return "", p.fail
	}
	one, err := OneSide(run, label)
	if err != nil {
		return "", err
	}
	p.runs[name] = one
	p.saves++
	return fmt.Sprintf("run %d in memory", p.saves), nil
}

func (p *pointers) Names(context.Context) ([]string, error) {
	var names []string
	for n := range p.runs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

func TestPlanOpenRefuses(t *testing.T) {
	ctx := context.Background()
	_, sub := module(t)
	t.Chdir(sub)
	file := filepath.Join(sub, "old.json")
	if err := os.WriteFile(file, []byte(`{"schema_version": 2, "kind": "run", "sides": [{"label": "current"}], "benchmarks": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	both := newPointers()
	both.runs["main"] = sampleRun("main", 1)
	if err := os.WriteFile(filepath.Join(sub, "main"), []byte("a binary, say"), 0o644); err != nil {
		t.Fatal(err)
	}
	elsewhere := newPointers()
	elsewhere.other["ci"] = true
	elsewhere.runs["dev"] = sampleRun("dev", 1)
	for _, tt := range []struct {
		name string
		plan Plan
		ptrs Pointers
		want string
	}{
		{"update without a baseline", Plan{Save: "main", UpdateOnPass: true}, newPointers(), "needs a baseline"},
		{"bad save name", Plan{Save: "../x"}, newPointers(), "invalid baseline name"},
		{"save without a store", Plan{Save: "main"}, nil, "needs the history store"},
		{"neither a file nor a name", Plan{Compare: "../x"}, newPointers(), "no such file (or results directory with a run.json), and not a baseline name"},
		{"no such baseline", Plan{Compare: "nothing"}, newPointers(), "no such baseline on this machine (none saved yet"},
		{"no such baseline, others saved", Plan{Compare: "nope"}, elsewhere, "no such baseline on this machine (saved: dev)"},
		{"another machine's", Plan{Compare: "ci"}, elsewhere, "it was saved on another machine, 0123abcd"},
		{"a file and a name", Plan{Compare: "main"}, both, "both a file here and a saved baseline: write ./main"},
		{"a file to update", Plan{Compare: file, UpdateOnPass: true}, newPointers(), "does not overwrite"},
		{"a file of no run", Plan{Compare: "./main"}, both, "baseline file ./main"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := tt.plan.Open(ctx, sub, "current", tt.ptrs)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Open = %+v, %v; want one line saying %q", l, err, tt.want)
			}
		})
	}
	// No baselines: nothing is loaded, and no module is needed.
	if l, err := (Plan{}).Open(ctx, t.TempDir(), "current", nil); err != nil || l.Base != nil {
		t.Errorf("empty plan: %+v, %v", l, err)
	}
}

// TestLifecycle follows rigor run's baselines in the history store: save
// one, compare with it (unpaired, under the baseline's name), keep it when
// the run failed the gate and replace it when the run passed.
func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	_, sub := module(t)
	ptrs := newPointers()
	l, err := Plan{Save: "main"}.Open(ctx, sub, "current", ptrs)
	if err != nil {
		t.Fatal(err)
	}
	first := sampleRun("current", 1e-6, 2e-6, 3e-6)
	done, err := l.Finish(ctx, first, 0)
	if err != nil || !slices.Equal(done, []string{"saved baseline main (run 1 in memory)"}) {
		t.Fatalf("save: %q, %v", done, err)
	}

	// A baseline named as the measured side is refused once loaded.
	if _, err := (Plan{Compare: "main"}).Open(ctx, sub, "main", ptrs); err == nil || !strings.Contains(err.Error(), "label of the side being measured") {
		t.Errorf("baseline named as the side: %v", err)
	}

	l, err = Plan{Compare: "main", UpdateOnPass: true}.Open(ctx, sub, "current", ptrs)
	if err != nil {
		t.Fatal(err)
	}
	if l.Base == nil || len(l.Base.Benchmarks) != 1 || l.Label != "main" || l.File != "" {
		t.Fatalf("baseline not loaded from the store: %+v", l)
	}
	second := sampleRun("current", 4e-6, 5e-6, 6e-6)
	cmp, err := l.Against(second)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Paired || len(cmp.Sides) != 2 || cmp.Sides[0].Label != "main" || cmp.Sides[1].Label != "current" {
		t.Errorf("comparison: paired %v, sides %+v; want unpaired main, current", cmp.Paired, cmp.Sides)
	}

	done, err = l.Finish(ctx, second, 2)
	if err != nil || !slices.Equal(done, []string{"baseline main kept: 2 comparisons regressed"}) || ptrs.saves != 1 {
		t.Errorf("failed run: %q, %v, %d saves", done, err, ptrs.saves)
	}
	done, err = l.Finish(ctx, second, 0)
	if err != nil || !slices.Equal(done, []string{"the run passed; baseline main updated (run 2 in memory)"}) {
		t.Errorf("passed run: %q, %v", done, err)
	}
	if v := ptrs.runs["main"].Benchmarks[0].Metrics[0].Values("current"); !slices.Equal(v, []float64{4e-6, 5e-6, 6e-6}) {
		t.Errorf("baseline after a passed run holds %v, want the new samples", v)
	}

	// Without a baseline, Against is the run itself.
	if r, err := (&Lifecycle{}).Against(second); r != second || err != nil {
		t.Errorf("Against without a baseline: %p, %v", r, err)
	}
}

// TestLifecycleOldFiles: a baseline saved as .rigor/baselines/NAME.json
// before the history store is still found by name, after this machine's
// pointers; --update-on-pass turns it into a pointer, and without a
// history store rewrites the file.
func TestLifecycleOldFiles(t *testing.T) {
	ctx := context.Background()
	root, sub := module(t)
	files := Open(root)
	if err := files.Save("main", sampleRun("current", 1e-6)); err != nil {
		t.Fatal(err)
	}
	ptrs := newPointers()
	l, err := Plan{Compare: "main", UpdateOnPass: true}.Open(ctx, sub, "current", ptrs)
	if err != nil {
		t.Fatal(err)
	}
	if l.File != files.BaselinePath("main") || l.Label != "main" || l.Base == nil {
		t.Fatalf("old baseline file: File %q, Label %q, Base %v", l.File, l.Label, l.Base != nil)
	}
	if done, err := l.Finish(ctx, sampleRun("current", 2e-6), 0); err != nil || !slices.Equal(done, []string{"the run passed; baseline main updated (run 1 in memory)"}) {
		t.Errorf("update: %q, %v; want a pointer", done, err)
	}
	// Now the pointer is found first.
	if l, err := (Plan{Compare: "main"}).Open(ctx, sub, "current", ptrs); err != nil || l.File != "" {
		t.Errorf("after the update: %+v, %v; want the pointer", l, err)
	}
	// Without a history store, the file is replaced.
	l, err = Plan{Compare: "main", UpdateOnPass: true}.Open(ctx, sub, "current", nil)
	if err != nil {
		t.Fatal(err)
	}
	if done, err := l.Finish(ctx, sampleRun("current", 3e-6), 0); err != nil || len(done) != 1 || !strings.Contains(done[0], "main.json") {
		t.Errorf("update without a store: %q, %v", done, err)
	}
	if got, err := files.Load("main"); err != nil || !slices.Equal(got.Benchmarks[0].Metrics[0].Values("current"), []float64{3e-6}) {
		t.Errorf("file after the update: %v", err)
	}
}

// TestLifecycleFile: --baseline FILE reads rigor JSON or Go benchmark
// output, labelled after the file's name ("baseline" when that is the
// measured side's label).
func TestLifecycleFile(t *testing.T) {
	ctx := context.Background()
	_, sub := module(t)
	dir := t.TempDir()
	jsonFile := filepath.Join(dir, "release-1.2.json")
	f, err := os.Create(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := sampleRun("current", 1e-6, 2e-6).WriteJSON(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	txt := filepath.Join(dir, "current.txt")
	if err := os.WriteFile(txt, []byte("pkg: example.com/lab\nBenchmarkBuild-2 \t1000\t1500 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A results directory: its run.json, labelled with the run's ID.
	resDir := filepath.Join(dir, "20260102-150405")
	if err := os.Mkdir(resDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(jsonFile); err != nil || os.WriteFile(filepath.Join(resDir, "run.json"), data, 0o644) != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, label string }{{jsonFile, "release-1.2"}, {txt, "baseline"}, {resDir, "20260102-150405"}} {
		l, err := Plan{Compare: c.path}.Open(ctx, sub, "current", newPointers())
		if err != nil {
			t.Fatal(err)
		}
		if file := strings.TrimSuffix(l.File, string(filepath.Separator)+"run.json"); file != c.path || l.Label != c.label || len(l.Base.Sides) != 1 || l.Base.Sides[0].Label != c.label {
			t.Errorf("%s: File %q, Label %q, sides %+v; want label %q", c.path, l.File, l.Label, l.Base.Sides, c.label)
		}
		cmp, err := l.Against(sampleRun("current", 1e-6))
		if err != nil || len(cmp.Sides) != 2 || cmp.Sides[0].Label != c.label {
			t.Errorf("%s: comparison %v, %v", c.path, cmp, err)
		}
		if done, err := l.Finish(ctx, sampleRun("current", 1e-6), 0); err != nil || len(done) != 0 {
			t.Errorf("%s: Finish without a save did %q, %v", c.path, done, err)
		}
	}
	// A directory without a run.json that has a baseline's name is the
	// baseline.
	t.Chdir(sub)
	if err := os.Mkdir("main", 0o755); err != nil {
		t.Fatal(err)
	}
	ptrs := newPointers()
	ptrs.runs["main"] = sampleRun("main", 1)
	if l, err := (Plan{Compare: "main"}).Open(ctx, sub, "current", ptrs); err != nil || l.File != "" || l.Label != "main" {
		t.Errorf("a directory main and a baseline main: %+v, %v; want the baseline", l, err)
	}
}

// TestLifecycleSaveFails: a save that fails is returned, after what was
// done before it.
func TestLifecycleSaveFails(t *testing.T) {
	ctx := context.Background()
	_, sub := module(t)
	ptrs := newPointers()
	ptrs.fail = errors.New("disk full")
	l, err := Plan{Save: "main"}.Open(ctx, sub, "current", ptrs)
	if err != nil {
		t.Fatal(err)
	}
	done, err := l.Finish(ctx, sampleRun("current", 1e-6), 0)
	if err == nil || len(done) != 0 || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("a failing save: %q, %v; want the save's error", done, err)
	}
}

// TestOneSide: one side of a two-sided run keeps that side's samples,
// missing marks, notes and observations, and what is of no side.
func TestOneSide(t *testing.T) {
	run := sampleRun("old", 1, 2)
	run.Paired = true
	run.Sides = append(run.Sides, model.Side{Label: "new", Rev: "abc"})
	m := &run.Benchmarks[0].Metrics[0]
	m.Samples = append(m.Samples, model.Sample{Side: "new", Round: 1, Iters: 1, Value: 3})
	run.Benchmarks = append(run.Benchmarks,
		model.Benchmark{Name: "OnlyOld", Metrics: []model.Metric{{Unit: "sec/op", Samples: []model.Sample{{Side: "old", Iters: 1, Value: 9}}}}},
		model.Benchmark{Name: "Broken", Metrics: []model.Metric{}, Missing: map[string]model.Missing{"new": {Kind: model.MissingFailed}, "old": {Kind: model.MissingBuild}}})
	run.Benchmarks[0].Notes = []model.Note{{Kind: model.NoteFailure, Side: "old", Text: "old"}, {Kind: model.NoteFailure, Side: "new", Text: "new"}}
	run.Observations = []model.Observation{{Side: "old"}, {Side: "new"}, {}}
	run.Notes = []model.Note{{Kind: model.NoteRounds, Text: "all"}, {Kind: model.NoteFailure, Side: "old", Text: "old"}}

	got, err := OneSide(run, "new")
	if err != nil {
		t.Fatal(err)
	}
	if got.Paired || len(got.Sides) != 1 || got.Sides[0].Label != "new" || got.Sides[0].Rev != "abc" {
		t.Errorf("sides %+v, paired %v", got.Sides, got.Paired)
	}
	var names []string
	for _, b := range got.Benchmarks {
		names = append(names, b.Name)
	}
	if !slices.Equal(names, []string{"Build", "Broken"}) {
		t.Errorf("benchmarks %q, want Build and Broken (OnlyOld has nothing of new)", names)
	}
	if v := got.Benchmarks[0].Metrics[0].Values("new"); !slices.Equal(v, []float64{3}) || len(got.Benchmarks[0].Metrics[0].Samples) != 1 {
		t.Errorf("Build's samples %+v, want new's one", got.Benchmarks[0].Metrics[0].Samples)
	}
	if n := got.Benchmarks[0].Notes; len(n) != 1 || n[0].Text != "new" {
		t.Errorf("Build's notes %+v", n)
	}
	if ms := got.Benchmarks[1].Missing; len(ms) != 1 || ms["new"].Kind != model.MissingFailed {
		t.Errorf("Broken's missing %+v, want new's only", ms)
	}
	if len(got.Observations) != 2 || len(got.Notes) != 1 {
		t.Errorf("observations %+v, notes %+v; want new's and no side's", got.Observations, got.Notes)
	}
	if len(run.Benchmarks) != 3 || len(run.Benchmarks[0].Metrics[0].Samples) != 3 || len(run.Observations) != 3 {
		t.Error("OneSide modified its input")
	}
	if _, err := OneSide(run, "ghost"); err == nil {
		t.Error("OneSide of a side the run does not have: no error")
	}
}
