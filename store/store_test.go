package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

func sampleRun(label string, values ...float64) *model.Run {
	r := &model.Run{
		SchemaVersion: model.SchemaVersion,
		Kind:          model.KindRun,
		Start:         time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC),
		Sides:         []model.Side{{Label: label, Source: ".", Rev: "0123456789abcdef0123456789abcdef01234567"}},
		Notes:         []model.Note{{Kind: model.NoteRounds, Text: "Stopped after 3 rounds."}},
		Benchmarks: []model.Benchmark{{
			Name: "Build", Procs: 2, Pkg: "example.com/lab",
			Metrics: []model.Metric{{Unit: "sec/op", Better: model.LowerIsBetter}},
		}},
	}
	for i, v := range values {
		r.Benchmarks[0].Metrics[0].Samples = append(r.Benchmarks[0].Metrics[0].Samples,
			model.Sample{Side: label, Round: i + 1, Iters: 1000, Value: v})
	}
	return r
}

func TestSaveLoad(t *testing.T) {
	s := Open(t.TempDir())
	if names, err := s.Baselines(); err != nil || len(names) != 0 {
		t.Fatalf("empty store lists %q, %v", names, err)
	}
	_, err := s.Load("main")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "--save-baseline main") {
		t.Errorf("loading a missing baseline: %v", err)
	}
	run := sampleRun("current", 1e-6, 2e-6, 3e-6)
	if err := s.Save("main", run); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "baselines", "main.json")); err != nil {
		t.Fatalf("baseline not at .rigor/baselines/main.json: %v", err)
	}
	got, err := s.Load("main")
	if err != nil {
		t.Fatal(err)
	}
	if v := got.Benchmarks[0].Metrics[0].Values("current"); !slices.Equal(v, []float64{1e-6, 2e-6, 3e-6}) {
		t.Errorf("loaded samples %v", v)
	}
	// Saving again replaces it, and leaves no temporary file.
	if err := s.Save("main", sampleRun("current", 5e-6)); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load("main"); len(got.Benchmarks[0].Metrics[0].Samples) != 1 {
		t.Errorf("second save did not replace the first")
	}
	if err := s.Save("pr-12.v2", run); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(s.Dir, "baselines"))
	if len(entries) != 2 {
		t.Errorf("baselines directory holds %d files, want 2", len(entries))
	}
	if names, _ := s.Baselines(); !slices.Equal(names, []string{"main", "pr-12.v2"}) {
		t.Errorf("Baselines() = %q", names)
	}
	_, err = s.Load("other")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "saved: main, pr-12.v2") {
		t.Errorf("loading a missing baseline among others: %v", err)
	}
}

// TestFailedSaveKeepsOldBaseline: a save that fails, whether before
// anything is written (a run WriteJSON refuses) or after (the rename),
// leaves the previous baseline as it was and no temporary file behind.
func TestFailedSaveKeepsOldBaseline(t *testing.T) {
	s := Open(t.TempDir())
	if err := s.Save("main", sampleRun("current", 1e-6, 2e-6)); err != nil {
		t.Fatal(err)
	}
	path := s.BaselinePath("main")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("baseline mode %v (%v), want -rw-r--r-- as other result files", fi.Mode(), err)
	}
	dir := filepath.Dir(path)
	leftovers := func() []string {
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}

	// Refused before writing: a sample that belongs to no side.
	bad := sampleRun("current", 3e-6)
	bad.Benchmarks[0].Metrics[0].Samples[0].Side = "nobody"
	if err := s.Save("main", bad); err == nil {
		t.Fatal("saving an invalid run succeeded")
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("a refused save changed the baseline:\n%s", after)
	}
	if names := leftovers(); !slices.Equal(names, []string{"main.json"}) {
		t.Errorf("after a refused save the directory holds %q, want only main.json", names)
	}

	// Failed after writing: the rename onto "other.json", a non-empty
	// directory, fails once the temporary file is complete.
	if err := os.MkdirAll(filepath.Join(dir, "other.json", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Save("other", sampleRun("current", 4e-6)); err == nil {
		t.Fatal("saving over a directory succeeded")
	}
	if names := leftovers(); !slices.Equal(names, []string{"main.json", "other.json"}) {
		t.Errorf("after a failed rename the directory holds %q, want no temporary file", names)
	}
	if got, err := s.Load("main"); err != nil || len(got.Benchmarks[0].Metrics[0].Samples) != 2 {
		t.Errorf("the old baseline no longer loads: %v", err)
	}
}

func TestLoadCorrupt(t *testing.T) {
	s := Open(t.TempDir())
	os.MkdirAll(filepath.Join(s.Dir, "baselines"), 0o755)
	os.WriteFile(s.BaselinePath("bad"), []byte("{not json"), 0o644)
	if _, err := s.Load("bad"); err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("corrupt baseline: %v", err)
	}
}

