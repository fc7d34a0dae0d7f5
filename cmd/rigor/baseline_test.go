package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/observe"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// testStores returns the --store values to test with: "" (the module's
// SQLite file) and, when RIGOR_TEST_POSTGRES is set (as .ci/run sets it),
// a PostgreSQL URL whose search_path is a new schema, dropped at the end.
func testStores(t *testing.T) map[string]string {
	t.Helper()
	stores := map[string]string{"sqlite": ""}
	base := os.Getenv("RIGOR_TEST_POSTGRES")
	if base == "" {
		t.Log("PostgreSQL skipped: set RIGOR_TEST_POSTGRES to a postgres:// URL (as .ci/run does) to test it")
		return stores
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "rigor_cmd_test_" + hex.EncodeToString(b[:])
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		db.Close()
		t.Fatalf("RIGOR_TEST_POSTGRES: %v", err)
	}
	t.Cleanup(func() {
		db.Exec("DROP SCHEMA " + schema + " CASCADE")
		db.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	stores["postgres"] = u.String()
	return stores
}

// baselineModule writes a module with three results to import: here.json
// and ab.json, measured on this machine (its environment), the latter of
// two sides, and other.txt, Go benchmark output of another machine.
func baselineModule(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/base\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := observe.CaptureEnv(context.Background())
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	write := func(name string, sides ...string) {
		run := &model.Run{SchemaVersion: model.SchemaVersion, ID: name, Kind: model.KindRun, Start: start, End: start.Add(time.Minute), Env: &env}
		m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
		for i, label := range sides {
			run.Sides = append(run.Sides, model.Side{Label: label, Rev: hash(10 + i)})
			for r := range 5 {
				m.Samples = append(m.Samples, model.Sample{Side: label, Round: r, Iters: 1000, Value: 1e-6 * float64(1+i) * (1 + 0.01*float64(r))})
			}
		}
		run.Benchmarks = []model.Benchmark{{Name: "Work", Procs: 2, Pkg: "example.com/base", Metrics: []model.Metric{m}}}
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := run.WriteJSON(f); err != nil {
			t.Fatal(err)
		}
	}
	write("here.json", "current")
	write("ab.json", "old", "new")
	other := "commit: " + hash(30) + "\ngoos: plan9\ngoarch: mips\npkg: example.com/base\ncpu: Another CPU\n" +
		strings.Repeat("BenchmarkWork-2 \t1000\t1000 ns/op\n", 5)
	if err := os.WriteFile(filepath.Join(dir, "other.txt"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBaselineCommands: baselines are pointers to recorded runs, one per
// name and machine; rigor baseline sets, lists and removes them; rigor
// run refuses, before measuring anything, another machine's baseline and
// an unknown one. Bad input is one line and exit 2. On both engines.
func TestBaselineCommands(t *testing.T) {
	for engine, st := range testStores(t) {
		t.Run(engine, func(t *testing.T) {
			dir := baselineModule(t)
			with := func(args ...string) []string {
				if st == "" {
					return args
				}
				return append(args, "--store", st)
			}
			bad := func(want string, args ...string) {
				t.Helper()
				out, errOut, code := rigorIn(t, dir, with(args...)...)
				if code != exitUsage || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "rigor: ") || !strings.Contains(errOut, want) {
					t.Errorf("rigor %s: exit %d, stderr %q, stdout %q; want exit 2 and one line saying %q", strings.Join(args, " "), code, errOut, out, want)
				}
			}
			if st == "" {
				out, errOut, code := rigorIn(t, dir, "baseline", "list")
				if code != 0 || !strings.Contains(out, "no baselines of example.com/base saved") {
					t.Errorf("list without a store: exit %d, %q %q", code, out, errOut)
				}
				bad("no history recorded yet", "baseline", "set", "main")
			}
			for _, f := range []string{"here.json", "ab.json", "other.txt"} {
				if out, errOut, code := rigorIn(t, dir, with("import", f)...); code != 0 {
					t.Fatalf("import %s: exit %d\n%s%s", f, code, out, errOut)
				}
			}
			// The newest run of this machine is ab.json's: two sides.
			bad("run 2 has 2 sides (old, new): name the side to point at with --side", "baseline", "set", "main")
			bad("no side \"ghost\"", "baseline", "set", "main", "2", "--side", "ghost")
			bad("no such run", "baseline", "set", "main", "99")
			bad("want the number of a recorded run", "baseline", "set", "main", "x")
			bad("invalid baseline name", "baseline", "set", "../x", "1")
			bad("unknown command", "baseline", "frob")

			out, errOut, code := rigorIn(t, dir, with("baseline", "set", "main", "2", "--side", "new")...)
			if code != 0 || !strings.Contains(out, "baseline main: run 2, side new, commit "+hash(11)[:10]) || errOut != "" {
				t.Errorf("set main 2 --side new: exit %d, %q, %q", code, out, errOut)
			}
			// (import labels a file's one side after the file's name)
			out, errOut, code = rigorIn(t, dir, with("baseline", "set", "main", "1")...)
			if code != 0 || !strings.Contains(out, "baseline main: run 1, side here") || errOut != "" {
				t.Errorf("set main 1: exit %d, %q, %q", code, out, errOut)
			}
			// Another machine's run: its own pointer, and a warning here.
			out, errOut, code = rigorIn(t, dir, with("baseline", "set", "main", "3")...)
			if code != 0 || !strings.Contains(out, "baseline main: run 3") || !strings.Contains(errOut, "another machine than this one") {
				t.Errorf("set main 3: exit %d, %q, %q", code, out, errOut)
			}
			out, _, code = rigorIn(t, dir, with("baseline", "list")...)
			if code != 0 || strings.Count(out, "\nmain ") != 2 || strings.Count(out, " * ") != 1 || !strings.Contains(out, "* this machine") {
				t.Errorf("list: exit %d\n%s", code, out)
			}

			bad("no baseline nope of example.com/base", "baseline", "rm", "nope")
			if out, errOut, code := rigorIn(t, dir, with("baseline", "rm", "main")...); code != 0 || !strings.Contains(out, "removed baseline main") {
				t.Errorf("rm main: exit %d, %q %q", code, out, errOut)
			}
			bad("no baseline main on this machine (it is saved on ", "baseline", "rm", "main")

			// rigor run refuses another machine's baseline before it
			// measures, and names both machines.
			bad("it was saved on another machine, ", "run", "--baseline", "main")
			bad("plan9/mips Another CPU", "run", "--baseline", "main")
			bad("no such baseline on this machine (none saved yet", "run", "--baseline", "nope")
			bad("contradict --no-record", "run", "--save-baseline", "x", "--no-record")
			bad("which rigor does not overwrite", "run", "--baseline", "here.json", "--update-on-pass")

			// Removed by a prefix of its fingerprint.
			fp := otherMachine.Fingerprint
			if out, errOut, code := rigorIn(t, dir, with("baseline", "rm", "main", "--machine", fp[:6])...); code != 0 || !strings.Contains(out, "removed baseline main of machine "+fp) {
				t.Errorf("rm --machine %s: exit %d, %q %q", fp[:6], code, out, errOut)
			}
			if out, _, code := rigorIn(t, dir, with("baseline", "list")...); code != 0 || !strings.Contains(out, "no baselines") {
				t.Errorf("list after removing both: exit %d, %q", code, out)
			}
		})
	}
}

// TestFileMachineWarning: a baseline file of another machine, or of no
// known machine, is named in one line; one of this machine is not.
func TestFileMachineWarning(t *testing.T) {
	ctx := context.Background()
	here := thisMachine(ctx)
	env := observe.CaptureEnv(ctx)
	same := &model.Run{Env: &env}
	other := &model.Run{Env: &model.Env{GOOS: "plan9", GOARCH: "mips", CPUModel: "Another CPU"}}
	for _, c := range []struct {
		run  *model.Run
		want string
	}{
		{same, ""},
		{other, "was measured on another machine (" + otherMachine.Fingerprint + " plan9/mips Another CPU), not this one"},
		{&model.Run{}, "does not say which machine it was measured on"},
	} {
		got := fileMachineWarning("f.json", sqlstore.MachineOf(c.run), here)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) || strings.Contains(got, "\n") {
			t.Errorf("warning %q, want %q", got, c.want)
		}
	}
}

// otherMachine is other.txt's machine in baselineModule.
var otherMachine = sqlstore.MachineOf(&model.Run{Env: &model.Env{GOOS: "plan9", GOARCH: "mips", CPUModel: "Another CPU"}})
