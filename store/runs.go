package store

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// A RunDir is one results directory under .rigor/runs.
type RunDir struct {
	ID   string
	Path string
	// Time is when the run started: from its ID (NewRunDir names it
	// after the local time), else the directory's modification time.
	Time time.Time
	// Size is the total size of its files in bytes; Modified the time
	// the newest of them (or the directory) was last written.
	Size     int64
	Modified time.Time
}

// runID matches the IDs NewRunDir gives: 20060102-150405, with -N when
// that existed.
var runID = regexp.MustCompile(`^(\d{8}-\d{6})(-\d+)?$`)

// Runs lists the results directories under .rigor/runs, newest first.
// Entries that NewRunDir would not have made (other names, files) are
// not listed: they are the user's.
func (s *Store) Runs() ([]RunDir, error) {
	dir := filepath.Join(s.Dir, "runs")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	var runs []RunDir
	for _, e := range entries {
		m := runID.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		r := RunDir{ID: e.Name(), Path: filepath.Join(dir, e.Name())}
		if err := walkSize(&r); err != nil {
			return nil, fmt.Errorf("listing runs: %w", err)
		}
		if t, err := time.ParseInLocation("20060102-150405", m[1], time.Local); err == nil {
			r.Time = t
		} else {
			r.Time = r.Modified
		}
		runs = append(runs, r)
	}
	slices.SortFunc(runs, func(a, b RunDir) int {
		if c := b.Time.Compare(a.Time); c != 0 {
			return c
		}
		return cmp.Compare(suffix(b.ID), suffix(a.ID))
	})
	return runs, nil
}

// suffix is the -N of an ID made in the same second as another, 1 for
// none.
func suffix(id string) int {
	if m := runID.FindStringSubmatch(id); m != nil && m[2] != "" {
		if n, err := strconv.Atoi(m[2][1:]); err == nil {
			return n
		}
	}
	return 1
}

// walkSize sets r's Size and Modified from its files.
func walkSize(r *RunDir) error {
	return filepath.WalkDir(r.Path, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !d.IsDir() {
			r.Size += info.Size()
		}
		if info.ModTime().After(r.Modified) {
			r.Modified = info.ModTime()
		}
		return nil
	})
}

// A Pruning says which runs to remove: those after the Keep newest and,
// when OlderThan is positive, started more than OlderThan before Now.
type Pruning struct {
	Keep      int
	OlderThan time.Duration
	Now       time.Time
	// DryRun lists what would be removed and removes nothing.
	DryRun bool
	// LockFile, when set, names the file a run keeps in its directory
	// while it runs (gotest.LockFile): a directory that holds it is
	// left, as busy.
	LockFile string
}

// InUse is how recently a run's files must have been written for Prune
// to leave it, as a run that may still be going on.
const InUse = time.Minute

// Prune removes the runs p selects, newest first, and returns those it
// removed (or would remove) and those it left as busy: written to less
// than InUse ago, or holding p.LockFile. A run it fails to remove ends it with the
// error; the runs removed before are returned.
func (s *Store) Prune(p Pruning) (removed, busy []RunDir, err error) {
	if p.Keep < 0 {
		return nil, nil, fmt.Errorf("keep %d runs: want 0 or more", p.Keep)
	}
	runs, err := s.Runs()
	if err != nil {
		return nil, nil, err
	}
	for _, r := range runs[min(p.Keep, len(runs)):] {
		if p.OlderThan > 0 && p.Now.Sub(r.Time) <= p.OlderThan {
			continue
		}
		if p.Now.Sub(r.Modified) < InUse || p.LockFile != "" && exists(filepath.Join(r.Path, p.LockFile)) {
			busy = append(busy, r)
			continue
		}
		if !p.DryRun {
			if err := os.RemoveAll(r.Path); err != nil {
				return removed, busy, fmt.Errorf("removing run %s: %w", r.ID, err)
			}
		}
		removed = append(removed, r)
	}
	return removed, busy, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
