package analysis

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"

	"github.com/rigorbench/rigor/internal/words"
	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// Analyze summarises and compares every benchmark of run. Every side is
// compared with the first, the baseline. A run with one side is only
// summarised.
func Analyze(run *model.Run, opts Options) (*Report, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if run == nil || len(run.Sides) == 0 {
		return nil, errors.New("no sides to analyse")
	}
	rep := &Report{
		Kind:    run.Kind,
		Paired:  run.Paired,
		Options: opts,
		Run:     run,
	}
	for _, s := range run.Sides {
		rep.Sides = append(rep.Sides, s.Label)
	}
	var lost, oneSided []string
	// Every slice of the report is made at its final length: appending
	// grew each benchmark's metrics 1, 2, 4 and each metric's sides 1, 2,
	// a quarter of what the analysis of 10,000 benchmarks keeps.
	rep.Benchmarks = make([]Benchmark, 0, len(run.Benchmarks))
	for i := range run.Benchmarks {
		b := &run.Benchmarks[i]
		ab := Benchmark{
			Name:     b.Name,
			FullName: b.FullName(),
			Pkg:      b.Pkg,
			Group:    b.Group,
			Variant:  b.Variant,
			Config:   b.Config,
			Notes:    dedupe(b.Notes),
		}
		if len(b.Metrics) > 0 {
			ab.Metrics = make([]Metric, 0, len(b.Metrics))
		}
		// One key per benchmark, which every note of its metrics keeps.
		key := b.Key()
		for j := range b.Metrics {
			ab.Metrics = append(ab.Metrics, analyzeMetric(b, key, &b.Metrics[j], rep.Sides, run.Paired, run.Sessions, opts))
		}
		applyClock(&ab, key, chooseClock(run, b))
		markInstructions(&ab)
		markDerived(b, ab.Metrics)
		ab.Missing = missing(b, rep.Sides)
		_, baseMissing := ab.Missing[rep.Sides[0]]
		for j, s := range rep.Sides {
			m, ok := ab.Missing[s]
			if !ok {
				continue
			}
			mm := Missing{Benchmark: key, Side: s, Kind: m.Kind, Reason: m.Reason, Lost: j > 0 && !baseMissing}
			rep.Missing = append(rep.Missing, mm)
			if mm.Lost {
				lost = append(lost, b.FullName()+" ("+mm.Words()+")")
			} else if len(rep.Sides) > 1 {
				oneSided = append(oneSided, b.FullName()+" ("+mm.Words()+")")
			}
		}
		rep.Benchmarks = append(rep.Benchmarks, ab)
	}
	rep.correct()
	for i := range rep.Benchmarks {
		ms := rep.Benchmarks[i].Metrics
		for j := range ms {
			for _, c := range ms[j].Changes {
				if c != nil && ms[j].DerivedFrom == "" {
					decide(c, &ms[j], opts)
				}
			}
		}
		// Derived metrics take the verdict of their primary, decided above.
		for j := range ms {
			if ms[j].DerivedFrom == "" {
				continue
			}
			pm := &ms[ms[j].primary]
			for k, c := range ms[j].Changes {
				if pc := pm.Changes[k]; c != nil && pc != nil {
					shareVerdict(c, pc, &ms[j], pm)
				} else if c != nil {
					decide(c, &ms[j], opts)
				}
			}
		}
	}
	rep.distrust()
	for i := range rep.Benchmarks {
		rep.Benchmarks[i].decide(rep.Sides, rep.Missing, opts.Noise)
	}
	for k := range rep.Sides[1:] {
		rep.Tallies = append(rep.Tallies, rep.tally(k))
		if n := boundedNote(rep, rep.Tallies[k]); n != nil {
			rep.Notes = append(rep.Notes, *n)
		}
	}
	rep.Geomeans = geomeans(rep)
	if len(lost) > 0 {
		rep.Notes = append(rep.Notes, runNote(model.NoteOneSide, fmt.Sprintf("%d %s where the baseline %s %s: %s.",
			len(lost), words.Plural(len(lost), "benchmark failed or is missing", "benchmarks failed or are missing"),
			rep.Sides[0], words.Plural(len(lost), "has it", "has them"), words.JoinList(lost, 5))))
	}
	if len(oneSided) > 0 {
		rep.Notes = append(rep.Notes, runNote(model.NoteOneSide, fmt.Sprintf("%d %s on some sides only: %s.",
			len(oneSided), words.Plural(len(oneSided), "benchmark failed or is present", "benchmarks failed or are present"), words.JoinList(oneSided, 5))))
	}
	if rep.Comparisons > 1 {
		rep.Notes = append(rep.Notes, runNote(model.NoteCorrection, chanceNote(rep.Comparisons, opts)+derivedNote(rep)))
	}
	if cutShort(run) {
		rep.Notes = append(rep.Notes, model.Note{Kind: model.NoteInterrupted, Source: source, Topic: "cut-short", Text: cutShortNote})
	}
	if run.Sessions != nil && len(rep.Sides) > 1 {
		rep.Notes = append(rep.Notes, sessionsNote(rep, run.Sessions))
	}
	rep.Notes = dedupe(append(rep.Notes, run.Notes...))
	return rep, nil
}

