package model

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
)

// A Note is one remark about a run: a kind from a closed set, what it is
// about (benchmark, side, unit), its evidence as numbers, and the words a
// person reads. Programs decide by Kind and Evidence, never by Text.
type Note struct {
	Kind NoteKind `json:"kind"`
	// Source is the package that made the note: "gotest", "observe",
	// "analysis", "harness", "load", "model", "store".
	Source string `json:"source,omitempty"`
	// Benchmark is the Key of the benchmark the note is about, if one;
	// Side and Unit narrow it.
	Benchmark string `json:"benchmark,omitempty"`
	Side      string `json:"side,omitempty"`
	Unit      string `json:"unit,omitempty"`
	// Topic narrows the kind when it has several: a bottleneck's class
	// ("lock", "io", "gc", ...), a machine note's subject ("busy",
	// "frequency"), a sanity check's limit ("page-cache",
	// "memory-bandwidth").
	Topic string `json:"topic,omitempty"`
	// Evidence holds the numbers behind the note, named ("cv": 0.12,
	// "other_cpu": 0.6); it may be empty.
	Evidence map[string]float64 `json:"evidence,omitempty"`
	// Finding is what the note found in a few words that hold for every
	// benchmark it may be made about (a bottleneck's diagnosis: "CPU in
	// user code"), without the numbers particular to this one: a report
	// that says a note once for several benchmarks says these words. It
	// may be empty (files written before notes carried it).
	Finding string `json:"finding,omitempty"`
	// Text is the note in plain words.
	Text string `json:"text"`
}

// A NoteKind says what a note is about. The set is closed: every note has
// one of the kinds below.
type NoteKind string

// Kinds of notes.
const (
	NoteOther       NoteKind = "other"       // from a file written before notes had kinds
	NoteAA          NoteKind = "aa"          // both sides build the same thing: an A/A run
	NoteBuild       NoteKind = "build"       // a package did not build, or was skipped before building
	NoteFailure     NoteKind = "failure"     // a benchmark failed: exit status, panic, time-out, no result
	NoteOneSide     NoteKind = "one-side"    // present on some sides only
	NoteRounds      NoteKind = "rounds"      // how and why the rounds stopped, and retirements
	NoteBudget      NoteKind = "budget"      // how the time budget was spent
	NoteProfile     NoteKind = "profile"     // the untimed profiling pass
	NoteBottleneck  NoteKind = "bottleneck"  // what limited the benchmark
	NoteMachine     NoteKind = "machine"     // what the machine did: busy, frequency, steal
	NoteClock       NoteKind = "clock"       // which clock the verdict is taken from
	NoteElision     NoteKind = "elision"     // the loop may have been optimized away
	NoteDisassembly NoteKind = "disassembly" // the disassembly's verdict on elision
	NoteSanity      NoteKind = "sanity"      // a result beyond a physical limit (page cache, bandwidth)
	NoteStatistics  NoteKind = "statistics"  // a footnote on the samples: variation, outliers, bimodal, drift
	NoteExact       NoteKind = "exact"       // values never vary: compared exactly
	NoteCorrection  NoteKind = "correction"  // the multiple-comparison correction
	NoteInput       NoteKind = "input"       // lines of an input skipped or read with a default
	NoteBaseline    NoteKind = "baseline"    // a saved baseline compared against
	NoteInterrupted NoteKind = "interrupted" // the run was cut short
	NoteProcess     NoteKind = "process"     // which process or pass measured a result
	NoteOutput      NoteKind = "output"      // results files, streaming, printed output
	NoteRamp        NoteKind = "ramp"        // a ramp step or fit
	NoteVerdict     NoteKind = "verdict"     // why a comparison's verdict is what it is
)

// Topics that reports read.
const (
	// TopicSkipped: a NoteBuild note about packages skipped before
	// building (no benchmark to run), not a build that failed.
	TopicSkipped = "skipped"
	// TopicEmptyLoop and TopicNotElided: a NoteDisassembly note that
	// confirmed the benchmark measures an empty loop, or refuted it.
	TopicEmptyLoop = "empty-loop"
	TopicNotElided = "not-elided"
)

// NoteKinds lists every kind, in the order reports group them.
var NoteKinds = []NoteKind{
	NoteInterrupted, NoteAA, NoteBuild, NoteFailure, NoteOneSide, NoteVerdict, NoteClock, NoteInstructions, NoteBottleneck,
	NoteSanity, NoteElision, NoteDisassembly, NoteStatistics, NoteExact, NoteCorrection,
	NoteMachine, NoteRounds, NoteBudget, NoteProfile, NoteBaseline, NoteInput, NoteProcess,
	NoteOutput, NoteRamp, NoteOther,
}

// Known reports whether k is one of the kinds above.
func (k NoteKind) Known() bool { return slices.Contains(NoteKinds, k) }

// UnmarshalJSON reads a note, or a plain string as files written before
// notes had kinds hold them (a note of kind NoteOther).
func (n *Note) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*n = Note{Kind: NoteOther, Text: s}
		return nil
	}
	type plain Note
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if !p.Kind.Known() {
		p.Kind = NoteOther
	}
	*n = Note(p)
	return nil
}

// MarshalJSON writes the note, leaving out evidence that is not a finite
// number (JSON has no NaN).
func (n Note) MarshalJSON() ([]byte, error) {
	type plain Note
	p := plain(n)
	for k, v := range n.Evidence {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if len(p.Evidence) == len(n.Evidence) {
				p.Evidence = maps.Clone(n.Evidence)
			}
			delete(p.Evidence, k)
		}
	}
	if len(p.Evidence) == 0 {
		p.Evidence = nil
	}
	return json.Marshal(p)
}

// Texts returns the words of notes, in order.
func Texts(notes []Note) []string {
	if len(notes) == 0 {
		return nil
	}
	s := make([]string, len(notes))
	for i, n := range notes {
		s[i] = n.Text
	}
	return s
}

// OfKind returns the notes of kind k.
func OfKind(notes []Note, k NoteKind) []Note {
	var out []Note
	for _, n := range notes {
		if n.Kind == k {
			out = append(out, n)
		}
	}
	return out
}

// inputNote is a note of this package about its input.
func inputNote(text string) Note {
	return Note{Kind: NoteInput, Source: "model", Text: text}
}

// String returns the note's words.
func (n Note) String() string { return n.Text }
