package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// rigorIn runs rigor in process, in dir ("" for the test's directory),
// on buffers, and returns stdout, stderr and the exit code: what a user
// of the binary sees, from the same execute that main calls.
func rigorIn(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if dir != "" {
		t.Chdir(dir)
	}
	var out, errb bytes.Buffer
	code = execute(t.Context(), args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
	return out.String(), errb.String(), code
}

const workGo = `package lab

const scale = SCALE

func Work(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n*scale; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}
`

const workTest = `package lab

import "testing"

var sink uint64

func BenchmarkWork(b *testing.B) {
	for b.Loop() {
		sink = Work(300)
	}
}
`

// labRepo makes a git repository whose HEAD~1 does some work per
// operation and HEAD ten times as much.
func labRepo(t *testing.T) string {
	t.Helper()
	var revs []map[string]string
	for _, scale := range []string{"1", "10"} {
		revs = append(revs, map[string]string{
			"go.mod":          "module example.com/lab\n\ngo 1.26\n",
			"lab/work.go":     strings.Replace(workGo, "SCALE", scale, 1),
			"lab/lab_test.go": workTest,
			".gitignore":      ".rigor/\n",
		})
	}
	return commitRevisions(t, revs...)
}

// commitRevisions makes a git repository with one commit per revision,
// each the files it maps (path to content) written over the last: HEAD
// is the last revision, HEAD~1 the one before. It skips the test without
// git.
func commitRevisions(t *testing.T, revs ...map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=rigor", "-c", "user.email=rigor@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	for i, files := range revs {
		for name, content := range files {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("add", "-A")
		git("commit", "-q", "-m", fmt.Sprintf("revision %d", i+1))
	}
	return dir
}

// quickFlags keep end-to-end runs short: 5 ms samples, 12 rounds.
var quickFlags = []string{"--benchtime", "5ms", "--min-rounds", "12", "--max-rounds", "12"}

func TestABFlagErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"ab", "--new-env", "GOGC"},
		{"ab", "--old-env", "=1"},
		{"ab", "--cpu", "0"},
		{"ab", "--cpu", "1,x"},
		{"ab", "--benchtime", "1y"},
		{"ab", "--benchtime", "0x"},
		{"ab", "--order", "abab"},
		{"ab", "--min-rounds", "1"},
		{"ab", "--max-rounds", "1"},
		{"ab", "--time", "0s"},
		{"ab", "--profile", "on"},
		{"ab", "--instructions", "on"},
		{"ab", "--instructions", "simulate", "--cpu-clock", "process"},
		{"run", "--instructions", "counters"},
		{"ab", "--format", "xml"},
		{"ab", "--bogus"},
		{"ab", "--", "-test.benchtime=1s"},
		{"ab", "--new-args", "--test.run=X"},
		{"ab", "--no-check", "--race-check"},
		{"ab", "--new-gcflags", "all=-N -l"},
		{"ab", "--old-env", "GOFLAGS=-race"},
		{"run", "--", "-test.cpu=4"},
		{"ab", "-args", "-x"},
		{"run", "--env", "X"},
		{"run", "--update-on-pass"},
		{"run", "--baseline", "../x"},
		{"run", "--save-baseline", ".hidden"},
		{"ab", "--layouts", "x"},
		{"ab", "--layouts", "-1"},
		{"ab", "--layouts", "101"},
		{"run", "--layouts", "3", "--max-rounds", "2"},
		{"bisect", "--good", "a", "--bad", "b", "--layouts", "two"},
	} {
		_, stderr, code := rigorIn(t, dir, args...)
		if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.HasPrefix(stderr, "rigor: ") {
			t.Errorf("rigor %s: exit %d, stderr %q; want exit 2 and one line", strings.Join(args, " "), code, stderr)
		}
	}
}

// TestInstructionsWithoutValgrind: --instructions simulate without
// valgrind fails before anything is built, in one line naming the package
// that has it.
func TestInstructionsWithoutValgrind(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	for _, args := range [][]string{
		{"ab", "--instructions", "simulate", "."},
		{"run", "--instructions", "simulate", "."},
		{"bisect", "--good", "a", "--bad", "b", "--instructions", "simulate"},
	} {
		_, stderr, code := rigorIn(t, dir, args...)
		if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "valgrind package") {
			t.Errorf("rigor %s: exit %d, stderr %q; want exit 2 and one line naming the valgrind package", strings.Join(args, " "), code, stderr)
		}
	}
}

