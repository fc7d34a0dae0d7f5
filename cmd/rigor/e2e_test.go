package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Most tests run commands in process (rigorIn). The tests in this file
// run the rigor binary, for what only a process shows: main's exit codes
// and its handling of signals.

var binary struct {
	once sync.Once
	dir  string // removed by TestMain
	path string
	err  error
	out  []byte
}

// rigorBinary builds the rigor binary once, for the first test that asks.
func rigorBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		if binary.dir, binary.err = os.MkdirTemp("", "rigor-cli-test"); binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "rigor")
		binary.out, binary.err = exec.Command("go", "build", "-o", binary.path, ".").CombinedOutput()
	})
	if binary.err != nil {
		t.Fatalf("building rigor: %v\n%s", binary.err, binary.out)
	}
	return binary.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// TestMainExitCodes: the process exits as execute says (0, 1 for a failed
// gate, 2 for bad input), with the output on the right streams.
func TestMainExitCodes(t *testing.T) {
	bin := rigorBinary(t)
	for _, tt := range []struct {
		args       []string
		code       int
		stdout     string // a substring; "" for none
		stderrLine string // the prefix of every line of stderr; "" for none
	}{
		{[]string{"version"}, exitOK, "rigor ", ""},
		{[]string{"compare", seedBase, seedOpt}, exitOK, "improved", ""},
		{[]string{"compare", "--max-regression", "5", seedOpt, seedBase}, exitGateFail, "regressed", "rigor: gate: "},
		{[]string{"compare", "--bogus", seedBase, seedOpt}, exitUsage, "", "rigor: unknown flag: --bogus"},
		{[]string{"nosuchcmd"}, exitUsage, "", "rigor: unknown command"},
	} {
		cmd := exec.Command(bin, tt.args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		code := 0
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		stderr := errb.String()
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		prefixed := !slices.ContainsFunc(lines, func(l string) bool { return !strings.HasPrefix(l, tt.stderrLine) })
		if code != tt.code || (tt.stdout == "") != (out.Len() == 0) || !strings.Contains(out.String(), tt.stdout) ||
			(tt.stderrLine == "") != (stderr == "") || !prefixed || tt.code == exitUsage && len(lines) != 1 {
			t.Errorf("rigor %s: exit %d, stdout %.100q, stderr %q; want exit %d, stdout with %q, stderr %q...",
				strings.Join(tt.args, " "), code, out.String(), stderr, tt.code, tt.stdout, tt.stderrLine)
		}
	}
}

// Issue 11 item 13: Ctrl-C during a ramp prints the steps that completed
// and exits 2, as the README's table of exit codes says (it exited 0).
func TestRampInterruptExits2(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	cmd := exec.Command(rigorBinary(t), "ramp", "--concurrency", "1,2,4,8", "--warmup", "0", "--duration", "300ms", srv.URL)
	var out strings.Builder
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	// Interrupt once the first step has been reported.
	sc := bufio.NewScanner(stderr)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.HasPrefix(sc.Text(), "rigor ramp: step 1,") {
			cmd.Process.Signal(syscall.SIGINT)
			break
		}
	}
	rest, _ := io.ReadAll(stderr)
	lines = append(lines, strings.Split(strings.TrimSpace(string(rest)), "\n")...)
	err = cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	last := lines[len(lines)-1]
	if code != exitUsage || !strings.HasPrefix(last, "rigor: interrupted during step") || !strings.Contains(last, "partial") {
		t.Fatalf("exit %d (%v), stderr ends %q, want exit 2 and a line saying the result is partial", code, err, last)
	}
	// The partial table: the first step's row at least, and not all four.
	if s := out.String(); !strings.Contains(s, "conc") || !strings.Contains(s, "interrupted during step") {
		t.Errorf("partial table missing:\n%s", s)
	}
}
