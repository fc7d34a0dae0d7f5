// Package store keeps rigor's files in the module root: result
// directories under .rigor/runs/ID/, and baselines saved as files under
// .rigor/baselines/NAME.json (by the in-process harness, and by rigor run
// before the history store). A Plan says what one run does with
// baselines, and its Lifecycle carries them from loading to saving
// (lifecycle.go): rigor run's named baselines are pointers into the
// history store (Pointers, which the command implements over package
// sqlstore: this package opens no database), and a baseline can also be
// any results file.
package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rigorbench/rigor/model"
)

// DirName is the directory, in the module root, that holds rigor's files.
const DirName = ".rigor"

// ModuleRoot returns the directory of the go.mod file that governs dir:
// dir itself or its nearest ancestor with one.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		if fi, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !fi.IsDir() {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod in %s or any parent directory", dir)
		}
		d = parent
	}
}

// A Store is the .rigor directory of one module.
type Store struct {
	// Dir is the .rigor directory.
	Dir string
}

// Open returns the store of the module whose root is root. Nothing is
// created until something is saved.
func Open(root string) *Store {
	return &Store{Dir: filepath.Join(root, DirName)}
}

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// CheckName reports whether name can name a baseline: letters, digits,
// '.', '_' and '-', not starting with a punctuation mark.
func CheckName(name string) error {
	if !validName.MatchString(name) || len(name) > 100 {
		return fmt.Errorf("invalid baseline name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	}
	return nil
}

// create makes dir, inside the store, with the store itself. A store
// made here gets a .gitignore of "*", so that rigor's files do not show
// up as untracked in the user's repository; one that exists is left as
// it is (the user may have edited it to commit baselines).
func (s *Store) create(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(s.Dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString(gitignore)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// gitignore is what the store's .gitignore holds: ignore everything in it.
const gitignore = "*\n"

// BaselinePath is the file of the baseline name.
func (s *Store) BaselinePath(name string) string {
	return filepath.Join(s.Dir, "baselines", name+".json")
}

// Save stores run as the baseline name, replacing any previous one. The
// file is replaced atomically: the new version is written to a temporary
// file, flushed to disk and renamed over the old one, so that a crash (of
// rigor or of the machine) leaves the old or the new one, never half of
// either, and a failed save leaves the old one as it was.
func (s *Store) Save(name string, run *model.Run) error {
	if err := CheckName(name); err != nil {
		return err
	}
	path := s.BaselinePath(name)
	if err := s.create(filepath.Dir(path)); err != nil {
		return fmt.Errorf("saving baseline %s: %w", name, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+name+"-*.json")
	if err != nil {
		return fmt.Errorf("saving baseline %s: %w", name, err)
	}
	err = run.WriteJSON(tmp)
	if err == nil {
		err = tmp.Chmod(0o644) // as os.Create would, not CreateTemp's 0600
	}
	if err == nil {
		// Without it a machine crash soon after the rename can leave an
		// empty file in place of both versions.
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("saving baseline %s: %w", name, err)
	}
	return nil
}

// ErrNotFound is returned by Load for a baseline that was never saved.
var ErrNotFound = errors.New("no such baseline")

// Load reads the baseline name.
func (s *Store) Load(name string) (*model.Run, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	f, err := os.Open(s.BaselinePath(name))
	if errors.Is(err, fs.ErrNotExist) {
		have, _ := s.Baselines()
		if len(have) == 0 {
			return nil, fmt.Errorf("baseline %s: %w (none saved yet; save one with --save-baseline %s)", name, ErrNotFound, name)
		}
		return nil, fmt.Errorf("baseline %s: %w (saved: %s)", name, ErrNotFound, strings.Join(have, ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", name, err)
	}
	defer f.Close()
	run, err := model.ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("baseline %s (%s): %w", name, f.Name(), err)
	}
	return run, nil
}

// Baselines lists the saved baselines' names, sorted.
func (s *Store) Baselines() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(s.Dir, "baselines"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() && CheckName(n) == nil {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// NewRunDir creates a fresh results directory under .rigor/runs, named
// after t (20060102-150405, with a suffix when that exists), and returns
// its ID and path.
func (s *Store) NewRunDir(t time.Time) (id, dir string, err error) {
	runs := filepath.Join(s.Dir, "runs")
	if err := s.create(runs); err != nil {
		return "", "", fmt.Errorf("creating results directory: %w", err)
	}
	base := t.Format("20060102-150405")
	for i := 1; ; i++ {
		id = base
		if i > 1 {
			id = fmt.Sprintf("%s-%d", base, i)
		}
		dir = filepath.Join(runs, id)
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return id, dir, nil
		}
		if !errors.Is(err, fs.ErrExist) || i >= 1000 {
			return "", "", fmt.Errorf("creating results directory: %w", err)
		}
	}
}

// Against returns a run comparing current with baseline, saved under name:
// the baseline's single side, relabelled label, comes first. The rounds of
// the two were not run together, so the result is unpaired, and a note
// says so; the caller says, in the result's Sessions, what is known of
// how results vary between sessions. Neither input is modified.
func Against(baseline *model.Run, label string, current *model.Run) (*model.Run, error) {
	if len(baseline.Sides) != 1 {
		return nil, fmt.Errorf("baseline %s has %d sides; a baseline has one", label, len(baseline.Sides))
	}
	base := baseline.Relabel(baseline.Sides[0].Label, label)
	for _, sd := range current.Sides {
		if sd.Label == label {
			return nil, fmt.Errorf("baseline label %q is also a side of the current run", label)
		}
	}
	// The baseline's own notes describe its run, not this comparison.
	base.Notes = nil
	run, err := model.Merge(base, current)
	if err != nil {
		return nil, err
	}
	run.Kind = current.Kind
	run.Paired = false
	run.ID, run.Command, run.Env = current.ID, current.Command, current.Env
	when := ""
	if !baseline.Start.IsZero() {
		when = " measured " + baseline.Start.Format("2006-01-02 15:04")
	}
	if r := baseline.Sides[0].Rev; r != "" {
		when += " at " + shortRev(r)
		if baseline.Sides[0].Dirty {
			when += " (with uncommitted changes)"
		}
	}
	run.Notes = append([]model.Note{{Kind: model.NoteBaseline, Source: "store", Text: fmt.Sprintf(
		"Compared with the baseline %s%s. Its rounds were not run together with these: the comparison is unpaired, across sessions.",
		label, when)}}, run.Notes...)
	return run, nil
}

func shortRev(r string) string {
	if len(r) > 12 {
		return r[:12]
	}
	return r
}
