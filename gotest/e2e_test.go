package gotest

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// The throwaway module the end-to-end tests measure. Revision 1 does some
// arithmetic per operation; revision 2 does ten times as much, without
// sleeping, so it is clearly slower whatever the machine is doing.
const (
	labGoMod = "module example.com/lab\n\ngo 1.26\n"
	labWork  = `package lab

const scale = SCALE

// Work runs n*scale steps of a linear congruential generator.
func Work(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n*scale; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// Alloc allocates n*scale bytes.
func Alloc(n int) []byte { return make([]byte, n*scale) }
`
	labTest = `package lab

import (
	"fmt"
	"testing"
)

var sink uint64
var bytesSink []byte

func TestWork(t *testing.T) {
	if Work(0) != 1 {
		t.Fatal("Work(0) != 1")
	}
}

func BenchmarkWork(b *testing.B) {
	for b.Loop() {
		sink = Work(200)
	}
}

func BenchmarkAlloc(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		bytesSink = Alloc(256)
	}
}

func BenchmarkSizes(b *testing.B) {
	for _, n := range []int{50, 400} {
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			for b.Loop() {
				sink = Work(n)
			}
		})
	}
}
`
)

// writeFiles writes files (path -> content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=rigor", "-c", "user.email=rigor@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo creates a git repository whose commits are the given file sets,
// applied in order, and returns its directory.
func newRepo(t *testing.T, commits ...map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	for i, files := range commits {
		writeFiles(t, dir, files)
		runGit(t, dir, "add", "-A")
		runGit(t, dir, "commit", "-q", "-m", "commit "+string(rune('1'+i)))
	}
	return dir
}

func labRev(scale string) map[string]string {
	return map[string]string{
		"go.mod":          labGoMod,
		"lab/work.go":     strings.Replace(labWork, "SCALE", scale, 1),
		"lab/lab_test.go": labTest,
	}
}

// The lab repository is shared by the tests that only read it.
var (
	labOnce sync.Once
	labDir  string
)

func labRepo(t *testing.T) string {
	t.Helper()
	labOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rigor-lab-")
		if err != nil {
			t.Fatal(err)
		}
		labDir = dir
	})
	if _, err := os.Stat(filepath.Join(labDir, ".git")); err != nil {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git not found")
		}
		runGit(t, labDir, "init", "-q", "-b", "main")
		for i, scale := range []string{"1", "10"} {
			writeFiles(t, labDir, labRev(scale))
			runGit(t, labDir, "add", "-A")
			runGit(t, labDir, "commit", "-q", "-m", "scale "+scale+" "+string(rune('1'+i)))
		}
	}
	return labDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if labDir != "" {
		os.RemoveAll(labDir)
	}
	os.Exit(code)
}

// quick returns a configuration with small budgets for tests: samples of
// a few milliseconds, exactly rounds rounds.
func quick(dir string, t *testing.T, rounds int, sides ...Side) Config {
	return Config{
		Dir:       dir,
		Packages:  []string{"./..."},
		Sides:     sides,
		Benchtime: 5 * time.Millisecond,
		MinRounds: rounds,
		MaxRounds: rounds,
		Time:      2 * time.Minute,
		Timeout:   time.Minute,
		Seed:      1,
		Out:       filepath.Join(t.TempDir(), "out"),
	}
}

// worktrees returns the number of worktrees of the repository at dir.
func worktrees(t *testing.T, dir string) int {
	return strings.Count(runGit(t, dir, "worktree", "list", "--porcelain"), "worktree ")
}

type fakeObserver struct {
	marks, pauses, procs, profiles, looks int
	keys                                  map[string]bool
}

func (f *fakeObserver) Mark(benchmark, side string, round int) {
	f.marks++
	f.keys[benchmark] = true
}
func (f *fakeObserver) Pause()                         { f.pauses++ }
func (f *fakeObserver) AddProcess(*model.ProcessStats) { f.procs++ }
func (f *fakeObserver) AddProfile(*model.ProfileStats) { f.profiles++ }
func (f *fakeObserver) Observations() []model.Observation {
	f.looks++
	return []model.Observation{{Benchmark: "interim"}}
}
func (f *fakeObserver) Stop() []model.Observation {
	return []model.Observation{{Benchmark: "fake"}}
}

