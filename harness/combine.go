package harness

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rigorbench/rigor"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// combine merges repetitions of the same group by policy, benchmark by
// benchmark.
func combine(passes []*model.Run, policy rigor.Policy, processes bool) *model.Run {
	what := "passes"
	if processes {
		what = "processes"
	}
	out := *passes[0]
	out.Benchmarks = nil
	out.End = passes[len(passes)-1].End
	out.Notes = nil
	out.Observations = nil
	for _, p := range passes {
		out.Observations = append(out.Observations, p.Observations...)
		for _, n := range p.Notes {
			if !containsText(out.Notes, n.Text) && !(n.Kind == model.NoteProcess && n.Topic == "process") {
				out.Notes = append(out.Notes, n)
			}
		}
	}
	for j := range passes[0].Benchmarks {
		var reps []*model.Benchmark
		for _, p := range passes {
			if j < len(p.Benchmarks) && p.Benchmarks[j].Name == passes[0].Benchmarks[j].Name {
				reps = append(reps, &p.Benchmarks[j])
			}
		}
		out.Benchmarks = append(out.Benchmarks, combineBenchmark(reps, out.Sides, policy, what))
	}
	return &out
}

// combineBenchmark merges one benchmark's repetitions. Best and Median
// keep one whole repetition, so rounds stay paired; the score of a
// repetition is the sum over variants of the log of their median sec/op.
// Mean pools every repetition's rounds, renumbered so that they stay
// distinct.
func combineBenchmark(reps []*model.Benchmark, sides []model.Side, policy rigor.Policy, what string) model.Benchmark {
	scores := make([]float64, len(reps))
	for i, b := range reps {
		if m := b.Metric(unitTime); m != nil {
			for _, s := range sides {
				if v := m.Values(s.Label); len(v) > 0 {
					scores[i] += math.Log(math.Max(stats.Median(v), 1e-15))
				}
			}
		}
	}
	var per []string
	for i, sc := range scores {
		per = append(per, fmt.Sprintf("%d: %s", i+1, fmtSeconds(math.Exp(sc/float64(len(sides))))))
	}
	spread := fmt.Sprintf("geometric mean of the variants' median sec/op in each of the %d %s: %s", len(reps), what, strings.Join(per, ", "))
	if policy == rigor.Mean {
		out := *reps[0]
		out.Metrics = nil
		out.Notes = nil
		for _, b := range reps {
			out.Notes = appendNew(out.Notes, b.Notes...)
		}
		offset := 0
		for _, b := range reps {
			top := 0
			for mi, m := range b.Metrics {
				idx := -1
				for k := range out.Metrics {
					if out.Metrics[k].Unit == m.Unit {
						idx = k
					}
				}
				if idx < 0 {
					out.Metrics = append(out.Metrics, model.Metric{Unit: m.Unit, Better: m.Better, Assume: m.Assume})
					idx = len(out.Metrics) - 1
				}
				for _, s := range b.Metrics[mi].Samples {
					s.Round += offset
					top = max(top, s.Round-offset)
					out.Metrics[idx].Samples = append(out.Metrics[idx].Samples, s)
				}
			}
			offset += top
		}
		out.Notes = append(out.Notes, model.Note{Kind: model.NoteProcess, Topic: "combined", Source: source, Text: fmt.Sprintf("mean of %d %s: their rounds are pooled; %s", len(reps), what, spread)})
		return out
	}
	order := make([]int, len(reps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(scores[a], scores[b]) })
	pick, word := order[0], "best"
	if policy == rigor.Median {
		pick, word = order[(len(order)-1)/2], "median"
	}
	out := *reps[pick]
	out.Notes = append(slices.Clone(out.Notes), model.Note{Kind: model.NoteProcess, Topic: "combined", Source: source, Text: fmt.Sprintf("%s of %d %s: kept number %d; %s", word, len(reps), what, pick+1, spread)})
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func appendNew(dst []model.Note, src ...model.Note) []model.Note {
	for _, n := range src {
		if !containsText(dst, n.Text) {
			dst = append(dst, n)
		}
	}
	return dst
}

// containsText reports whether notes has a note with the words text.
func containsText(notes []model.Note, text string) bool {
	return slices.ContainsFunc(notes, func(n model.Note) bool { return n.Text == text })
}
