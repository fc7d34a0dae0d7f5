package gotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/rigorbench/rigor/internal/words"
)

// Settings are one side's build and run settings.
type Settings struct {
	// Tags is the -tags list.
	Tags string
	// Env holds KEY=VALUE pairs added to the environment of both the
	// build and the test binary (GOGC, GODEBUG, GOAMD64, ...).
	Env []string
	// GCFlags is the -gcflags value.
	GCFlags string
	// Toolchain is a GOTOOLCHAIN value ("go1.25.3", "local"), "" for the
	// toolchain in use.
	Toolchain string
	// Overlay is the go command -overlay file Build passes ("" for
	// none): the timer overlay of package window, which a session makes
	// for each side's toolchain. Equal leaves it out: it follows from the
	// toolchain.
	Overlay string
	// Args are passed to every run of the side's test binaries after
	// rigor's own flags, as go test -args passes them: the benchmarks'
	// own flags (-benchdataDir=testdata). See CheckArgs.
	Args []string
}

// Equal reports whether s and t build and run the same way.
func (s Settings) Equal(t Settings) bool {
	return s.Tags == t.Tags && s.GCFlags == t.GCFlags && s.Toolchain == t.Toolchain && slices.Equal(s.Env, t.Env) && slices.Equal(s.Args, t.Args)
}

// environ returns the environment for the go command and the test binary.
// exec.Cmd keeps the last value of a duplicated key, so s.Env wins.
func (s Settings) environ() []string {
	env := append(os.Environ(), s.Env...)
	if s.Toolchain != "" {
		env = append(env, "GOTOOLCHAIN="+s.Toolchain)
	}
	return env
}

// A Package is a package with test files in some tree.
type Package struct {
	ImportPath string
	Dir        string
	// TestFiles are the package's _test.go files (in-package and
	// external), absolute paths.
	TestFiles []string
}

// ListPackages resolves patterns ("./...") in dir with go list and returns
// the packages that have test files, in go list's order.
func ListPackages(ctx context.Context, dir string, s Settings, patterns []string) ([]Package, error) {
	pkgs, _, err := listPackages(ctx, dir, s, patterns)
	return pkgs, err
}

// listPackages is ListPackages, also returning what go list said of each
// pattern that names no package with test files and could not be loaded
// (a directory that does not exist, one with no Go files, an import path
// no module provides), by the pattern as given.
func listPackages(ctx context.Context, dir string, s Settings, patterns []string) ([]Package, map[string]string, error) {
	args := []string{"list", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .TestGoFiles \"\\x00\"}}\t{{join .XTestGoFiles \"\\x00\"}}\t{{with .Error}}{{printf \"%q\" .Err}}{{end}}"}
	if s.Tags != "" {
		args = append(args, "-tags", s.Tags)
	}
	args = append(args, "--")
	args = append(args, patterns...)
	out, err := goCmd(ctx, dir, s, args...)
	if err != nil {
		// One line: go's own complaint (an unknown toolchain, a bad
		// pattern) says more than its exit status.
		msg := strings.Join(strings.Fields(strings.TrimSpace(string(out))), " ")
		if msg == "" {
			msg = strings.SplitN(err.Error(), "\n", 2)[0]
		}
		return nil, nil, fmt.Errorf("go list %s: %s", strings.Join(patterns, " "), msg)
	}
	var pkgs []Package
	unmatched := map[string]string{}
	// Not TrimSpace: a line ends in a tab when the package has no
	// external test files.
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			continue
		}
		if f[2] == "" && f[3] == "" {
			if msg, err := strconv.Unquote(f[4]); err == nil && msg != "" {
				unmatched[f[0]] = strings.Join(strings.Fields(msg), " ")
			}
			continue
		}
		p := Package{ImportPath: f[0], Dir: f[1]}
		for _, name := range strings.Split(f[2]+"\x00"+f[3], "\x00") {
			if name != "" {
				p.TestFiles = append(p.TestFiles, filepath.Join(f[1], name))
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, unmatched, nil
}

// A Binary is a built test binary.
type Binary struct {
	Path string
	Pkg  Package
	// Env is the environment it runs with.
	Env []string
	// Args follow rigor's flags in every run (Settings.Args).
	Args []string
}

// A ListError is a side whose packages go list could not list: its
// go.mod is broken, the toolchain it asks for is not to be had, a pattern
// is malformed. Run returns it before measuring; the side named failed
// first (the sides are listed in order), so a setting that fails on every
// side names the first.
type ListError struct {
	Side string
	Err  error
}

func (e *ListError) Error() string { return e.Side + ": " + e.Err.Error() }

func (e *ListError) Unwrap() error { return e.Err }

// A BuildError is a package that failed to build.
type BuildError struct {
	Pkg    string
	Output string
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("building %s failed:\n%s", e.Pkg, indent(words.Tail(e.Output, tailLines)))
}

// Build compiles pkg's test binary with go test -c into out.
func Build(ctx context.Context, s Settings, pkg Package, out string) (*Binary, error) {
	return buildWith(ctx, s, nil, pkg, out)
}

// buildWith is Build with more go command flags (layoutFlags's).
func buildWith(ctx context.Context, s Settings, flags []string, pkg Package, out string) (*Binary, error) {
	args := []string{"test", "-c", "-o", out}
	if s.Tags != "" {
		args = append(args, "-tags", s.Tags)
	}
	if s.GCFlags != "" {
		args = append(args, "-gcflags", s.GCFlags)
	}
	if s.Overlay != "" {
		// go vet of some releases (go1.22) reads package testing's
		// files from disk, where the overlay's added file is not.
		args = append(args, "-overlay", s.Overlay, "-vet=off")
	}
	args = append(args, flags...)
	args = append(args, ".")
	if output, err := goCmd(ctx, pkg.Dir, s, args...); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// Ctrl-C reaches the go command with rigor, often before rigor's
		// context hears of it: a build stopped by a signal was
		// interrupted, not broken.
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return nil, fmt.Errorf("building %s: the go command was stopped by %v: %w", pkg.ImportPath, ws.Signal(), context.Canceled)
			}
		}
		return nil, &BuildError{Pkg: pkg.ImportPath, Output: string(output)}
	}
	if _, err := os.Stat(out); err != nil {
		return nil, &BuildError{Pkg: pkg.ImportPath, Output: "go test -c wrote no binary"}
	}
	return &Binary{Path: out, Pkg: pkg, Env: s.environ(), Args: s.Args}, nil
}

// goCmd runs the go command in dir. On failure it returns the combined
// output and an error quoting its tail.
func goCmd(ctx context.Context, dir string, s Settings, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = s.environ()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		combined := stdout.String() + stderr.String()
		return []byte(combined), fmt.Errorf("%w\n%s", err, words.Tail(combined, tailLines))
	}
	return stdout.Bytes(), nil
}

// binaryName is a file name for pkg's test binary on side.
func binaryName(side, importPath string) string {
	r := strings.NewReplacer("/", "_", "\\", "_", ":", "_", ".", "_")
	return filepath.Clean(side + "-" + r.Replace(importPath) + ".test")
}

// tailLines is how much of a failure's output is quoted.
const tailLines = 20

// indent indents every line of s by four spaces, so that quoted output
// stands apart in a list of notes.
func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
