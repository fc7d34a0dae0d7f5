package gotest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// prepare checks the sides out, builds their test binaries and records the
// sides in the run.
func (s *session) prepare(ctx context.Context) error {
	if err := s.claimDirs(ctx); err != nil {
		return err
	}
	s.progress(Progress{Phase: PhaseBuild})
	trees := map[string]*Tree{}
	for _, sd := range s.cfg.Sides {
		t, ok := trees[sd.Rev]
		if !ok {
			var err error
			if t, err = Checkout(ctx, s.cfg.Dir, sd.Rev); err != nil {
				return err
			}
			trees[sd.Rev] = t
		}
		s.sides = append(s.sides, &sideState{Side: sd, tree: t, bins: map[string]*Binary{}, links: map[string][]*Binary{}})
		s.run.Sides = append(s.run.Sides, model.Side{
			Label:     sd.Label,
			Source:    sd.Rev,
			Rev:       t.Rev,
			Dirty:     t.Dirty,
			Tags:      sd.Tags,
			BuildEnv:  sd.Env,
			GCFlags:   sd.GCFlags,
			Toolchain: sd.Toolchain,
			Args:      sd.Args,
		})
	}
	if len(s.sides) == 2 && s.sameBuild(ctx, s.sides[0], s.sides[1]) {
		s.run.Notes = append(s.run.Notes, gotestNote(model.NoteAA, fmt.Sprintf(
			"A/A run: %s and %s build the same source with the same settings, so this run measures the noise floor; any verdict other than unchanged is a false alarm.",
			s.sides[0].Label, s.sides[1].Label)))
	}
	if err := s.build(ctx); err != nil {
		return err
	}
	return s.check(ctx)
}

// mayHaveBenchmarks reports whether path, on some side, declares a
// benchmark that -bench selects, by parsing its test files: a package
// without one is skipped before it is built, so that a TestMain that takes
// long (building a plugin, starting a server) costs nothing. Unparsable
// files leave the answer to the test binary.
func (s *session) mayHaveBenchmarks(pkgs []map[string]Package, path string) bool {
	filter, err := newBenchFilter(s.cfg.Bench)
	if err != nil {
		return true
	}
	for _, side := range pkgs {
		names, ok := declaredBenchmarks(side[path].TestFiles)
		if !ok {
			return true
		}
		for _, n := range names {
			if filter.pattern(n) != "" {
				return true
			}
		}
	}
	return false
}

// nestedModule returns the first of patterns (relative to dir) that names
// a directory with a go.mod of its own below dir's module, or "".
func nestedModule(dir string, patterns []string) string {
	for _, p := range patterns {
		rel := strings.TrimSuffix(strings.TrimSuffix(p, "..."), "/")
		if rel == "" || rel == "." || !strings.HasPrefix(p, ".") {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, rel, "go.mod")); err == nil && !fi.IsDir() {
			return rel
		}
	}
	return ""
}

// lostPackage records that side lacks every benchmark the baseline's
// test binary of pkg has (and -bench selects): its package does not build
// there.
func (s *session) lostPackage(ctx context.Context, pkg, side string) {
	bin := s.sides[0].bins[pkg]
	if bin == nil {
		return
	}
	names, err := bin.Benchmarks(ctx, s.cfg.Timeout)
	if err != nil {
		return
	}
	filter, err := newBenchFilter(s.cfg.Bench)
	if err != nil {
		return
	}
	for _, n := range names {
		if filter.pattern(n) != "" {
			s.run.MarkMissing(pkg, strings.TrimPrefix(n, "Benchmark"), 0, side, model.MissingBuild, "its package does not build on "+side)
		}
	}
}

// lostTests marks the benchmarks the baseline declares in package path
// (those -bench selects) missing on every side where the package has no
// tests, so that the gate sees benchmarks deleted with their package's
// test files as it sees one benchmark deleted.
func (s *session) lostTests(pkgs []map[string]Package, path string, have []string) {
	if !slices.Contains(have, s.sides[0].Label) {
		return // new tests: nothing was lost
	}
	names, ok := declaredBenchmarks(pkgs[0][path].TestFiles)
	filter, err := newBenchFilter(s.cfg.Bench)
	if !ok || err != nil {
		return
	}
	for i, sd := range s.sides[1:] {
		if slices.Contains(have, sd.Label) {
			continue
		}
		for _, n := range names {
			if filter.pattern(n) != "" {
				s.run.MarkMissing(path, strings.TrimPrefix(n, "Benchmark"), 0, sd.Label, model.MissingAbsent, "its package has no tests on "+s.sides[i+1].Label)
			}
		}
	}
}

