//go:build unix

package execbench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunnerPaths: a run whose standard streams are all files, and one
// whose output goes to a writer through a pipe, both give the command
// this process's environment, its input and output, its exit status, and
// stop it at its timeout.
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
			if m.exit != 3 || m.status() != "exit status 3" || m.usage.PID <= 0 {
				t.Errorf("exit %d (%s), usage %+v; want exit status 3 and the pid", m.exit, m.status(), m.usage)
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

// TestRunEndsWithProcess: a command that leaves a process running in
// the background, holding its output, ends when it exits, not when the
// background process lets go of the pipe (the warm-up waited for sleep
// 1000 until the budget ran out); the measurement names its process
// group, which killPgid kills, and the output written before the end
// still arrives (issue 23 item 5).
func TestRunEndsWithProcess(t *testing.T) {
	for _, tc := range []struct {
		name          string
		capture, kill bool
		inherit       bool
	}{
		{"capture", true, false, false},
		{"capture, kill", true, true, false},
		{"inherit to a buffer", false, false, true},
		{"files, kill", false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			cfg := &Config{Input: InputNull, Output: OutputNull}
			if tc.inherit {
				cfg.Output, cfg.Stdout, cfg.Stderr = OutputInherit, &buf, &buf
			}
			r, err := newRunner(cfg)
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			m, err := r.run(context.Background(), []string{"sh", "-c", "sleep 60 & echo started; echo said >&2"}, 2*time.Minute, tc.capture)
			if err != nil {
				t.Fatal(err)
			}
			if tc.kill {
				killPgid(m.group)
			}
			r.close()
			// Generous: the background sleep would hold the pipe for 60s.
			if d := time.Since(t0); d > 30*time.Second {
				t.Errorf("the run took %v: it waited for the background process", d)
			}
			if m.group == 0 {
				t.Fatal("no process group left running, want sh's with sleep 60 in it")
			}
			if tc.kill {
				// Killed, the sleep is gone once init has reaped it.
				for i := 0; groupAlive(m.group) && i < 300; i++ {
					time.Sleep(100 * time.Millisecond)
				}
			}
			if alive := groupAlive(m.group); alive == tc.kill {
				t.Errorf("group alive %v after the run, kill %v", alive, tc.kill)
			}
			killPgid(m.group)
			if tc.capture && m.tail != "said\n" {
				t.Errorf("captured %q, want the standard error", m.tail)
			}
			if tc.inherit && buf.String() != "started\nsaid\n" {
				t.Errorf("output %q, want what was written before the end", buf.String())
			}
		})
	}
}

// TestRunPipeOutputLeftover: with --output pipe, the runner's pipe held by
// a process a command left does not keep close from returning.
func TestRunPipeOutputLeftover(t *testing.T) {
	r, err := newRunner(&Config{Input: InputNull, Output: OutputPipe})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	m, err := r.run(context.Background(), []string{"sh", "-c", "sleep 60 & echo started"}, 2*time.Minute, false)
	if err != nil {
		t.Fatal(err)
	}
	r.close()
	killPgid(m.group)
	if d := time.Since(t0); d > 30*time.Second {
		t.Errorf("run and close took %v: close waited for the background process", d)
	}
}

// TestRunnerInterrupt: cancelling the context a run runs under stops it
// and its process group at once, and so does a context cancelled before
// the run; the hook one context left does not stop the runs under
// another (the runner keeps one hook per context, not one per run).
func TestRunnerInterrupt(t *testing.T) {
	r, err := newRunner(&Config{Input: InputNull, Output: OutputNull})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	for i := range 2 { // the second run under a new context: a new hook
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		t0 := time.Now()
		_, err := r.run(ctx, []string{"sh", "-c", "sleep 3600 & " + helper + " -sleep 1h"}, time.Hour, false)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("run %d: err = %v, want context.Canceled", i, err)
		}
		if d := time.Since(t0); d > time.Minute {
			t.Errorf("run %d stopped after %v", i, d)
		}
		if r.cur.pid <= 0 {
			t.Fatalf("run %d: no child recorded", i)
		}
		// The whole group was killed, the background sleep too.
		for j := 0; groupAlive(r.cur.pid) && j < 300; j++ {
			time.Sleep(100 * time.Millisecond)
		}
		if groupAlive(r.cur.pid) {
			killPgid(r.cur.pid)
			t.Errorf("run %d: its process group outlived the interrupt", i)
		}
	}
	// Already cancelled: nothing starts.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if m, err := r.run(done, []string{"true"}, time.Minute, false); !errors.Is(err, context.Canceled) || m != nil {
		t.Errorf("under a cancelled context: %v, %v; want context.Canceled", m, err)
	}
	// Under another context, the runs go on: the cancelled contexts'
	// hooks stop nothing else.
	m, err := r.run(context.Background(), []string{helper, "-sleep", "200ms"}, time.Minute, false)
	if err != nil || m.exit != 0 || m.wall < 200*time.Millisecond {
		t.Errorf("after the interrupts: %+v, %v; want a run of 200ms that exits 0", m, err)
	}
}

// TestRunnerStatus: what wait4 reports reaches the measurement: a
// signal's name, the CPU time and peak RSS of a command that spins and
// allocates, the same usage for the observer; a file that cannot be
// executed is a *startError that says why.
func TestRunnerStatus(t *testing.T) {
	r, err := newRunner(&Config{Input: InputNull, Output: OutputNull})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	ctx := context.Background()
	m, err := r.run(ctx, []string{"sh", "-c", "kill -TERM $$"}, time.Minute, false)
	if err != nil || m.exit != -1 || m.status() != "killed by signal terminated" || !m.failed() {
		t.Errorf("a command killed by SIGTERM: %+v, %v", m, err)
	}
	m, err = r.run(ctx, []string{helper, "-spin", "100ms", "-alloc", "64"}, time.Minute, false)
	if err != nil || m.exit != 0 {
		t.Fatal(m, err)
	}
	// The helper spins until it has used 100ms of CPU, however busy the
	// machine: wait4's rusage says at least that, and no more than the
	// run's wall time (one CPU) with a tick's slack.
	if cpu := m.user + m.sys; cpu < 100*time.Millisecond || cpu > m.wall+20*time.Millisecond {
		t.Errorf("CPU %v over %v of wall time, want 100ms or a little more", cpu, m.wall)
	}
	if m.maxRSS < 64<<20 || m.usage.MaxRSSBytes != m.maxRSS || m.usage.UserSec != m.user.Seconds() || m.usage.SystemSec != m.sys.Seconds() {
		t.Errorf("peak RSS %d (want 64 MiB or more), usage %+v against user %v sys %v", m.maxRSS, m.usage, m.user, m.sys)
	}
	bad := filepath.Join(t.TempDir(), "garbage")
	if err := os.WriteFile(bad, []byte("\x00\x01\x02 not a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = r.run(ctx, []string{bad}, time.Minute, false)
	var se *startError
	if !errors.As(err, &se) || se.reason != bad+": exec format error" {
		t.Errorf("a file that is not a program: %v, want %q", err, bad+": exec format error")
	}
}
