package gotest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// deadPID is a process id no process can have: above Linux's largest
// pid_max (2^22).
const deadPID = 1<<30 - 1

// setOwner replaces the owner record of the temporary directory dir.
func setOwner(t *testing.T, dir string, edit func(*owner)) {
	t.Helper()
	path := filepath.Join(dir, OwnerFile)
	o, err := readOwner(path)
	if err != nil {
		t.Fatal(err)
	}
	edit(&o)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := writeOwner(path, o); err != nil {
		t.Fatal(err)
	}
}

// TestRemoveStale: the temporary directories and worktrees of a run whose
// process is gone are removed, with one line saying so; those of live
// runs, of other machines, and without an owner record are left alone
// (issue 11, item 10).
func TestRemoveStale(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := newRepo(t, labRev("1"))
	ctx := context.Background()
	killed, err := Checkout(ctx, dir, "HEAD") // never closed, as when killed
	if err != nil {
		t.Fatal(err)
	}
	setOwner(t, killed.tmp, func(o *owner) { o.PID = deadPID })
	live, err := Checkout(ctx, dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	mk := func(edit func(*owner)) string {
		t.Helper()
		d, err := makeTempDir(binPrefix, "")
		if err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			setOwner(t, d, edit)
		}
		return d
	}
	deadBin := mk(func(o *owner) { o.PID = deadPID })
	liveBin := mk(nil)
	elsewhere := mk(func(o *owner) { o.PID, o.Host = deadPID, "elsewhere" })
	// A worktree directory of a killed run that names another worktree
	// than its own is not trusted with git worktree remove.
	forged := mk(func(o *owner) { o.PID, o.Repo, o.Worktree = deadPID, dir, live.worktree })
	unowned, err := os.MkdirTemp("", binPrefix) // an older rigor's
	if err != nil {
		t.Fatal(err)
	}
	if n := worktrees(t, dir); n != 3 {
		t.Fatalf("%d worktrees before, want 3", n)
	}

	var log strings.Builder
	s := &session{cfg: Config{Log: &log}}
	s.removeStale(ctx)

	for _, d := range []string{killed.tmp, deadBin, forged} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s of a dead run still there: %v", d, err)
		}
	}
	for _, d := range []string{live.tmp, liveBin, elsewhere, unowned} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
	if n := worktrees(t, dir); n != 2 {
		t.Errorf("%d worktrees after, want the main one and the live run's", n)
	}
	got := log.String()
	if strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "rigor: removed what 1 killed rigor run left behind: ") ||
		!strings.Contains(got, killed.tmp) || !strings.Contains(got, deadBin) {
		t.Errorf("log %q: want one line naming %s and %s", got, killed.tmp, deadBin)
	}
	log.Reset()
	s.removeStale(ctx)
	if log.Len() != 0 {
		t.Errorf("a second pass removed more: %q", log.String())
	}
}

// TestHelperKilledRun is the run TestKilledRunCleanedUp kills: it stops
// inside Run once measuring begins, its worktree and binaries made.
func TestHelperKilledRun(t *testing.T) {
	dir := os.Getenv("RIGOR_TEST_KILLED_RUN")
	if dir == "" {
		t.Skip("run by TestKilledRunCleanedUp")
	}
	cfg := quick(dir, t, 2, Side{Label: "old", Rev: "HEAD"}, Side{Label: "new", Rev: WorkingTree})
	cfg.Bench = "Work"
	cfg.Progress = func(p Progress) {
		if p.Phase == PhaseCalibrate {
			fmt.Println("calibrating")
			select {} // until killed
		}
	}
	Run(context.Background(), cfg)
}

// TestKilledRunCleanedUp: after kill -9 of a run, the next run removes its
// worktree and temporary directories and says so. Before, they stayed, in
// git worktree list and in the temporary directory.
func TestKilledRunCleanedUp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := newRepo(t, labRev("1"))
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKilledRun$", "-test.v")
	cmd.Env = append(os.Environ(), "RIGOR_TEST_KILLED_RUN="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && sc.Text() != "calibrating" {
	}
	cmd.Process.Kill() // SIGKILL: no deferred cleanup runs
	cmd.Wait()
	left, _ := filepath.Glob(filepath.Join(tmp, "rigor-*"))
	if len(left) != 2 || worktrees(t, dir) != 2 {
		t.Fatalf("the killed run left %q and %d worktrees; want a worktree directory, a binary directory and 2 worktrees", left, worktrees(t, dir))
	}

	var log strings.Builder
	cfg := quick(dir, t, 2, Side{Label: "current", Rev: WorkingTree})
	cfg.Bench, cfg.Log = "Work", &log
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "rigor-*")); len(left) != 0 {
		t.Errorf("left after the next run: %q", left)
	}
	if n := worktrees(t, dir); n != 1 {
		t.Errorf("%d worktrees after the next run, want only the main one", n)
	}
	if !strings.Contains(log.String(), "rigor: removed what 1 killed rigor run left behind: ") {
		t.Errorf("the next run did not say what it removed:\n%s", log.String())
	}
}

func TestProcState(t *testing.T) {
	for _, tt := range []struct {
		stat string
		want byte
	}{
		{"31237 (rigor-wt) Z 1 31237 ...", 'Z'},
		{"1 (a) b) (c) S 0 1", 'S'},
		{"12 (x)", 0},
		{"12 (x)R", 0},
		{"", 0},
	} {
		if got := procState(tt.stat); got != tt.want {
			t.Errorf("procState(%q) = %q, want %q", tt.stat, got, tt.want)
		}
	}
	if !processAlive(os.Getpid()) || processAlive(deadPID) {
		t.Error("this process dead, or an impossible one alive")
	}
}

func FuzzProcState(f *testing.F) {
	f.Add("31237 (rigor-wt) Z 1 31237")
	f.Add("1 (a) b) (c) S 0 1")
	f.Fuzz(func(t *testing.T, stat string) {
		if s := procState(stat); s != 0 && !strings.Contains(stat, ") "+string([]byte{s})) {
			t.Fatalf("state %q not after a ') ' in %q", s, stat)
		}
	})
}
