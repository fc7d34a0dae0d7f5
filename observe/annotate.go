package observe

import (
	"fmt"
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

func count(f float64) string {
	if f >= 10 {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.1f", f)
}

// FormatBytes formats a byte count with decimal (SI) prefixes and three
// significant digits: "27.9 GB".
func FormatBytes(b float64) string { return bytesStr(b) }

// bytesIEC formats a byte count with binary prefixes and three
// significant digits ("3.35 GiB"), as benchstat's tables print B/s
// ("3.350Gi"), so that a note quoting a result matches the table.
func bytesIEC(b float64) string {
	for _, u := range []struct {
		div  float64
		unit string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if v := b / u.div; v >= 100 {
			return fmt.Sprintf("%.0f %s", v, u.unit) // up to 1023, where %.3g would write 1.02e+03
		} else if v >= 1 {
			return fmt.Sprintf("%.3g %s", v, u.unit)
		}
	}
	return fmt.Sprintf("%.0f B", b)
}

// bytesStr formats a byte count with decimal (SI) prefixes.
func bytesStr(b float64) string {
	for _, u := range []struct {
		div  float64
		unit string
	}{{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}} {
		if b >= u.div {
			return fmt.Sprintf("%.3g %s", b/u.div, u.unit)
		}
	}
	return fmt.Sprintf("%.0f B", b)
}
