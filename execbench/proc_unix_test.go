//go:build unix

package execbench

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunnerPaths: a run whose standard streams are all files starts
// from os.StartProcess, any other through exec.Cmd; both give the
// command this process's environment, its input and output, its exit
// status, and stop it at its timeout.
func TestRunnerPaths(t *testing.T) {
	t.Setenv("RIGOR_TEST_ENV", "from rigor")
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, []byte("input"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		capture bool
		inherit bool // --output inherit to a buffer: not a file
	}{
		{"files", false, false},
		{"capture", true, false},
		{"inherit to a buffer", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			var buf bytes.Buffer
			cfg := &Config{Input: in, Output: out}
			if tc.inherit {
				cfg.Output, cfg.Stdout, cfg.Stderr = OutputInherit, &buf, &buf
			}
			r, err := newRunner(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer r.close()
			line := `printf '%s|' "$RIGOR_TEST_ENV"; cat; echo oops >&2; exit 3`
			m, err := r.run(context.Background(), []string{"sh", "-c", line}, time.Minute, tc.capture)
			if err != nil {
				t.Fatal(err)
			}
			if m.exit != 3 || m.status() != "exit status 3" || m.state == nil {
				t.Errorf("exit %d (%s), state %v; want exit status 3", m.exit, m.status(), m.state)
			}
			got := buf.String()
			if !tc.inherit {
				b, _ := os.ReadFile(out)
				got = string(b)
			}
			want := "from rigor|input"
			if !tc.capture {
				want += "oops\n"
			}
			if got != want {
				t.Errorf("output %q, want %q", got, want)
			}
			if tc.capture && m.tail != "oops\n" {
				t.Errorf("captured %q, want the standard error", m.tail)
			}
			// A command past its timeout is stopped.
			t0 := time.Now()
			_, err = r.run(context.Background(), []string{helper, "-sleep", "1h"}, 50*time.Millisecond, tc.capture)
			var se *startError
			if !errors.As(err, &se) || !strings.Contains(se.reason, "ran longer than the timeout of 50ms") {
				t.Errorf("err = %v, want a time-out", err)
			}
			if d := time.Since(t0); d > time.Minute {
				t.Errorf("stopped after %v", d)
			}
		})
	}
}

// TestAllFiles: os.StartProcess takes files only; anything else, nil
// included, goes through exec.Cmd.
func TestAllFiles(t *testing.T) {
	f := os.Stdin
	var typedNil *os.File
	for _, tc := range []struct {
		name           string
		in             *os.File
		stdout, stderr io.Writer
		want           bool
	}{
		{"files", f, os.Stdout, os.Stderr, true},
		{"a buffer", f, &bytes.Buffer{}, os.Stderr, false},
		{"a tail", f, os.Stdout, &tailBuffer{}, false},
		{"no output", f, nil, os.Stderr, false},
		{"a nil file", f, typedNil, os.Stderr, false},
		{"no input", nil, os.Stdout, os.Stderr, false},
	} {
		files, ok := allFiles(tc.in, tc.stdout, tc.stderr)
		if ok != tc.want || ok && len(files) != 3 {
			t.Errorf("%s: %v, %v; want %v", tc.name, files, ok, tc.want)
		}
	}
}