// boundedNote says, for a side whose inconclusive benchmarks include some
// that found nothing (their intervals include no change but reach beyond
// the noise band), what the run rules out for them and which band it
// could have called them unchanged in: a user asking "did I break
// anything?" learns the size of change the run can answer for. Nil when
// there are none.
func boundedNote(r *Report, t SideTally) *model.Note {
	n := len(t.Bounded)
	if n == 0 {
		return nil
	}
	who := fmt.Sprintf("%d %s", n, words.Plural(n, "benchmark found no change, but its", "benchmarks found no change, but their"))
	if len(r.Sides) > 2 {
		who = t.Side + ": " + who
	}
	band := words.PctUp(t.Within)
	note := runNote(model.NoteVerdict, fmt.Sprintf("%s %s %s beyond the ±%s noise band, to ±%s at most: the run rules out larger changes in %s. At this precision a band of ±%s (--noise %s, which rigor report can apply to this run) would call %s unchanged; the ±%s band needs more rounds.",
		who, words.PctSetting(r.Options.Confidence), words.Plural(n, "CI reaches", "CIs reach"), words.PctSetting(r.Options.Noise), band,
		words.Plural(n, "it", "them"), band, strings.TrimSuffix(band, "%"), words.Plural(n, "it", "them"), words.PctSetting(r.Options.Noise)))
	note.Topic = "bounded"
	return &note
}

// cutShortNote is the note on a run that was cut short.
const cutShortNote = "The run has a start and no end: it was cut short (killed, or the machine stopped) while it measured, so these are partial results, the verdicts resting on the rounds it finished."

// cutShort reports whether run started and never ended, and says nothing
// of it: the last version of run.json that a killed run left. Every
// source sets a run's end when it finishes, or notes that it was
// interrupted; files without a start (Go benchmark output) say nothing
// either way.
func cutShort(run *model.Run) bool {
	return !run.Start.IsZero() && run.End.IsZero() && len(model.OfKind(run.Notes, model.NoteInterrupted)) == 0
}

// Partial reports whether the report's run was interrupted, or cut short
// with no word of it (see cutShort): its verdicts rest on part of the
// rounds.
func (r *Report) Partial() bool {
	return len(model.OfKind(r.Notes, model.NoteInterrupted)) > 0
}

// Validate reports whether o is usable, so that a command can reject bad
// options before it spends time measuring.
func (o Options) Validate() error { return o.validate() }

func (o Options) validate() error {
	switch {
	case !(o.Confidence > 0 && o.Confidence < 1):
		return fmt.Errorf("confidence must be between 0 and 1, got %v", o.Confidence)
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("alpha must be between 0 and 1, got %v", o.Alpha)
	case !(o.Noise >= 0 && o.Noise < 1):
		return fmt.Errorf("noise must be a fraction between 0 and 1, got %v", o.Noise)
	case o.Test != TestUTest && o.Test != TestWelch && o.Test != TestMixedBootstrap:
		return fmt.Errorf("unknown test %q (want utest, welch or mixed-bootstrap)", o.Test)
	case o.Correction != CorrectionHolm && o.Correction != CorrectionBH && o.Correction != CorrectionNone:
		return fmt.Errorf("unknown correction %q (want holm, bh or none)", o.Correction)
	case o.Resamples < 100:
		return fmt.Errorf("resamples must be at least 100, got %d", o.Resamples)
	case !(o.InstructionsTolerance >= 0 && o.InstructionsTolerance < 1):
		return fmt.Errorf("instructions tolerance must be a fraction between 0 and 1, got %v", o.InstructionsTolerance)
	case o.Gate != "" && o.Gate != GateTime && o.Gate != GateInstructions:
		return fmt.Errorf("unknown gate %q (want time or instructions)", o.Gate)
	}
	return nil
}

