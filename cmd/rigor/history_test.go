package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// historyModule writes a module with n benchmark files, one per commit
// (commit:, commit-time: and branch: lines), of two benchmarks: Work
// steps up by 10% at commit 30, Flat does not. It returns the module's
// directory and the files.
func historyModule(t *testing.T, n int) (dir string, files []string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/hist\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for c := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "commit: %s\ncommit-time: %s\nbranch: main\ngoos: linux\ngoarch: amd64\npkg: example.com/hist\ncpu: Test CPU\n",
			hash(c+1), t0.Add(time.Duration(c)*time.Hour).Format(time.RFC3339))
		step := 1.0
		if c >= 30 {
			step = 1.10
		}
		for range 5 {
			fmt.Fprintf(&b, "BenchmarkWork-2 \t1000\t%.1f ns/op\n", 1000*step*(1+0.005*rng.NormFloat64()))
			fmt.Fprintf(&b, "BenchmarkFlat-2 \t1000\t%.1f ns/op\n", 500*(1+0.005*rng.NormFloat64()))
		}
		f := filepath.Join(dir, fmt.Sprintf("c%03d.txt", c))
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return dir, files
}

// levelsModule writes a module with n benchmark files, one per commit,
// each with 5 samples (noise 0.5%) of every benchmark that levels gives
// a level for at that commit (0: not measured), in the order of names,
// and imports them.
func levelsModule(t *testing.T, n int, names []string, levels func(c int, name string) float64) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/hist\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	args := []string{"import"}
	for c := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "commit: %s\ncommit-time: %s\nbranch: main\ngoos: linux\ngoarch: amd64\npkg: example.com/hist\ncpu: Test CPU\n",
			hash(c+1), t0.Add(time.Duration(c)*time.Hour).Format(time.RFC3339))
		for range 5 {
			for _, name := range names {
				if l := levels(c, name); l > 0 {
					fmt.Fprintf(&b, "Benchmark%s-2 \t1000\t%.1f ns/op\n", name, 1000*l*(1+0.005*rng.NormFloat64()))
				}
			}
		}
		f := filepath.Join(dir, fmt.Sprintf("c%03d.txt", c))
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, f)
	}
	if _, errOut, code := rigorIn(t, dir, args...); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	return dir
}

// TestChangesOnce: three flat results then twice as slow is one
// regression, listed once (it was listed as a change point and as the
// newest result, and counted as 2 regressions).
func TestChangesOnce(t *testing.T) {
	dir := levelsModule(t, 4, []string{"Work"}, func(c int, _ string) float64 { return 1 + float64(c/3) })
	out, _, code := rigorIn(t, dir, "changes", "--fail-on-regression")
	if code != exitGateFail || strings.Count(out, "regressed") != 1 || !strings.Contains(out, "newest result regressed +") || !strings.Contains(out, "(1 regression; ") {
		t.Errorf("changes: exit %d, want 1 and one regression listed once:\n%s", code, out)
	}
}

// TestChangesStable: what changes says of a series does not depend on
// which other series --bench selects. With a Benjamini-Hochberg
// correction across the series selected, the q-value of Work's step
// was twice as large beside Flat as alone.
func TestChangesStable(t *testing.T) {
	dir, files := historyModule(t, 60)
	if _, errOut, code := rigorIn(t, dir, append([]string{"import"}, files...)...); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	both, _, _ := rigorIn(t, dir, "changes")
	alone, _, _ := rigorIn(t, dir, "changes", "--bench", "^Work-2$")
	line := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "regressed") {
				return l
			}
		}
		return ""
	}
	if line(both) == "" || line(both) != line(alone) {
		t.Errorf("Work's change beside Flat:\n%s\nalone:\n%s", both, alone)
	}
}

