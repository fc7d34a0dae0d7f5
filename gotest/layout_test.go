package gotest

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// The default number of links is the expected rounds per benchmark over
// three, from four to eight.
func TestAutoLayouts(t *testing.T) {
	for rounds, want := range map[int]int{0: 4, 5: 4, 12: 4, 14: 4, 15: 5, 20: 6, 24: 8, 300: 8} {
		if got := autoLayouts(rounds); got != want {
			t.Errorf("autoLayouts(%d) = %d, want %d", rounds, got, want)
		}
	}
}

// The seeds are a function of the run's seed: distinct, positive, the
// same for a rerun, and a shorter list is the start of a longer one (a
// bisect step's links are cached by seed).
func TestLayoutSeeds(t *testing.T) {
	a := layoutSeeds(1, 8)
	if len(a) != 8 {
		t.Fatalf("%d seeds, want 8", len(a))
	}
	seen := map[int64]bool{}
	for _, v := range a {
		if v <= 0 || v >= 1<<31 || seen[v] {
			t.Errorf("seed %d of %v: zero, negative, too large or repeated", v, a)
		}
		seen[v] = true
	}
	if again := layoutSeeds(1, 8); !slices.Equal(a, again) {
		t.Errorf("seed 1 gave %v, then %v", a, again)
	}
	if short := layoutSeeds(1, 3); !slices.Equal(short, a[:3]) {
		t.Errorf("3 seeds %v are not the first of 8 %v", short, a)
	}
	if other := layoutSeeds(2, 8); slices.Equal(other, a) {
		t.Errorf("seeds 1 and 2 gave the same layouts %v", a)
	}
}

// The user's -ldflags from GOFLAGS are given again with the seed's
// -randlayout, since on the command line -ldflags replaces GOFLAGS's.
func TestLayoutFlags(t *testing.T) {
	for _, tc := range []struct {
		goflags string
		want    []string
	}{
		{"", []string{"-ldflags=-randlayout=5"}},
		{"-mod=mod -trimpath", []string{"-ldflags=-randlayout=5"}},
		{"-ldflags=-s", []string{"-ldflags=-s -randlayout=5"}},
		{"--ldflags=-w", []string{"-ldflags=-w -randlayout=5"}},
		{"-ldflags=", []string{"-ldflags=-randlayout=5"}},
		{"'-ldflags=-s -w' -trimpath", []string{"-ldflags=-s -w -randlayout=5"}},
		{`"-ldflags=-X 'main.v=a b'"`, []string{"-ldflags=-X 'main.v=a b' -randlayout=5"}},
		// A pattern keeps its pattern, and a first -ldflags without one
		// gives the package under test the seed if the pattern misses it.
		{"-ldflags=example.com/p=-s", []string{"-ldflags=-randlayout=5", "-ldflags=example.com/p=-s -randlayout=5"}},
		{"-ldflags=-s -ldflags=all=-w", []string{"-ldflags=-s -randlayout=5", "-ldflags=all=-w -randlayout=5"}},
		// The user's own -randlayout comes first, so the seed's wins.
		{"-ldflags=-randlayout=9", []string{"-ldflags=-randlayout=9 -randlayout=5"}},
	} {
		got, err := layoutFlags(tc.goflags, 5)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("layoutFlags(%q) = %q, %v; want %q", tc.goflags, got, err, tc.want)
		}
	}
	for _, bad := range []string{"'-ldflags=-s", "-ldflags==-s", "-ldflags=pkg", `"-ldflags=-s"x`} {
		if got, err := layoutFlags(bad, 5); err == nil {
			t.Errorf("layoutFlags(%q) = %q, want an error", bad, got)
		}
	}
}

// The merged flags build: the user's -X from GOFLAGS (the side's
// environment) still applies, and each seed links its own function order.
func TestLayoutFlagsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.26\n",
		"m.go":   "package m\n\nvar v = \"default\"\n\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n\nfunc C() int { return 3 }\n",
		"m_test.go": `package m

import "testing"

func TestV(t *testing.T) { t.Log("v=" + v, A()+B()+C()) }
`,
	})
	ctx := t.Context()
	settings := Settings{Env: []string{"GOFLAGS=-ldflags=-X=example.com/m.v=user"}}
	sd := &sideState{Side: Side{Label: "old", Settings: settings}, tree: &Tree{Dir: dir}}
	s := &session{}
	if why := s.setupLayouts(ctx, sd); why != "" {
		t.Fatal(why)
	}
	pkg := Package{ImportPath: "example.com/m", Dir: dir}
	order := map[int64]string{}
	for _, seed := range []int64{0, 11, 12} {
		var flags []string
		if seed != 0 {
			flags = mustLayoutFlags(t, sd.goflags, seed)
		}
		bin, err := buildWith(ctx, settings, flags, pkg, filepath.Join(dir, "m.test"))
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin.Path, "-test.run=TestV", "-test.v").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "v=user") {
			t.Errorf("seed %d: the user's -X was lost: %v\n%s", seed, err, out)
		}
		nm, err := exec.Command("go", "tool", "nm", "-n", bin.Path).Output()
		if err != nil {
			t.Fatal(err)
		}
		var funcs []string
		for _, l := range strings.Split(string(nm), "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[1] == "T" {
				funcs = append(funcs, f[2])
			}
		}
		order[seed] = strings.Join(funcs, " ")
	}
	if order[11] == order[0] || order[12] == order[0] || order[11] == order[12] {
		t.Errorf("the links with seeds 11 and 12 and the linker's own do not all order the functions differently")
	}
}

