package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/model"
)

const mergePkg = "example.com/m"

// suiteKeys are the top-level keys of n synthetic benchmarks.
func suiteKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s.BenchmarkB%03d", mergePkg, i)
	}
	return keys
}

// shardRun makes shard index of count of a synthetic suite of n
// benchmarks measured in rounds paired rounds: sec/op per round old
// 1µs with 3% noise, new old*(1+change(i))*noise. Machine offset adds
// to every change on this "machine".
func shardRun(t *testing.T, seed uint64, n, index, count, rounds int, change func(int) float64, offset float64) *model.Run {
	t.Helper()
	keys := suiteKeys(n)
	assigned := gotest.Assign(keys, count, nil)
	rng := rand.New(rand.NewPCG(seed, uint64(index)))
	r := &model.Run{SchemaVersion: model.SchemaVersion, ID: fmt.Sprintf("shard-%d-%d", index, seed), Kind: model.KindAB, Paired: true,
		Start: time.Unix(1000, 0), End: time.Unix(2000, 0),
		Env:   &model.Env{Hostname: fmt.Sprintf("host-%d", seed), CPUModel: "Test CPU"},
		Sides: []model.Side{{Label: "old", Rev: "aaaa"}, {Label: "new", Rev: "bbbb"}},
		Shard: &model.Shard{Index: index, Count: count, Split: gotest.SplitHash, Selected: n, Digest: gotest.KeysDigest(keys),
			Config: "cfg", Options: map[string]string{"correction": "holm", "alpha": "0.05"}},
		Benchmarks: []model.Benchmark{}}
	for i, k := range keys {
		if assigned[k] != index {
			continue
		}
		r.Shard.Benchmarks = append(r.Shard.Benchmarks, k)
		var ss []model.Sample
		var news []model.Sample
		for round := 1; round <= rounds; round++ {
			old := 1e-6 * math.Exp(0.1*rng.NormFloat64())
			ss = append(ss, model.Sample{Side: "old", Round: round, Iters: 1000, Value: old})
			news = append(news, model.Sample{Side: "new", Round: round, Iters: 1000, Value: old * (1 + change(i) + offset) * math.Exp(0.03*rng.NormFloat64())})
		}
		r.Benchmarks = append(r.Benchmarks, model.Benchmark{Name: fmt.Sprintf("B%03d", i), Pkg: mergePkg,
			Metrics: []model.Metric{{Unit: "sec/op", Better: model.LowerIsBetter, Samples: append(ss, news...)}}})
	}
	sort.Strings(r.Shard.Benchmarks)
	return r
}

// changed gives benchmarks 7, 50, 123 and 177 real changes.
func changed(i int) float64 {
	return map[int]float64{7: 0.2, 50: -0.15, 123: 0.1, 177: -0.25}[i]
}

// timeChange is a benchmark's sec/op change in rep.
func timeChanges(rep *analysis.Report) map[string]*analysis.Change {
	out := map[string]*analysis.Change{}
	for _, b := range rep.Benchmarks {
		for _, m := range b.Metrics {
			if m.Unit == "sec/op" && len(m.Changes) == 1 && m.Changes[0] != nil {
				out[b.Pkg+"."+b.FullName] = m.Changes[0]
			}
		}
	}
	return out
}

// holm is Holm's step-down adjustment, written here from its
// definition: sorted ascending, p(i) times (m - i + 1), made monotone,
// at most 1.
func holm(p []float64) []float64 {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	adj := make([]float64, len(p))
	run := 0.0
	for rank, i := range idx {
		run = math.Max(run, math.Min(1, float64(len(p)-rank)*p[i]))
		adj[i] = run
	}
	return adj
}

