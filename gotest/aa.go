package gotest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// sameBuild reports whether two sides are an A/A run: they build the same
// test binaries for the measured packages and run them the same way. That
// is decided from what goes into the build, not from revisions or
// pathspecs: the same settings, and the same fingerprint (see
// buildFingerprint) of the packages and their dependencies.
//
// Two sides of one tree with the same settings are the same build. Any
// failure to fingerprint a side (go list failing, a package that does not
// load) is not A/A: the label tells the user that any change is a false
// alarm, so it must never be given wrongly.
func (s *session) sameBuild(ctx context.Context, a, b *sideState) bool {
	if !a.Settings.Equal(b.Settings) {
		return false
	}
	if a.tree == b.tree {
		return true
	}
	fa, err := buildFingerprint(ctx, a.tree.Dir, a.Settings, s.cfg.Packages)
	if err != nil {
		return false
	}
	fb, err := buildFingerprint(ctx, b.tree.Dir, b.Settings, s.cfg.Packages)
	if err != nil {
		return false
	}
	return fa == fb
}

// listedPackage is what buildFingerprint reads of go list -json.
type listedPackage struct {
	ImportPath string
	Name       string
	ForTest    string
	Dir        string
	Standard   bool
	DepOnly    bool
	Module     *struct {
		Path      string
		Version   string
		GoVersion string
		Replace   *struct{ Path, Version string }
	}
	GoFiles, CgoFiles, CFiles, CXXFiles, MFiles, HFiles, FFiles, SFiles []string
	SwigFiles, SwigCXXFiles, SysoFiles, EmbedFiles                      []string
	TestGoFiles, XTestGoFiles, TestEmbedFiles, XTestEmbedFiles          []string
	Error                                                               *struct{ Err string }
	DepsErrors                                                          []*struct{ Err string }
}

// listFields are the -json fields buildFingerprint asks go list for.
const listFields = "ImportPath,Name,ForTest,Dir,Standard,DepOnly,Module," +
	"GoFiles,CgoFiles,CFiles,CXXFiles,MFiles,HFiles,FFiles,SFiles," +
	"SwigFiles,SwigCXXFiles,SysoFiles,EmbedFiles," +
	"TestGoFiles,XTestGoFiles,TestEmbedFiles,XTestEmbedFiles,Error,DepsErrors"

