package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/store"
)

// defaultKeep is how many runs rigor gc keeps by default.
const defaultKeep = 20

// gcOptions are rigor gc's flags.
type gcOptions struct {
	keep      int
	olderThan string // a duration, or days (30d) or weeks (2w); "" for any age
	dryRun    bool
}

func newGCCmd(s stdio) *cobra.Command {
	var o gcOptions
	cmd := &cobra.Command{
		Use:   "gc [flags]",
		Short: "Remove old result directories under .rigor/runs",
		Long: `gc removes old result directories of rigor ab and rigor run from .rigor/runs
in the module root, and prints each one it removed with its size.

It keeps the --keep newest runs (default 20). With --older-than it removes
only runs that also started longer ago than that (a duration: 720h, 30d,
2w), so "--keep 0 --older-than 30d" removes every run older than 30 days.
A run that holds its lock file (.rigor.lock) or whose files were written to
in the last minute may still be going on: gc leaves it and says so (a run
killed with SIGKILL leaves its lock; remove the file when no rigor runs). Baselines (.rigor/baselines) and anything under
.rigor/runs that rigor did not name are never touched. --dry-run prints what
would be removed and removes nothing.

Exit status: 0, or 2 for bad flags or when a run cannot be removed.`,
		Example: `  rigor gc
  rigor gc --keep 5
  rigor gc --keep 0 --older-than 30d --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runGC(cmd.Context(), &o, s)
		},
	}
	cmd.Flags().IntVar(&o.keep, "keep", defaultKeep, "keep this many of the newest runs")
	cmd.Flags().StringVar(&o.olderThan, "older-than", "", "remove only runs that started longer ago than this `duration` (720h, 30d, 2w)")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "print what would be removed and remove nothing")
	return cmd
}

// runGC removes old result directories from the store of the module that
// holds the working directory, and prints what it removed.
func runGC(_ context.Context, o *gcOptions, s stdio) error {
	if o.keep < 0 {
		return usageErrorf("--keep must be 0 or more, got %d", o.keep)
	}
	var age time.Duration
	if o.olderThan != "" {
		var err error
		if age, err = parseAge(o.olderThan); err != nil {
			return usageErrorf("--older-than: %v", err)
		}
	}
	root, err := store.ModuleRoot(".")
	if err != nil {
		return usageErrorf("%v", err)
	}
	st := store.Open(root)
	removed, busy, err := st.Prune(store.Pruning{Keep: o.keep, OlderThan: age, Now: time.Now(), DryRun: o.dryRun, LockFile: gotest.LockFile})
	out := s.out
	verb := "removed"
	if o.dryRun {
		verb = "would remove"
	}
	var total int64
	for _, r := range removed {
		total += r.Size
		fmt.Fprintf(out, "%s %s (%s, started %s)\n", verb, relPath(root, r.Path), size(r.Size), r.Time.Format("2006-01-02 15:04"))
	}
	for _, r := range busy {
		fmt.Fprintf(out, "kept %s: it holds %s or was written to less than %s ago, so a run may still be writing there\n",
			relPath(root, r.Path), gotest.LockFile, store.InUse)
	}
	if err != nil {
		return usageErrorf("%v", err)
	}
	left, lerr := st.Runs()
	if lerr != nil {
		return usageErrorf("%v", lerr)
	}
	if o.dryRun {
		fmt.Fprintf(out, "%s %d %s (%s); %d would be left\n", verb, len(removed), words.Plural(len(removed), "run", "runs"), size(total), len(left)-len(removed))
	} else {
		fmt.Fprintf(out, "%s %d %s (%s); %d left\n", verb, len(removed), words.Plural(len(removed), "run", "runs"), size(total), len(left))
	}
	return nil
}

// parseAge reads a duration as time.ParseDuration does, and also whole
// days ("30d") and weeks ("2w"). It must be positive.
func parseAge(s string) (time.Duration, error) {
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || !(v > 0) || v*float64(unit) > float64(1<<62) {
				return 0, fmt.Errorf("%q is not a positive duration (720h, 30d, 2w)", s)
			}
			return time.Duration(v * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration (720h, 30d, 2w)", s)
	}
	return d, nil
}

// relPath is path relative to the module root, as a user finds it.
func relPath(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}

// size formats a number of bytes: "512B", "1.0KiB", "12.3MiB".
func size(n int64) string {
	v, units := float64(n), []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for ; v >= 1024 && i < len(units)-1; i++ {
		v /= 1024
	}
	if i == 0 {
		return strconv.FormatInt(n, 10) + "B"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + units[i]
}
