package gotest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// cachedBuild is Build, with the go command flags flags (a layout's
// -ldflags), through the cache directory cache ("" for none): a test
// binary built before for the same commit, settings, flags and package is
// copied to out instead of built again. Only a tree at a commit with no
// uncommitted changes is cached, since its source is named by its hash.
// rigor bisect measures a commit in several steps, against different
// neighbours; the binary each time is the same one.
func cachedBuild(ctx context.Context, cache string, tree *Tree, s Settings, flags []string, pkg Package, out string) (*Binary, error) {
	if cache == "" || tree == nil || tree.Rev == "" || tree.Dirty {
		return buildWith(ctx, s, flags, pkg, out)
	}
	rel := pkg.ImportPath
	path := filepath.Join(cache, buildKey(tree.Rev, s, flags, rel)+".test")
	if err := copyFile(path, out); err == nil {
		return &Binary{Path: out, Pkg: pkg, Env: s.environ(), Args: s.Args}, nil
	}
	bin, err := buildWith(ctx, s, flags, pkg, out)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cache, 0o755); err == nil {
		// Written under a temporary name and renamed, so that a reader
		// never copies half a binary.
		tmp := path + ".tmp"
		if copyFile(out, tmp) == nil {
			os.Rename(tmp, path)
		}
		os.Remove(tmp)
	}
	return bin, nil
}

// buildKey names a test binary by what it is built from: the commit, the
// build settings (the overlay only by whether there is one: it follows
// from the toolchain, which the commit's go.mod and s.Toolchain fix), the
// go command's other flags (a layout's -ldflags, with its -randlayout
// seed and the user's own -ldflags) and the package.
func buildKey(rev string, s Settings, flags []string, importPath string) string {
	h := sha256.New()
	fmt.Fprintf(h, "rev %s\ntags %q\ngcflags %q\ntoolchain %q\noverlay %t\npkg %s\nenv %q\n",
		rev, s.Tags, s.GCFlags, s.Toolchain, s.Overlay != "", importPath, strings.Join(s.Env, "\x00"))
	if len(flags) > 0 {
		// Only then: a binary linked with the linker's own layout keeps
		// the key it had before layouts.
		fmt.Fprintf(h, "flags %q\n", strings.Join(flags, "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// copyFile copies src to dst, executable, hard-linking when it can.
func copyFile(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	o, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(o, in); err != nil {
		o.Close()
		os.Remove(dst)
		return err
	}
	return o.Close()
}
