package gotest

import (
	"errors"
	"fmt"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LockFile, in the results directory, names the run writing there (an
// owner record) while it runs.
const LockFile = ".rigor.lock"

// lockOut claims the results directory for this run before anything is
// built: it makes it if need be and creates LockFile there, exclusively,
// so that two runs given the same directory never both write to it. It
// refuses, in one line, a directory another run holds or that already
// holds files: a run's results are not overwritten. The lock goes with
// the temporary directories when the run ends.
func (s *session) lockOut() error {
	dir := s.cfg.Out
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating results directory: %w", err)
	}
	lock := filepath.Join(dir, LockFile)
	mine := false
	switch err := writeOwner(lock, thisProcess()); {
	case err == nil:
		mine = true
		s.cleanupDirs = append(s.cleanupDirs, lock)
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("locking results directory: %w", err)
	default:
		if o, err := readOwner(lock); err != nil || !o.dead() {
			who := "another rigor run"
			if err == nil {
				who += fmt.Sprintf(" (pid %d)", o.PID)
			}
			return fmt.Errorf("results directory %s is in use by %s; give another --out", dir, who)
		}
		// A killed run's lock: refused below, as a directory that is
		// not empty.
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reading results directory: %w", err)
	}
	var files []string
	for _, e := range entries {
		if !mine || e.Name() != LockFile {
			files = append(files, e.Name())
		}
	}
	if len(files) > 0 {
		return fmt.Errorf("results directory %s already holds %s; give an empty or new --out, or remove it", dir, words.JoinList(files, 3))
	}
	return nil
}

// OutputDir is the directory, inside the results directory, that keeps
// what the benchmarks printed: SIDE.log per side, each run's output under
// a heading "=== round N: KEY" ("=== calibration: PKG.BenchmarkX" for the
// calibration runs). A benchmark's own output never reaches the side's
// benchmark file, where it could pass for a result.
const OutputDir = "output"

// keepPrinted appends what a run of benchmark key printed on side in round
// (0: calibration) to the side's log in OutputDir, and notes once on the
// benchmark that it printed and where that is kept.
func (s *session) keepPrinted(side, key string, round int, out *Output) {
	if out == nil || strings.TrimSpace(out.Printed) == "" {
		return
	}
	rel := filepath.Join(OutputDir, side+".log")
	heading := fmt.Sprintf("=== round %d: %s\n", round, key)
	if round == 0 {
		heading = fmt.Sprintf("=== calibration: %s\n", key)
	}
	text := heading + out.Printed
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if err := appendFile(filepath.Join(s.cfg.Out, rel), text); err != nil {
		fmt.Fprintf(s.cfg.Log, "rigor: keeping the output of %s: %v\n", key, err)
		return
	}
	bi, ok := s.bench[key]
	if !ok {
		return
	}
	b := &s.run.Benchmarks[bi]
	for _, n := range b.Notes {
		if n.Kind == model.NoteOutput {
			return
		}
	}
	b.Notes = append(b.Notes, model.Note{Kind: model.NoteOutput, Source: source, Benchmark: key,
		Text: fmt.Sprintf("printed output while it ran (kept in %s/SIDE.log in the results directory); what it prints inside its timed loop is measured too.", OutputDir)})
}

// appendFile appends text to the file at path, creating it and its
// directory.
func appendFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