// analyzeMetric analyses metric m of benchmark b, whose Key is key.
func analyzeMetric(b *model.Benchmark, key string, m *model.Metric, sides []string, paired bool, sessions *model.Sessions, opts Options) Metric {
	am := Metric{Unit: m.Unit, Better: m.Better, sessions: sessions, Sides: make([]Summary, 0, len(sides))}
	if len(sides) > 1 {
		am.Changes = make([]*Change, 0, len(sides)-1)
	}
	if am.Better == 0 {
		am.Better = model.LowerIsBetter
	}
	// Each side's samples and values, taken once: the summaries, the
	// changes and the notes all read them.
	samples := make([][]model.Sample, len(sides))
	values := make([][]float64, len(sides))
	ciErrs := make([]error, len(sides))
	for i, s := range sides {
		samples[i] = m.SideView(s)
		values[i] = sampleValues(samples[i])
		var sum Summary
		sum, ciErrs[i] = summarize(s, m.Unit, values[i], samples[i], opts)
		am.Sides = append(am.Sides, sum)
	}
	// Instruction counts are nearly exact, but not exactly: a count that
	// repeats to the last instruction on both sides must not make a
	// difference of one instruction in a million a change.
	am.Exact = m.Unit != InstructionsUnit && (m.Assume == model.AssumeExact || allConstant(values))
	if opts.Estimates && !am.Exact {
		for i := range am.Sides {
			seed := opts.Seed ^ hashKey(key, m.Unit, sides[i], "estimates")
			am.Sides[i].Estimates = estimates(values[i], samples[i], m.Unit, opts, seed)
		}
	}
	base := values[0]
	for i := 1; i < len(sides); i++ {
		if len(base) == 0 || len(values[i]) == 0 {
			am.Changes = append(am.Changes, nil)
			continue
		}
		seed := opts.Seed ^ hashKey(key, m.Unit, sides[i])
		var c *Change
		switch {
		case m.Unit == InstructionsUnit:
			c = instructionsChange(base, values[i], opts)
		case am.Exact:
			c = exactChange(base, values[i])
		case isTime(m.Unit) && (stats.Median(base) == 0 || stats.Median(values[i]) == 0):
			// Not a measurement (see decide): no test, no correction.
			c = &Change{Test: opts.Test, Paired: paired, N: min(len(base), len(values[i])), P: math.NaN(), Effect: math.NaN(),
				Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Delta: math.NaN()}
		case stats.Median(base) == 0:
			c = fromZeroChange(base, values[i])
		case sessions != nil && !paired:
			c = sessionChange(base, values[i], sessions.Spread(key, m.Unit), opts)
		case paired:
			c = pairedChange(samples[0], samples[i], opts)
		default:
			c = unpairedChange(base, values[i], opts, seed)
		}
		c.Side = sides[i]
		am.Changes = append(am.Changes, c)
	}
	am.Notes = metricNotes(key, m, &am, sides, samples, ciErrs, opts, elisionJudged(b))
	for _, c := range am.Changes {
		if n := layoutNote(key, m.Unit, c, opts); n != nil {
			am.Notes = append(am.Notes, *n)
		}
	}
	return am
}

// sampleValues returns the values of samples, in order (nil for none, as
// model.Metric.Values).
func sampleValues(samples []model.Sample) []float64 {
	if len(samples) == 0 {
		return nil
	}
	v := make([]float64, len(samples))
	for i, s := range samples {
		v[i] = s.Value
	}
	return v
}

