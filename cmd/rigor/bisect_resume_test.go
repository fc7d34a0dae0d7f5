package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/internal/bisect"
	"github.com/rigorbench/rigor/model"
)

// bisectStateIn writes the state of a search of hashes (good first) whose
// change, +900% in BenchmarkWork, was established and no step taken, as
// rigor bisect leaves it after good against bad; settings are the saved
// build settings (nil: a state file of before they were saved). It
// returns the results directory.
func bisectStateIn(t *testing.T, hashes []string, settings *bisectSettings) string {
	t.Helper()
	var commits []bisectCommit
	for i, h := range hashes {
		commits = append(commits, bisectCommit{Hash: h, Subject: fmt.Sprintf("commit %d", i)})
	}
	n := len(hashes) - 1
	total := bisect.FromRatio(9, 8, 10)
	st := &bisectState{
		Good: hashes[0], Bad: hashes[n], Commits: commits, Settings: settings,
		Benchmark: "example.com/lab/lab.BenchmarkWork", Pattern: benchPattern("Work"), Pkg: "example.com/lab/lab",
		Alpha: 0.05, Total: total, Search: bisect.New(n, total, math.Log1p(0.02)),
	}
	st.Search.Pending[0].Change = total
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := st.save(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A step whose measuring fails before a sample for a reason that is not
// the midpoint's (no repository to check it out from: --resume run outside
// the repository searched; a build setting gotest refuses) stops the
// search with that error, exit 2, its state kept for --resume. Both were
// usage errors, and every usage error read as a midpoint that does not
// build: each midpoint in turn was skipped and the search exited 0,
// reporting bad as the commit found "or one of the commits before it that
// could not be measured".
func TestBisectStepErrorStopsSearch(t *testing.T) {
	dir, hashes := bisectRepo(t, []int{1, 1, 1, 1, 1}, -1)
	for _, c := range []struct {
		name, cwd string
		saved     *bisectSettings
		args      []string
		want      string
	}{
		{"outside the repository", t.TempDir(), &bisectSettings{Bench: "."}, nil, "needs a git repository"},
		// An older rigor's state, resumed with the command line's.
		{"refused build setting", dir, nil, []string{"--gcflags", "all=-N -l"}, "not timed (--force times it anyway)"},
		// The search's own, resumed without flags.
		{"refused build setting saved", dir, &bisectSettings{GCFlags: "all=-N -l", Bench: "."}, nil, "not timed (--force times it anyway)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := bisectStateIn(t, hashes, c.saved)
			args := append(append([]string{"bisect", "--resume", run}, bisectFlags...), c.args...)
			stdout, stderr, code := rigorIn(t, c.cwd, args...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != exitUsage || stdout != "" || strings.Contains(stderr, "skipping") || !strings.Contains(lines[len(lines)-1], c.want) {
				t.Fatalf("exit %d; want 2, nothing skipped and a last line saying %q\nstdout:\n%s\nstderr:\n%s", code, c.want, stdout, stderr)
			}
			if old := strings.Contains(stderr, "keeps no build settings"); old != (c.saved == nil) {
				t.Errorf("stderr warns of a state without settings: %t, want %t\n%s", old, c.saved == nil, stderr)
			}
			st, err := loadBisectState(run)
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Search.Skipped) > 0 || len(st.Search.Found) > 0 || len(st.Search.Pending) != 1 {
				t.Errorf("state after the error: skipped %v, found %v, pending %v; want the search as it was", st.Search.Skipped, st.Search.Found, st.Search.Pending)
			}
		})
	}
}

// A commit that does not build is skipped, with what failed, leaving bad
// the commit found with it, and nothing measured: go list fails on
// a broken go.mod; a compile error fails go test -c, good's test binary
// built (once, then from bin/) to name the benchmarks the midpoint lacks.
func TestBisectSkipsCommitsThatDoNotBuild(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		why   string
	}{
		{"go.mod", map[string]string{"go.mod": labGoMod + "require (\n"}, "go list fails there, so it does not build"},
		{"compile error", map[string]string{"lab/work.go": strings.Replace(workGo, "SCALE", "1", 1) + "\nvar _ = undefinedName\n"}, "it does not build"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, hashes := bisectRepo(t, []int{1}, -1)
			hashes = append(hashes, commitFiles(t, dir, "commit 1: broken", c.files))
			hashes = append(hashes, commitFiles(t, dir, "commit 2: mended", map[string]string{"go.mod": labGoMod, "lab/work.go": strings.Replace(workGo, "SCALE", "10", 1)}))
			run := bisectStateIn(t, hashes, &bisectSettings{Bench: "."})
			stdout, stderr, code := rigorIn(t, dir, append([]string{"bisect", "--resume", run, "--format", "json"}, bisectFlags...)...)
			if code != exitOK {
				t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if want := fmt.Sprintf("skipping %s (commit 1): %s", hashes[1][:12], c.why); !strings.Contains(stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, stderr)
			}
			var r bisectResult
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatalf("%v\n%s", err, stdout)
			}
			if len(r.Found) != 1 || r.Found[0].Commit.Hash != hashes[2] || len(r.Found[0].Skipped) != 1 || len(r.Steps) != 0 || r.Rounds != 0 {
				t.Errorf("found %+v in %d steps, %d rounds; want commit 2 with commit 1 skipped, nothing measured", r.Found, len(r.Steps), r.Rounds)
			}
		})
	}
}

