package gotest

import (
	"context"
	"strings"
	"testing"
)

// TestShallowClone: in a clone of depth 1, HEAD~1 is unknown, and the
// error says why and how to fetch the history (it said only "unknown
// revision"); HEAD still checks out, and a full clone's unknown revision
// keeps the short error.
func TestShallowClone(t *testing.T) {
	src := newRepo(t, labRev("1"), labRev("10"))
	dir := t.TempDir()
	runGit(t, dir, "clone", "-q", "--depth", "1", "file://"+src, "clone")
	clone := dir + "/clone"
	ctx := context.Background()
	_, err := Checkout(ctx, clone, "HEAD~1")
	if err == nil || !strings.Contains(err.Error(), "this clone is shallow") || !strings.Contains(err.Error(), "git fetch --unshallow") {
		t.Errorf("HEAD~1 in a shallow clone: %v", err)
	}
	tree, err := Checkout(ctx, clone, "HEAD")
	if err != nil {
		t.Fatalf("HEAD in a shallow clone: %v", err)
	}
	tree.Close()
	runGit(t, clone, "fetch", "-q", "--unshallow")
	tree, err = Checkout(ctx, clone, "HEAD~1")
	if err != nil {
		t.Fatalf("HEAD~1 after --unshallow: %v", err)
	}
	tree.Close()
	if _, err := Checkout(ctx, clone, "no-such"); err == nil || err.Error() != `unknown revision "no-such"` {
		t.Errorf("a full clone's unknown revision: %v", err)
	}
}
