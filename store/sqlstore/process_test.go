package sqlstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests below run this test binary as separate writer processes: a
// second process is what SQLite's locking and a real kill -9 are about.
const (
	envChild  = "RIGOR_SQLSTORE_CHILD"
	envLoc    = "RIGOR_SQLSTORE_LOC"
	envFirst  = "RIGOR_SQLSTORE_FIRST"
	envRuns   = "RIGOR_SQLSTORE_RUNS"
	envBench  = "RIGOR_SQLSTORE_BENCH"
	envRounds = "RIGOR_SQLSTORE_ROUNDS"
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "writer" {
		os.Exit(writer())
	}
	os.Exit(m.Run())
}

// writer records runs first, first+1, ... (forever when RIGOR_SQLSTORE_RUNS
// is 0), printing each one's number once it is committed.
func writer() int {
	atoi := func(k string) int { n, _ := strconv.Atoi(os.Getenv(k)); return n }
	ctx := context.Background()
	s, err := Open(ctx, os.Getenv(envLoc), Options{Create: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	first, n := atoi(envFirst), atoi(envRuns)
	for i := first; n == 0 || i < first+n; i++ {
		run := testRun(uint64(i), fmt.Sprintf("%040x", i), atoi(envBench), atoi(envRounds))
		if _, err := s.Record(ctx, run, Recording{Project: "example.com/p", Branch: "main"}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(i)
	}
	return 0
}

func writerCmd(t *testing.T, loc string, first, runs, bench, rounds int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"=writer", envLoc+"="+loc,
		envFirst+"="+strconv.Itoa(first), envRuns+"="+strconv.Itoa(runs),
		envBench+"="+strconv.Itoa(bench), envRounds+"="+strconv.Itoa(rounds))
	return cmd
}

// counts returns the number of runs and of samples in the store, and
// the number of runs whose samples are not all there.
func counts(t *testing.T, s Store, want int) (runs, samples, partial int) {
	t.Helper()
	db := s.(*sqlStore).db
	if err := db.QueryRow(`SELECT count(*) FROM runs`).Scan(&runs); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM samples`).Scan(&samples); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM runs r WHERE
		(SELECT count(*) FROM metrics m JOIN samples s ON s.metric_id = m.id WHERE m.run_id = r.id) <> $1`, want).Scan(&partial); err != nil {
		t.Fatal(err)
	}
	return runs, samples, partial
}

// TestTwoWriters: two processes recording into one store at once lose
// nothing.
func TestTwoWriters(t *testing.T) {
	const perWriter, bench, rounds = 15, 10, 10
	for engine, loc := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			// Neither process has created the store: both migrate it
			// on first use, at once.
			var wg sync.WaitGroup
			errs := make([]error, 2)
			outs := make([]bytes.Buffer, 2)
			for w := range 2 {
				cmd := writerCmd(t, loc, 1+w*perWriter, perWriter, bench, rounds)
				cmd.Stdout, cmd.Stderr = &outs[w], &outs[w]
				wg.Go(func() { errs[w] = cmd.Run() })
			}
			wg.Wait()
			for w, err := range errs {
				if err != nil {
					t.Fatalf("writer %d: %v\n%s", w, err, outs[w].String())
				}
			}
			s := open(t, loc)
			runs, samples, partial := counts(t, s, bench*2*rounds)
			if runs != 2*perWriter || samples != 2*perWriter*bench*2*rounds || partial != 0 {
				t.Errorf("after two writers: %d runs, %d samples, %d partial runs; want %d, %d, 0",
					runs, samples, partial, 2*perWriter, 2*perWriter*bench*2*rounds)
			}
		})
	}
}

// TestKillWhileRecording: a writer killed with SIGKILL in the middle of
// recording leaves a consistent store: every run in it is whole, SQLite's
// integrity check passes, and the store takes new runs.
func TestKillWhileRecording(t *testing.T) {
	const bench, rounds = 50, 40 // 4,000 samples a run: a kill lands mid-transaction
	for engine, loc := range engines(t) {
		t.Run(engine, func(t *testing.T) {
			killed := 0
			for attempt := range 3 {
				var stderr bytes.Buffer
				cmd := writerCmd(t, loc, 1000*(attempt+1), 0, bench, rounds)
				cmd.Stderr = &stderr
				stdout, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				// Let it commit a run or two, then kill it at a moment
				// that differs between attempts.
				committed := bufio.NewScanner(stdout)
				for range 1 + attempt {
					if !committed.Scan() {
						break
					}
				}
				time.Sleep(time.Duration(attempt*7) * time.Millisecond)
				cmd.Process.Signal(syscall.SIGKILL)
				go io.Copy(io.Discard, stdout)
				err = cmd.Wait()
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					killed++
				} else {
					t.Fatalf("writer ended before the kill: %v\n%s", err, stderr.String())
				}
			}
			s := open(t, loc)
			runs, _, partial := counts(t, s, bench*2*rounds)
			if runs < 3 || partial != 0 {
				t.Errorf("after %d kills: %d runs, %d of them partial; want at least 3, none partial", killed, runs, partial)
			}
			if engine == SQLite {
				var check string
				if err := s.(*sqlStore).db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
					t.Errorf("integrity_check: %q, %v", check, err)
				}
				var fk int
				rows, err := s.(*sqlStore).db.Query(`PRAGMA foreign_key_check`)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					fk++
				}
				rows.Close()
				if fk != 0 {
					t.Errorf("%d rows break a foreign key", fk)
				}
			}
			if _, err := s.Record(context.Background(), testRun(99, "ffff", 2, 2), Recording{Project: "example.com/p"}); err != nil {
				t.Errorf("recording after the kills: %v", err)
			}
		})
	}
}
