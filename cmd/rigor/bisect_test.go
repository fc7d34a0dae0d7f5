package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// bisectRepo makes a git repository of len(scales) commits, commit i
// doing scales[i] times the work per operation of scale 1; the commit
// broken (if not -1) does not build. It returns the directory and the
// commits' hashes, oldest first.
func bisectRepo(t *testing.T, scales []int, broken int) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	var hashes []string
	for i, scale := range scales {
		work := strings.Replace(workGo, "SCALE", fmt.Sprint(scale), 1)
		if i == broken {
			work += "\nvar _ = undefinedName\n"
		}
		hashes = append(hashes, commitFiles(t, dir, fmt.Sprintf("commit %d: scale %d", i, scale), map[string]string{
			"go.mod":          labGoMod,
			"lab/work.go":     work + fmt.Sprintf("\n// commit %d\n", i),
			"lab/lab_test.go": workTest,
			".gitignore":      ".rigor/\n",
		}))
	}
	return dir, hashes
}

// labGoMod is the go.mod of bisectRepo's commits.
const labGoMod = "module example.com/lab\n\ngo 1.26\n"

// gitIn runs git in dir and returns what it printed.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=rigor", "-c", "user.email=rigor@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commitFiles writes files into dir's work tree and commits them with
// message msg; it returns the commit's hash.
func commitFiles(t *testing.T, dir, msg string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", msg)
	return gitIn(t, dir, "rev-parse", "HEAD")
}

// measuresCommits skips a test that measures several commits in paired
// rounds under -short: each takes a minute or more, and several minutes
// on this shared 2-core machine at load 30, where the package's tests
// would pass go test's ten-minute timeout.
func measuresCommits(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("measures several commits in paired rounds: minutes; run without -short")
	}
}

// bisectFlags keep the searches short: 2 ms samples, no checks. The
// scratch repositories have no history store, so nothing is recorded
// unless --record asks.
var bisectFlags = []string{"--benchtime", "2ms", "--no-check", "--time", "5m"}

// runBisectJSON runs rigor bisect from good to bad (commit indexes) in dir
// and decodes its JSON result.
func runBisectJSON(t *testing.T, dir string, hashes []string, good, bad int, extra ...string) (bisectResult, string) {
	t.Helper()
	args := append([]string{"bisect", "--good", hashes[good], "--bad", hashes[bad], "--format", "json", "--out", filepath.Join(t.TempDir(), "out")}, bisectFlags...)
	args = append(append(args, extra...), "./...")
	stdout, stderr, code := rigorIn(t, dir, args...)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var r bisectResult
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	return r, stderr
}

func foundHashes(r bisectResult) []string {
	var h []string
	for _, f := range r.Found {
		h = append(h, f.Commit.Hash)
	}
	return h
}

// A commit that does not build is skipped, its neighbour measured, and
// the commit that made the change found.
func TestBisectSkipsCommitThatDoesNotBuild(t *testing.T) {
	measuresCommits(t)
	// Commits 1-6 after good; the first midpoint, 3, does not build.
	dir, hashes := bisectRepo(t, []int{1, 1, 1, 1, 1, 10, 10}, 3)
	r, stderr := runBisectJSON(t, dir, hashes, 0, 6)
	if !strings.Contains(stderr, "skipping "+hashes[3][:12]) {
		t.Errorf("stderr does not say commit 3 was skipped:\n%s", stderr)
	}
	if got := foundHashes(r); len(got) != 1 || got[0] != hashes[5] || len(r.Found[0].Skipped) != 0 {
		t.Fatalf("found %v, want commit 5 %s alone\n%s", r.Found, hashes[5], stderr)
	}
	f := r.Found[0]
	if f.Change.Lo < 4 || f.Share < 0.8 || f.Share > 1.2 {
		t.Errorf("commit 5: change %v, share %v; want about +900%% and the whole change", f.Change, f.Share)
	}
	if len(r.Unresolved)+len(r.Drift) > 0 {
		t.Errorf("unresolved %v, drift %v", r.Unresolved, r.Drift)
	}
	for _, p := range r.Steps {
		if p.Mid.Hash == hashes[3] {
			t.Errorf("a step measured commit 3, which does not build: %+v", p)
		}
	}
}