// TestChangesTransient: +20% on commits 50 to 55 of 100, then reverted,
// is listed as a transient regression with its commits, and does not
// fail --fail-on-regression (it came and went); it was "0 changes, 0
// transients".
func TestChangesTransient(t *testing.T) {
	dir := levelsModule(t, 100, []string{"Work"}, func(c int, _ string) float64 {
		if c >= 50 && c < 56 {
			return 1.2
		}
		return 1
	})
	out, _, code := rigorIn(t, dir, "changes", "--fail-on-regression")
	want := hash(51)[:10] + ".." + hash(56)[:10]
	if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "transient regression +") || !strings.Contains(out, "on 6 results") ||
		!strings.Contains(out, "0 changes, 1 transient in 1 series") {
		t.Errorf("changes: exit %d, want 0 and the transient %s on 6 results:\n%s", code, want, out)
	}
	out, _, _ = rigorIn(t, dir, "history", "--format", "table")
	if strings.Count(out, "^ ") != 6+1 || !strings.Contains(out, "transient regression") {
		t.Errorf("history marks the transient's 6 results:\n%s", out)
	}
}

// TestChangesRenameShort: a benchmark renamed at the commit of its +5%
// step is pointed out as a likely rename, and a series of 3 results is
// said to be too short to show a change.
func TestChangesRenameShort(t *testing.T) {
	dir := levelsModule(t, 60, []string{"Old", "New", "Late"}, func(c int, name string) float64 {
		switch {
		case name == "Old" && c < 30:
			return 1
		case name == "New" && c >= 30:
			return 1.05
		case name == "Late" && c >= 57:
			return 1
		}
		return 0
	})
	out, _, _ := rigorIn(t, dir, "changes")
	for _, want := range []string{"likely rename: Old-2 ended at " + hash(30)[:10] + " and New-2 began at " + hash(31)[:10],
		"1 series is too short to show a change, which needs 2 results on either side: example.com/hist.Late-2 sec/op (3)"} {
		if !strings.Contains(out, want) {
			t.Errorf("changes lacks %q:\n%s", want, out)
		}
	}
}

// hash is the commit hash of commit c in historyModule: c as two hex
// digits, 20 times.
func hash(c int) string { return strings.Repeat(fmt.Sprintf("%02x", c), 20) }

// TestHistoryCommands: import a history, find its step with history and
// changes, gate on it.
func TestHistoryCommands(t *testing.T) {
	dir, files := historyModule(t, 60)
	// No store yet: history says so in one line.
	if out, errOut, code := rigorIn(t, dir, "history"); code != exitUsage || !strings.Contains(errOut, "no history recorded yet") || out != "" {
		t.Errorf("history without a store: exit %d, %q %q", code, out, errOut)
	}
	out, errOut, code := rigorIn(t, dir, append([]string{"import"}, files...)...)
	if code != 0 || strings.Count(out, "recorded as run") != 60 {
		t.Fatalf("import: exit %d, stderr %s\n%s", code, errOut, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rigor", "rigor.db")); err != nil {
		t.Errorf("import did not create .rigor/rigor.db: %v", err)
	}
	// Again: nothing recorded twice.
	if out, _, code := rigorIn(t, dir, "import", files[0]); code != 0 || !strings.Contains(out, "already recorded") {
		t.Errorf("second import: exit %d\n%s", code, out)
	}

	// In the 30 results after the step, of iid noise, E-divisive finds
	// steps of 0.4% and 0.7% with Otava's p near 0.001 (as Otava does on
	// this series); corrected for the search, they are not changes.
	mag := "--min-magnitude=0"
	out, errOut, code = rigorIn(t, dir, "history", mag, "--format", "table", "^Work")
	if code != 0 {
		t.Fatalf("history: exit %d, %s", code, errOut)
	}
	// The change comes between commit 30 (hash ...1e) and 31 (...1f).
	for _, want := range []string{"example.com/hist.Work-2  sec/op", "change: regressed +10.", "1 series, 1 change, 0 transients"} {
		if !strings.Contains(out, want) {
			t.Errorf("history lacks %q:\n%s", want, out)
		}
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, "change:") {
			if i == 0 || !strings.Contains(lines[i-1], hash(30)[:10]) || !strings.Contains(lines[i+1], hash(31)[:10]) {
				t.Errorf("the change is not between commits 30 and 31:\n%s", strings.Join(lines[max(0, i-1):i+2], "\n"))
			}
		}
	}
	out, _, code = rigorIn(t, dir, "history", mag)
	if code != 0 || !strings.Contains(out, "|") || !strings.Contains(out, "2 series, 1 change, ") {
		t.Errorf("sparklines: exit %d\n%s", code, out)
	}

	out, _, code = rigorIn(t, dir, "changes", mag, "--fail-on-regression")
	if code != exitGateFail || !strings.Contains(out, hash(30)[:10]+".."+hash(31)[:10]) || !strings.Contains(out, "1 change, 0 transients in 2 series (1 regression; ") {
		t.Errorf("changes --fail-on-regression: exit %d, want 1\n%s", code, out)
	}
	// After the step, nothing changed.
	out, _, code = rigorIn(t, dir, "changes", mag, "--fail-on-regression", "--since", hash(40))
	if code != 0 || !strings.HasPrefix(out, "0 changes") {
		t.Errorf("changes --since after the step: exit %d\n%s", code, out)
	}
	// Another machine's results are another series.
	out, _, _ = rigorIn(t, dir, "changes", "--machine", "ffffff")
	if !strings.HasPrefix(out, "0 changes, 0 transients in 0 series") {
		t.Errorf("changes of an unknown machine:\n%s", out)
	}
}

