package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rigorbench/rigor/execbench"
	"github.com/rigorbench/rigor/history"
	"github.com/rigorbench/rigor/store/sqlstore"
)

// TestChangesSinceUnknownHash: --since with a hash that neither git nor
// the store knows is refused, exit 2 (it was taken as "since the
// beginning"), as is a prefix of two commits of the store.
func TestChangesSinceUnknownHash(t *testing.T) {
	dir, files := historyModule(t, 5)
	// Two more commits whose hashes share their first 8 digits.
	for i, h := range []string{"abcdef01" + strings.Repeat("1", 32), "abcdef01" + strings.Repeat("2", 32)} {
		data, _ := os.ReadFile(files[i])
		f := filepath.Join(dir, fmt.Sprintf("twin%d.txt", i))
		os.WriteFile(f, []byte(strings.Replace(string(data), "commit: "+hash(i+1), "commit: "+h, 1)), 0o644)
		files = append(files, f)
	}
	if out, errOut, code := rigorIn(t, dir, append([]string{"import"}, files...)...); code != 0 {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	for _, c := range []struct {
		since string
		code  int
		want  string
	}{
		{"0123456", exitUsage, "--since 0123456: no such commit"},
		{"abcdef01", exitUsage, "names 2 commits of the store (abcdef0111, abcdef0122)"},
		{hash(3)[:8], 0, " in 2 series ("},
		{"abcdef011", 0, " in 2 series ("},
	} {
		out, errOut, code := rigorIn(t, dir, "changes", "--since", c.since)
		if code != c.code || !strings.Contains(out+errOut, c.want) {
			t.Errorf("changes --since %s: exit %d, want %d and %q\n%s%s", c.since, code, c.code, c.want, out, errOut)
		}
	}
}

// TestSubjectCutAtCharacter: a subject of multi-byte characters is cut
// at a character, to its columns, ending "..." (it was cut at byte 47,
// mid-character).
func TestSubjectCutAtCharacter(t *testing.T) {
	long := strings.Repeat("修正：性能", 12) // 60 characters, 120 columns, 180 bytes
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{long, 50, strings.Repeat("修正：性能", 4) + "修正：..."},
		{"é" + strings.Repeat("x", 60), 50, "é" + strings.Repeat("x", 46) + "..."},
		{"short", 50, "short"},
		{"evil\u202etxt", 50, `evil\u202etxt`},
	} {
		got := subjectCell(c.in, c.w)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("subjectCell(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
	s := &history.Series{Name: "p.X", Unit: "sec/op", Machine: "m", Points: []history.Point{{Commit: hash(1), Subject: long, Samples: []float64{1e-6}}}}
	var b bytes.Buffer
	writeTable(&b, s, nil, nil, 0)
	if !utf8.Valid(b.Bytes()) || !strings.Contains(b.String(), "修正：...") {
		t.Errorf("the table's subject:\n%s", b.String())
	}
}

// TestSparkSaysWhatItDraws: a sparkline of the last 60 of 200 points
// says so, and gives the range of those 60 (it said "200 points").
func TestSparkSaysWhatItDraws(t *testing.T) {
	s := &history.Series{Name: "p.X", Unit: "sec/op", Machine: "m"}
	for i := range 200 {
		v := 2e-6 // the first 140: 2µs, not drawn
		if i >= 140 {
			v = 1e-6 * (1 + float64(i-140)/1000)
		}
		s.Points = append(s.Points, history.Point{Commit: hash(i + 1), Samples: []float64{v}})
	}
	var b bytes.Buffer
	writeSpark(&b, s, nil, 0)
	if !strings.Contains(b.String(), "last 60 of 200 points, 1.000µs/op .. 1.059µs/op") {
		t.Errorf("the sparkline's line:\n%s", b.String())
	}
	b.Reset()
	writeSpark(&b, &history.Series{Name: "p.X", Unit: "sec/op", Machine: "m", Points: s.Points[190:]}, nil, 0)
	if !strings.Contains(b.String(), "  10 points, 1.050µs/op .. 1.059µs/op") {
		t.Errorf("a sparkline of every point:\n%s", b.String())
	}
}

// TestProjectOutsideModule: outside a module the project is the git
// repository's origin as a path, the same from every subdirectory, else
// the directory's absolute path (it was the directory's name: two
// directories named alike were one project, one repository's
// subdirectories several).
func TestProjectOutsideModule(t *testing.T) {
	t.Setenv("RIGOR_PROJECT", "")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	dir := t.TempDir()
	plain := filepath.Join(dir, "bench")
	os.Mkdir(plain, 0o755)
	t.Chdir(plain)
	if got := projectOf(""); got != plain {
		t.Errorf("outside a repository: project %q, want %q", got, plain)
	}
	repo := filepath.Join(dir, "repo")
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		repo = filepath.Join(r, "repo") // as git names its top level
	}
	sub := filepath.Join(repo, "sub", "bench")
	os.MkdirAll(sub, 0o755)
	if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	t.Chdir(sub)
	if got := projectOf(""); got != repo {
		t.Errorf("in a repository without origin: project %q, want its top level %q", got, repo)
	}
	exec.Command("git", "-C", repo, "remote", "add", "origin", "https://someone:tok3n@GitHub.com/Org/Repo.git").Run()
	for _, d := range []string{repo, sub} {
		t.Chdir(d)
		if got := projectOf(""); got != "github.com/Org/Repo" {
			t.Errorf("in %s: project %q, want github.com/Org/Repo", d, got)
		}
	}
}

func TestRemotePath(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://github.com/org/repo.git", "github.com/org/repo"},
		{"https://user:token@gitlab.example.com/group/sub/repo", "gitlab.example.com/group/sub/repo"},
		{"ssh://git@github.com/org/repo.git", "github.com/org/repo"},
		{"git@github.com:org/repo.git", "github.com/org/repo"},
		{"git@github.com:org/repo.git\n", "github.com/org/repo"},
		{"/srv/git/repo.git", ""},
		{"../repo", ""},
		{"file:///srv/git/repo.git", ""},
		{"", ""},
	} {
		if got := remotePath(c.in); got != c.want {
			t.Errorf("remotePath(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSeriesTitlesDistinct: rigor exec's series of two projects, named
// alike by their commands, are titled with their projects (one store
// printed two identical titles).
func TestSeriesTitlesDistinct(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var pts []sqlstore.Point
	for _, project := range []string{"/home/a/bench", "/home/b/bench"} {
		pts = append(pts, sqlstore.Point{Project: project, Machine: "m", Name: execbench.DefaultName, Unit: "sec/op", Kind: execbench.Kind,
			Side: "sleep 0.01", RunID: int64(len(pts) + 1), Recorded: t0, Values: []float64{0.01}})
	}
	pts = append(pts, sqlstore.Point{Project: "example.com/m", Pkg: "example.com/m", Machine: "m", Name: "Work", Procs: 2, Unit: "sec/op", Kind: "run",
		Side: "current", RunID: 3, Recorded: t0, Values: []float64{1e-6}})
	var titles []string
	for _, s := range groupSeries(pts, nil) {
		titles = append(titles, seriesTitle(s))
	}
	want := []string{"/home/a/bench: sleep 0.01  sec/op  machine m", "/home/b/bench: sleep 0.01  sec/op  machine m", "example.com/m.Work-2  sec/op  machine m"}
	if strings.Join(titles, "\n") != strings.Join(want, "\n") {
		t.Errorf("titles:\n%s\nwant:\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"))
	}
}
