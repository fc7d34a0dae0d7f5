package gotest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A test binary built at a commit is taken from the cache the next time,
// for the same commit, settings, layout seed and package only; a tree with
// uncommitted changes is never cached.
func TestCachedBuild(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/c\n\ngo 1.26\n")
	write("c_test.go", "package c\n\nimport \"testing\"\n\nfunc BenchmarkX(b *testing.B) { for b.Loop() {} }\n")
	pkg := Package{ImportPath: "example.com/c", Dir: dir}
	cache, out := t.TempDir(), t.TempDir()
	tree := &Tree{Rev: "0123456789abcdef0123456789abcdef01234567"}
	ctx := t.Context()
	seed7, seed8 := mustLayoutFlags(t, "", 7), mustLayoutFlags(t, "", 8)
	for i, flags := range [][]string{nil, seed7} {
		if _, err := cachedBuild(ctx, cache, tree, Settings{}, flags, pkg, filepath.Join(out, fmt.Sprint(i, ".test"))); err != nil {
			t.Fatal(err)
		}
	}
	// The source no longer builds: only the cache can give a binary.
	write("c_test.go", "package c\n\nfunc broken() { undefinedName() }\n")
	for _, flags := range [][]string{nil, seed7} {
		bin, err := cachedBuild(ctx, cache, tree, Settings{}, flags, pkg, filepath.Join(out, "2.test"))
		if err != nil {
			t.Fatalf("the same commit again, flags %q: %v", flags, err)
		}
		if fi, err := os.Stat(bin.Path); err != nil || fi.Mode()&0o100 == 0 {
			t.Errorf("cached binary %s: %v, mode %v", bin.Path, err, fi.Mode())
		}
		os.Remove(filepath.Join(out, "2.test"))
	}
	var be *BuildError
	for _, c := range []struct {
		what  string
		tree  *Tree
		s     Settings
		flags []string
	}{
		{"other tags", tree, Settings{Tags: "x"}, nil},
		{"other env", tree, Settings{Env: []string{"GOAMD64=v1"}}, nil},
		{"another commit", &Tree{Rev: "f" + tree.Rev[1:]}, Settings{}, nil},
		{"uncommitted changes", &Tree{Rev: tree.Rev, Dirty: true}, Settings{}, nil},
		{"another layout seed", tree, Settings{}, seed8},
		{"the user's own -ldflags", tree, Settings{}, mustLayoutFlags(t, "-ldflags=-s", 7)},
	} {
		if _, err := cachedBuild(ctx, cache, c.tree, c.s, c.flags, pkg, filepath.Join(out, "3.test")); !errors.As(err, &be) {
			t.Errorf("%s: %v, want the build's error (built, not taken from the cache)", c.what, err)
		}
		os.Remove(filepath.Join(out, "3.test"))
	}
}

func mustLayoutFlags(t *testing.T, goflags string, seed int64) []string {
	t.Helper()
	flags, err := layoutFlags(goflags, seed)
	if err != nil {
		t.Fatal(err)
	}
	return flags
}