// skipReason skips a midpoint for what is the midpoint's (it does not
// build, its tests fail, its benchmark is missing or measured nothing
// there) and for nothing else. The errors are measure's own where a
// measure that fails before building makes them (a results directory
// that cannot be made, a setting gotest refuses, go list failing on a
// side), gotest's error types wrapped as measure wraps them otherwise.
func TestSkipReason(t *testing.T) {
	dir, hashes := bisectRepo(t, []int{1}, -1)
	broken := commitFiles(t, dir, "broken go.mod", map[string]string{"go.mod": labGoMod + "require (\n", "lab/work.go": workGo})
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	measureErr := func(out string, sides ...gotest.Side) error {
		t.Helper()
		cfg := gotest.Config{Sides: sides, Out: out, Bench: ".", Packages: []string{"./..."}, Check: gotest.Checks{Skip: true}}
		run, err := measure(t.Context(), cfg, stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
		if run != nil || err == nil {
			t.Fatalf("measure %+v: run %v, error %v; want an error and no run", sides, run, err)
		}
		return err
	}
	at := func(label, rev string, s gotest.Settings) gotest.Side {
		return gotest.Side{Label: label, Rev: rev, Settings: s}
	}
	good, mid := at("lo", hashes[0], gotest.Settings{}), at("mid", broken, gotest.Settings{})

	sampled := func(missing map[string]string, sides ...string) *model.Run {
		run := &model.Run{}
		for _, l := range []string{"lo", "mid", "hi"} {
			run.Sides = append(run.Sides, model.Side{Label: l})
		}
		b := model.Benchmark{Pkg: "example.com/lab/lab", Name: "Work", Metrics: []model.Metric{{Unit: "sec/op"}}}
		for _, sd := range sides {
			b.Metrics[0].Samples = append(b.Metrics[0].Samples, model.Sample{Side: sd, Round: 1, Iters: 1, Value: 1e-6})
		}
		for sd, kind := range missing {
			b.MarkMissing(sd, kind, "why")
		}
		run.Benchmarks = []model.Benchmark{b}
		return run
	}
	check := func(side string) error {
		return usageErrorf("%w", &gotest.CheckError{Side: side, Pkg: "example.com/lab/lab", Failed: []string{"TestWork"}, Err: errors.New("exit status 1")})
	}
	for _, c := range []struct {
		name string
		run  *model.Run
		err  error
		want string // "" for no skip
	}{
		{"go list fails on the midpoint", nil, measureErr(filepath.Join(t.TempDir(), "a"), good, mid), "go list fails there, so it does not build"},
		{"go list fails on an end", nil, measureErr(filepath.Join(t.TempDir(), "b"), at("lo", broken, gotest.Settings{}), at("mid", hashes[0], gotest.Settings{})), ""},
		{"the midpoint's tests fail", nil, check("mid"), "its tests fail before timing"},
		{"an end's tests fail", nil, check("hi"), ""},
		{"the midpoint does not build", sampled(map[string]string{"mid": model.MissingBuild}, "lo"), errNothingMeasured, "it does not build"},
		{"the midpoint lacks the benchmark", sampled(map[string]string{"mid": model.MissingAbsent}, "lo", "hi"), errNothingMeasured, "its benchmark is missing"},
		{"the midpoint's benchmark fails", sampled(map[string]string{"mid": model.MissingFailed}, "lo", "hi"), errNothingMeasured, "its benchmark fails there"},
		{"the midpoint measured nothing", sampled(nil, "lo", "hi"), errNothingMeasured, "its benchmark measured nothing there"},
		{"every side measured", sampled(nil, "lo", "mid", "hi"), nil, ""},
		{"an end measured nothing", sampled(map[string]string{"hi": model.MissingFailed}, "lo", "mid"), errNothingMeasured, ""},
		{"no repository", nil, func() error {
			t.Chdir(t.TempDir())
			defer t.Chdir(dir)
			return measureErr(filepath.Join(t.TempDir(), "c"), good, mid)
		}(), ""},
		{"results directory under a file", nil, measureErr(filepath.Join(file, "run"), good, mid), ""},
		{"a setting gotest refuses", nil, measureErr(filepath.Join(t.TempDir(), "d"), good, at("mid", broken, gotest.Settings{GCFlags: "-l"})), ""},
		{"interrupted", nil, &exitError{code: exitUsage, err: errors.New("interrupted")}, ""},
	} {
		why, ok := skipReason(c.run, c.err, "mid")
		if ok != (c.want != "") || why != c.want && ok {
			t.Errorf("%s (%v): skipReason = %q, %t; want %q, %t", c.name, c.err, why, ok, c.want, c.want != "")
		}
	}
}

// A search keeps its settings in bisect.json: --resume alone continues
// with them, and one given with another value is refused in one line
// naming the flag and both values, exit 2, before anything is measured.
// --resume took them from the command line: resumed without --tags, a
// search started with --tags purego measured every later step without it.
func TestBisectResumeKeepsSettings(t *testing.T) {
	dir, hashes := bisectRepo(t, []int{1}, -1)
	gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "empty")
	out := filepath.Join(t.TempDir(), "out")
	args := append([]string{"bisect", "--good", hashes[0], "--bad", "HEAD", "--out", out, "--tags", "purego", "--env", "GOGC=400", "--gcflags", "-B",
		"--bench", "Work", "--cpu", "1", "--go", "local"}, bisectFlags...)
	stdout, stderr, code := rigorIn(t, dir, append(args, "./lab", "--", "-size", "64")...)
	if code != exitOK || !strings.HasPrefix(stdout, "no change") {
		t.Fatalf("exit %d, stdout %q, want no change (identical trees)\n%s", code, stdout, stderr)
	}
	want := bisectSettings{Tags: "purego", GCFlags: "-B", Go: "local", Env: []string{"GOGC=400"}, Args: []string{"-size", "64"}, Bench: "Work", CPU: "1", Packages: []string{"./lab"}}
	st, err := loadBisectState(out)
	if err != nil {
		t.Fatal(err)
	}
	if st.Settings == nil || fmt.Sprint(*st.Settings) != fmt.Sprint(want) {
		t.Fatalf("bisect.json keeps settings %+v, want %+v", st.Settings, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tags", "netgo"}, `the search was started with --tags "purego", not "netgo": leave --tags out`},
		{[]string{"--tags", ""}, `--tags "purego", not ""`},
		{[]string{"--env", "GOGC=400", "--env", "GOAMD64=v3"}, `--env "GOGC=400", not "GOGC=400" "GOAMD64=v3"`},
		{[]string{"--gcflags", "-m"}, `--gcflags "-B", not "-m"`},
		{[]string{"--go", "go1.25.0"}, `--go "local", not "go1.25.0"`},
		{[]string{"--bench", "."}, `--bench "Work", not "."`},
		{[]string{"--cpu", "1,2"}, `--cpu "1", not "1,2"`},
		{[]string{"--all-commits"}, `--all-commits false, not true`},
		{[]string{"./..."}, `packages "./lab", not "./..."`},
		{[]string{"--", "-size", "128"}, `arguments after -- "-size" "64", not "-size" "128"`},
		{[]string{"--"}, `arguments after -- "-size" "64", not none`},
	} {
		stdout, stderr, code := rigorIn(t, dir, append([]string{"bisect", "--resume", out}, c.args...)...)
		if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("--resume %v: exit %d, stderr %q; want 2 and one line saying %s", c.args, code, stderr, c.want)
		}
	}
	// The saved settings given again, or left out: resumed.
	for _, again := range [][]string{nil, {"--tags", "purego", "--bench", "Work", "./lab", "--", "-size", "64"}} {
		stdout, stderr, code := rigorIn(t, dir, append([]string{"bisect", "--resume", out}, again...)...)
		if code != exitOK || !strings.HasPrefix(stdout, "no change") || stderr != "" {
			t.Errorf("--resume %v: exit %d, stdout %q, stderr %q; want the search's result", again, code, stdout, stderr)
		}
	}
}