// buildFingerprint returns a hash of everything the test binaries of
// patterns are built from, as seen from dir with settings s, that does not
// depend on where the tree lies: two checkouts of the same source in
// different directories have the same fingerprint (their binaries differ
// only in the absolute paths the linker embeds, so hashing the binaries
// would call no checkout of HEAD an A/A run).
//
// It covers the toolchain go selects (go env GOVERSION, which follows a
// go.mod toolchain line), GOOS, GOARCH, GOFLAGS, GOEXPERIMENT, CGO_ENABLED;
// the contents of go.mod, go.sum, go.work and go.work.sum; and for every
// non-standard package in go list -deps -test, its import path, module
// (path, version, go version, replacement) and the name and contents of
// every file it compiles or embeds, test files and the generated test main
// included. A package from the module cache is identified by its module
// version (the cache is read-only and checked against go.sum) and its file
// names. For each package the patterns name, the files under its testdata
// directory are included too: benchmarks read their inputs from there at
// run time, and different inputs are a different benchmark.
//
// Not covered: files a benchmark reads from elsewhere at run time, and
// the environment both sides share (settings are compared separately).
func buildFingerprint(ctx context.Context, dir string, s Settings, patterns []string) (string, error) {
	h := sha256.New()
	envOut, err := goCmd(ctx, dir, s, "env", "-json", "GOVERSION", "GOOS", "GOARCH", "GOFLAGS", "GOEXPERIMENT", "CGO_ENABLED", "GOMOD", "GOWORK", "GOMODCACHE")
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	var env map[string]string
	if err := json.Unmarshal(envOut, &env); err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	for _, k := range []string{"GOVERSION", "GOOS", "GOARCH", "GOFLAGS", "GOEXPERIMENT", "CGO_ENABLED"} {
		fmt.Fprintf(h, "env %s=%q\n", k, env[k])
	}
	for _, k := range []string{"GOMOD", "GOWORK"} {
		f := env[k]
		if f == "" || f == os.DevNull || f == "off" {
			fmt.Fprintf(h, "%s none\n", k)
			continue
		}
		sum := strings.TrimSuffix(f, ".mod") + ".sum" // go.sum, go.work.sum
		for _, p := range []string{f, sum} {
			fmt.Fprintf(h, "%s %s ", k, filepath.Base(p))
			if err := hashFile(h, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", err
			}
			io.WriteString(h, "\n")
		}
	}

	args := []string{"list", "-e", "-deps", "-test", "-json=" + listFields}
	if s.Tags != "" {
		args = append(args, "-tags", s.Tags)
	}
	out, err := goCmd(ctx, dir, s, append(append(args, "--"), patterns...)...)
	if err != nil {
		return "", fmt.Errorf("go list: %w", err)
	}
	var pkgs []*listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		p := new(listedPackage)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			return "", fmt.Errorf("go list: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	slices.SortStableFunc(pkgs, func(a, b *listedPackage) int { return strings.Compare(a.ImportPath, b.ImportPath) })
	modcache := env["GOMODCACHE"]
	for _, p := range pkgs {
		if p.Error != nil || len(p.DepsErrors) > 0 {
			return "", fmt.Errorf("package %s does not load", p.ImportPath)
		}
		if p.Standard {
			continue // the toolchain's, covered by GOVERSION
		}
		fmt.Fprintf(h, "package %q %q %q\n", p.ImportPath, p.Name, p.ForTest)
		if m := p.Module; m != nil {
			fmt.Fprintf(h, "module %q %q %q", m.Path, m.Version, m.GoVersion)
			if m.Replace != nil {
				fmt.Fprintf(h, " => %q %q", m.Replace.Path, m.Replace.Version)
			}
			io.WriteString(h, "\n")
		}
		cached := modcache != "" && p.Module != nil && p.Module.Version != "" && within(modcache, p.Dir)
		for _, files := range [][]string{p.GoFiles, p.CgoFiles, p.CFiles, p.CXXFiles, p.MFiles, p.HFiles, p.FFiles, p.SFiles,
			p.SwigFiles, p.SwigCXXFiles, p.SysoFiles, p.EmbedFiles, p.TestGoFiles, p.XTestGoFiles, p.TestEmbedFiles, p.XTestEmbedFiles} {
			for _, f := range files {
				name, path := f, filepath.Join(p.Dir, f)
				if filepath.IsAbs(f) {
					name, path = "(generated)", f // the test main, in the build cache
				}
				fmt.Fprintf(h, "file %q ", name)
				if !cached {
					if err := hashFile(h, path); err != nil {
						return "", err
					}
				}
				io.WriteString(h, "\n")
			}
			io.WriteString(h, "|\n")
		}
		if !p.DepOnly && p.ForTest == "" && !cached {
			if err := hashTree(h, filepath.Join(p.Dir, "testdata")); err != nil {
				return "", err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile writes the SHA-256 of path's contents to h.
func hashFile(h io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fh := sha256.New()
	if _, err := io.Copy(fh, f); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	_, err = fmt.Fprintf(h, "%x", fh.Sum(nil))
	return err
}

// hashTree writes the relative name and contents of every file under root
// to h, in lexical order; nothing when root does not exist.
func hashTree(h hash.Hash, root string) error {
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case d.IsDir():
			fmt.Fprintf(h, "dir %q\n", filepath.ToSlash(rel))
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "link %q %q\n", filepath.ToSlash(rel), target)
		case d.Type().IsRegular():
			fmt.Fprintf(h, "data %q ", filepath.ToSlash(rel))
			if err := hashFile(h, path); err != nil {
				return err
			}
			io.WriteString(h, "\n")
		}
		return nil
	})
}

// within reports whether path lies inside dir.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