// build lists the packages on every side and builds the test binaries of
// those present on all of them. A package that fails to build on some side
// is noted with the compiler's output and left out.
func (s *session) build(ctx context.Context) error {
	var order []string
	where := map[string][]string{} // import path -> labels of sides having it
	pkgs := make([]map[string]Package, len(s.sides))
	unmatched := map[string]int{} // what go list names a pattern that matched nothing -> the number of sides where it did not
	var why map[string]string
	for i, sd := range s.sides {
		list, bad, err := listPackages(ctx, sd.tree.Dir, sd.Settings, s.cfg.Packages)
		if err != nil {
			return &ListError{Side: sd.Label, Err: err}
		}
		for p := range bad {
			unmatched[p]++
		}
		why = bad
		pkgs[i] = map[string]Package{}
		for _, p := range list {
			if _, ok := where[p.ImportPath]; !ok {
				order = append(order, p.ImportPath)
			}
			where[p.ImportPath] = append(where[p.ImportPath], sd.Label)
			pkgs[i][p.ImportPath] = p
		}
	}
	// A pattern that names nothing on any side is a typo, as go test
	// says ("directory not found"); one that names nothing on one side
	// only (a package added or deleted) is noted below.
	for _, p := range slices.Sorted(maps.Keys(unmatched)) {
		if _, found := where[p]; unmatched[p] == len(s.sides) && !found {
			return fmt.Errorf("%s: %s", p, strings.TrimPrefix(why[p], "pattern "+p+": "))
		}
	}
	if len(order) == 0 {
		if sub := nestedModule(s.cfg.Dir, s.cfg.Packages); sub != "" {
			return fmt.Errorf("%s is a separate module (it has its own go.mod), which go list does not enter from here: run rigor in it (cd %s && rigor ... ./...)", sub, sub)
		}
		return fmt.Errorf("no packages with tests match %s", strings.Join(s.cfg.Packages, " "))
	}
	var skipped []string
	defer func() {
		if len(skipped) > 0 {
			s.note(model.NoteBuild, "%d %s no benchmark matching %q, so %s not built or run: %s.",
				len(skipped), words.Plural(len(skipped), "package declares", "packages declare"), s.cfg.Bench, words.Plural(len(skipped), "it was", "they were"), words.JoinList(skipped, 5))
			// A package with nothing to run is said as it happens; a
			// report keeps it for -v (not a build that failed).
			s.run.Notes[len(s.run.Notes)-1].Topic = model.TopicSkipped
		}
	}()
	binDir, err := makeTempDir(binPrefix, "")
	if err != nil {
		return err
	}
	s.cleanupDirs = append(s.cleanupDirs, binDir)
	s.binDir = binDir
	for _, sd := range s.sides {
		s.setupWindow(ctx, sd, binDir)
	}
	s.setupCounters()
	if err := s.setupRandom(ctx); err != nil {
		return err
	}
	step := 0
	for _, path := range order {
		if len(where[path]) < len(s.sides) {
			s.note(model.NoteOneSide, "package %s has tests only on %s: not measured.", path, strings.Join(where[path], ", "))
			s.lostTests(pkgs, path, where[path])
			continue
		}
		if !s.mayHaveBenchmarks(pkgs, path) {
			skipped = append(skipped, path)
			continue
		}
		ok := true
		for i, sd := range s.sides {
			step++
			s.progress(Progress{Phase: PhaseBuild, Step: step, Steps: len(order) * len(s.sides), Current: sd.Label + " " + path})
			bin, err := s.buildLayout(ctx, sd, pkgs[i][path], 1)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var be *BuildError
			if errors.As(err, &be) {
				s.note(model.NoteBuild, "package %s does not build on %s, so it is not measured:\n%s", path, sd.Label, indent(words.Tail(be.Output, tailLines)))
				if i > 0 {
					s.lostPackage(ctx, path, sd.Label)
				}
				ok = false
				break
			} else if err != nil {
				return err
			}
			sd.bins[path] = bin
			sd.links[path] = []*Binary{bin}
		}
		if !ok {
			for _, sd := range s.sides {
				delete(sd.bins, path)
				delete(sd.links, path)
			}
			continue
		}
		s.pkgs = append(s.pkgs, path)
	}
	return nil
}