func TestABNotARepository(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n\ngo 1.26\n"), 0o644)
	_, stderr, code := rigorIn(t, dir, "ab", ".")
	if code != exitUsage || !strings.Contains(stderr, "git repository") {
		t.Errorf("ab outside git: exit %d, stderr %q", code, stderr)
	}
}

func TestABGateAndJSON(t *testing.T) {
	dir := labRepo(t)
	out := filepath.Join(t.TempDir(), "out")
	// HEAD does ten times the work of HEAD~1: a regression beyond 5%.
	args := append([]string{"ab", "--old", "HEAD~1", "--new", "HEAD", "--max-regression", "5", "--format", "json", "--out", out}, quickFlags...)
	stdout, stderr, code := rigorIn(t, dir, append(args, "./...")...)
	if code != exitGateFail {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "gate: example.com/lab/lab.Work") {
		t.Errorf("stderr does not name the regressed benchmark:\n%s", stderr)
	}
	var rep struct {
		Kind       string
		Paired     bool
		Sides      []string
		Benchmarks []struct {
			Name    string
			Metrics []struct {
				Unit    string
				Changes []struct{ Verdict string }
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--format json: %v\n%s", err, stdout)
	}
	var verdict string
	for _, b := range rep.Benchmarks {
		for _, m := range b.Metrics {
			if m.Unit == "sec/op" && len(m.Changes) == 1 {
				verdict = m.Changes[0].Verdict
			}
		}
	}
	if verdict != "regressed" {
		t.Errorf("sec/op verdict %q, want regressed\n%s", verdict, stdout)
	}
	for _, f := range []string{"old.txt", "new.txt", "run.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// The profiling pass, on by default (the name ends in -GOMAXPROCS).
	for _, f := range []string{"old.cpu.pprof", "new.mutex.pprof"} {
		if m, _ := filepath.Glob(filepath.Join(out, "profiles", "lab.Work*", f)); len(m) != 1 {
			t.Errorf("profiles/lab.Work*/%s: found %q, want one file", f, m)
		}
	}
}

func TestRunBaseline(t *testing.T) {
	dir := labRepo(t)
	stdout, stderr, code := rigorIn(t, dir, append(append([]string{"run", "--save-baseline", "main", "--profile", "off"}, quickFlags...), "./...")...)
	if code != exitOK {
		t.Fatalf("run --save-baseline: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The run is recorded (the store is created) and main points at it.
	if !strings.Contains(stdout, "current") || !strings.Contains(stderr, "saved baseline main (run 1 in .rigor/rigor.db, machine ") {
		t.Errorf("output:\n%s\n%s", stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rigor", "baselines")); !os.IsNotExist(err) {
		t.Errorf(".rigor/baselines: %v; want no baseline file", err)
	}
	runs, _ := os.ReadDir(filepath.Join(dir, ".rigor", "runs"))
	if len(runs) != 1 {
		t.Fatalf("%d run directories under .rigor/runs, want 1", len(runs))
	} else if _, err := os.Stat(filepath.Join(dir, ".rigor", "runs", runs[0].Name(), "profiles")); !os.IsNotExist(err) {
		t.Errorf("--profile off: want no profiles directory, got %v", err)
	}
	list, _, _ := rigorIn(t, dir, "baseline", "list")
	if !strings.Contains(list, "main") || !strings.Contains(list, " * ") {
		t.Errorf("baseline list after --save-baseline:\n%s", list)
	}

	// The same code against the baseline: main names a commit this
	// repository has, so it is measured again beside the working tree,
	// paired, and said so (it was compared unpaired with the saved
	// numbers, which reported the machine's drift as code changes);
	// nothing regressed beyond 100000% (a limit no busy machine reaches:
	// the test checks the baseline's life cycle, not the machine's
	// noise), so --update-on-pass points main at the new run.
	stdout, stderr, code = rigorIn(t, dir, append(append([]string{"run", "--baseline", "main", "--update-on-pass", "--max-regression", "100000", "--profile", "off"}, quickFlags...), "./...")...)
	if code != exitOK {
		t.Fatalf("run --baseline: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "paired: 12 interleaved rounds") || !strings.Contains(stdout, "it was measured again, in interleaved rounds with the working tree") ||
		!strings.Contains(stderr, "rigor: baseline main: measuring its commit") {
		t.Errorf("comparison with a baseline of a commit this repository has does not measure it again, paired:\n%s\n%s", stdout, stderr)
	}
	if !strings.Contains(stderr, "recorded run 2") || !strings.Contains(stderr, "the run passed; baseline main updated (run 2 in ") {
		t.Errorf("baseline not updated:\n%s", stderr)
	}

	// A file still works: the first run's run.json, of this machine, so
	// without a warning, compared across sessions with what the store
	// knows (its commit was measured in runs 1 and 2).
	file := filepath.Join(".rigor", "runs", runs[0].Name(), "run.json")
	stdout, stderr, code = rigorIn(t, dir, append(append([]string{"run", "--baseline", file, "--no-record", "--profile", "off"}, quickFlags...), "./...")...)
	if code != exitOK || !strings.Contains(stdout, "unpaired") || !strings.Contains(stdout, "Compared across sessions") ||
		!strings.Contains(stdout, "from 2 runs of 1 commit recorded more than once") || strings.Contains(stderr, "machine") || strings.Contains(stderr, "recorded") {
		t.Errorf("run --baseline FILE --no-record: exit %d\n%s\n%s", code, stdout, stderr)
	}

	_, stderr, code = rigorIn(t, dir, "run", "--baseline", "nope")
	if code != exitUsage || !strings.Contains(stderr, "no such baseline on this machine (saved: main)") {
		t.Errorf("missing baseline: exit %d, %q", code, stderr)
	}
}

// TestRunBaselineAcrossSessions: a baseline saved from a working tree
// with uncommitted changes cannot be measured again; compared across
// sessions with nothing known of how results vary between sessions here
// (the store has no commit recorded twice), every comparison is
// inconclusive, saying why and naming the rigor ab command that would
// answer; a --max-regression gate does not fail on the machine's drift,
// and --update-on-pass keeps the baseline (nothing was decided).
func TestRunBaselineAcrossSessions(t *testing.T) {
	dir := labRepo(t)
	work := filepath.Join(dir, "lab", "work.go")
	src, err := os.ReadFile(work)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(work, append(src, []byte("\n// uncommitted\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if stdout, stderr, code := rigorIn(t, dir, append(append([]string{"run", "--save-baseline", "wip", "--profile", "off"}, quickFlags...), "./...")...); code != exitOK {
		t.Fatalf("run --save-baseline: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, stderr, code := rigorIn(t, dir, append(append([]string{"run", "--baseline", "wip", "--max-regression", "1", "--update-on-pass", "--profile", "off"}, quickFlags...), "./...")...)
	if code != exitOK || strings.Contains(stderr, "measuring its commit") || !strings.Contains(stdout, "inconclusive") ||
		!strings.Contains(stderr, "rigor: baseline wip kept: 1 comparison could not be decided across sessions") || strings.Contains(stderr, "baseline wip updated") ||
		!strings.Contains(stdout, "the baseline was measured in another session, and how much this benchmark varies between sessions here is not known") ||
		!strings.Contains(stdout, "rigor ab --old REV --new . ./...") || strings.Contains(stdout, "regressed") || strings.Contains(stdout, "improved") {
		t.Errorf("run --baseline of a dirty tree: exit %d, want 0, inconclusive, the reason and rigor ab\n%s\n%s", code, stdout, stderr)
	}
}

// TestABGateFailsWhenNewCrashes: a benchmark that ran on the baseline and
// panics on the new side fails the gate (exit 1, with the reason), not
// silently left out; --allow-missing accepts it, and since nothing at
// all was measured (it panics in calibration) the run exits 2 (issue 11
// item 2, issue 23 item 1).
func TestABGateFailsWhenNewCrashes(t *testing.T) {
	dir := labRepo(t)
	crash := strings.Replace(workTest, "sink = Work(300)", `panic("boom")`, 1)
	if err := os.WriteFile(filepath.Join(dir, "lab", "lab_test.go"), []byte(crash), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{"ab", "--profile", "off", "--max-regression", "5"}, quickFlags...), "./...")
	_, stderr, code := rigorIn(t, dir, args...)
	if code != exitGateFail || !strings.Contains(stderr, "failed on new where old has it") {
		t.Errorf("new side panics: exit %d, stderr %q; want exit %d and the lost benchmark named", code, stderr, exitGateFail)
	}
	_, stderr, code = rigorIn(t, dir, append([]string{"ab", "--allow-missing"}, args[1:]...)...)
	if code != exitUsage || strings.Contains(stderr, "rigor: gate:") || !strings.Contains(stderr, "rigor: no benchmark was measured") {
		t.Errorf("--allow-missing: exit %d, stderr %q; want %d, no gate line, nothing measured", code, stderr, exitUsage)
	}
}

// TestABGateFailsWhenNewDoesNotBuild: a benchmark whose package builds on
// the baseline and does not compile on the new side fails the gate (exit
// 1), the line saying it did not build, and the report shows it missing on
// new, although nothing at all was measured. Without the gate, or with
// --allow-missing, the run still measured nothing: exit 2, its directory
// removed, nothing recorded (issue 23 item 1).
func TestABGateFailsWhenNewDoesNotBuild(t *testing.T) {
	dir := labRepo(t)
	broken := strings.NewReplacer("SCALE", "10", "return x", "return undefinedThing").Replace(workGo)
	if err := os.WriteFile(filepath.Join(dir, "lab", "work.go"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{"ab", "--profile", "off", "--max-regression", "5"}, quickFlags...), "./...")
	stdout, stderr, code := rigorIn(t, dir, args...)
	const gate = "rigor: gate: example.com/lab/lab.Work did not build on new where old has it: its package does not build on new (--allow-missing accepts this)\n"
	if code != exitGateFail || !strings.Contains(stderr, gate) {
		t.Errorf("new side does not build: exit %d, stderr %q; want exit %d and %q", code, stderr, exitGateFail, gate)
	}
	if !strings.Contains(stderr, "undefinedThing") {
		t.Errorf("stderr does not quote the compiler:\n%s", stderr)
	}
	if !strings.Contains(stdout, "did not build on new") {
		t.Errorf("the report does not say what did not build:\n%s", stdout)
	}
	const nothing = "rigor: no benchmark was measured"
	_, stderr, code = rigorIn(t, dir, append([]string{"ab", "--allow-missing"}, args[1:]...)...)
	if code != exitUsage || strings.Contains(stderr, "rigor: gate:") || !strings.Contains(stderr, nothing) {
		t.Errorf("--allow-missing: exit %d, stderr %q; want %d, no gate line and %q", code, stderr, exitUsage, nothing)
	}
	db := filepath.Join(t.TempDir(), "h.db")
	stdout, stderr, code = rigorIn(t, dir, append(append([]string{"ab", "--profile", "off", "--record", "--store", db}, quickFlags...), "./...")...)
	if code != exitUsage || !strings.Contains(stderr, nothing) || strings.Contains(stderr, "recorded run") {
		t.Errorf("no gate: exit %d, stderr %q; want %d, %q and nothing recorded", code, stderr, exitUsage, nothing)
	}
	if !strings.Contains(stdout, "did not build on new") {
		t.Errorf("no gate: the report does not say what did not build:\n%s", stdout)
	}
	if runs, _ := os.ReadDir(filepath.Join(dir, ".rigor", "runs")); len(runs) != 0 {
		t.Errorf("a run that measured nothing left %d directories in .rigor/runs", len(runs))
	}
}

// TestABTags: --tags builds both sides with the tags; a side's own flag
// overrides it (issue 13 item 6).
func TestABTags(t *testing.T) {
	dir := labRepo(t)
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := rigorIn(t, dir, "ab", "--tags", "lab", "--new-tags", "", "--profile", "off",
		"--benchtime", "1ms", "--min-rounds", "2", "--max-rounds", "2", "--out", out, "./...")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	run := readRun(t, out)
	if got := []string{run.Sides[0].Tags, run.Sides[1].Tags}; got[0] != "lab" || got[1] != "" {
		t.Errorf("side tags %q, want [lab \"\"]", got)
	}
}

// TestABUnknownPackage: a package pattern that names nothing on either
// side exits 2 with go's reason, before anything is built (it was left
// out silently, exit 0); a package that exists on one side only is still
// a note, not an error (issue 23 item 2).
func TestABUnknownPackage(t *testing.T) {
	dir := labRepo(t)
	os.MkdirAll(filepath.Join(dir, "extra"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "extra", "extra_test.go"), []byte(strings.Replace(workTest, "package lab", "package extra\n\nfunc Work(n int) int { return n }", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"ab", "--old", "HEAD", "--profile", "off", "--benchtime", "1ms", "--min-rounds", "2", "--max-rounds", "2"}
	for _, bad := range []string{"./nosuch", "./lab/../nosuch", "example.com/lab/nosuch"} {
		_, stderr, code := rigorIn(t, dir, append(flags, "./lab", bad)...)
		if code != exitUsage || !strings.Contains(stderr, "nosuch") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("rigor ab ./lab %s: exit %d, stderr %q; want exit 2 and one line naming nosuch", bad, code, stderr)
		}
	}
	stdout, stderr, code := rigorIn(t, dir, append(flags, "./lab", "./extra")...)
	if code != exitOK || !strings.Contains(stdout, "package example.com/lab/extra has tests only on new: not measured") {
		t.Errorf("a package new on new: exit %d, stderr %q, stdout:\n%s\nwant exit 0 and a note", code, stderr, stdout)
	}
}

// TestABLayouts: rigor ab --layouts 3 links each side three times, and
// run.json has the three seeds on both sides and samples of every link on
// both; rigor run --baseline links the baseline's commit, measured again,
// as many times as the working tree.
func TestABLayouts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and measures")
	}
	dir := labRepo(t)
	out := filepath.Join(t.TempDir(), "out")
	args := append([]string{"ab", "--old", "HEAD~1", "--new", "HEAD", "--layouts", "3", "--profile", "off", "--format", "json", "--out", out}, quickFlags...)
	if stdout, stderr, code := rigorIn(t, dir, append(args, "./...")...); code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	run := readJSONFile(t, filepath.Join(out, "run.json"))
	checkLayouts(t, run, 3)

	if _, stderr, code := rigorIn(t, dir, append(append([]string{"run", "--save-baseline", "main", "--layouts", "1", "--profile", "off"}, quickFlags...), "./...")...); code != exitOK {
		t.Fatalf("run --save-baseline: exit %d\n%s", code, stderr)
	}
	out = filepath.Join(t.TempDir(), "out")
	if _, stderr, code := rigorIn(t, dir, append(append([]string{"run", "--baseline", "main", "--layouts", "2", "--profile", "off", "--out", out}, quickFlags...), "./...")...); code != exitOK {
		t.Fatalf("run --baseline: exit %d\n%s", code, stderr)
	}
	run = readJSONFile(t, filepath.Join(out, "run.json"))
	if len(run.Sides) != 2 {
		t.Fatalf("run --baseline measured %d sides, want the baseline's commit and the working tree", len(run.Sides))
	}
	checkLayouts(t, run, 2)
}

// checkLayouts checks that every side of run has n seeds and sec/op
// samples of each of its n links.
func checkLayouts(t *testing.T, run *model.Run, n int) {
	t.Helper()
	for _, sd := range run.Sides {
		if len(sd.Layouts) != n {
			t.Errorf("%s: seeds %v, want %d", sd.Label, sd.Layouts, n)
		}
		for _, b := range run.Benchmarks {
			seen := map[int]bool{}
			for _, x := range b.Metric("sec/op").BySide(sd.Label) {
				seen[x.Layout] = true
			}
			for k := 1; k <= n; k++ {
				if !seen[k] {
					t.Errorf("%s %s: no sample of layout %d (%v)", b.Name, sd.Label, k, seen)
				}
			}
			if len(seen) != n {
				t.Errorf("%s %s: samples of layouts %v, want 1 to %d", b.Name, sd.Label, seen, n)
			}
		}
	}
}

// readJSONFile reads the rigor JSON file at path.
func readJSONFile(t *testing.T, path string) *model.Run {
	t.Helper()
	run, err := model.ReadFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	return run
}