func TestMergeEqualsShardsWithHolmOverAll(t *testing.T) {
	const n, count = 200, 4
	var runs []*model.Run
	var dirs []string
	for i := range count {
		runs = append(runs, shardRun(t, 1, n, i, count, 15, changed, 0))
		dirs = append(dirs, fmt.Sprintf("shard-%d", i))
	}
	m, err := mergeShards(dirs, runs)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.problems) > 0 {
		t.Fatalf("problems: %v", m.problems)
	}
	opts := analysis.DefaultOptions()
	rep, err := analysis.Analyze(m.run, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := timeChanges(rep)
	if len(got) != n {
		t.Fatalf("merged report has %d sec/op changes, want %d", len(got), n)
	}
	// Each shard analysed on its own: the same change, interval and raw
	// p-value benchmark by benchmark; only the correction differs.
	var keys []string
	var raw []float64
	for _, r := range runs {
		srep, err := analysis.Analyze(r, opts)
		if err != nil {
			t.Fatal(err)
		}
		for k, c := range timeChanges(srep) {
			g := got[k]
			if g == nil {
				t.Fatalf("%s: in shard %d, not in the merged report", k, r.Shard.Index)
			}
			if g.Estimate != c.Estimate || g.Lo != c.Lo || g.Hi != c.Hi || g.P != c.P || g.N != c.N {
				t.Errorf("%s: merged %v [%v, %v] p=%v n=%d, shard %v [%v, %v] p=%v n=%d", k, g.Estimate, g.Lo, g.Hi, g.P, g.N, c.Estimate, c.Lo, c.Hi, c.P, c.N)
			}
			keys = append(keys, k)
			raw = append(raw, c.P)
		}
	}
	if len(keys) != n {
		t.Fatalf("the shards hold %d benchmarks together, want %d", len(keys), n)
	}
	adj := holm(raw)
	for i, k := range keys {
		if g := got[k].PAdjusted; math.Abs(g-adj[i]) > 1e-12 {
			t.Errorf("%s: Holm p %v, want %v from the shards' %d raw p-values", k, g, adj[i], n)
		}
	}
	if rep.Comparisons != n {
		t.Errorf("the correction spans %d comparisons, want %d", rep.Comparisons, n)
	}
	// The four real changes are found; nothing else is called.
	for _, b := range rep.Benchmarks {
		var i int
		fmt.Sscanf(b.Name, "B%03d", &i)
		c := got[b.Pkg+"."+b.FullName]
		real := changed(i) != 0
		if real != (c.Verdict == analysis.Improved || c.Verdict == analysis.Regressed) {
			t.Errorf("%s: verdict %s with a true change of %+.0f%%", b.Name, c.Verdict, 100*changed(i))
		}
	}
}