// TestNewerSchemaRefused: a store written by a newer rigor is refused
// with one line and exit 2, by every command that opens it.
func TestNewerSchemaRefused(t *testing.T) {
	dir, files := historyModule(t, 3)
	if _, errOut, code := rigorIn(t, dir, append([]string{"import"}, files...)...); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, ".rigor", "rigor.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (999, 1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, args := range [][]string{{"history"}, {"changes"}, {"import", files[0]}} {
		out, errOut, code := rigorIn(t, dir, args...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "schema version 999") {
			t.Errorf("rigor %s on a newer store: exit %d, stdout %q, stderr %q; want exit 2 and one line", args[0], code, out, errOut)
		}
	}
	// compare --record: the comparison is printed, the recording refused
	// in one line, and the exit status says it failed.
	out, errOut, code := rigorIn(t, dir, "compare", "--record", files[0], files[1])
	if code != exitUsage || !strings.Contains(out, "Work") || !strings.Contains(errOut, "rigor: not recorded:") {
		t.Errorf("compare --record on a newer store: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

// TestRunRecords: rigor run --record stores the run with its commit, and
// a later run records by default once the store exists; --no-record does
// not.
func TestRunRecords(t *testing.T) {
	dir := labRepo(t)
	run := func(extra ...string) (string, int) {
		t.Helper()
		stdout, stderr, code := rigorIn(t, dir, append(append(append([]string{"run", "--profile", "off"}, extra...), quickFlags...), "./...")...)
		if code != exitOK {
			t.Fatalf("run %v: exit %d\n%s\n%s", extra, code, stdout, stderr)
		}
		return stderr, code
	}
	if stderr, _ := run(); strings.Contains(stderr, "recorded") {
		t.Errorf("without a store, run recorded: %s", stderr)
	}
	if stderr, _ := run("--record"); !strings.Contains(stderr, "rigor: recorded run 1 in .rigor/rigor.db") {
		t.Errorf("run --record: %s", stderr)
	}
	if stderr, _ := run(); !strings.Contains(stderr, "rigor: recorded run 2") {
		t.Errorf("run with a store: %s", stderr)
	}
	if stderr, _ := run("--no-record"); strings.Contains(stderr, "recorded") {
		t.Errorf("run --no-record: %s", stderr)
	}
	head, err := gitOutput(context.Background(), dir, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := rigorIn(t, dir, "history", "--format", "table")
	if code != 0 || strings.Count(out, head[:10]) != 2 || !strings.Contains(out, "Work") {
		t.Errorf("history after two recorded runs at %s: exit %d %s\n%s", head[:10], code, errOut, out)
	}
}

// TestImportKilledRun: a run killed before its run.json held any
// benchmark leaves the samples it had written in SIDE.txt; import reads
// them.
func TestImportKilledRun(t *testing.T) {
	dir, files := historyModule(t, 2)
	runDir := filepath.Join(dir, ".rigor", "runs", "20260301-120000")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	early := `{"schema_version": 2, "kind": "run", "paired": false, "sides": [{"label": "current"}], "benchmarks": []}`
	if err := os.WriteFile(filepath.Join(runDir, "run.json"), []byte(early), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runDir, "current.txt"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := rigorIn(t, dir, "import", runDir)
	if code != 0 || !strings.Contains(out, "recorded as run 1 (10 samples") {
		t.Errorf("import of a killed run: exit %d %s\n%s", code, errOut, out)
	}
}

// TestExecRecords: rigor exec records as rigor run does, each command a
// series of its own at the commit checked out; outside a git repository
// the run is kept without a commit, and exec says so.
func TestExecRecords(t *testing.T) {
	dir := labRepo(t)
	exec := func(extra ...string) string {
		t.Helper()
		args := append([]string{"exec", "--runs", "3", "--warmup", "0", "--out", filepath.Join(t.TempDir(), "out")}, extra...)
		stdout, stderr, code := rigorIn(t, dir, append(args, "-n", "fast", "true", "true x")...)
		if code != exitOK {
			t.Fatalf("exec %v: exit %d\n%s\n%s", extra, code, stdout, stderr)
		}
		return stderr
	}
	if stderr := exec(); strings.Contains(stderr, "recorded") {
		t.Errorf("without a store, exec recorded: %s", stderr)
	}
	if stderr := exec("--record"); !strings.Contains(stderr, "rigor: recorded run 1 in .rigor/rigor.db") || strings.Contains(stderr, "no commit") {
		t.Errorf("exec --record: %s", stderr)
	}
	if stderr := exec(); !strings.Contains(stderr, "rigor: recorded run 2") {
		t.Errorf("exec with a store: %s", stderr)
	}
	if stderr := exec("--no-record"); strings.Contains(stderr, "recorded") {
		t.Errorf("exec --no-record: %s", stderr)
	}
	_, stderr, code := rigorIn(t, dir, "exec", "--record", "--no-record", "true")
	if code != exitUsage || !strings.Contains(stderr, "contradict") {
		t.Errorf("exec --record --no-record: exit %d, %q", code, stderr)
	}
	head, err := gitOutput(context.Background(), dir, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := rigorIn(t, dir, "history", "--format", "table")
	if code != 0 || strings.Count(out, head[:10]) != 4 || !strings.HasPrefix(out, "fast  sec/op") || !strings.Contains(out, "\ntrue x  sec/op") || !strings.Contains(out, "2 series") {
		t.Errorf("history after two recorded exec runs at %s: exit %d %s\n%s", head[:10], code, errOut, out)
	}
	if out, _, _ := rigorIn(t, dir, "history", "--format", "table", "^fast$"); !strings.Contains(out, "1 series") {
		t.Errorf("history ^fast$:\n%s", out)
	}

	// Outside a git repository: recorded, with no commit.
	plain := t.TempDir()
	db := filepath.Join(t.TempDir(), "s.db")
	stdout, stderr, code := rigorIn(t, plain, "exec", "--runs", "3", "--warmup", "0", "--out", filepath.Join(t.TempDir(), "out"), "--store", db, "true")
	if code != exitOK || !strings.Contains(stderr, "rigor: recorded run 1") || !strings.Contains(stderr, "run 1 names no commit (not in a git repository): history and changes show it only with --dirty") {
		t.Errorf("exec outside git: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
