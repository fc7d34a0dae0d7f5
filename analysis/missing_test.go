package analysis

import (
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// TestLostBenchmarksFailTheGate (issue 11 item 2): a benchmark that the
// baseline has and that failed, did not build or is missing on the new
// side fails the gate, from the structured record (model.Benchmark
// .Missing) or from the absence of samples; one that the baseline itself
// lacks or failed on does not. Before, every one of them was left out of
// the verdicts and a gate at 5% passed.
func TestLostBenchmarksFailTheGate(t *testing.T) {
	sample := func(side string, round int) model.Sample {
		return model.Sample{Side: side, Round: round, Iters: 1000, Value: 1e-6 * float64(10+round)}
	}
	bench := func(name string, samples ...model.Sample) model.Benchmark {
		return model.Benchmark{Name: name, Pkg: "p", Metrics: []model.Metric{{Unit: "sec/op", Better: model.LowerIsBetter, Samples: samples}}}
	}
	run := &model.Run{Kind: model.KindAB, Paired: true, Sides: []model.Side{{Label: "old"}, {Label: "new"}}}
	var same []model.Sample
	for r := 1; r <= 6; r++ {
		same = append(same, sample("old", r), sample("new", r))
	}
	run.Benchmarks = []model.Benchmark{
		bench("Same", same...), // unchanged: passes
		bench("Panics", sample("old", 1), sample("new", 1), sample("old", 2)), // failed on new in round 2
		bench("Added", sample("new", 1), sample("new", 2)),                    // absent on the baseline: not lost
		bench("Removed", sample("old", 1), sample("old", 2)),                  // absent on new: lost
		bench("OldFails", sample("old", 1), sample("new", 1), sample("new", 2)),
	}
	run.Benchmarks[1].MarkMissing("new", model.MissingFailed, "panicked (exit status 2) in round 2\n\tgoroutine 1")
	run.Benchmarks[4].MarkMissing("old", model.MissingFailed, "timed out after 1m0s and was stopped")
	run.MarkMissing("p", "Broken", 0, "new", model.MissingBuild, "package p does not build on new")

	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ bench, side string }
	want := map[key]Missing{
		{"p.Panics", "new"}:   {Kind: model.MissingFailed, Reason: "panicked (exit status 2) in round 2", Lost: true},
		{"p.Added", "old"}:    {Kind: model.MissingAbsent},
		{"p.Removed", "new"}:  {Kind: model.MissingAbsent, Lost: true},
		{"p.OldFails", "old"}: {Kind: model.MissingFailed, Reason: "timed out after 1m0s and was stopped"},
		{"p.Broken", "new"}:   {Kind: model.MissingBuild, Reason: "package p does not build on new", Lost: true},
	}
	for _, m := range rep.Missing {
		k := key{m.Benchmark, m.Side}
		w, ok := want[k]
		if !ok {
			t.Errorf("unexpected missing %+v", m)
			continue
		}
		delete(want, k)
		w.Benchmark, w.Side = m.Benchmark, m.Side
		if m != w {
			t.Errorf("missing %+v, want %+v", m, w)
		}
	}
	for k := range want {
		t.Errorf("%s on %s is not listed as missing", k.bench, k.side)
	}

	lost := map[string]bool{}
	for _, g := range rep.Gate(0.05) {
		if g.Missing == nil {
			t.Errorf("gate failure %+v is not a lost benchmark", g)
			continue
		}
		lost[g.Benchmark] = true
	}
	if len(lost) != 3 || !lost["p.Panics"] || !lost["p.Removed"] || !lost["p.Broken"] {
		t.Errorf("gate failed on %v, want p.Panics, p.Removed and p.Broken", lost)
	}
	if g := rep.Gate(-1); g != nil {
		t.Errorf("Gate(-1) = %+v: a disabled gate failed", g)
	}

	notes := strings.Join(model.Texts(rep.Notes), "\n")
	for _, w := range []string{
		"3 benchmarks failed or are missing where the baseline old has them: Panics (failed on new: panicked (exit status 2) in round 2), Removed (missing on new) and Broken (did not build on new: package p does not build on new).",
		"2 benchmarks failed or are present on some sides only: Added (missing on old) and OldFails (failed on old: timed out after 1m0s and was stopped).",
	} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
}