// summarize summarises one side's values v (of samples), and returns the
// error of their median's confidence interval, if any (too few samples).
func summarize(side, unit string, v []float64, samples []model.Sample, opts Options) (Summary, error) {
	s := Summary{Side: side, N: len(v), Center: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	if len(v) == 0 {
		return s, nil
	}
	ci, err := stats.MedianCI(v, opts.Confidence)
	s.Center = ci.Estimate
	switch {
	case err == nil:
		s.Lo, s.Hi = ci.Lo, ci.Hi
	case unit == InstructionsUnit:
		// A few repeats of a nearly exact count: the range they span is
		// what is known of it (see instructionsChange).
		s.Lo, s.Hi, err = stats.Min(v), stats.Max(v), nil
	}
	s.Mean = stats.Mean(v)
	s.StdDev = stats.StdDev(v)
	s.MAD = stats.MAD(v)
	s.CV = stats.CV(v)
	s.Min = stats.Min(v)
	s.Max = stats.Max(v)
	s.Outliers = stats.Tukey(v)
	iters := make([]float64, len(samples))
	for i, smp := range samples {
		iters[i] = float64(smp.Iters)
	}
	s.Iters = stats.Median(iters)
	if unit == "sec/op" {
		if iters, totals, ok := linearSamples(samples); ok {
			b := stats.Bootstrap{Resamples: opts.Resamples, Confidence: opts.Confidence, Seed: opts.Seed}
			in := b.SlopeEstimate(iters, totals).Interval
			s.Slope = &in
		}
	}
	return s, err
}

// estimates returns a side's estimates (Summary.Estimates), nil with
// fewer than 2 values; samples give the slope when they are linear.
func estimates(v []float64, samples []model.Sample, unit string, opts Options, seed uint64) *Estimates {
	if len(v) < 2 {
		return nil
	}
	b := stats.Bootstrap{Resamples: opts.Resamples, Confidence: opts.Confidence, Seed: seed}
	e := &Estimates{
		Mean:     b.MeanEstimate(v),
		Median:   b.MedianEstimate(v),
		StdDev:   b.StdDevEstimate(v),
		MAD:      b.MADEstimate(v),
		FitR2:    math.NaN(),
		Headline: HeadlineMedian,
	}
	if iters, totals, ok := linearSamples(samples); ok && isTime(unit) {
		// The seed of Summary.Slope, so that the two are the same.
		sb := b
		sb.Seed = opts.Seed
		sl := sb.SlopeEstimate(iters, totals)
		e.Slope = &sl
		e.FitR2 = stats.FitR2(iters, totals)
		if e.FitR2 >= MinFitR2 {
			e.Headline = HeadlineSlope
		}
	}
	return e
}

// linearSamples returns (iters, total) pairs when the iteration counts
// span enough of a range (max at least twice min, at least 4 distinct
// counts) for a slope through the origin to mean something.
func linearSamples(samples []model.Sample) (iters, totals []float64, ok bool) {
	if len(samples) < 4 {
		return nil, nil, false
	}
	distinct := map[int64]bool{}
	lo, hi := samples[0].Iters, samples[0].Iters
	for _, s := range samples {
		distinct[s.Iters] = true
		lo, hi = min(lo, s.Iters), max(hi, s.Iters)
		iters = append(iters, float64(s.Iters))
		totals = append(totals, s.Value*float64(s.Iters))
	}
	return iters, totals, lo > 0 && hi >= 2*lo && len(distinct) >= 4
}

func allConstant(values [][]float64) bool {
	n := 0
	for _, v := range values {
		for _, x := range v[min(1, len(v)):] {
			if x != v[0] {
				return false
			}
		}
		n += len(v)
	}
	// A single sample per side proves nothing about variation.
	for _, v := range values {
		if len(v) == 1 {
			return false
		}
	}
	return n > 0
}

// isTime reports whether unit is a time per something (sec/op, cpu-sec/op,
// or a custom ns/item tidied to sec/item), which can never be zero.
func isTime(unit string) bool { return strings.HasPrefix(unit, "sec/") || unit == CPUUnit }

func hashKey(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// elisionJudged reports whether the source already judged the benchmark
// for elision (package observe notes it, confirmed or refuted from the
// disassembly); analysis then leaves the question to that note rather than
// guess from the timing alone.
func elisionJudged(b *model.Benchmark) bool {
	return slices.ContainsFunc(b.Notes, func(n model.Note) bool {
		return n.Kind == model.NoteElision || n.Kind == model.NoteDisassembly
	})
}

// dedupe returns notes without repeats of the same words, in order: a
// source that measured in several passes may record the same remark once
// per pass.
func dedupe(notes []model.Note) []model.Note {
	var out []model.Note
	seen := make(map[string]bool, len(notes))
	for _, n := range notes {
		if !seen[n.Text] {
			seen[n.Text] = true
			out = append(out, n)
		}
	}
	return out
}