func TestABTenfold(t *testing.T) {
	dir := labRepo(t)
	obs := &fakeObserver{keys: map[string]bool{}}
	const rounds = 12
	cfg := quick(dir, t, rounds, Side{Label: "old", Rev: "HEAD~1"}, Side{Label: "new", Rev: "HEAD"})
	cfg.Observer = obs
	cfg.ProcessStats = func(ps *os.ProcessState) *model.ProcessStats { return &model.ProcessStats{PID: ps.Pid()} }
	var annotated bool
	cfg.Annotate = func(ctx context.Context, run *model.Run, binary func(pkg, side string) string) {
		annotated = true
		for _, side := range []string{"old", "new"} {
			if _, err := os.Stat(binary("example.com/lab/lab", side)); err != nil {
				t.Errorf("Annotate: %s binary: %v", side, err)
			}
		}
		if binary("example.com/lab/lab", "nope") != "" || binary("nope", "old") != "" {
			t.Error("Annotate: a binary for an unknown side or package")
		}
		run.Notes = append(run.Notes, model.Note{Kind: model.NoteOther, Text: "annotated"})
	}
	// Every look of the stopping rule sees the observer's intervals so
	// far, which choose its clock.
	var looks, blind int
	cfg.Unresolved = func(run *model.Run) ([]string, error) {
		looks++
		if !slices.ContainsFunc(run.Observations, func(o model.Observation) bool { return o.Benchmark == "interim" }) {
			blind++
		}
		return experiment.Unresolved(run, analysis.DefaultOptions())
	}
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if looks == 0 || blind != 0 || obs.looks < looks {
		t.Errorf("%d looks of the stopping rule, %d without the observer's intervals (observer asked %d times)", looks, blind, obs.looks)
	}
	if slices.ContainsFunc(run.Observations, func(o model.Observation) bool { return o.Benchmark == "interim" }) {
		t.Error("an interim look's observations were kept in the run")
	}
	if n := worktrees(t, dir); n != 1 {
		t.Errorf("%d worktrees left after the run, want only the main one", n)
	}
	if !annotated || !slices.Contains(model.Texts(run.Notes), "annotated") {
		t.Error("Annotate not called, or its notes not kept")
	}
	if run.Kind != model.KindAB || !run.Paired || len(run.Sides) != 2 {
		t.Fatalf("run kind %q paired %v sides %d, want ab, paired, 2", run.Kind, run.Paired, len(run.Sides))
	}
	for _, sd := range run.Sides {
		if len(sd.Rev) != 40 {
			t.Errorf("side %s: rev %q is not a full hash", sd.Label, sd.Rev)
		}
	}
	if run.Sides[0].Rev == run.Sides[1].Rev {
		t.Errorf("both sides at %s", run.Sides[0].Rev)
	}
	for _, n := range model.Texts(run.Notes) {
		if strings.Contains(n, "A/A") {
			t.Errorf("a real change labelled A/A: %s", n)
		}
	}

	// Every sub-benchmark is its own row.
	var names []string
	for _, b := range run.Benchmarks {
		names = append(names, b.Name)
	}
	slices.Sort(names)
	if want := []string{"Alloc", "Sizes/n=400", "Sizes/n=50", "Work"}; !slices.Equal(names, want) {
		t.Fatalf("benchmarks %q, want %q", names, want)
	}

	// Both sides in every round, with the same iteration count: pairs.
	for _, b := range run.Benchmarks {
		m := b.Metric("sec/op")
		if m == nil {
			t.Fatalf("%s: no sec/op", b.Name)
		}
		old, new := m.BySide("old"), m.BySide("new")
		if len(old) != rounds || len(new) != rounds {
			t.Fatalf("%s: %d old and %d new samples, want %d each", b.Name, len(old), len(new), rounds)
		}
		iters := map[int]int64{}
		for _, s := range old {
			iters[s.Round] = s.Iters
		}
		distinct := map[int64]bool{}
		for _, s := range new {
			if iters[s.Round] != s.Iters {
				t.Errorf("%s round %d: old ran %d iterations, new %d", b.Name, s.Round, iters[s.Round], s.Iters)
			}
			distinct[s.Iters] = true
		}
		if len(distinct) < 2 && iters[1] > 10 {
			t.Errorf("%s: iteration count never jittered: %v", b.Name, distinct)
		}
		if b.Name == "Alloc" && b.Metric("B/op") == nil {
			t.Errorf("Alloc: no B/op (-test.benchmem)")
		}
	}

	// Ten times the work is a regression in time, for every benchmark,
	// and 10x the bytes for Alloc. On a loaded machine one round in
	// twelve can invert a pair, so the test does not let the
	// multiple-comparison correction of 8 comparisons turn that into
	// inconclusive: it checks the direction, not the correction.
	opts := analysis.DefaultOptions()
	opts.Correction = analysis.CorrectionNone
	rep, err := analysis.Analyze(run, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range rep.Benchmarks {
		for _, m := range b.Metrics {
			c := m.Changes[0]
			want := analysis.Verdict("")
			switch {
			case m.Unit == "sec/op" && b.Name != "Alloc":
				want = analysis.Regressed
			case m.Unit == "B/op" && b.Name == "Alloc":
				want = analysis.Regressed
				if c.Estimate < 5 {
					t.Errorf("Alloc B/op change %+.0f%%, want about +900%%", c.Estimate*100)
				}
			}
			if want != "" && c.Verdict != want {
				t.Errorf("%s %s: %s (%s), want %s", b.Name, m.Unit, c.Verdict, c.Reason, want)
			}
		}
	}

	// The files: benchstat-readable text per side with every sample, and
	// the JSON of the run.
	for _, side := range []string{"old", "new"} {
		got, err := model.ReadFile(filepath.Join(cfg.Out, side+".txt"), side)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Benchmarks) != 4 {
			t.Errorf("%s.txt: %d benchmarks, want 4", side, len(got.Benchmarks))
		}
		for _, b := range got.Benchmarks {
			if b.Pkg != "example.com/lab/lab" {
				t.Errorf("%s.txt: %s has package %q", side, b.Name, b.Pkg)
			}
			if n := len(b.Metric("sec/op").Samples); n != rounds {
				t.Errorf("%s.txt: %s has %d samples, want %d", side, b.Name, n, rounds)
			}
		}
	}
	f, err := os.Open(filepath.Join(cfg.Out, RunFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved, err := model.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Benchmarks) != 4 || !saved.Paired || len(saved.Observations) != 1 {
		t.Errorf("run.json: %d benchmarks, paired %v, %d observations; want 4, true, 1", len(saved.Benchmarks), saved.Paired, len(saved.Observations))
	}

	// The observer saw every measured process.
	if want := 4 * 2 * rounds; obs.marks != want || obs.pauses != want || obs.procs != want {
		t.Errorf("observer: %d marks, %d pauses, %d processes; want %d each (4 benchmarks x 2 sides x %d rounds)", obs.marks, obs.pauses, obs.procs, want, rounds)
	}
	key := run.Benchmarks[slices.IndexFunc(run.Benchmarks, func(b model.Benchmark) bool { return b.Name == "Sizes/n=400" })].Key()
	if !obs.keys[key] || !strings.HasPrefix(key, "example.com/lab/lab.Sizes/n=400") {
		t.Errorf("observer marks %v lack %s", obs.keys, key)
	}
}

func TestAALabelled(t *testing.T) {
	dir := labRepo(t)
	cfg := quick(dir, t, 3, Side{Label: "old", Rev: "HEAD"}, Side{Label: "new", Rev: WorkingTree})
	cfg.Bench = "Work"
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(model.Texts(run.Notes), func(n string) bool { return strings.HasPrefix(n, "A/A run") }) {
		t.Errorf("HEAD against a clean working tree is not labelled A/A; notes: %q", run.Notes)
	}
	if len(run.Benchmarks) != 1 || run.Benchmarks[0].Name != "Work" {
		t.Errorf("--bench Work measured %d benchmarks", len(run.Benchmarks))
	}

	// Different build settings are not A/A, even on the same tree.
	cfg = quick(dir, t, 2, Side{Label: "old", Rev: WorkingTree}, Side{Label: "new", Rev: WorkingTree, Settings: Settings{Env: []string{"GOGC=400"}}})
	cfg.Bench = "Work"
	run, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(model.Texts(run.Notes), func(n string) bool { return strings.HasPrefix(n, "A/A run") }) {
		t.Errorf("sides with different environments labelled A/A")
	}
	if got := run.Sides[1].BuildEnv; !slices.Equal(got, []string{"GOGC=400"}) {
		t.Errorf("new side's environment recorded as %q", got)
	}
}

func TestFailuresReported(t *testing.T) {
	base := labRev("1")
	base["broken/broken.go"] = "package broken\n\nfunc F() int { return 1 }\n"
	base["broken/broken_test.go"] = "package broken\n\nimport \"testing\"\n\nfunc BenchmarkF(b *testing.B) {\n\tfor b.Loop() {\n\t\t_ = F()\n\t}\n}\n"
	base["lab/fail_test.go"] = `package lab

import (
	"testing"
	"time"
)

func BenchmarkPanics(b *testing.B) {
	panic("boom from the benchmark")
}

func BenchmarkHangs(b *testing.B) {
	time.Sleep(time.Hour)
}
`
	next := map[string]string{
		"broken/broken.go":  "package broken\n\nfunc F() int { return undefinedThing }\n",
		"lab/extra_test.go": "package lab\n\nimport \"testing\"\n\nfunc BenchmarkOnlyNew(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink = Work(1)\n\t}\n}\n",
	}
	dir := newRepo(t, base, next)
	cfg := quick(dir, t, 2, Side{Label: "old", Rev: "HEAD~1"}, Side{Label: "new", Rev: WorkingTree})
	cfg.Timeout = 2 * time.Second
	var log strings.Builder
	cfg.Log = &log
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(model.Texts(run.Notes), "\n")
	for _, want := range []string{
		"package example.com/lab/broken does not build on new", // build failure...
		"undefinedThing",                 // ...with the compiler's words
		"BenchmarkOnlyNew (only on new)", // one-sided benchmark
		"BenchmarkPanics failed on old",  // a panic...
		"boom from the benchmark",        // ...with the output's tail
		"BenchmarkHangs failed on old",   // a hang...
		"timed out after 2s",             // ...stopped by the timeout...
		"BenchmarkHangs(",                // ...with the stack where it hangs
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if !strings.Contains(log.String(), "undefinedThing") {
		t.Errorf("the log does not show the build failure:\n%s", log.String())
	}
	// The other benchmarks went on.
	var names []string
	for _, b := range run.Benchmarks {
		if m := b.Metric("sec/op"); m != nil && len(m.Samples) == 4 {
			names = append(names, b.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"Alloc", "Sizes/n=400", "Sizes/n=50", "Work"}; !slices.Equal(names, want) {
		t.Errorf("fully measured benchmarks %q, want %q", names, want)
	}
}

// TestLostPackage: a package that builds on the baseline and not on the
// new side is recorded, for each of its benchmarks that -bench selects
// (found by listing the baseline's test binary), as missing on new
// because it did not build, so that the gate fails on it; benchmarks
// -bench leaves out are not recorded, and a package that builds on both
// sides is measured as usual. The other way round (the baseline does not
// build) nothing is lost: the new side gains the benchmarks.
func TestLostPackage(t *testing.T) {
	base := labRev("1")
	base["other/other.go"] = "package other\n\nfunc F(n int) int { return n * 3 }\n"
	base["other/other_test.go"] = "package other\n\nimport \"testing\"\n\nvar sink int\n\nfunc BenchmarkOther(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink = F(7)\n\t}\n}\n"
	next := map[string]string{"lab/work.go": strings.Replace(labWork, "SCALE", "undefinedThing", 1)}
	dir := newRepo(t, base, next)
	const bench = "Work|Sizes/n=50|Other" // not Alloc
	const lab = "example.com/lab/lab"

	t.Run("new does not build", func(t *testing.T) {
		cfg := quick(dir, t, 2, Side{Label: "old", Rev: "HEAD~1"}, Side{Label: "new", Rev: "HEAD"})
		cfg.Bench = bench
		run, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]map[string]model.Missing{} // by package and name, without -procs
		for _, b := range run.Benchmarks {
			got[b.Pkg+"."+b.Name] = b.Missing
			if b.Pkg == lab && len(b.Metrics) > 0 {
				t.Errorf("%s: %d metrics from a package that did not build on new", b.Key(), len(b.Metrics))
			}
		}
		lost := map[string]model.Missing{"new": {Kind: model.MissingBuild, Reason: "its package does not build on new"}}
		want := map[string]map[string]model.Missing{
			lab + ".Work":                 lost,
			lab + ".Sizes":                lost,
			"example.com/lab/other.Other": nil,
		}
		if len(got) != len(want) {
			t.Errorf("benchmarks %v, want %v", got, want)
		}
		for k, w := range want {
			if g, ok := got[k]; !ok || !maps.Equal(g, w) {
				t.Errorf("%s: missing %v (present %v), want %v", k, g, ok, w)
			}
		}
		rep, err := analysis.Analyze(run, analysis.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		var fails []string
		for _, f := range rep.Gate(0.05) {
			if f.Missing != nil {
				fails = append(fails, f.String())
			}
		}
		slices.Sort(fails)
		wantFails := []string{
			lab + ".Sizes did not build on new where old has it: its package does not build on new",
			lab + ".Work did not build on new where old has it: its package does not build on new",
		}
		if !slices.Equal(fails, wantFails) {
			t.Errorf("gate failures for lost benchmarks %q, want %q", fails, wantFails)
		}
	})

	t.Run("old does not build", func(t *testing.T) {
		cfg := quick(dir, t, 2, Side{Label: "old", Rev: "HEAD"}, Side{Label: "new", Rev: "HEAD~1"})
		cfg.Bench = bench
		run, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range run.Benchmarks {
			if len(b.Missing) > 0 {
				t.Errorf("%s recorded missing %v: the new side lost nothing", b.Key(), b.Missing)
			}
		}
		if !slices.ContainsFunc(model.Texts(run.Notes), func(n string) bool {
			return strings.HasPrefix(n, "package "+lab+" does not build on old")
		}) {
			t.Errorf("notes do not say the package does not build on old: %q", model.Texts(run.Notes))
		}
	})
}

func TestInterruptKeepsPartialRun(t *testing.T) {
	dir := labRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := quick(dir, t, 50, Side{Label: "old", Rev: "HEAD~1"}, Side{Label: "new", Rev: "HEAD"})
	cfg.Bench = "Work"
	cfg.Progress = func(p Progress) {
		if p.Phase == PhaseMeasure && p.Round == 3 {
			cancel() // Ctrl-C during round 3
		}
	}
	run, err := Run(ctx, cfg)
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if run == nil {
		t.Fatal("no partial run")
	}
	if n := worktrees(t, dir); n != 1 {
		t.Errorf("%d worktrees left after an interrupted run, want only the main one", n)
	}
	if !slices.ContainsFunc(model.Texts(run.Notes), func(n string) bool { return strings.Contains(n, "interrupted") }) {
		t.Errorf("notes do not say the run was interrupted: %q", run.Notes)
	}
	m := run.Benchmarks[0].Metric("sec/op")
	if n := len(m.Values("old")); n != 2 {
		t.Errorf("%d old samples kept, want the 2 of the completed rounds", n)
	}
	f, err := os.ReadFile(filepath.Join(cfg.Out, "new.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(f), "BenchmarkWork"); n != 2 {
		t.Errorf("new.txt holds %d results, want 2", n)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, RunFile)); err != nil {
		t.Error(err)
	}
}

func TestRunOneSide(t *testing.T) {
	dir := labRepo(t)
	cfg := quick(dir, t, 4, Side{Label: "current", Rev: WorkingTree})
	cfg.Bench = "Sizes/n=50"
	cfg.CPU = []int{1, 2}
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if run.Kind != model.KindRun || run.Paired {
		t.Errorf("one side: kind %q paired %v, want run, unpaired", run.Kind, run.Paired)
	}
	var got []string
	for _, b := range run.Benchmarks {
		got = append(got, b.FullName())
	}
	if want := []string{"Sizes/n=50", "Sizes/n=50-2"}; !slices.Equal(got, want) {
		t.Errorf("--cpu 1,2 --bench Sizes/n=50 measured %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, "current.txt")); err != nil {
		t.Error(err)
	}
}

func TestRunErrors(t *testing.T) {
	dir := labRepo(t)
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"unknown revision", Config{Sides: []Side{{Label: "old", Rev: "no-such-rev"}}}, "unknown revision"},
		{"bad pattern", Config{Bench: "a(", Sides: []Side{{Label: "old", Rev: "."}}}, "invalid benchmark pattern"},
		{"no packages", Config{Packages: []string{"std/nothing/..."}, Sides: []Side{{Label: "old", Rev: "."}}}, "no packages with tests"},
		{"no such directory", Config{Packages: []string{"./nothing/..."}, Sides: []Side{{Label: "old", Rev: "."}}}, "./nothing/...: lstat ./nothing/: no such file or directory"},
		{"same labels", Config{Sides: []Side{{Label: "x", Rev: "."}, {Label: "x", Rev: "."}}}, "side label"},
		{"bad order", Config{Order: "abab", Sides: []Side{{Label: "old", Rev: "."}}}, "unknown order"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Dir = dir
			tc.cfg.Out = t.TempDir()
			run, err := Run(context.Background(), tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || run != nil {
				t.Errorf("err = %v, run = %v; want an error containing %q and no run", err, run != nil, tc.want)
			}
		})
	}
}

// TestLostTests: a new revision that drops a package's test files loses
// its benchmarks, and the gate says so as it does for one benchmark
// deleted (it passed: the package was only noted as "tests only on old").
func TestLostTests(t *testing.T) {
	base := labRev("1")
	base["other/other.go"] = "package other\n\nfunc F(n int) int { return n * 3 }\n"
	base["other/other_test.go"] = "package other\n\nimport \"testing\"\n\nvar sink int\n\nfunc BenchmarkOther(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink = F(7)\n\t}\n}\n\nfunc BenchmarkSkipped(b *testing.B) {}\n"
	// Test files excluded from every build: go test sees none.
	next := map[string]string{"other/other_test.go": "//go:build ignore\n\npackage other\n"}
	dir := newRepo(t, base, next)
	cfg := quick(dir, t, 2, Side{Label: "old", Rev: "HEAD~1"}, Side{Label: "new", Rev: "HEAD"})
	cfg.Bench = "Work|Other" // not Skipped
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analysis.Analyze(run, analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var fails []string
	for _, f := range rep.Gate(0.05) {
		if f.Missing != nil {
			fails = append(fails, f.String())
		}
	}
	want := []string{"example.com/lab/other.Other is missing on new where old has it: its package has no tests on new"}
	if !slices.Equal(fails, want) {
		t.Errorf("gate failures for lost benchmarks %q, want %q", fails, want)
	}
}
