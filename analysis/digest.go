package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

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
// model.NoteVerdict. Unless verbose, notes of one family whose words
// differ only in their numbers are said once too, with the numbers as
// ranges, when several benchmarks share the finding: high variation,
// comparisons inconclusive for the same reason (with the rounds that
// would settle them), the clock chosen for the same reason, the same
// bottleneck. The grouping reads each note's data (Change.ReasonKind,
// Clock.Why, a note's Kind, Topic and Evidence), never its words.
// Unless verbose, routine notes are left out too (values compared
// exactly, outliers kept in the analysis, each benchmark's profile files,
// and a derived unit's, which repeat its source's), and hidden says how
// many lines were.
func (r *Report) Digest(verbose bool) (lines []NoteLine, hidden int) {
	return r.digest(r.Benchmarks, verbose, true)
}

// BenchmarkDigest returns the lines Digest would say of the benchmark at
// index i alone, for a report's section about it (HTML's footnotes):
// grouped as Digest groups them, their Subject without the benchmark's
// name (the section names it: "sec/op" or ""), none of the run's own
// notes, and how many more verbose would show.
func (r *Report) BenchmarkDigest(i int, verbose bool) (lines []NoteLine, hidden int) {
	b := &r.Benchmarks[i]
	lines, hidden = r.digest(r.Benchmarks[i:i+1], verbose, false)
	for k := range lines {
		l := &lines[k]
		if l.Subject == b.FullName {
			l.Subject = ""
		} else if rest, ok := strings.CutPrefix(l.Subject, b.FullName+" "); ok {
			l.Subject = rest
		}
	}
	return lines, hidden
}

