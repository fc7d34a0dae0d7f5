package gotest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rigorbench/rigor/internal/words"
)

// The temporary directories a run makes: one per revision checked out,
// holding the git worktree in worktreeName, and one for the test binaries.
// Each holds an OwnerFile naming the process that made it, so that the
// next run can remove what a killed run (kill -9, a crash, a lost
// machine) left behind.
const (
	worktreePrefix = "rigor-worktree-"
	binPrefix      = "rigor-bin-"
	worktreeName   = "tree"
	// OwnerFile, in a temporary directory, records its owner.
	OwnerFile = "owner.json"
)

// An owner is a process that made a temporary directory or holds a
// results directory.
type owner struct {
	PID int `json:"pid"`
	// Host and PIDNamespace say where PID means that process: another
	// machine or container sharing the directory has its own ids.
	Host         string `json:"host"`
	PIDNamespace string `json:"pid_namespace,omitempty"`
	// Repo and Worktree are, for a checked-out revision, the repository
	// and the worktree registered in it.
	Repo     string `json:"repo,omitempty"`
	Worktree string `json:"worktree,omitempty"`
}

// thisProcess returns the owner record of the running process.
func thisProcess() owner {
	host, _ := os.Hostname()
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return owner{PID: os.Getpid(), Host: host, PIDNamespace: ns}
}

// dead reports whether o is a process of this machine and PID namespace
// that no longer runs. When that cannot be told, it is not dead.
func (o owner) dead() bool {
	me := thisProcess()
	return o.Host == me.Host && o.PIDNamespace == me.PIDNamespace && o.PID > 0 && !processAlive(o.PID)
}

// writeOwner creates path, which must not exist, holding o.
func writeOwner(path string, o owner) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	err = json.NewEncoder(f).Encode(o)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readOwner reads an owner record written by writeOwner.
func readOwner(path string) (owner, error) {
	var o owner
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &o)
	}
	return o, err
}

// makeTempDir makes a temporary directory named prefix+random, owned by
// this process. With repo set it is for a worktree of repo, at
// worktreeName inside it.
func makeTempDir(prefix, repo string) (string, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	o := thisProcess()
	if repo != "" {
		o.Repo, o.Worktree = repo, filepath.Join(dir, worktreeName)
	}
	if err := writeOwner(filepath.Join(dir, OwnerFile), o); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// removeStale removes the temporary directories, and the git worktrees
// registered in them, of runs whose process no longer runs, and says in
// one line of the log what it removed.
func (s *session) removeStale(ctx context.Context) {
	removed := removeStale(ctx)
	if len(removed) == 0 {
		return
	}
	pids := map[int]bool{}
	var names []string
	for _, r := range removed {
		pids[r.PID] = true
		names = append(names, r.dir)
	}
	fmt.Fprintf(s.cfg.Log, "rigor: removed what %d killed rigor %s left behind: %s\n",
		len(pids), words.Plural(len(pids), "run", "runs"), strings.Join(names, ", "))
}

type staleDir struct {
	dir string
	owner
}

// removeStale removes the temporary directories whose owner is dead, and
// returns them. A directory with no readable owner file (being made, or
// made by an older rigor) is left alone.
func removeStale(ctx context.Context) []staleDir {
	tmp := os.TempDir()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil
	}
	var removed []staleDir
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, worktreePrefix) && !strings.HasPrefix(name, binPrefix) {
			continue
		}
		dir := filepath.Join(tmp, name)
		if info, err := e.Info(); err != nil || !ownedByMe(info) {
			continue
		}
		o, err := readOwner(filepath.Join(dir, OwnerFile))
		if err != nil || !o.dead() {
			continue
		}
		// Only the worktree the directory was made for.
		if o.Repo != "" && o.Worktree == filepath.Join(dir, worktreeName) {
			git(ctx, o.Repo, "worktree", "remove", "--force", o.Worktree)
		}
		if err := os.RemoveAll(dir); err != nil {
			continue
		}
		if o.Repo != "" {
			git(ctx, o.Repo, "worktree", "prune")
		}
		removed = append(removed, staleDir{dir, o})
	}
	return removed
}

// claimDirs runs first: it removes what killed runs left in the temporary
// directory, and locks the results directory (see lockOut).
func (s *session) claimDirs(ctx context.Context) error {
	s.removeStale(ctx)
	return s.lockOut()
}

// procState returns the state letter of a Linux /proc/PID/stat line,
// "PID (COMM) STATE ...", where COMM may hold spaces and parentheses; 0
// when there is none.
func procState(stat string) byte {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) || stat[i+1] != ' ' {
		return 0
	}
	return stat[i+2]
}