// A change made in two commits, each about 4x, is reported as both, each
// with about half of the change.
func TestBisectTwoCommits(t *testing.T) {
	measuresCommits(t)
	dir, hashes := bisectRepo(t, []int{1, 1, 4, 4, 4, 16, 16}, -1)
	r, stderr := runBisectJSON(t, dir, hashes, 0, 6)
	if got := foundHashes(r); len(got) != 2 || got[0] != hashes[2] || got[1] != hashes[5] {
		t.Fatalf("found %v, want commits 2 and 5\n%s", got, stderr)
	}
	for _, f := range r.Found {
		if f.Share < 0.3 || f.Share > 0.7 {
			t.Errorf("%s: share %v, want about a half", f.Commit.Subject, f.Share)
		}
	}
}

// No change between good and bad: one line, exit 0. Two builds of the
// same code (commits that differ in a comment) must be told to hold no
// change or be inconclusive, never searched; on this shared 2-core
// machine (load 8-12) identical code measured -30% [-45%, -5%] at 95%
// in one run, so which of the two lines a run prints is the machine's,
// and the noise band is wide (±50%) to give "no change" its chance.
// Commits whose trees are identical: TestBisectIdenticalTrees.
func TestBisectNoChange(t *testing.T) {
	measuresCommits(t)
	dir, hashes := bisectRepo(t, []int{1, 1, 1}, -1)
	args := append([]string{"bisect", "--good", hashes[0], "--bad", hashes[2], "--out", filepath.Join(t.TempDir(), "out"), "--noise", "50"}, bisectFlags...)
	stdout, stderr, code := rigorIn(t, dir, append(args, "./...")...)
	if code != exitOK || strings.Count(stdout, "\n") != 1 ||
		!(strings.HasPrefix(stdout, "no change between good "+hashes[0][:12]) || strings.HasPrefix(stdout, "inconclusive between good "+hashes[0][:12])) {
		t.Errorf("exit %d, stdout %q; want exit 0 and one line saying no change or inconclusive\nstderr:\n%s", code, stdout, stderr)
	}
}

// Commits whose trees are identical need no measuring: no change.
func TestBisectIdenticalTrees(t *testing.T) {
	dir, hashes := bisectRepo(t, []int{1}, -1)
	gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "empty")
	args := append([]string{"bisect", "--good", hashes[0], "--bad", "HEAD", "--out", filepath.Join(t.TempDir(), "out")}, bisectFlags...)
	stdout, stderr, code := rigorIn(t, dir, append(args, "./...")...)
	if want := "no change between good " + hashes[0][:12]; code != exitOK || strings.Count(stdout, "\n") != 1 || !strings.HasPrefix(stdout, want) || !strings.Contains(stdout, "identical") {
		t.Errorf("identical trees: exit %d, stdout %q; want exit 0 and one line %q...\nstderr:\n%s", code, stdout, want, stderr)
	}
}

// An improvement is searched for as a regression is; with --record every
// commit measured is in the history store.
func TestBisectImprovement(t *testing.T) {
	measuresCommits(t)
	dir, hashes := bisectRepo(t, []int{10, 10, 10, 1, 1}, -1)
	r, stderr := runBisectJSON(t, dir, hashes, 0, 4, "--record")
	if got := foundHashes(r); len(got) != 1 || got[0] != hashes[3] {
		t.Fatalf("found %v, want commit 3\n%s", got, stderr)
	}
	if r.Change.Hi > -0.5 || r.Found[0].Change.Hi > -0.5 {
		t.Errorf("change %v, commit's %v; want about -90%%", r.Change, r.Found[0].Change)
	}
	out, errOut, code := rigorIn(t, dir, "history", "--format", "table")
	measured := []string{hashes[0], hashes[4]}
	for _, p := range r.Steps {
		measured = append(measured, p.Mid.Hash)
	}
	for _, h := range measured {
		if code != 0 || !strings.Contains(out, h[:10]) {
			t.Errorf("history: exit %d, no %s, which bisect measured\n%s%s", code, h[:10], out, errOut)
		}
	}
}

func TestBisectFlagErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"bisect"},
		{"bisect", "--good", "HEAD~1"},
		{"bisect", "--good", "a", "--bad", "b", "--max-rounds", "5"},
		{"bisect", "--good", "a", "--bad", "b", "--format", "csv"},
		{"bisect", "--good", "a", "--bad", "b", "--instructions", "sometimes"},
		{"bisect", "--resume", dir},
	} {
		_, stderr, code := rigorIn(t, dir, args...)
		if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.HasPrefix(stderr, "rigor: ") {
			t.Errorf("rigor %s: exit %d, stderr %q; want exit 2 and one line", strings.Join(args, " "), code, stderr)
		}
	}
}

// importAt imports into dir's store a Go benchmark file per commit
// index in at, BenchmarkWork taking level(i) µs/op (5 samples, 0.5%
// noise), at the commits of hashes.
func importAt(t *testing.T, dir string, hashes []string, at []int, level func(int) float64) {
	t.Helper()
	args := []string{"import"}
	rng := rand.New(rand.NewPCG(1, 2))
	for k, i := range at {
		var b strings.Builder
		fmt.Fprintf(&b, "commit: %s\ncommit-time: 2026-03-01T%02d:00:00Z\nbranch: main\ngoos: linux\ngoarch: amd64\npkg: example.com/lab/lab\ncpu: Test CPU\n", hashes[i], k)
		for range 5 {
			fmt.Fprintf(&b, "BenchmarkWork-2 \t1000\t%.1f ns/op\n", 1000*level(i)*(1+0.005*rng.NormFloat64()))
		}
		f := filepath.Join(t.TempDir(), fmt.Sprintf("c%03d.txt", i))
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, f)
	}
	if _, errOut, code := rigorIn(t, dir, args...); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
}

// rigor changes suggests the rigor bisect command for a change between
// recorded commits with unrecorded ones between them, and not for one
// between adjacent commits.
func TestChangesSuggestsBisect(t *testing.T) {
	scales := make([]int, 14)
	dir, hashes := bisectRepo(t, scales, -1)
	step := func(at int) func(int) float64 {
		return func(i int) float64 {
			if i >= at {
				return 2
			}
			return 1
		}
	}
	importAt(t, dir, hashes, []int{0, 1, 2, 3, 4, 9, 10, 11, 12, 13}, step(9))
	out, errOut, code := rigorIn(t, dir, "changes")
	want := fmt.Sprintf("made by one of 5 commits: rigor bisect --good %s --bad %s --bench '^BenchmarkWork$' example.com/lab/lab", hashes[4][:12], hashes[9][:12])
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("changes: exit %d, want a line %q\n%s%s", code, want, out, errOut)
	}

	dir, hashes = bisectRepo(t, scales, -1)
	importAt(t, dir, hashes, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, step(5))
	out, errOut, code = rigorIn(t, dir, "changes")
	if code != 0 || !strings.Contains(out, "regressed") || strings.Contains(out, "rigor bisect") {
		t.Errorf("changes between adjacent commits: exit %d, want a regression and no bisect command\n%s%s", code, out, errOut)
	}
}

// cancelOn is a stderr that cancels when what it is written holds text.
type cancelOn struct {
	mu     sync.Mutex
	buf    strings.Builder
	text   string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.text) {
		c.cancel()
	}
	return len(p), nil
}

