package analysis

import (
	"slices"
	"testing"

	"github.com/rigorbench/rigor/model"
)

func TestDigest(t *testing.T) {
	exact := model.Note{Kind: model.NoteExact, Text: "values never vary within a side: compared exactly"}
	gc := model.Note{Kind: model.NoteBottleneck, Topic: "gc", Text: "bottleneck: garbage collection"}
	lock := model.Note{Kind: model.NoteBottleneck, Topic: "lock", Text: "bottleneck: lock contention"}
	prof := model.Note{Kind: model.NoteProfile, Text: "profiled in an untimed run after the rounds: files in p/"}
	rep := &Report{
		Benchmarks: []Benchmark{
			{FullName: "A", Notes: []model.Note{gc, prof}, Metrics: []Metric{{Unit: "allocs/op", Notes: []model.Note{exact}}}},
			{FullName: "B", Notes: []model.Note{gc, prof}, Metrics: []Metric{{Unit: "allocs/op", Notes: []model.Note{exact}},
				{Unit: "sec/op", Changes: []*Change{{Verdict: Inconclusive, Reason: "too few samples"}}}}},
			{FullName: "C", Notes: []model.Note{lock, prof}, Metrics: []Metric{{Unit: "allocs/op", Notes: []model.Note{exact}}}},
		},
		Notes: []model.Note{{Kind: model.NoteRounds, Text: "Stopped after 12 rounds."}},
	}
	lines, hidden := rep.Digest(false)
	var got []string
	for _, l := range lines {
		got = append(got, l.String())
	}
	// Particular notes first, by benchmark; shared ones once; the run's
	// last. Three profile notes and three exact notes are routine.
	want := []string{
		"B sec/op: inconclusive: too few samples",
		"C: bottleneck: lock contention",
		"2 benchmarks (A and B): bottleneck: garbage collection",
		"Stopped after 12 rounds.",
	}
	if !slices.Equal(got, want) || hidden != 6 {
		t.Errorf("Digest(false) = %q, hidden %d; want %q, hidden 6", got, hidden, want)
	}
	lines, hidden = rep.Digest(true)
	got = got[:0]
	for _, l := range lines {
		got = append(got, l.String())
	}
	if !slices.Contains(got, "every benchmark allocs/op: values never vary within a side: compared exactly") || hidden != 0 {
		t.Errorf("Digest(true) = %q, hidden %d; want the exact note once for every benchmark", got, hidden)
	}
	if !slices.Contains(got, "A: profiled in an untimed run after the rounds: files in p/") && !slices.Contains(got, "every benchmark: profiled in an untimed run after the rounds: files in p/") {
		t.Errorf("Digest(true) lost the profile notes: %q", got)
	}
}