func TestCheckName(t *testing.T) {
	for _, name := range []string{"main", "v1.2", "pr_12", "A-b"} {
		if err := CheckName(name); err != nil {
			t.Errorf("%q rejected: %v", name, err)
		}
	}
	for _, name := range []string{"", ".hidden", "../x", "a/b", `a\b`, "-x", "a b", strings.Repeat("x", 101)} {
		if err := CheckName(name); err == nil {
			t.Errorf("%q accepted", name)
		}
		if err := Open(t.TempDir()).Save(name, sampleRun("current")); err == nil {
			t.Errorf("saved under %q", name)
		}
	}
}

func TestModuleRoot(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module x\n"), 0o644)
	for _, dir := range []string{root, sub} {
		got, err := ModuleRoot(dir)
		if err != nil || got != root {
			t.Errorf("ModuleRoot(%s) = %q, %v; want %s", dir, got, err, root)
		}
	}
	if _, err := ModuleRoot(t.TempDir()); err == nil {
		t.Error("a directory without go.mod has a module root")
	}
}

func TestNewRunDir(t *testing.T) {
	s := Open(t.TempDir())
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	id1, dir1, err := s.NewRunDir(now)
	if err != nil {
		t.Fatal(err)
	}
	id2, dir2, err := s.NewRunDir(now)
	if err != nil {
		t.Fatal(err)
	}
	if id1 != "20260304-050607" || id2 != "20260304-050607-2" {
		t.Errorf("ids %q, %q", id1, id2)
	}
	if dir1 != filepath.Join(s.Dir, "runs", id1) || dir1 == dir2 {
		t.Errorf("dirs %s, %s", dir1, dir2)
	}
}

func TestAgainst(t *testing.T) {
	base := sampleRun("current", 10e-6, 11e-6, 12e-6)
	// The baseline's own failure is the baseline's, not the current side's.
	base.Benchmarks[0].MarkMissing("current", model.MissingFailed, "panicked (exit status 2) in round 4")
	cur := sampleRun("current", 20e-6, 21e-6, 22e-6)
	cur.Notes = []model.Note{{Kind: model.NoteRounds, Text: "Stopped after 3 rounds."}}
	cur.Paired = true // even a paired run's comparison with a baseline is not
	got, err := Against(base, "main", cur)
	if err != nil {
		t.Fatal(err)
	}
	if got.Paired {
		t.Error("comparison with a baseline is paired")
	}
	if len(got.Sides) != 2 || got.Sides[0].Label != "main" || got.Sides[1].Label != "current" {
		t.Fatalf("sides %+v", got.Sides)
	}
	m := got.Benchmarks[0].Metrics[0]
	if !slices.Equal(m.Values("main"), []float64{10e-6, 11e-6, 12e-6}) || !slices.Equal(m.Values("current"), []float64{20e-6, 21e-6, 22e-6}) {
		t.Errorf("samples %+v", m.Samples)
	}
	if len(got.Notes) != 2 || !strings.Contains(got.Notes[0].Text, "baseline main measured 2026-01-02 15:04 at 0123456789ab") ||
		!strings.Contains(got.Notes[0].Text, "unpaired") || got.Notes[1].Text != "Stopped after 3 rounds." || got.Notes[0].Kind != model.NoteBaseline {
		t.Errorf("notes %q", got.Notes)
	}
	if ms := got.Benchmarks[0].Missing; len(ms) != 1 || ms["main"].Kind != model.MissingFailed {
		t.Errorf("missing = %+v, want the baseline's failure under main only", ms)
	}
	// The inputs are untouched.
	if base.Sides[0].Label != "current" || base.Benchmarks[0].Metrics[0].Samples[0].Side != "current" || len(base.Notes) != 1 ||
		base.Benchmarks[0].Missing["current"].Kind != model.MissingFailed {
		t.Error("Against modified the baseline")
	}
	if _, err := Against(base, "current", cur); err == nil {
		t.Error("a baseline labelled like the current side was accepted")
	}
	two := sampleRun("a")
	two.Sides = append(two.Sides, model.Side{Label: "b"})
	if _, err := Against(two, "main", cur); err == nil {
		t.Error("a two-sided baseline was accepted")
	}
}