// Round r runs link (r-1) mod L + 1 on every side.
func TestLayoutOf(t *testing.T) {
	for _, tc := range []struct{ round, layouts, want int }{
		{1, 3, 1}, {2, 3, 2}, {3, 3, 3}, {4, 3, 1}, {7, 3, 1}, {8, 4, 4},
		{0, 3, 1}, // the simulation pass: the first link
		{5, 1, 1}, {5, 0, 0},
	} {
		if got := layoutOf(tc.round, tc.layouts); got != tc.want {
			t.Errorf("layoutOf(%d, %d) = %d, want %d", tc.round, tc.layouts, got, tc.want)
		}
	}
}

// planLayouts chooses the default from the rounds the budget fits, keeps
// a number the caller gave, raises the minimum of rounds to it, and
// records the seeds on every side.
func TestPlanLayouts(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		budget                  time.Duration
		layouts, minR, maxR     int
		random                  bool
		want, wantMin, wantRise int
	}{
		// A round is 2 sides x 0.1 s of work.
		{"long budget", 60 * time.Second, 0, 10, 0, true, 8, 10, 0},
		{"fifteen rounds", 3100 * time.Millisecond, 0, 10, 0, true, 5, 10, 0},
		{"short budget", time.Second, 0, 10, 0, true, 4, 10, 0},
		{"max rounds below", 60 * time.Second, 0, 2, 3, true, 3, 3, 2},
		{"given", 60 * time.Second, 6, 2, 0, true, 6, 6, 2},
		{"not random", 60 * time.Second, 0, 10, 0, false, 1, 10, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &session{
				cfg:    Config{Seed: 3, Time: tc.budget, Layouts: tc.layouts, MinRounds: tc.minR, MaxRounds: tc.maxR},
				budget: experiment.NewBudget(tc.budget, time.Now()),
				units:  []*unit{{iters: 100, perOp: 0.001}},
				sides:  []*sideState{{}, {}},
				run:    &model.Run{Sides: []model.Side{{Label: "old"}, {Label: "new"}}},
				random: tc.random,
			}
			s.planLayouts()
			if s.layouts != tc.want || s.cfg.MinRounds != tc.wantMin || s.minRaised != tc.wantRise {
				t.Errorf("%d layouts, minimum %d raised from %d; want %d, %d, %d", s.layouts, s.cfg.MinRounds, s.minRaised, tc.want, tc.wantMin, tc.wantRise)
			}
			var want []int64
			if tc.random {
				want = layoutSeeds(3, tc.want)
			}
			for _, sd := range s.run.Sides {
				if !slices.Equal(sd.Layouts, want) {
					t.Errorf("%s: seeds %v, want %v", sd.Label, sd.Layouts, want)
				}
			}
		})
	}
}

// More layouts than the rounds can reach is refused.
func TestLayoutsConfig(t *testing.T) {
	for _, tc := range []struct {
		layouts, maxR int
		ok            bool
	}{{-1, 0, false}, {5, 4, false}, {4, 4, true}, {12, 0, true}, {0, 2, true}} {
		cfg := Config{Sides: []Side{{Label: "current"}}, Out: t.TempDir(), Layouts: tc.layouts, MaxRounds: tc.maxR}
		if err := cfg.defaults(); (err == nil) != tc.ok {
			t.Errorf("%d layouts, max rounds %d: %v", tc.layouts, tc.maxR, err)
		}
	}
}