func TestMergeMachinesAsRandomEffect(t *testing.T) {
	// Shard 0 of 2 measured on two machines; on the second, every
	// change is 8 points larger. The merged change of a benchmark on
	// both is the mean of the machines' own log changes, with a t
	// interval on 1 degree of freedom.
	a := shardRun(t, 1, 20, 0, 2, 15, changed, 0)
	b := shardRun(t, 2, 20, 0, 2, 15, changed, 0.08)
	c := shardRun(t, 3, 20, 1, 2, 15, changed, 0)
	m, err := mergeShards([]string{"a", "b", "c"}, []*model.Run{a, b, c})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.run.Machines) != 3 || m.run.Machines[1].Hostname != "host-2" || m.run.Machines[1].Rounds != 15 {
		t.Errorf("machines %+v", m.run.Machines)
	}
	rep, err := analysis.Analyze(m.run, analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := timeChanges(rep)
	ra, _ := analysis.Analyze(a, analysis.DefaultOptions())
	rb, _ := analysis.Analyze(b, analysis.DefaultOptions())
	ca, cb := timeChanges(ra), timeChanges(rb)
	for _, top := range a.Shard.Benchmarks {
		k := strings.Replace(top, ".Benchmark", ".", 1)
		g := got[k]
		if g.Test != analysis.TestMachines || g.Machines != 2 || g.N != 30 {
			t.Fatalf("%s: test %q on %d machines, %d pairs; want machines, 2, 30", k, g.Test, g.Machines, g.N)
		}
		la, lb := math.Log1p(ca[k].Estimate), math.Log1p(cb[k].Estimate)
		if want := math.Expm1((la + lb) / 2); math.Abs(g.Estimate-want) > 1e-12 {
			t.Errorf("%s: %v, want the mean of the machines' %v and %v: %v", k, g.Estimate, ca[k].Estimate, cb[k].Estimate, want)
		}
		// t(0.975, 1) = 12.7062047: half-width 12.706 |la-lb|/2.
		if hw, want := math.Log1p(g.Hi)-math.Log1p(g.Estimate), 12.7062047*math.Abs(la-lb)/2; math.Abs(hw-want) > 1e-6 {
			t.Errorf("%s: half-width %v, want %v", k, hw, want)
		}
	}
	for _, top := range c.Shard.Benchmarks {
		if k := strings.Replace(top, ".Benchmark", ".", 1); got[k].Test == analysis.TestMachines {
			t.Errorf("%s: measured on one machine, analysed across machines", k)
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	base := func() []*model.Run {
		return []*model.Run{shardRun(t, 1, 12, 0, 2, 6, changed, 0), shardRun(t, 1, 12, 1, 2, 6, changed, 0)}
	}
	for _, tc := range []struct {
		name  string
		edit  func(rs []*model.Run)
		words string
	}{
		{"not a shard", func(rs []*model.Run) { rs[1].Shard = nil }, "is not a shard's result"},
		{"count", func(rs []*model.Run) { rs[1].Shard.Count = 3 }, "shard of 2 and b of 3"},
		{"list", func(rs []*model.Run) { rs[1].Shard.Digest = "x" }, "selected different benchmarks"},
		{"split", func(rs []*model.Run) { rs[1].Shard.Split = gotest.SplitCosts }, "split the suite differently"},
		{"flags", func(rs []*model.Run) { rs[1].Shard.Config = "other" }, "different flags"},
		{"revision", func(rs []*model.Run) { rs[1].Sides[1].Rev = "cccc" }, "the new side is commit bbbb in one and cccc"},
		{"dirty", func(rs []*model.Run) { rs[1].Sides[0].Dirty = true }, "uncommitted changes"},
		{"kind", func(rs []*model.Run) { rs[1].Kind = model.KindRun }, "rigor run one"},
		{"overlap", func(rs []*model.Run) {
			rs[1].Shard.Benchmarks = append(rs[1].Shard.Benchmarks, rs[0].Shard.Benchmarks[0])
		}, "both hold"},
		{"merged", func(rs []*model.Run) { rs[1].Machines = []model.Machine{{}} }, "already merged"},
		// Shard records --shard never writes (a forged run.json from a
		// job that ran a pull request's code): a negative count passed
		// the gate with no shard measured, a huge one ran for minutes.
		{"negative count", func(rs []*model.Run) {
			for _, r := range rs {
				r.Shard.Count = -1
			}
		}, "no shard rigor ab --shard writes"},
		{"huge count", func(rs []*model.Run) {
			for _, r := range rs {
				r.Shard.Count = 50_000_000
			}
		}, "no shard rigor ab --shard writes"},
		{"index beyond count", func(rs []*model.Run) { rs[1].Shard.Index = 2 }, "shard 2/2 is no shard"},
		{"negative index", func(rs []*model.Run) { rs[0].Shard.Index = -1 }, "shard -1/2 is no shard"},
	} {
		rs := base()
		tc.edit(rs)
		_, err := mergeShards([]string{"a", "b"}, rs)
		if err == nil || !strings.Contains(err.Error(), tc.words) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", tc.name, err, tc.words)
		}
	}
}

func TestMergeMissingAndFailed(t *testing.T) {
	rs := []*model.Run{shardRun(t, 1, 12, 0, 3, 6, changed, 0), shardRun(t, 1, 12, 2, 3, 6, changed, 0)}
	rs[1].End = time.Time{} // killed
	m, err := mergeShards([]string{"a", "c"}, rs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"shard 1/3 is missing: no results directory of it was given", "shard 2/3 failed (c): cut short: its run.json has no end, as a killed run leaves it"}
	if !slices.Equal(m.problems, want) {
		t.Errorf("problems %q, want %q", m.problems, want)
	}
	missing := 12 - len(rs[0].Shard.Benchmarks) - len(rs[1].Shard.Benchmarks)
	if !slices.ContainsFunc(m.run.Notes, func(n model.Note) bool {
		return strings.Contains(n.Text, fmt.Sprintf("%d of the suite's 12 benchmarks were not measured", missing))
	}) {
		t.Errorf("no note says %d benchmarks were not measured: %v", missing, m.run.Notes)
	}
}

// writeShard writes r as a results directory under dir.
func writeShard(t *testing.T, dir string, r *model.Run) string {
	t.Helper()
	d := filepath.Join(dir, r.ID)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(d, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := r.WriteJSON(f); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestMergeCommand(t *testing.T) {
	tmp := t.TempDir()
	a := writeShard(t, tmp, shardRun(t, 1, 12, 0, 2, 8, changed, 0))
	b := writeShard(t, tmp, shardRun(t, 1, 12, 1, 2, 8, changed, 0))
	other := shardRun(t, 1, 12, 1, 2, 8, changed, 0)
	other.ID, other.Shard.Config = "other", "different"
	c := writeShard(t, tmp, other)
	emptyDir := filepath.Join(tmp, "empty")
	os.Mkdir(emptyDir, 0o755)
	notJSON := filepath.Join(tmp, "x.json")
	os.WriteFile(notJSON, []byte("{"), 0o644)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"complete", []string{"merge", a, b}, 0, ""},
		{"missing", []string{"merge", a}, exitGateFail, "rigor: gate: shard 1/2 is missing"},
		{"allowed", []string{"merge", "--allow-missing", a}, 0, ""},
		{"empty dir", []string{"merge", a, b, emptyDir}, exitGateFail, "rigor: gate: " + emptyDir + " holds no run.json: its shard failed before measuring"},
		{"only empty", []string{"merge", emptyDir}, exitUsage, "no results to merge"},
		{"incompatible", []string{"merge", a, c}, exitUsage, "were run with different flags"},
		{"unreadable", []string{"merge", a, notJSON}, exitUsage, "x.json"},
		{"no such", []string{"merge", filepath.Join(tmp, "none")}, exitUsage, "none"},
		{"no args", []string{"merge"}, exitUsage, "requires at least 1 arg"},
		{"bad correction", []string{"merge", "--correction", "x", a, b}, exitUsage, "correction"},
	} {
		stdout, stderr, code := rigorIn(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%s: exit %d, want %d; stderr %q, want %q\n%s", tc.name, code, tc.code, stderr, tc.stderr, stdout)
		}
		if tc.code == exitUsage && strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%s: error on several lines: %q", tc.name, stderr)
		}
	}
	// The shards' correction applies unless given here: with none, the
	// JSON report's p equals the raw one.
	stdout, _, _ := rigorIn(t, "", "merge", "--format", "json", a, b)
	if !strings.Contains(stdout, `"correction": "holm"`) {
		t.Errorf("JSON does not say holm:\n%.2000s", stdout)
	}
	stdout, _, _ = rigorIn(t, "", "merge", "--correction", "none", "--format", "json", a, b)
	if !strings.Contains(stdout, `"correction": "none"`) {
		t.Errorf("--correction none not applied:\n%.2000s", stdout)
	}

	// --out writes the merged run, which rigor report reads to the same
	// headline as the merge (before, a sharded run left no run.json to
	// record or report again).
	out := filepath.Join(tmp, "merged")
	merged, _, code := rigorIn(t, "", "merge", "--out", out, a, b)
	again, stderr, code2 := rigorIn(t, "", "report", filepath.Join(out, "run.json"))
	if code != 0 || code2 != 0 || firstLine(merged) == "" || firstLine(again) != firstLine(merged) {
		t.Errorf("merge --out then report: exits %d %d (%s); headlines %q and %q", code, code2, stderr, firstLine(merged), firstLine(again))
	}
	if _, stderr, code := rigorIn(t, "", "import", "--store", filepath.Join(tmp, "rigor.db"), out); code != 0 {
		t.Errorf("import of the merged run: exit %d: %s", code, stderr)
	}
}

// firstLine is s's first line.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func TestMergeEmptyShards(t *testing.T) {
	// 3 benchmarks in 8 shards: most shards hold none, and are present.
	var runs []*model.Run
	var dirs []string
	empty := 0
	for i := range 8 {
		r := shardRun(t, 1, 3, i, 8, 6, changed, 0)
		if len(r.Shard.Benchmarks) == 0 {
			empty++
		}
		runs, dirs = append(runs, r), append(dirs, fmt.Sprint(i))
	}
	m, err := mergeShards(dirs, runs)
	if err != nil {
		t.Fatal(err)
	}
	if empty < 5 || len(m.problems) > 0 || len(m.run.Benchmarks) != 3 {
		t.Errorf("%d empty shards, problems %v, %d benchmarks merged; want at least 5, none, 3", empty, m.problems, len(m.run.Benchmarks))
	}
}
