package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// sizedTest is a benchmark with a flag of its own, as golang/snappy's
// -benchdataDir: its metric says which value its binary was given.
const sizedTest = `package lab

import (
	"flag"
	"testing"
)

var size = flag.Int("size", 1, "work per operation")

func BenchmarkSized(b *testing.B) {
	for b.Loop() {
		sink = Work(*size)
	}
	b.ReportMetric(float64(*size), "size")
}
`

// commitFile adds a commit to the repository at dir with file name.
func commitFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "add " + name}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=rigor", "-c", "user.email=rigor@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// readRun reads a results directory's run.json.
func readRun(t *testing.T, out string) *model.Run {
	t.Helper()
	f, err := os.Open(filepath.Join(out, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := model.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestABTestArgs: the ARGS after -- reach both sides' test binaries (they
// were taken for package patterns before, and the benchmark ran with its
// default), --new-args replaces them for one side, and the sides' line
// of the report shows them.
func TestABTestArgs(t *testing.T) {
	dir := labRepo(t)
	commitFile(t, dir, "lab/sized_test.go", sizedTest)
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := rigorIn(t, dir, "ab", "--old", "HEAD", "--new", "HEAD", "--bench", "Sized", "--profile", "off",
		"--benchtime", "1ms", "--min-rounds", "2", "--max-rounds", "2", "--out", out, "--new-args", "-size=5", "./...", "--", "-size", "3")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	run := readRun(t, out)
	if !slices.Equal(run.Sides[0].Args, []string{"-size", "3"}) || !slices.Equal(run.Sides[1].Args, []string{"-size=5"}) {
		t.Errorf("sides' args %q and %q", run.Sides[0].Args, run.Sides[1].Args)
	}
	sizes := map[string]float64{}
	for _, s := range run.Benchmarks[0].Metric("size").Samples {
		sizes[s.Side] = s.Value
	}
	if sizes["old"] != 3 || sizes["new"] != 5 {
		t.Errorf("the benchmarks saw -size %v, want old 3 and new 5", sizes)
	}
	for _, want := range []string{"old: HEAD", "-- -size 3\n", "-- -size=5\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report does not show %s:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "A/A run") {
		t.Errorf("sides with different arguments called an A/A run:\n%s", stdout)
	}
}

// TestABRefusesFailingTests: the new side is faster and wrong (its test
// fails): it is refused before timing, exit 2, one line naming the test,
// and nothing is measured; --no-check times it, and says so.
func TestABRefusesFailingTests(t *testing.T) {
	dir := labRepo(t)
	commitFile(t, dir, "lab/work_test.go", "package lab\n\nimport \"testing\"\n\nfunc TestWork(t *testing.T) {\n\tif Work(0) != 1 {\n\t\tt.Fatal(\"Work(0) is wrong\")\n\t}\n}\n")
	wrong := strings.Replace(strings.Replace(workGo, "SCALE", "1", 1), "x := uint64(1)", "x := uint64(2)", 1)
	if err := os.WriteFile(filepath.Join(dir, "lab", "work.go"), []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"ab", "--old", "HEAD", "--profile", "off"}, quickFlags...)
	stdout, stderr, code := rigorIn(t, dir, append(args, "./...")...)
	const want = "rigor: new: the tests of example.com/lab/lab fail (TestWork), so new is not timed: fix them, or skip this check with --no-check\n"
	if code != exitUsage || !strings.HasSuffix(stderr, want) || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and %q last", code, stdout, stderr, want)
	}
	if runs, _ := os.ReadDir(filepath.Join(dir, ".rigor", "runs")); len(runs) != 0 {
		t.Errorf("a refused run left %d results directories", len(runs))
	}
	// Two short rounds: enough to show it was timed, with the note.
	stdout, stderr, code = rigorIn(t, dir, "ab", "--old", "HEAD", "--profile", "off", "--benchtime", "1ms", "--min-rounds", "2", "--max-rounds", "2", "--no-check", "./...")
	if code != exitOK || !strings.Contains(stdout, "Work") || !strings.Contains(stdout, "--no-check") {
		t.Errorf("--no-check: exit %d, stderr %q\n%s", code, stderr, stdout)
	}
}
