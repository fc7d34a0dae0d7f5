package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// importOptions are rigor import's flags.
type importOptions struct {
	store   string
	commit  string
	time    string
	branch  string
	project string
}

func newImportCmd(s stdio) *cobra.Command {
	var opts importOptions
	cmd := &cobra.Command{
		Use:   "import [flags] PATH...",
		Short: "Load results directories, rigor JSON and Go benchmark files into the history store",
		Long: `import records existing results in the history store (created if needed):

  - a results directory of rigor run or rigor ab (.rigor/runs/ID): its
    run.json, or, when a killed run left none that can be read, the
    benchmark files it had written, one per side (SIDE.txt);
  - a rigor JSON file;
  - a file of Go benchmark output, or of 'go test -json' output.

A run directory and rigor JSON carry their sides' commits. A benchmark
file's commit is --commit, or its "commit:" configuration line; its time is
--time (RFC 3339, or Unix seconds), or its "commit-time:" line, or what git
says of the commit. Its branch is --branch, or its "branch:" line, or the
branch checked out. A run recorded before is not recorded twice.

Exit status: 0, or 2 for an unreadable input or store.`,
		Example: `  rigor import .rigor/runs/*
  go test -bench . -count 10 > new.txt && rigor import --commit $(git rev-parse HEAD) new.txt
  rigor import --store postgres://rigor@db/rigor --branch main results.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(cmd.Context(), opts, args, s)
		},
	}
	registerStoreFlag(cmd.Flags(), &opts.store)
	cmd.Flags().StringVar(&opts.commit, "commit", "", "the `revision` benchmark files were measured at (a hash, or anything git rev-parse accepts here)")
	cmd.Flags().StringVar(&opts.time, "time", "", "the commit's `time` (RFC 3339 or Unix seconds), when git cannot say")
	cmd.Flags().StringVar(&opts.branch, "branch", "", "the `branch` the results belong to (default: the file's branch: line, else the branch checked out)")
	cmd.Flags().StringVar(&opts.project, "project", "", "the project `name` (default: the module path)")
	return cmd
}

// runImport records each path in the store.
func runImport(ctx context.Context, opts importOptions, paths []string, s stdio) error {
	var commitTime time.Time
	if opts.time != "" {
		t, err := parseTime(opts.time)
		if err != nil {
			return usageErrorf("--time %q: %v", opts.time, err)
		}
		commitTime = t
	}
	loc, root, err := storeLocation(opts.store)
	if err != nil {
		return err
	}
	// Read everything first: a bad input stops the import before any of
	// it is recorded.
	type input struct {
		path string
		run  *model.Run
		rec  sqlstore.Recording
	}
	var inputs []input
	for _, path := range paths {
		run, err := readImport(path)
		if err != nil {
			return usageErrorf("%v", err)
		}
		rec, err := recording(ctx, root, run)
		if err != nil {
			return usageErrorf("%v", err)
		}
		rec.Source = path
		if opts.project != "" {
			rec.Project = opts.project
		}
		if err := placeFile(ctx, root, run, &rec, opts, commitTime); err != nil {
			return usageErrorf("%s: %v", path, err)
		}
		inputs = append(inputs, input{path, run, rec})
	}
	st, err := openStore(ctx, loc, true)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, in := range inputs {
		got, err := st.Record(ctx, in.run, in.rec)
		if err != nil {
			return usageErrorf("%s: %s", in.path, storeError(err))
		}
		what := "recorded"
		if got.Duplicate {
			what = "already recorded"
		}
		fmt.Fprintf(s.out, "%s: %s as run %d (%d samples, machine %s)\n", in.path, what, got.ID, got.Samples, got.Machine)
		if !slices.ContainsFunc(in.run.Sides, func(sd model.Side) bool { return sd.Rev != "" }) {
			fmt.Fprintf(s.err, "rigor: %s names no commit (no --commit, no commit: line): history and changes show it only with --dirty\n", in.path)
		}
	}
	return nil
}

// readImport reads one input: a results directory, rigor JSON, or a
// benchmark file.
func readImport(path string) (*model.Run, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		run, err := model.ReadFile(path, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
		if err != nil {
			return nil, err
		}
		if len(run.Benchmarks) == 0 {
			return nil, fmt.Errorf("%s: no benchmark results", path)
		}
		return run, nil
	}
	jsonPath := filepath.Join(path, experiment.RunFile)
	if _, err := os.Stat(jsonPath); err != nil {
		return nil, fmt.Errorf("%s: not a results directory (it has no %s)", path, experiment.RunFile)
	}
	run, jerr := model.ReadFile(jsonPath, "")
	if jerr == nil && len(run.Benchmarks) > 0 {
		return run, nil
	}
	// No readable run.json: the benchmark files the run wrote as its
	// samples arrived, one side each.
	files, _ := filepath.Glob(filepath.Join(path, "*.txt"))
	slices.Sort(files)
	var runs []*model.Run
	for _, f := range files {
		r, err := model.ReadFile(f, strings.TrimSuffix(filepath.Base(f), ".txt"))
		if err != nil {
			return nil, err
		}
		if len(r.Benchmarks) > 0 {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		if jerr != nil {
			return nil, jerr
		}
		return nil, fmt.Errorf("%s: no results in this directory (none in %s, no SIDE.txt with benchmark results)", path, experiment.RunFile)
	}
	run, err = model.Merge(runs...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	run.ID = filepath.Base(path)
	return run, nil
}

// placeFile gives the sides of a run read from files their commit, time
// and branch: from the flags, else from the files' configuration lines.
// Runs that carry their sides' commits (rigor JSON of run and ab) keep
// them unless --commit is given.
func placeFile(ctx context.Context, root string, run *model.Run, rec *sqlstore.Recording, opts importOptions, commitTime time.Time) error {
	branch := opts.branch
	if branch == "" {
		if b, err := configValue(run, "branch"); err != nil {
			return err
		} else if b != "" {
			branch = b
		}
	}
	if branch != "" {
		rec.Branch = branch
	}
	commit := opts.commit
	if commit == "" {
		c, err := configValue(run, "commit")
		if err != nil {
			return err
		}
		commit = c
	}
	if commit == "" {
		return nil
	}
	if len(run.Sides) != 1 && opts.commit != "" {
		return fmt.Errorf("--commit names one commit, and this run has %d sides", len(run.Sides))
	}
	if len(run.Sides) != 1 {
		return nil
	}
	when := commitTime
	if when.IsZero() {
		t, err := configValue(run, "commit-time")
		if err != nil {
			return err
		}
		if t != "" {
			if when, err = parseTime(t); err != nil {
				return fmt.Errorf("commit-time %q: %v", t, err)
			}
		}
	}
	dir := root
	if dir == "" {
		dir = "."
	}
	c, known := gitCommit(ctx, dir, commit)
	if !known {
		if !isHash(commit) {
			return fmt.Errorf("commit %q: git does not know it here, and it is not a commit hash", commit)
		}
		c = sqlstore.Commit{Hash: strings.ToLower(commit)}
	}
	if !when.IsZero() {
		c.Time = when
	}
	run.Sides[0].Rev = c.Hash
	rec.Commits[c.Hash] = c
	return nil
}

// configValue returns the value of the configuration line key shared by
// every benchmark of run that has it, "" when none has it, and an error
// when they differ.
func configValue(run *model.Run, key string) (string, error) {
	v := ""
	for _, b := range run.Benchmarks {
		if x, ok := b.Config[key]; ok && x != v {
			if v != "" {
				return "", fmt.Errorf("the file's %s: lines differ (%q, %q): import each %s's results separately", key, v, x, key)
			}
			v = x
		}
	}
	return strings.TrimSpace(v), nil
}

func isHash(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for _, c := range strings.ToLower(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// parseTime reads RFC 3339 or Unix seconds.
func parseTime(s string) (time.Time, error) {
	if secs, err := strconv.ParseInt(s, 10, 64); err == nil {
		if secs < 0 || secs > 1<<40 {
			return time.Time{}, errors.New("not a plausible Unix time")
		}
		return time.Unix(secs, 0), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, errors.New("want RFC 3339 (2026-01-02T15:04:05Z) or Unix seconds")
	}
	return t, nil
}