// resumeSettings gives o the saved value of every setting the command
// line leaves out, and keeps those it gives (the same values); a state of
// an older rigor, which keeps none, takes the command line's and says so.
func TestResumeSettings(t *testing.T) {
	saved := bisectSettings{Tags: "purego", GCFlags: "-B", Go: "local", Env: []string{"GOGC=400"}, Args: []string{"-size", "64"}, Bench: "Work", CPU: "1", Packages: []string{"./lab"}}
	got := func(o *bisectOptions) bisectSettings { return *o.settings() }
	var o bisectOptions
	o.resume = "run"
	o.measure.bench = "." // the flag's default
	st := &bisectState{Settings: &saved}
	var warn strings.Builder
	if err := o.resumeSettings(st, &warn); err != nil || fmt.Sprint(got(&o)) != fmt.Sprint(saved) || warn.Len() > 0 {
		t.Errorf("nothing given: settings %+v, error %v, warning %q; want %+v", got(&o), err, warn.String(), saved)
	}
	o = bisectOptions{resume: "run", given: func(name string) bool { return name == "tags" || name == "packages" }}
	o.build.tags, o.packages = "purego", []string{"./lab"}
	if err := o.resumeSettings(st, &warn); err != nil || fmt.Sprint(got(&o)) != fmt.Sprint(saved) {
		t.Errorf("the saved tags and packages given: settings %+v, error %v; want %+v", got(&o), err, saved)
	}
	old := &bisectState{}
	o = bisectOptions{resume: "run", given: func(name string) bool { return name == "tags" }}
	o.build.tags, o.measure.bench = "netgo", "."
	if err := o.resumeSettings(old, &warn); err != nil || old.Settings == nil || old.Settings.Tags != "netgo" || o.build.tags != "netgo" ||
		strings.Count(warn.String(), "\n") != 1 || !strings.Contains(warn.String(), "keeps no build settings") {
		t.Errorf("a state without settings: settings %+v, error %v, warning %q; want the command line's, and one line saying so", old.Settings, err, warn.String())
	}
}
