//go:build unix

package gotest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestBuildInterrupted: a go command stopped by a signal (Ctrl-C reaches
// it with rigor) is an interrupted build, not a package that "does not
// build" with empty compiler output (issue 13 item 4).
func TestBuildInterrupted(t *testing.T) {
	bin := t.TempDir()
	fake := filepath.Join(bin, "go")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nkill -INT $$\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	_, err := Build(context.Background(), Settings{}, Package{ImportPath: "example.com/p", Dir: t.TempDir()}, filepath.Join(t.TempDir(), "p.test"))
	var be *BuildError
	if errors.As(err, &be) || !errors.Is(err, context.Canceled) {
		t.Errorf("Build = %v, want an interrupted build (context.Canceled), not a BuildError", err)
	}
}

func TestNestedModule(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "go.mod"), []byte("module example.com/sub\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "pkg"), 0o755)
	for _, tc := range []struct {
		patterns []string
		want     string
	}{
		{[]string{"./sub"}, "./sub"},
		{[]string{"./pkg", "./sub/..."}, "./sub"},
		{[]string{"./pkg"}, ""},
		{[]string{"."}, ""},
		{[]string{"example.com/sub"}, ""},
	} {
		if got := nestedModule(dir, tc.patterns); got != tc.want {
			t.Errorf("nestedModule(%q) = %q, want %q", tc.patterns, got, tc.want)
		}
	}
}
