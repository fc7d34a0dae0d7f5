package gotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// WorkingTree is the revision that names the working tree as it is,
// uncommitted changes included.
const WorkingTree = "."

// A Tree is a source tree to build one side from: the working tree, or a
// revision checked out into a temporary git worktree.
type Tree struct {
	// Dir is the directory inside the tree that corresponds to the
	// directory the tree was opened from; package patterns are resolved
	// there.
	Dir string
	// Rev is the full commit hash ("" outside a git repository); for the
	// working tree it is HEAD's.
	Rev string
	// Dirty is true for a working tree with uncommitted changes.
	Dirty bool

	repo     string // the repository the worktree belongs to
	worktree string // the worktree's root, "" for the working tree
	tmp      string // the temporary directory holding it
}

// Checkout returns the tree of rev as seen from dir. For WorkingTree it is
// dir itself. Any other rev is resolved with git rev-parse and checked out
// with git worktree add --detach into a temporary directory, which Close
// removes.
func Checkout(ctx context.Context, dir, rev string) (*Tree, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	top, gitErr := git(ctx, dir, "rev-parse", "--show-toplevel")
	if rev == WorkingTree {
		t := &Tree{Dir: dir}
		if gitErr == nil {
			t.Rev, _ = git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD")
			t.Dirty = dirty(ctx, dir)
		}
		return t, nil
	}
	if gitErr != nil {
		return nil, fmt.Errorf("revision %q needs a git repository: %w", rev, gitErr)
	}
	hash, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return nil, unknownRevision(ctx, dir, rev)
	}
	rel, err := filepath.Rel(top, dir)
	if err != nil {
		return nil, err
	}
	// Owned by this process, so that the next run removes it if this
	// one is killed before Close.
	tmp, err := makeTempDir(worktreePrefix, top)
	if err != nil {
		return nil, err
	}
	wt := filepath.Join(tmp, worktreeName)
	if _, err := git(ctx, top, "worktree", "add", "--detach", "--quiet", wt, hash); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("checking out %s: %w", rev, err)
	}
	return &Tree{Dir: filepath.Join(wt, rel), Rev: hash, repo: top, worktree: wt, tmp: tmp}, nil
}

// Close removes the tree's worktree, if it has one. It runs even when the
// context the tree was made with has been cancelled.
func (t *Tree) Close() error {
	if t == nil || t.worktree == "" {
		return nil
	}
	_, err := git(context.Background(), t.repo, "worktree", "remove", "--force", t.worktree)
	if rmErr := os.RemoveAll(t.tmp); err == nil {
		err = rmErr
	}
	if err != nil {
		// Leave no stale administrative entry behind.
		git(context.Background(), t.repo, "worktree", "prune")
	}
	t.worktree = ""
	return err
}

// git runs git in dir and returns its trimmed standard output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitRaw(ctx, dir, args...)
	return strings.TrimSpace(out), err
}

// gitRaw runs git in dir and returns its standard output as is.
func gitRaw(ctx context.Context, dir string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return "", fmt.Errorf("git %s: %w", args[0], err)
		}
		return "", errors.New(firstLine(msg))
	}
	return stdout.String(), nil
}

// dirty reports whether the working tree has changes, untracked files
// included, outside rigor's own .rigor directories.
func dirty(ctx context.Context, dir string) bool {
	status, err := gitRaw(ctx, dir, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(status, "\n") {
		if len(line) > 3 && !strings.Contains("/"+line[3:], "/.rigor/") {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