// Ctrl-C after the first step keeps what was measured; --resume goes on
// from the second step and finds the commit.
func TestBisectInterruptResume(t *testing.T) {
	measuresCommits(t)
	dir, hashes := bisectRepo(t, []int{1, 1, 1, 1, 1, 1, 10, 10, 10}, -1)
	out := filepath.Join(t.TempDir(), "out")
	t.Chdir(dir)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stderr := &cancelOn{text: "rigor: step 1:", cancel: cancel}
	var stdout strings.Builder
	args := append([]string{"bisect", "--good", hashes[0], "--bad", hashes[8], "--out", out}, bisectFlags...)
	code := execute(ctx, append(args, "./..."), stdio{in: strings.NewReader(""), out: &stdout, err: stderr})
	if code != exitUsage || !strings.Contains(stderr.buf.String(), "rigor bisect --resume "+out) {
		t.Fatalf("interrupted: exit %d, want 2 and how to resume\n%s\n%s", code, stdout.String(), stderr.buf.String())
	}
	r, errOut := func() (bisectResult, string) {
		args := append([]string{"bisect", "--resume", out, "--format", "json"}, bisectFlags...)
		stdout, stderr, code := rigorIn(t, "", args...)
		if code != exitOK {
			t.Fatalf("--resume: exit %d\n%s\n%s", code, stdout, stderr)
		}
		var r bisectResult
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%v\n%s", err, stdout)
		}
		return r, stderr
	}()
	if strings.Contains(errOut, "good-bad") || strings.Contains(errOut, "rigor: step 1:") {
		t.Errorf("--resume measured good and bad or step 1 again:\n%s", errOut)
	}
	if got := foundHashes(r); len(got) != 1 || got[0] != hashes[6] || len(r.Steps) < 2 {
		t.Errorf("found %v in %d steps, want commit 6 in at least 2\n%s", got, len(r.Steps), errOut)
	}
}

// TestFreshDir: a step measured again (on --resume, after --time cut it
// short) gets a directory of its own. It reused the first attempt's, the
// run failed before a sample, and the midpoint was skipped as a commit
// that does not build (xxhash's aa1a74e, which builds).
func TestFreshDir(t *testing.T) {
	dir := t.TempDir()
	step := filepath.Join(dir, "run-step03-aa1a74e")
	if got := freshDir(step); got != step {
		t.Errorf("freshDir of a new name = %q, want %q", got, step)
	}
	for _, want := range []string{step + "-2", step + "-3"} {
		if err := os.MkdirAll(freshDir(step), 0o755); err != nil {
			t.Fatal(err)
		}
		if got := freshDir(step); got != want {
			t.Errorf("freshDir after an attempt = %q, want %q", got, want)
		}
	}
}

// Every step of a search links each commit --layouts times with the same
// seeds, and the binary cache keeps each link once, by its seed: a
// commit measured in several steps is linked once per layout.
func TestBisectLayouts(t *testing.T) {
	measuresCommits(t)
	dir, hashes := bisectRepo(t, []int{1, 1, 10, 10}, -1)
	out := filepath.Join(t.TempDir(), "out")
	args := append([]string{"bisect", "--good", hashes[0], "--bad", hashes[3], "--layouts", "2", "--format", "json", "--out", out}, bisectFlags...)
	stdout, stderr, code := rigorIn(t, dir, append(args, "./...")...)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, bisectStateFile))
	if err != nil {
		t.Fatal(err)
	}
	var st bisectState
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Runs) < 2 {
		t.Fatalf("%d runs, want good against bad and at least one step", len(st.Runs))
	}
	var seeds []int64
	commits := map[string]bool{}
	for _, dir := range st.Runs {
		run := readJSONFile(t, filepath.Join(dir, "run.json"))
		checkLayouts(t, run, 2)
		for _, sd := range run.Sides {
			commits[sd.Rev] = true
			if seeds == nil {
				seeds = sd.Layouts
			} else if !slices.Equal(sd.Layouts, seeds) {
				t.Errorf("%s: seeds %v, want every step's %v", filepath.Base(dir), sd.Layouts, seeds)
			}
		}
	}
	bins, _ := filepath.Glob(filepath.Join(out, "bin", "*.test"))
	if want := 2 * len(commits); len(bins) != want {
		t.Errorf("%d binaries cached for %d commits measured, want %d: one per commit and seed", len(bins), len(commits), want)
	}
}
