package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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

func TestPlanOpenRefuses(t *testing.T) {
	_, sub := module(t)
	for _, tt := range []struct {
		name string
		plan Plan
		want string
	}{
		{"update without a baseline", Plan{Save: "main", UpdateOnPass: true}, "needs a baseline"},
		{"bad save name", Plan{Save: "../x"}, "invalid baseline name"},
		{"bad compare name", Plan{Compare: ".hidden"}, "invalid baseline name"},
		{"no such baseline", Plan{Compare: "main"}, "no such baseline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := tt.plan.Open(sub, "current")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open = %+v, %v; want an error saying %q", l, err, tt.want)
			}
		})
	}
	if _, err := (Plan{Save: "main"}).Open(t.TempDir(), "current"); err == nil || !strings.Contains(err.Error(), "no go.mod") {
		t.Errorf("outside a module: %v, want no go.mod", err)
	}
	// No baselines: nothing is opened, and no module is needed.
	if l, err := (Plan{}).Open(t.TempDir(), "current"); err != nil || l.Store != nil || l.Base != nil {
		t.Errorf("empty plan: %+v, %v", l, err)
	}
}

// TestLifecycle follows rigor run's baselines: save one, compare with it
// (unpaired, under the baseline's name), keep it when the run failed the
// gate and replace it when the run passed.
func TestLifecycle(t *testing.T) {
	root, sub := module(t)
	path := filepath.Join(root, DirName, "baselines", "main.json")

	l, err := Plan{Save: "main"}.Open(sub, "current")
	if err != nil {
		t.Fatal(err)
	}
	first := sampleRun("current", 1e-6, 2e-6, 3e-6)
	done, err := l.Finish(first, 0)
	if err != nil || !slices.Equal(done, []string{"saved baseline main (" + path + ")"}) {
		t.Fatalf("save: %q, %v", done, err)
	}

	// A baseline named as the measured side is refused once loaded.
	if _, err := (Plan{Compare: "main"}).Open(sub, "main"); err == nil || !strings.Contains(err.Error(), "label of the side being measured") {
		t.Errorf("baseline named as the side: %v", err)
	}

	l, err = Plan{Compare: "main", UpdateOnPass: true}.Open(sub, "current")
	if err != nil {
		t.Fatal(err)
	}
	if l.Base == nil || len(l.Base.Benchmarks) != 1 {
		t.Fatalf("baseline not loaded: %+v", l.Base)
	}
	second := sampleRun("current", 4e-6, 5e-6, 6e-6)
	cmp, err := l.Against(second)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Paired || len(cmp.Sides) != 2 || cmp.Sides[0].Label != "main" || cmp.Sides[1].Label != "current" {
		t.Errorf("comparison: paired %v, sides %+v; want unpaired main, current", cmp.Paired, cmp.Sides)
	}

	before, _ := os.ReadFile(path)
	done, err = l.Finish(second, 2)
	if err != nil || !slices.Equal(done, []string{"baseline main kept: 2 comparisons regressed"}) {
		t.Errorf("failed run: %q, %v", done, err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("a run that failed the gate replaced the baseline")
	}
	done, err = l.Finish(second, 0)
	if err != nil || !slices.Equal(done, []string{"the run passed; baseline main updated"}) {
		t.Errorf("passed run: %q, %v", done, err)
	}
	got, err := l.Store.Load("main")
	if err != nil {
		t.Fatal(err)
	}
	if v := got.Benchmarks[0].Metrics[0].Values("current"); !slices.Equal(v, []float64{4e-6, 5e-6, 6e-6}) {
		t.Errorf("baseline after a passed run holds %v, want the new samples", v)
	}

	// Without a baseline, Against is the run itself.
	if r, err := (&Lifecycle{}).Against(second); r != second || err != nil {
		t.Errorf("Against without a baseline: %p, %v", r, err)
	}
}

// TestLifecycleSaveFails: a save that fails is returned, after what was
// done before it.
func TestLifecycleSaveFails(t *testing.T) {
	root, sub := module(t)
	// A file where the .rigor directory should be: nothing can be saved.
	if err := os.WriteFile(filepath.Join(root, DirName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Plan{Save: "main"}.Open(sub, "current")
	if err != nil {
		t.Fatal(err)
	}
	done, err := l.Finish(sampleRun("current", 1e-6), 0)
	if err == nil || len(done) != 0 || errors.Is(err, ErrNotFound) {
		t.Errorf("save into a file: %q, %v; want the save's error", done, err)
	}
}
