package gotest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// rootRev is a module whose only package is at the repository's root.
func rootRev(scale string) map[string]string {
	return map[string]string{
		"go.mod":      labGoMod,
		"work.go":     strings.Replace(strings.Replace(labWork, "SCALE", scale, 1), "package lab", "package root", 1),
		"lab_test.go": strings.Replace(labTest, "package lab", "package root", 1),
	}
}

func isAA(run *model.Run) bool {
	return slices.ContainsFunc(model.Texts(run.Notes), func(n string) bool { return strings.HasPrefix(n, "A/A run") })
}

// TestAAAtRepositoryRoot: a package at the root of the repository with an
// uncommitted change is not an A/A run. The pathspec rigor used to decide
// it, :(literal,top)., matched nothing, and a real tenfold slowdown was
// reported beside "any verdict other than unchanged is a false alarm".
func TestAAAtRepositoryRoot(t *testing.T) {
	dir := newRepo(t, rootRev("1"))
	writeFiles(t, dir, map[string]string{"work.go": rootRev("10")["work.go"]})
	cfg := quick(dir, t, 2, Side{Label: "old", Rev: "HEAD"}, Side{Label: "new", Rev: WorkingTree})
	cfg.Packages, cfg.Bench = []string{"."}, "Work"
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if isAA(run) {
		t.Errorf("an uncommitted change at the repository root labelled A/A: %q", run.Notes)
	}
}

// TestBuildFingerprint: what changes the fingerprint of ./lab's build and
// what does not, on the working tree and against a checkout of HEAD.
func TestBuildFingerprint(t *testing.T) {
	files := labRev("1")
	files["README.md"] = "lab\n"
	files["other/other.go"] = "package other\n"
	files["lab/testdata/input.txt"] = "input\n"
	dir := newRepo(t, files)
	ctx := context.Background()
	head, err := Checkout(ctx, dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	defer head.Close()
	fingerprint := func(dir string, s Settings) string {
		t.Helper()
		f, err := buildFingerprint(ctx, dir, s, []string{"./lab"})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	base := fingerprint(head.Dir, Settings{})
	restore := func() {
		t.Helper()
		runGit(t, dir, "checkout", "-q", "--", ".")
		runGit(t, dir, "clean", "-qfdx")
	}
	for _, tc := range []struct {
		what  string
		files map[string]string
		same  bool
	}{
		{"clean, in another directory", nil, true},
		{"rigor's own files", map[string]string{".rigor/runs/1/old.txt": "x"}, true},
		{"an unrelated file", map[string]string{"README.md": "changed\n"}, true},
		{"a package ./lab does not import", map[string]string{"other/other.go": "package other\n\nvar X = 1\n"}, true},
		{"a comment in the package's source", map[string]string{"lab/work.go": labRevWork("1") + "// comment\n"}, false},
		{"the package's source", map[string]string{"lab/work.go": labRevWork("10")}, false},
		{"a new test file", map[string]string{"lab/new_test.go": "package lab\n"}, false},
		{"go.mod", map[string]string{"go.mod": labGoMod + "// comment\n"}, false},
		{"the benchmark's input in testdata", map[string]string{"lab/testdata/input.txt": "other input\n"}, false},
		{"a new file in testdata", map[string]string{"lab/testdata/more.txt": "x\n"}, false},
	} {
		writeFiles(t, dir, tc.files)
		if got := fingerprint(dir, Settings{}) == base; got != tc.same {
			t.Errorf("%s: same fingerprint as HEAD = %v, want %v", tc.what, got, tc.same)
		}
		restore()
	}
	// A build tag changes which files are compiled.
	writeFiles(t, dir, map[string]string{"lab/fast.go": "//go:build fast\n\npackage lab\n\nvar fast = true\n"})
	if fingerprint(dir, Settings{}) == fingerprint(dir, Settings{Tags: "fast"}) {
		t.Error("-tags fast, which adds a file, does not change the fingerprint")
	}
	restore()
	// A package that does not load has no fingerprint.
	if _, err := buildFingerprint(ctx, dir, Settings{}, []string{"./nosuch"}); err == nil {
		t.Error("a pattern matching no package has a fingerprint")
	}
	if err := os.WriteFile(filepath.Join(dir, "lab", "bad.go"), []byte("package other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := buildFingerprint(ctx, dir, Settings{}, []string{"./lab"}); err == nil {
		t.Error("a package with two package names has a fingerprint")
	}
}

func labRevWork(scale string) string { return labRev(scale)["lab/work.go"] }

// TestAASameSourceOtherCommit: two commits that differ only in a file no
// benchmark is built from build the same binaries: an A/A run.
func TestAASameSourceOtherCommit(t *testing.T) {
	readme := labRev("1")
	readme["README.md"] = "changed\n"
	dir := newRepo(t, labRev("1"), readme)
	cfg := quick(dir, t, 2, Side{Label: "old", Rev: "HEAD~1"}, Side{Label: "new", Rev: "HEAD"})
	cfg.Bench = "Work"
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !isAA(run) {
		t.Errorf("two commits with the same Go source not labelled A/A: %q", run.Notes)
	}
}
