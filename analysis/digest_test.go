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

// High variation on several benchmarks is one line with its range, not a
// line per benchmark and side: a busy machine made every benchmark of the
// issue 13 xxhash run noisy on both sides, 20 of its 68 note lines. On one
// benchmark it stays that benchmark's own; -v lists each.
func TestDigestVariation(t *testing.T) {
	cv := func(side string, v float64, text string) model.Note {
		return model.Note{Kind: model.NoteStatistics, Topic: "variation", Side: side, Unit: "sec/op", Evidence: map[string]float64{"cv": v}, Text: side + ": high variation (CV " + text + "): the machine or the benchmark is noisy"}
	}
	metric := func(notes ...model.Note) []Metric { return []Metric{{Unit: "sec/op", Notes: notes}} }
	rep := &Report{Benchmarks: []Benchmark{
		{FullName: "A", Metrics: metric(cv("old", 0.25, "25%"), cv("new", 0.228, "22.8%"))},
		{FullName: "B", Metrics: metric(cv("old", 0.87, "87%"), cv("new", 0.176, "17.6%"))},
		{FullName: "C", Metrics: metric(cv("new", 0.06, "6%"))},
	}}
	for _, tc := range []struct {
		name  string
		rep   *Report
		want  []string
		lines int // with -v
	}{
		{"every benchmark", rep, []string{"every benchmark sec/op: high variation (CV 6% to 87%; old in 2, new in 3): the machine or the benchmark is noisy"}, 5},
		{"both sides of each", &Report{Benchmarks: rep.Benchmarks[:2]}, []string{"every benchmark sec/op: high variation (CV 17.6% to 87%, on both sides): the machine or the benchmark is noisy"}, 4},
		{"one benchmark", &Report{Benchmarks: append(slices.Clone(rep.Benchmarks[2:]), Benchmark{FullName: "D"})}, []string{"C sec/op: new: high variation (CV 6%): the machine or the benchmark is noisy"}, 1},
		{"one of a single side", &Report{Benchmarks: []Benchmark{
			{FullName: "A", Metrics: metric(model.Note{Kind: model.NoteStatistics, Topic: "variation", Unit: "sec/op", Evidence: map[string]float64{"cv": 0.1}, Text: "high variation (CV 10%): the machine or the benchmark is noisy"})},
			{FullName: "B", Metrics: metric(model.Note{Kind: model.NoteStatistics, Topic: "variation", Unit: "sec/op", Evidence: map[string]float64{"cv": 0.2}, Text: "high variation (CV 20%): the machine or the benchmark is noisy"})},
			{FullName: "C"},
		}}, []string{"2 benchmarks (A and B) sec/op: high variation (CV 10% to 20%): the machine or the benchmark is noisy"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, _ := tc.rep.Digest(false)
			var got []string
			for _, l := range lines {
				got = append(got, l.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Digest(false) = %q\nwant %q", got, tc.want)
			}
			if all, _ := tc.rep.Digest(true); len(all) != tc.lines {
				t.Errorf("Digest(true) has %d lines, want %d (each note)", len(all), tc.lines)
			}
		})
	}
}