// Every sample of a round, of every metric of its result line, carries the
// round's layout, the same on both sides; the seeds are recorded per side;
// the benchmark files hold every link's samples; and an A/A run (the same
// source, the same seeds) is still labelled one. --layouts 1 links once,
// with a note and no layouts recorded.
func TestLayoutsCycle(t *testing.T) {
	dir := labRepo(t)
	const rounds = 5
	cfg := quick(dir, t, rounds, Side{Label: "old", Rev: "HEAD"}, Side{Label: "new", Rev: WorkingTree})
	cfg.Bench, cfg.Layouts = "Alloc", 3
	run, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !isAA(run) {
		t.Errorf("HEAD against a clean working tree, both linked with the same seeds, not labelled A/A: %q", model.Texts(run.Notes))
	}
	seeds := layoutSeeds(cfg.Seed, 3)
	for _, sd := range run.Sides {
		if !slices.Equal(sd.Layouts, seeds) {
			t.Errorf("%s: seeds %v, want %v", sd.Label, sd.Layouts, seeds)
		}
	}
	i := slices.IndexFunc(run.Notes, func(n model.Note) bool { return n.Topic == topicLayouts })
	if i < 0 || run.Notes[i].Evidence["layouts"] != 3 || run.Notes[i].Evidence["links"] != 4 {
		t.Errorf("no note on 3 layouts with 4 extra links: %+v", run.Notes)
	}
	units := map[string]bool{}
	for _, b := range run.Benchmarks {
		for _, m := range b.Metrics {
			units[m.Unit] = true
			byRound := map[int][]int{}
			for _, x := range m.Samples {
				byRound[x.Round] = append(byRound[x.Round], x.Layout)
			}
			for r := 1; r <= rounds; r++ {
				want := (r-1)%3 + 1
				if got := byRound[r]; !slices.Equal(got, []int{want, want}) {
					t.Errorf("%s %s round %d: layouts %v, want %d on both sides", b.Name, m.Unit, r, got, want)
				}
			}
		}
	}
	for _, u := range []string{"sec/op", CPUUnit, WaitUnit, "B/op", "allocs/op"} {
		if !units[u] {
			t.Errorf("no %s among %v", u, units)
		}
	}
	for _, side := range []string{"old", "new"} {
		got, err := model.ReadFile(filepath.Join(cfg.Out, side+".txt"), side)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Benchmarks) != 1 || len(got.Benchmarks[0].Metric("sec/op").Samples) != rounds {
			t.Errorf("%s.txt does not hold the %d samples of every link", side, rounds)
		}
	}

	cfg = quick(dir, t, 2, Side{Label: "old", Rev: "HEAD"}, Side{Label: "new", Rev: WorkingTree})
	cfg.Bench, cfg.Layouts = "Work", 1
	run, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	i = slices.IndexFunc(run.Notes, func(n model.Note) bool { return n.Topic == topicLayouts })
	if i < 0 || run.Notes[i].Kind != model.NoteBuild || !strings.Contains(run.Notes[i].Text, "no interval covers") {
		t.Errorf("--layouts 1 without its note: %q", model.Texts(run.Notes))
	}
	for _, sd := range run.Sides {
		if len(sd.Layouts) != 0 {
			t.Errorf("%s: seeds %v of a single link", sd.Label, sd.Layouts)
		}
	}
	for _, x := range run.Benchmarks[0].Metric("sec/op").Samples {
		if x.Layout != 0 {
			t.Errorf("a sample of a single link has layout %d", x.Layout)
		}
	}
}

// A toolchain whose linker has no -randlayout (Go 1.22) links every side
// once, with a note, unless layouts were asked for: then Run fails. Go
// 1.24's links with random layouts. Without -short: it fetches the
// toolchains through GOTOOLCHAIN.
func TestLayoutsOldToolchain(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches toolchains; without -short only")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"go.mod": "module example.com/old\n\ngo 1.21\n"})
	side := func(toolchain string) *sideState {
		return &sideState{Side: Side{Label: toolchain, Settings: Settings{Toolchain: toolchain, Env: []string{"GOFLAGS="}}}, tree: &Tree{Dir: dir}}
	}
	for _, tc := range []struct {
		layouts int
		random  bool
		err     bool
	}{{0, false, false}, {3, false, true}, {1, false, false}} {
		s := &session{cfg: Config{Layouts: tc.layouts, Log: io.Discard}, run: &model.Run{}, sides: []*sideState{side("go1.24.11"), side("go1.22.12")}}
		err := s.setupRandom(t.Context())
		if s.random != tc.random || (err != nil) != tc.err {
			t.Errorf("%d layouts with go1.22.12 on one side: random %v, error %v", tc.layouts, s.random, err)
		}
		noted := slices.ContainsFunc(s.run.Notes, func(n model.Note) bool {
			return n.Topic == topicLayouts && strings.Contains(n.Text, "go1.22.12's linker has no -randlayout (Go 1.23 added it)")
		})
		if want := tc.layouts == 0; noted != want {
			t.Errorf("%d layouts: noted %v, want %v: %q", tc.layouts, noted, want, model.Texts(s.run.Notes))
		}
		if tc.err && !strings.Contains(err.Error(), "-randlayout") {
			t.Errorf("%d layouts: error %v does not say why", tc.layouts, err)
		}
	}
	s := &session{cfg: Config{Log: io.Discard}, run: &model.Run{}, sides: []*sideState{side("go1.24.11")}}
	if err := s.setupRandom(t.Context()); err != nil || !s.random {
		t.Errorf("go1.24.11: random %v, error %v", s.random, err)
	}
}
