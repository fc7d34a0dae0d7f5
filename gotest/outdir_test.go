package gotest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestOutRefused: a results directory that holds files, or that another
// live run holds, is refused before anything is built, and left as it was
// (issue 11, item 9). Before, its files were truncated without a word.
func TestOutRefused(t *testing.T) {
	dir := labRepo(t)
	live := fmt.Sprintf(`{"pid":%d,"host":%q,"pid_namespace":%q}`, os.Getpid(), thisProcess().Host, thisProcess().PIDNamespace)
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"a previous run", map[string]string{RunFile: "{}", "old.txt": "BenchmarkX 1 1 ns/op\n"}, "already holds old.txt and run.json"},
		{"anything", map[string]string{"notes.md": "mine"}, "already holds notes.md"},
		{"a live run's lock", map[string]string{LockFile: live}, fmt.Sprintf("is in use by another rigor run (pid %d)", os.Getpid())},
		{"a lock being written", map[string]string{LockFile: ""}, "is in use by another rigor run;"},
		{"a killed run's lock", map[string]string{LockFile: `{"pid":1073741823,"host":"` + thisProcess().Host + `","pid_namespace":"` + thisProcess().PIDNamespace + `"}`}, "already holds .rigor.lock"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := quick(dir, t, 2, Side{Label: "old", Rev: "HEAD"}, Side{Label: "new", Rev: WorkingTree})
			writeFiles(t, cfg.Out, tc.files)
			run, err := Run(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || run != nil {
				t.Fatalf("err = %v, run %v; want one line with %q and no run", err, run != nil, tc.want)
			}
			for name, content := range tc.files {
				if b, err := os.ReadFile(filepath.Join(cfg.Out, name)); err != nil || string(b) != content {
					t.Errorf("%s changed: %q, %v", name, b, err)
				}
			}
			if entries, _ := os.ReadDir(cfg.Out); len(entries) != len(tc.files) {
				t.Errorf("%d files in the results directory, want the %d that were there", len(entries), len(tc.files))
			}
		})
	}
}

// TestOutConcurrent: two runs given the same results directory at the
// same time: one runs, the other is refused, and the lock is gone after.
func TestOutConcurrent(t *testing.T) {
	dir := labRepo(t)
	out := filepath.Join(t.TempDir(), "out")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := quick(dir, t, 2, Side{Label: "old", Rev: "HEAD"}, Side{Label: "new", Rev: WorkingTree})
			cfg.Bench, cfg.Out = "Work", out
			_, errs[i] = Run(context.Background(), cfg)
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("errors %v and %v: want exactly one run refused", errs[0], errs[1])
	}
	for _, err := range errs {
		if err != nil && !strings.Contains(err.Error(), "is in use by another rigor run") && !strings.Contains(err.Error(), "already holds") {
			t.Errorf("refused with %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, LockFile)); !os.IsNotExist(err) {
		t.Errorf("lock left after the run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, RunFile)); err != nil {
		t.Error(err)
	}
}
