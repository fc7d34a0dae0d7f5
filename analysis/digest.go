package analysis

import (
	"fmt"
	"slices"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
)

// A NoteLine is one line of a report's notes.
type NoteLine struct {
	Kind model.NoteKind
	// Subject is what the line is about: "" for the run, a benchmark's
	// full name with the unit when the note is about one metric, or the
	// benchmarks that share the note ("every benchmark", "3 benchmarks
	// (A, B, C)").
	Subject string
	Text    string
}

// Digest returns rep's notes as the lines a reader should see, in seconds:
// a note several benchmarks share is said once, naming them (or "every
// benchmark"); what is particular to a benchmark stays with it; the run's
// own notes follow. Why a comparison is inconclusive is a line of kind
// model.NoteVerdict. Unless verbose, routine notes are left out (values
// compared exactly, outliers kept in the analysis, each benchmark's profile
// files, and a derived unit's, which repeat its source's), and hidden says
// how many lines were.
func (r *Report) Digest(verbose bool) (lines []NoteLine, hidden int) {
	type entry struct {
		kind    model.NoteKind
		unit    string
		text    string
		benches []string
	}
	var entries []*entry
	index := map[string]*entry{}
	add := func(kind model.NoteKind, bench, unit, text string) {
		key := string(kind) + "\x00" + unit + "\x00" + text
		e := index[key]
		if e == nil {
			e = &entry{kind: kind, unit: unit, text: text}
			index[key] = e
			entries = append(entries, e)
		}
		if !slices.Contains(e.benches, bench) {
			e.benches = append(e.benches, bench)
		}
	}
	for _, b := range r.Benchmarks {
		for _, n := range b.Notes {
			if !verbose && Routine(n, true) {
				hidden++
				continue
			}
			add(n.Kind, b.FullName, "", n.Text)
		}
		for _, m := range b.Metrics {
			if !verbose && m.DerivedFrom != "" {
				// A derived unit repeats its source's notes and verdict.
				hidden += len(m.Notes)
				continue
			}
			for _, n := range m.Notes {
				if !verbose && Routine(n, true) {
					hidden++
					continue
				}
				add(n.Kind, b.FullName, m.Unit, n.Text)
			}
			for _, c := range m.Changes {
				if c != nil && c.Verdict == Inconclusive {
					add(model.NoteVerdict, b.FullName, m.Unit, "inconclusive: "+c.Reason)
				}
			}
		}
	}
	all := len(r.Benchmarks)
	var shared []NoteLine
	for _, e := range entries {
		subject := e.benches[0]
		if len(e.benches) > 1 {
			switch {
			case len(e.benches) == all:
				subject = "every benchmark"
			default:
				subject = fmt.Sprintf("%d benchmarks (%s)", len(e.benches), words.JoinList(e.benches, 4))
			}
		}
		if e.unit != "" {
			subject += " " + e.unit
		}
		l := NoteLine{Kind: e.kind, Subject: subject, Text: e.text}
		if len(e.benches) > 1 {
			shared = append(shared, l)
		} else {
			lines = append(lines, l)
		}
	}
	lines = append(lines, shared...)
	for _, n := range r.Notes {
		if !verbose && Routine(n, false) {
			hidden++
			continue
		}
		lines = append(lines, NoteLine{Kind: n.Kind, Text: n.Text})
	}
	return lines, hidden
}

// Routine reports whether n is a note a reader rarely needs, shown with
// -v only: values compared exactly, outliers kept in the analysis, and,
// for a benchmark's own notes (perBenchmark), where its profiles are.
// Nothing that bears on a verdict is routine.
func Routine(n model.Note, perBenchmark bool) bool {
	switch {
	case n.Kind == model.NoteExact:
		return true
	case n.Kind == model.NoteStatistics && n.Topic == "outliers":
		return true // kept in the analysis, which resists them
	case n.Kind == model.NoteProfile && perBenchmark:
		return true // the run's note says where the profiles are
	}
	return false
}

// String is the line as text reports print it.
func (l NoteLine) String() string {
	if l.Subject == "" {
		return l.Text
	}
	return l.Subject + ": " + l.Text
}

// AllZero reports whether m is compared exactly and is 0 on every side
// that has it: a row text reports leave out unless verbose (allocs/op of
// a benchmark that never allocates); JSON keeps it.
func (m *Metric) AllZero() bool {
	if !m.Exact {
		return false
	}
	seen := false
	for _, s := range m.Sides {
		if s.N == 0 {
			continue
		}
		if s.Center != 0 || s.Min != 0 || s.Max != 0 {
			return false
		}
		seen = true
	}
	return seen
}