// digest is Digest of benches, with the run's own notes when runNotes.
func (r *Report) digest(benches []Benchmark, verbose, runNotes bool) (lines []NoteLine, hidden int) {
	type entry struct {
		kind    model.NoteKind
		unit    string
		text    string
		benches []string
		fam     *family // a family of notes, said once when it has several members
	}
	var entries []*entry
	index := map[string]*entry{}
	// High variation, or values drifting across rounds, on several
	// benchmarks is said once per finding and unit, with its range (a
	// busy machine makes every benchmark noisy): variation holds those
	// notes by variationKey, in order of appearance.
	variation := map[string][]model.Note{}
	var varUnits []string
	// On a machine the run's own note calls busy, high variation and
	// drift are what that note already says: the lines are for -v.
	busy := slices.ContainsFunc(r.Notes, func(n model.Note) bool { return n.Kind == model.NoteMachine && n.Topic == topicBusy })
	if !verbose && !busy {
		for _, b := range benches {
			for j, m := range b.Metrics {
				for _, n := range m.Notes {
					if m.DerivedFrom == "" && b.Decider(j) && isVariation(n) {
						k := variationKey(n, m.Unit)
						if variation[k] == nil {
							varUnits = append(varUnits, k)
						}
						n.Benchmark = b.FullName
						variation[k] = append(variation[k], n)
					}
				}
			}
		}
		for _, u := range varUnits {
			if len(variation[u]) < 2 {
				delete(variation, u) // one note: said as it is
			}
		}
	}
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
	// join adds m to the family of key, or returns false when verbose
	// or when m belongs to none (key "").
	join := func(key string, say func([]member) string, m member) bool {
		if verbose || key == "" {
			return false
		}
		key = "\x01" + key
		e := index[key]
		if e == nil {
			e = &entry{kind: m.line.Kind, fam: &family{say: say}}
			index[key] = e
			entries = append(entries, e)
		}
		e.fam.members = append(e.fam.members, m)
		return true
	}
	for i := range benches {
		b := &benches[i]
		for _, n := range b.Notes {
			if !verbose && Routine(n, true) {
				hidden++
				continue
			}
			m := member{bench: b.FullName, line: NoteLine{Kind: n.Kind, Subject: b.FullName, Text: n.Text}, note: n, clock: b.Clock}
			if key, say := noteFamily(n, b.Clock); join(key, say, m) {
				continue
			}
			add(n.Kind, b.FullName, "", n.Text)
		}
		for j, m := range b.Metrics {
			if !verbose && m.DerivedFrom != "" {
				// A derived unit repeats its source's notes and verdict.
				hidden += len(m.Notes)
				continue
			}
			decider := b.Decider(j)
			for _, n := range m.Notes {
				if !verbose && (Routine(n, true) || !decider && !aboutElision(n) || busy && isVariation(n) || tooFewSaid(n, m.Changes)) {
					// A metric that does not decide the verdict is
					// context: its notes are for -v, but a loop the
					// compiler removed.
					hidden++
					continue
				}
				if isVariation(n) && variation[variationKey(n, m.Unit)] != nil {
					continue // said once below
				}
				add(n.Kind, b.FullName, m.Unit, n.Text)
			}
			for k, c := range m.Changes {
				if c == nil || c.Verdict != Inconclusive {
					continue
				}
				if !verbose && (k >= len(b.Decisions) || b.Decisions[k].Metric != j) {
					// Only the verdict's own metric says why it is
					// inconclusive; -v says it of every metric.
					hidden++
					continue
				}
				text := "inconclusive: " + c.Reason
				who, unit := b.FullName, m.Unit
				if r.Kind == model.KindExec {
					// rigor exec's rows are its commands: the line
					// is about the command compared, not about the
					// one benchmark that holds them.
					who, unit = "`"+c.Side+"`", ""
				}
				mb := member{bench: who, unit: unit, change: c,
					line: NoteLine{Kind: model.NoteVerdict, Subject: strings.TrimSpace(who + " " + unit), Text: text}}
				if join(r.verdictFamily(c), r.sayVerdicts, mb) {
					continue
				}
				add(model.NoteVerdict, who, unit, text)
			}
		}
	}
	all := len(benches)
	// A family's members are listed unit by unit, in the order the
	// report first has each unit (sec/op before cpu-sec/op), then by
	// benchmark.
	unitRank := map[string]int{}
	for _, b := range benches {
		for _, m := range b.Metrics {
			if _, ok := unitRank[m.Unit]; !ok {
				unitRank[m.Unit] = len(unitRank)
			}
		}
	}
	var shared []NoteLine
	for _, e := range entries {
		if f := e.fam; f != nil {
			slices.SortStableFunc(f.members, func(a, b member) int { return unitRank[a.unit] - unitRank[b.unit] })
			if len(f.members) == 1 {
				lines = append(lines, f.members[0].line) // its own: said as it is
			} else {
				shared = append(shared, NoteLine{Kind: e.kind, Subject: f.subject(all), Text: f.say(f.members)})
			}
			continue
		}
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
	for _, k := range varUnits {
		if ns := variation[k]; ns != nil {
			_, unit, _ := strings.Cut(k, "\x00")
			shared = append(shared, variationLine(unit, ns, all))
		}
	}
	if !verbose {
		// Shared lines by kind, as model.NoteKinds orders them: why the
		// verdicts are what they are, then the clocks, the bottlenecks,
		// ... (-v keeps the order of appearance).
		slices.SortStableFunc(shared, func(a, b NoteLine) int {
			return slices.Index(model.NoteKinds, a.Kind) - slices.Index(model.NoteKinds, b.Kind)
		})
	}
	lines = append(lines, shared...)
	if !runNotes {
		return lines, hidden
	}
	for _, n := range r.Notes {
		if !verbose && Routine(n, false) {
			hidden++
			continue
		}
		lines = append(lines, NoteLine{Kind: n.Kind, Text: n.Text})
	}
	return lines, hidden
}

// topicBusy is the Topic of package observe's note on a busy machine
// (observe.TopicBusy).
const topicBusy = "busy"

// tooFewSaid reports whether n, a side's too-few-samples note, is said by
// the verdict of its metric's change: inconclusive for too few samples.
func tooFewSaid(n model.Note, changes []*Change) bool {
	return n.Kind == model.NoteStatistics && n.Topic == "too-few" &&
		slices.ContainsFunc(changes, func(c *Change) bool { return c != nil && c.ReasonKind == ReasonTooFew })
}

// isVariation reports whether n is a note of how a side's values varied
// that a busy machine explains: high variation with its CV, or values
// drifting across rounds with their Spearman ρ.
func isVariation(n model.Note) bool {
	if n.Kind != model.NoteStatistics {
		return false
	}
	_, rho := n.Evidence["spearman_rho"]
	return n.Topic == "variation" && n.Evidence["cv"] > 0 || n.Topic == "drift" && rho
}

// variationKey is the key of n's finding on unit: a benchmark's notes of
// one key are said once (variationLine).
func variationKey(n model.Note, unit string) string { return n.Topic + "\x00" + unit }

// benchmarksOf returns the distinct benchmarks of notes, in order.
func benchmarksOf(notes []model.Note) []string {
	var benches []string
	for _, n := range notes {
		if !slices.Contains(benches, n.Benchmark) {
			benches = append(benches, n.Benchmark)
		}
	}
	return benches
}

// variationLine says once that the benchmarks of notes (notes of one
// finding on unit, see isVariation, Benchmark set to each one's full
// name) varied, with the range of their numbers and on which sides:
// "every benchmark sec/op: high variation (CV 17.6% to 87%, on both
// sides): ...", "3 benchmarks (...) sec/op: values drift across rounds
// (Spearman |ρ| 0.64 to 0.88 between round and value; old in 3, new in
// 1): ...".
func variationLine(unit string, notes []model.Note, all int) NoteLine {
	benches := benchmarksOf(notes)
	subject := "every benchmark"
	switch {
	case len(benches) == 1:
		subject = benches[0]
	case len(benches) < all:
		subject = fmt.Sprintf("%d benchmarks (%s)", len(benches), words.JoinList(benches, 4))
	}
	drift := notes[0].Topic == "drift"
	num := func(n model.Note) float64 {
		if drift {
			return math.Abs(n.Evidence["spearman_rho"])
		}
		return n.Evidence["cv"]
	}
	say := words.Pct
	if drift {
		say = func(v float64) string { return fmt.Sprintf("%.2f", v) }
	}
	lo, hi := num(notes[0]), num(notes[0])
	var sides []string
	count := map[string]int{}
	for _, n := range notes {
		lo, hi = min(lo, num(n)), max(hi, num(n))
		if !slices.Contains(sides, n.Side) {
			sides = append(sides, n.Side)
		}
		count[n.Side]++
	}
	what := say(lo)
	if say(hi) != say(lo) {
		what += " to " + say(hi)
	}
	if drift {
		what = "Spearman |ρ| " + what + " between round and value"
	} else {
		what = "CV " + what
	}
	switch {
	case len(sides) == 1 && sides[0] == "":
		// One side, unnamed (rigor run).
	case len(notes) == len(benches)*len(sides):
		// Every benchmark on every side named.
		switch len(sides) {
		case 1:
			what += ", on " + sides[0]
		case 2:
			what += ", on both sides"
		default:
			what += ", on every side"
		}
	default:
		var per []string
		for _, sd := range sides {
			per = append(per, fmt.Sprintf("%s in %d", sd, count[sd]))
		}
		what += "; " + strings.Join(per, ", ")
	}
	text := "high variation (" + what + "): the machine or the benchmark is noisy"
	if drift {
		text = "values drift across rounds (" + what + "): the machine changed during the run"
	}
	return NoteLine{Kind: model.NoteStatistics, Subject: subject + " " + unit, Text: text}
}

// Routine reports whether n is a note that does not change how a result
// reads, shown with -v only: values compared exactly, outliers kept in
// the analysis, where the profiles are, how the budget
// was spent and why the rounds stopped, the multiple-comparison
// correction, the A/A finding (the header says it), how a process was
// measured, packages skipped for having no benchmark, the sides' tests
// that passed before timing, a bottleneck that is
// the benchmark's own CPU work (or other processes', which the busy
// machine's note says), a disassembly that
// found work in the loop, and the clock when the verdict stays on wall
// time (the results table names the clock otherwise). What a reader acts
// on is never routine: an inconclusive verdict, a failure, a busy
// machine, elision, a sanity finding, skipped input, a baseline from
// another session, a command's leftover processes. perBenchmark is kept
// for callers; both levels follow the same rule.
func Routine(n model.Note, perBenchmark bool) bool {
	_ = perBenchmark
	switch n.Kind {
	case model.NoteExact, model.NoteAA, model.NoteRounds, model.NoteBudget, model.NoteProfile,
		model.NoteCorrection, model.NoteOutput:
		return true
	case model.NoteBottleneck:
		// A benchmark busy with its own code is what a benchmark is;
		// other processes taking the CPU is the busy machine's note. A
		// lock, the collector, I/O or the kernel is a finding.
		return n.Topic == "cpu-user" || n.Topic == "cpu-starved" || n.Topic == bottleneckInconclusive
	case model.NoteStatistics:
		return n.Topic == "outliers"
	case model.NoteClock:
		return n.Unit != CPUUnit
	case model.NoteBuild:
		// Tests that passed before timing are what a run needs; tests
		// not run (--no-check) change how its verdicts read.
		return n.Topic == model.TopicSkipped || n.Topic == "check" && n.Evidence["passed"] > 0
	case model.NoteDisassembly:
		return n.Topic == model.TopicNotElided
	case model.NoteProcess:
		return n.Topic != "leftover"
	}
	return false
}

// aboutElision reports whether n says the benchmark's loop may have been
// optimized away: shown whichever metric it is on.
func aboutElision(n model.Note) bool {
	return n.Kind == model.NoteElision || n.Kind == model.NoteDisassembly && n.Topic == model.TopicEmptyLoop
}

// String is the line as text reports print it.
func (l NoteLine) String() string {
	if l.Subject == "" {
		return l.Text
	}
	return l.Subject + ": " + l.Text
}

// Settled reports whether m's row tells nothing a reader needs beyond
// its metric's name: it is 0 on every side (AllZero), or every change is
// unchanged because the exact values are identical or both medians are 0
// with confidence (B/op of a benchmark that allocated in 1 sample of 60).
// Text reports leave such rows out unless verbose; JSON keeps them.
func (m *Metric) Settled() bool {
	if m.AllZero() {
		return true
	}
	seen := false
	for _, c := range m.Changes {
		if c == nil {
			continue
		}
		if c.Verdict != Unchanged || c.ReasonKind != ReasonExactIdentical && c.ReasonKind != ReasonZeroMedians {
			return false
		}
		seen = true
	}
	return seen
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
