package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The store ignores itself in git from its first use, by a baseline or
// a run, and leaves a .gitignore the user edited as it is.
func TestGitignore(t *testing.T) {
	for _, first := range []string{"baseline", "run"} {
		s := Open(t.TempDir())
		var err error
		if first == "baseline" {
			err = s.Save("main", sampleRun("current", 1e-6))
		} else {
			_, _, err = s.NewRunDir(time.Now())
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(s.Dir, ".gitignore"))
		if err != nil || string(b) != "*\n" {
			t.Errorf("after a %s: .gitignore %q, %v; want \"*\\n\"", first, b, err)
		}
		if err := os.WriteFile(filepath.Join(s.Dir, ".gitignore"), []byte("runs/\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.NewRunDir(time.Now()); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(s.Dir, ".gitignore")); string(b) != "runs/\n" {
			t.Errorf("an edited .gitignore was rewritten: %q", b)
		}
	}
}

// makeRuns creates run directories started at the given local times,
// each with a file of size bytes written an hour before now.
func makeRuns(t *testing.T, s *Store, now time.Time, starts ...time.Time) []string {
	t.Helper()
	var ids []string
	for _, st := range starts {
		id, dir, err := s.NewRunDir(st)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, "run.json")
		if err := os.WriteFile(f, make([]byte, 100), 0o644); err != nil {
			t.Fatal(err)
		}
		old := now.Add(-time.Hour)
		for _, p := range []string{f, dir} {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
		ids = append(ids, id)
	}
	return ids
}

func ids(rs []RunDir) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestRunsAndPrune(t *testing.T) {
	now := time.Date(2026, 3, 20, 12, 0, 0, 0, time.Local)
	day := 24 * time.Hour
	s := Open(t.TempDir())
	// Five runs: 10, 5, 3 and 1 days old, and two in the same second
	// a day old (the second one gets -2).
	makeRuns(t, s, now, now.Add(-10*day), now.Add(-5*day), now.Add(-3*day), now.Add(-day), now.Add(-day))
	// Not a run: the user's file and directory stay.
	if err := os.Mkdir(filepath.Join(s.Dir, "runs", "mine"), 0o755); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"20260319-120000-2", "20260319-120000", "20260317-120000", "20260315-120000", "20260310-120000"}
	if got := ids(runs); !slices.Equal(got, want) {
		t.Fatalf("Runs() = %q, want newest first %q", got, want)
	}
	if runs[0].Size != 100 {
		t.Errorf("size %d, want 100", runs[0].Size)
	}

	// Keep 2 and older than 4 days: only the 5- and 10-day-old ones.
	removed, busy, err := s.Prune(Pruning{Keep: 2, OlderThan: 4 * day, Now: now, DryRun: true})
	if err != nil || len(busy) != 0 || !slices.Equal(ids(removed), want[3:]) {
		t.Fatalf("dry run: %q, %q, %v; want %q", ids(removed), ids(busy), err, want[3:])
	}
	if runs, _ := s.Runs(); len(runs) != 5 {
		t.Fatalf("a dry run removed runs: %q left", ids(runs))
	}
	// Keep 2, any age: the three oldest go.
	removed, _, err = s.Prune(Pruning{Keep: 2, Now: now})
	if err != nil || !slices.Equal(ids(removed), want[2:]) {
		t.Fatalf("keep 2: removed %q, %v; want %q", ids(removed), err, want[2:])
	}
	if runs, _ := s.Runs(); !slices.Equal(ids(runs), want[:2]) {
		t.Errorf("left %q, want %q", ids(runs), want[:2])
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "runs", "mine")); err != nil {
		t.Errorf("a directory that is not a run was removed: %v", err)
	}
	// A run written to a moment ago may be going on: kept, and said.
	recent := filepath.Join(runs[1].Path, "new.txt")
	if err := os.WriteFile(recent, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(recent, now.Add(-10*time.Second), now.Add(-10*time.Second)); err != nil {
		t.Fatal(err)
	}
	removed, busy, err = s.Prune(Pruning{Keep: 0, Now: now})
	if err != nil || !slices.Equal(ids(busy), want[1:2]) || !slices.Equal(ids(removed), want[:1]) {
		t.Errorf("keep 0: removed %q, busy %q, %v", ids(removed), ids(busy), err)
	}
	// A run holding the lock file is left too.
	// (runs[1], the one left, written to an hour ago this time.)
	if err := os.WriteFile(filepath.Join(runs[1].Path, ".lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := now.Add(-time.Hour)
	for _, p := range []string{filepath.Join(runs[1].Path, ".lock"), recent, runs[1].Path} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	removed, busy, err = s.Prune(Pruning{Keep: 0, Now: now, LockFile: ".lock", DryRun: true})
	if err != nil || len(removed) != 0 || len(busy) != 1 {
		t.Errorf("locked run: removed %q, busy %q, %v", ids(removed), ids(busy), err)
	}
	if removed, _, _ := s.Prune(Pruning{Keep: 0, Now: now, DryRun: true}); len(removed) != 1 {
		t.Errorf("without a lock file to look for, the run is not removed: %q", ids(removed))
	}
	if _, _, err := s.Prune(Pruning{Keep: -1}); err == nil {
		t.Error("keep -1 accepted")
	}
	// No store at all: nothing to do.
	if removed, _, err := Open(t.TempDir()).Prune(Pruning{Now: now}); err != nil || removed != nil {
		t.Errorf("empty store: %q, %v", ids(removed), err)
	}
}
