package harness

import (
	"strings"
	"testing"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/model"
)

// pass builds a one-benchmark run whose variants a and b took the given
// sec/op in each of their rounds.
func pass(a, b []float64) *model.Run {
	m := model.Metric{Unit: unitTime, Better: model.LowerIsBetter}
	for i := range a {
		m.Samples = append(m.Samples,
			model.Sample{Side: "a", Round: i + 1, Iters: 10, Value: a[i]},
			model.Sample{Side: "b", Round: i + 1, Iters: 10, Value: b[i]})
	}
	return &model.Run{
		Kind: model.KindHarness, Paired: true,
		Sides:      []model.Side{{Label: "a"}, {Label: "b"}},
		Benchmarks: []model.Benchmark{{Name: "g", Group: "g", Metrics: []model.Metric{m}}},
		Notes:      []model.Note{{Kind: model.NoteProcess, Text: "timer"}},
	}
}

func TestCombine(t *testing.T) {
	passes := []*model.Run{
		pass([]float64{3, 3, 3}, []float64{6, 6, 6}), // score log 18
		pass([]float64{1, 1, 1}, []float64{2, 2, 2}), // the fastest
		pass([]float64{2, 2, 2}, []float64{4, 4, 4}), // the median
	}
	for _, tt := range []struct {
		policy rigor.Policy
		want   float64 // a's values in the kept pass
		note   string
	}{
		{rigor.Best, 1, "best of 3 passes: kept number 2"},
		{rigor.Median, 2, "median of 3 passes: kept number 3"},
	} {
		run := combine(passes, tt.policy, false)
		bm := run.Benchmarks[0]
		for _, v := range bm.Metric(unitTime).Values("a") {
			if v != tt.want {
				t.Errorf("%s: a's values %v, want all %v", tt.policy, bm.Metric(unitTime).Values("a"), tt.want)
				break
			}
		}
		if !hasPrefix(model.Texts(bm.Notes), tt.note) {
			t.Errorf("%s: notes %q, want one starting %q", tt.policy, bm.Notes, tt.note)
		}
		if len(run.Notes) != 1 {
			t.Errorf("%s: run notes %q, want the shared one once", tt.policy, run.Notes)
		}
	}
	// rigor.Mean pools every pass, rounds renumbered 1..9, pairs kept.
	run := combine(passes, rigor.Mean, true)
	m := run.Benchmarks[0].Metric(unitTime)
	if len(m.Samples) != 18 {
		t.Fatalf("mean: %d samples, want 18", len(m.Samples))
	}
	rounds := map[int]map[string]float64{}
	for _, s := range m.Samples {
		if rounds[s.Round] == nil {
			rounds[s.Round] = map[string]float64{}
		}
		rounds[s.Round][s.Side] = s.Value
	}
	if len(rounds) != 9 {
		t.Errorf("mean: %d distinct rounds, want 9", len(rounds))
	}
	for k, r := range rounds {
		if r["b"] != 2*r["a"] {
			t.Errorf("mean: round %d pairs a=%v with b=%v, want b = 2a", k, r["a"], r["b"])
		}
	}
	if !hasPrefix(model.Texts(run.Benchmarks[0].Notes), "mean of 3 processes") {
		t.Errorf("mean: notes %q", run.Benchmarks[0].Notes)
	}
}

func hasPrefix(notes []string, prefix string) bool {
	for _, n := range notes {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}
