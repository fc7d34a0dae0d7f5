package harness

import (
	"bytes"
	"encoding/json"
	"github.com/rigorbench/rigor/analysis"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/model"
)

// groupRun builds a harness run of group g with variants a and b over 20
// rounds, a around aCenter and b around bCenter, with seeded noise.
func groupRun(aCenter, bCenter float64, seed uint64) *model.Run {
	a, b := noisy(aCenter, 0.002, 20, seed), noisy(bCenter, 0.002, 20, seed+1)
	run := pass(a, b)
	run.Benchmarks[0].Pkg = "example.com/p"
	run.SchemaVersion = model.SchemaVersion
	return run
}

func TestFlatten(t *testing.T) {
	run := pass([]float64{1, 2}, []float64{3, 4})
	run.Benchmarks[0].Name = "g/size=8"
	flat := flatten(run, "g", "current")
	if len(flat.Sides) != 1 || flat.Sides[0].Label != "current" || flat.Paired {
		t.Fatalf("sides %v paired %v, want one unpaired side", flat.Sides, flat.Paired)
	}
	want := map[string][]float64{"g/a/size=8": {1, 2}, "g/b/size=8": {3, 4}}
	if len(flat.Benchmarks) != 2 {
		t.Fatalf("benchmarks %v", names(flat))
	}
	for _, b := range flat.Benchmarks {
		got := b.Metric(unitTime).Values("current")
		if w, ok := want[b.Name]; !ok || len(got) != len(w) || got[0] != w[0] || got[1] != w[1] {
			t.Errorf("%s: values %v, want %v", b.Name, got, want[b.Name])
		}
		if b.Group != "g" || b.Variant != strings.Split(b.Name, "/")[1] {
			t.Errorf("%s: group %q variant %q", b.Name, b.Group, b.Variant)
		}
	}
}

// TestBaselineRoundTrip saves a group's results as a baseline, in three
// sessions 1% apart (what the harness learns the variation between
// sessions from), then compares a slower run with it: the gate fails for
// the variant that got 50% slower and not for the one that did not
// change.
func TestBaselineRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	g := rigor.NewGroup("g")
	out := filepath.Join(dir, "out")
	save := &options{saveBaseline: "main", format: "json", maxRegression: -1, out: out}
	var buf bytes.Buffer
	for i, f := range []float64{1.01, 0.99, 1} {
		buf.Reset()
		if _, err := save.finish(&buf, g.Name, withDefaults(g.Config), groupRun(1e-3*f, 2e-3*f, uint64(1+10*i)), 1e-9); err != nil {
			t.Fatal(err)
		}
	}
	if !json.Valid(buf.Bytes()) {
		t.Errorf("-rigor.format json wrote invalid JSON: %.200s", buf.String())
	}
	if _, err := os.Stat(filepath.Join(out, "g.json")); err != nil {
		t.Errorf("-rigor.out wrote no g.json: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rigor", "baselines", "main.json")); err != nil {
		t.Fatalf("no baseline saved: %v", err)
	}
	// Another group saved under the same name is kept alongside.
	other := rigor.NewGroup("h")
	hrun := groupRun(1e-3, 1e-3, 9)
	hrun.Benchmarks[0].Name, hrun.Benchmarks[0].Group = "h", "h"
	if _, err := save.finish(&bytes.Buffer{}, other.Name, withDefaults(other.Config), hrun, 1e-9); err != nil {
		t.Fatal(err)
	}

	check := &options{baseline: "main", format: "text", maxRegression: 5}
	buf.Reset()
	res, err := check.finish(&buf, g.Name, withDefaults(g.Config), groupRun(1.5e-3, 2e-3, 3), 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	if res.Baseline == nil {
		t.Fatal("no baseline comparison")
	}
	if len(res.Baseline.Benchmarks) != 2 {
		t.Errorf("baseline comparison has %d benchmarks, want g's 2 (not h's)", len(res.Baseline.Benchmarks))
	}
	if len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Benchmark, "g/a") {
		t.Fatalf("gate failures %+v, want g/a only", res.Failures)
	}
	if f := res.Failures[0].Change; f < 0.45 || f > 0.55 {
		t.Errorf("g/a regressed by %.1f%%, want about 50%%", 100*f)
	}
	if got := res.Failures[0].String(); !strings.HasSuffix(got, "worse, beyond the 5% limit") || !strings.Contains(got, "regressed on current") {
		t.Errorf("gate message %q", got)
	}
	if !strings.Contains(buf.String(), "Compared across sessions") || !strings.Contains(buf.String(), "the 3 sessions saved as main") {
		t.Errorf("the comparison does not say it is across sessions, and what it knows:\n%s", buf.String())
	}
}

