package observe

import (
	"slices"

	"github.com/rigorbench/rigor/model"
)

// source is the Source of this package's notes.
const source = "observe"

// Topics of this package's machine and sanity notes.
const (
	TopicBusy            = "busy"
	TopicFrequency       = "frequency"
	TopicMemoryBandwidth = "memory-bandwidth"
	TopicPageCache       = "page-cache"
)

// Annotate appends plain-words notes to run.Notes and to each benchmark's
// Notes, from what was recorded: the run's Observations and Env, and the
// benchmarks' samples. It measures nothing, so annotating a Run read back
// from JSON gives the same notes; a note already present is not added
// again.
//
// Run notes: interference over the whole run, and the bottleneck of
// observations that cover a whole process rather than one benchmark (per
// side when there are several). Benchmark notes: the bottleneck and
// interference of the benchmark's own observations, a throughput above
// the machine's memory bandwidth, a file I/O throughput far above what
// the disks moved (the page cache), a sub-nanosecond result that was likely
// optimized away (ConfirmElision can then check the disassembly).
func Annotate(run *model.Run) {
	if run == nil {
		return
	}
	all := aggregateOf(run.Observations)
	runInterference := interferenceOf(all)
	for _, n := range runInterference {
		addNote(&run.Notes, n)
	}

	sides := sideOrder(run)
	for _, side := range sides {
		var obs []model.Observation
		for _, o := range run.Observations {
			if o.Benchmark == "" && o.Side == side {
				obs = append(obs, o)
			}
		}
		if len(obs) == 0 {
			continue
		}
		d := bottleneckOf(aggregateOf(obs), run.Env)
		if len(sides) > 1 && side != "" {
			addNote(&run.Notes, d.Note("", side))
		} else {
			addNote(&run.Notes, d.Note("", ""))
		}
	}

	for i := range run.Benchmarks {
		b := &run.Benchmarks[i]
		var obs []model.Observation
		for _, o := range run.Observations {
			if o.Benchmark != "" && (o.Benchmark == b.Key() || o.Benchmark == b.FullName() || o.Benchmark == b.Name) {
				obs = append(obs, o)
			}
		}
		key := b.Key()
		if len(obs) > 0 {
			a := aggregateOf(obs)
			addNote(&b.Notes, bottleneckOf(a, run.Env).Note(key, ""))
			for _, n := range interferenceOf(a) {
				if !sameTopic(runInterference, n) {
					n.Benchmark = key
					addNote(&b.Notes, n)
				}
			}
		}
		if n := cacheNote(b, run.Env); n != "" {
			addNote(&b.Notes, model.Note{Kind: model.NoteSanity, Topic: TopicMemoryBandwidth, Source: source, Benchmark: key, Text: n})
		}
		if n := pageCacheNote(b, obs); n != "" {
			addNote(&b.Notes, model.Note{Kind: model.NoteSanity, Topic: TopicPageCache, Source: source, Benchmark: key, Text: n})
		}
		if n := elisionNote(b, run.Env); n != "" {
			addNote(&b.Notes, model.Note{Kind: model.NoteElision, Source: source, Benchmark: key, Text: n})
		}
	}
}

// sameTopic reports whether notes has a note of n's kind and topic, so a
// benchmark does not repeat, with its own figures, what the run already
// says.
func sameTopic(notes []model.Note, n model.Note) bool {
	return slices.ContainsFunc(notes, func(r model.Note) bool { return r.Kind == n.Kind && r.Topic == n.Topic })
}

// sideOrder lists the run's sides in order, then any side only the
// observations name, then "" when unlabelled observations exist.
func sideOrder(run *model.Run) []string {
	var sides []string
	for _, s := range run.Sides {
		sides = append(sides, s.Label)
	}
	for _, o := range run.Observations {
		if !slices.Contains(sides, o.Side) {
			sides = append(sides, o.Side)
		}
	}
	return sides
}

func addNote(notes *[]model.Note, n model.Note) {
	if n.Text != "" && !slices.ContainsFunc(*notes, func(o model.Note) bool { return o.Text == n.Text }) {
		*notes = append(*notes, n)
	}
}

func metricSides(m *model.Metric) []string {
	var sides []string
	for _, s := range m.Samples {
		if !slices.Contains(sides, s.Side) {
			sides = append(sides, s.Side)
		}
	}
	return sides
}
