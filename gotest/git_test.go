package gotest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirty: which changes make the working tree dirty. Whether they
// change what is built is TestBuildFingerprint's.
func TestDirty(t *testing.T) {
	files := labRev("1")
	files["README.md"] = "lab\n"
	files["other/other.go"] = "package other\n"
	dir := newRepo(t, files)
	ctx := context.Background()
	check := func(what string, dirty bool) {
		t.Helper()
		tree, err := Checkout(ctx, dir, WorkingTree)
		if err != nil {
			t.Fatal(err)
		}
		if tree.Dirty != dirty {
			t.Errorf("%s: Dirty = %v, want %v", what, tree.Dirty, dirty)
		}
	}
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	restore := func() {
		t.Helper()
		runGit(t, dir, "checkout", "-q", "--", ".")
		runGit(t, dir, "clean", "-qfdx")
	}

	check("clean", false)
	write(".rigor/runs/1/old.txt", "x")
	check("rigor's own files", false)
	write("README.md", "changed\n")
	check("unrelated file", true)
	write("other/other.go", "package other\n\nvar X = 1\n")
	check("a package ./lab does not import", true)
	restore()
	write("lab/work.go", "package lab\n")
	check("the package's source", true)
	restore()
	write("lab/new_test.go", "package lab\n")
	check("a new file in the package", true)
	restore()
	write("go.mod", labGoMod+"// comment\n")
	check("go.mod", true)
}

func TestCheckoutRevision(t *testing.T) {
	dir := newRepo(t, labRev("1"), labRev("10"))
	ctx := context.Background()
	tree, err := Checkout(ctx, filepath.Join(dir, "lab"), "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(tree.Dir, "work.go"))
	if err != nil {
		t.Fatalf("the tree's directory is not the lab package of HEAD~1: %v", err)
	}
	if want := "const scale = 1\n"; !strings.Contains(string(src), want) {
		t.Errorf("HEAD~1's work.go lacks %q", want)
	}
	if tree.Rev != runGit(t, dir, "rev-parse", "HEAD~1") || tree.Dirty {
		t.Errorf("rev %s dirty %v", tree.Rev, tree.Dirty)
	}
	root := filepath.Dir(filepath.Dir(tree.Dir))
	if err := tree.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("worktree directory %s still there: %v", root, err)
	}
	if n := worktrees(t, dir); n != 1 {
		t.Errorf("%d worktrees after Close", n)
	}
	if err := tree.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := Checkout(ctx, dir, "no-such-branch"); err == nil {
		t.Error("unknown revision checked out")
	}
	if _, err := Checkout(ctx, t.TempDir(), "HEAD"); err == nil {
		t.Error("a revision outside a repository checked out")
	}
	if tree, err := Checkout(ctx, t.TempDir(), WorkingTree); err != nil || tree.Rev != "" {
		t.Errorf("the working tree outside git: %v, rev %q", err, tree.Rev)
	}
}