// TestBaselineOneSession: with one session saved, nothing is known of how
// results vary between sessions: the same code 5% slower in the second
// session (the machine drifted) is inconclusive, saying why, and the gate
// does not fail. Compared as two unpaired samples, as it was, it
// regressed by 5%, beyond a 2% gate.
func TestBaselineOneSession(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	g := rigor.NewGroup("g")
	save := &options{saveBaseline: "main", format: "text", maxRegression: -1}
	if _, err := save.finish(&bytes.Buffer{}, g.Name, withDefaults(g.Config), groupRun(1e-3, 2e-3, 1), 1e-9); err != nil {
		t.Fatal(err)
	}
	check := &options{baseline: "main", format: "text", maxRegression: 2}
	var buf bytes.Buffer
	res, err := check.finish(&buf, g.Name, withDefaults(g.Config), groupRun(1.05e-3, 2.1e-3, 3), 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 0 {
		t.Errorf("gate failures %+v, want none: the drift of one machine between two sessions is no regression", res.Failures)
	}
	for _, b := range res.Baseline.Benchmarks {
		if c := b.Metrics[0].Changes[0]; c.Verdict != analysis.Inconclusive || c.ReasonKind != analysis.ReasonSessions {
			t.Errorf("%s: %s (%s), want inconclusive: the variation between sessions is not known", b.Name, c.Verdict, c.Reason)
		}
	}
	if !strings.Contains(buf.String(), "no earlier sessions saved as main") && !strings.Contains(buf.String(), "fewer than two sessions saved as main") {
		t.Errorf("output does not say why:\n%s", buf.String())
	}
}

// TestUpdateOnPass: with -rigor.update-on-pass a run that passes the gate
// against a baseline replaces it, and one that fails leaves it; the text
// report ends with zenbench's summary and a PASS or FAIL line.
func TestUpdateOnPass(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	g := rigor.NewGroup("g")
	cfg := withDefaults(g.Config)
	// One session saved: a comparison across sessions cannot be decided,
	// so it is no pass, and the baseline is kept.
	if _, err := (&options{saveBaseline: "main", format: "json", maxRegression: -1}).finish(&bytes.Buffer{}, g.Name, cfg, groupRun(1e-3, 2e-3, 1), 1e-9); err != nil {
		t.Fatal(err)
	}
	upd := &options{baseline: "main", updateOnPass: true, format: "text", maxRegression: 5}
	var one bytes.Buffer
	if res, err := upd.finish(&one, g.Name, cfg, groupRun(1.5e-3, 2e-3, 2), 1e-9); err != nil || res.Updated != "" ||
		!strings.Contains(one.String(), "[rigor] baseline kept: 2 comparisons could not be decided across sessions") {
		t.Errorf("one session saved: updated %v (%v), want the baseline kept:\n%s", res != nil && res.Updated != "", err, one.String())
	}
	// Two more sessions, 1% apart: how much results vary between
	// sessions is known.
	for i, f := range []float64{1.01, 0.99} {
		if _, err := (&options{saveBaseline: "main", format: "json", maxRegression: -1}).finish(&bytes.Buffer{}, g.Name, cfg, groupRun(1e-3*f, 2e-3*f, uint64(10+i)), 1e-9); err != nil {
			t.Fatal(err)
		}
	}
	baseA := func() float64 {
		st, err := openStore()
		if err != nil {
			t.Fatal(err)
		}
		b, err := st.Load("main")
		if err != nil {
			t.Fatal(err)
		}
		for _, bm := range b.Benchmarks {
			if bm.Name == "g/a" {
				return bm.Metric(unitTime).Values(currentLabel)[0]
			}
		}
		t.Fatal("baseline lacks g/a")
		return 0
	}
	// 50% slower: the gate fails, the baseline stays.
	var buf bytes.Buffer
	res, err := upd.finish(&buf, g.Name, cfg, groupRun(1.5e-3, 2e-3, 3), 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	if res.Updated != "" || baseA() > 1.1e-3 {
		t.Errorf("a failing run updated the baseline (%q, g/a now %v)", res.Updated, baseA())
	}
	// g/b, unchanged, is inconclusive: the variation between 3 sessions
	// 1% apart leaves its interval wider than the 1% band.
	if !strings.Contains(buf.String(), "Summary: 1 regressed, 0 improved, 0 unchanged, 1 inconclusive (against the saved baseline)") ||
		!strings.Contains(buf.String(), "[rigor] FAIL: 1 comparison regressed beyond the 5% limit") {
		t.Errorf("report lacks the summary and FAIL lines:\n%s", buf.String())
	}
	// The same speed: the gate passes and the baseline is this run.
	buf.Reset()
	res, err = upd.finish(&buf, g.Name, cfg, groupRun(1.0e-3, 2e-3, 5), 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	if res.Updated != "main" || len(res.Failures) != 0 {
		t.Errorf("a passing run: updated %q, failures %v", res.Updated, res.Failures)
	}
	if want := groupRun(1.0e-3, 2e-3, 5).Benchmarks[0].Metric(unitTime).Values("a")[0]; baseA() != want {
		t.Errorf("baseline g/a starts at %v, want this run's %v", baseA(), want)
	}
	if !strings.Contains(buf.String(), "[rigor] PASS: no regression beyond the 5% limit") || !strings.Contains(buf.String(), "[rigor] baseline main updated") {
		t.Errorf("report lacks the PASS and update lines:\n%s", buf.String())
	}
}
