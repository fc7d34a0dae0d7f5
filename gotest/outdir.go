package gotest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

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
	const printedNote = "printed output while it ran"
	for _, n := range b.Notes {
		if strings.HasPrefix(n, printedNote) {
			return
		}
	}
	b.Notes = append(b.Notes, fmt.Sprintf("%s (kept in %s); what it prints inside its timed loop is measured too.", printedNote, filepath.ToSlash(rel)))
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
