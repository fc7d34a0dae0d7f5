package model

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
)

// Merge combines runs, such as one per argument of rigor compare, into one
// Run with their sides in order. Benchmarks are matched by Benchmark.Key
// and metrics by unit; side labels must be unique. Where the inputs
// disagree (configuration such as cpu, a unit's direction) the first
// input wins and Run.Notes says so.
//
// The result's Kind is the inputs' common kind, or KindFiles if they
// differ; it is Paired only if it is a single paired run. Env, Ramp and
// Start are the first input's that has them, End the latest. Merge does
// not modify its inputs; the result shares Env, Config maps, Ramp and
// Observation contents with them.
func Merge(runs ...*Run) (*Run, error) {
	return merge(runs, nil)
}

// merge is Merge. unplaced, when not nil, has one entry per run: the
// builder that still holds the run's samples (read with deferPlace), or
// nil for a run whose metrics hold their own.
func merge(runs []*Run, unplaced []*sideBuilder) (*Run, error) {
	if len(runs) == 0 {
		return nil, errors.New("merging runs: no runs")
	}
	out := &Run{
		SchemaVersion: SchemaVersion,
		Kind:          runs[0].Kind,
		Benchmarks:    []Benchmark{},
	}
	if len(runs) == 1 && runs[0] != nil {
		out.ID = runs[0].ID
		out.Paired = runs[0].Paired
		out.Command = runs[0].Command
	}
	// The largest input's benchmarks and metrics: the merged run's when the
	// inputs are the same benchmarks (as rigor compare's usually are),
	// made at that size rather than grown to it.
	most, mostMetrics := 0, 0
	for _, r := range runs {
		if r != nil && len(r.Benchmarks) > most {
			most, mostMetrics = len(r.Benchmarks), 0
			for i := range r.Benchmarks {
				mostMetrics += len(r.Benchmarks[i].Metrics)
			}
		}
	}
	out.Benchmarks = make([]Benchmark, 0, most)
	sideOf := make(map[string]int)                 // label -> index of its run
	bench := make(map[string]int, most)            // Benchmark.Key -> index in out.Benchmarks
	from := make([]int, 0, most)                   // index of the run each benchmark came from
	metric := make(map[metricKey]int, mostMetrics) // (benchmark, unit) -> index in refs
	// Samples are copied at the end, once every metric's count is known,
	// into one array: cloning the first run's and appending the others'
	// grew every metric's slice once per side.
	refs := make([]metricRef, 0, mostMetrics) // every metric of out
	counts := make([]int, 0, mostMetrics)     // its samples
	type copyFrom struct {
		metric  int // index in refs
		samples []Sample
		// from and fromMetric, when from is not nil: the samples are
		// from's metric fromMetric (an index in from.metrics), unplaced.
		from       *sideBuilder
		fromMetric int
	}
	n := 0 // the inputs' metrics: one copy each
	for _, r := range runs {
		if r != nil {
			for i := range r.Benchmarks {
				n += len(r.Benchmarks[i].Metrics)
			}
		}
	}
	copies := make([]copyFrom, 0, n)
	noted := make(map[string]bool)
	note := func(key, msg string) {
		if !noted[key] {
			noted[key] = true
			out.Notes = append(out.Notes, inputNote(msg))
		}
	}

	for ri, r := range runs {
		if r == nil {
			return nil, fmt.Errorf("merging runs: run %d is nil", ri)
		}
		if r.Kind != out.Kind {
			out.Kind = KindFiles
		}
		for _, s := range r.Sides {
			if prev, ok := sideOf[s.Label]; ok {
				return nil, fmt.Errorf("side label %q is used by inputs %d and %d; give each input its own label (label=path)", s.Label, prev+1, ri+1)
			}
			sideOf[s.Label] = ri
			out.Sides = append(out.Sides, s)
		}
		if out.Env == nil {
			out.Env = r.Env
		}
		if out.Ramp == nil {
			out.Ramp = r.Ramp
		}
		if out.Start.IsZero() {
			out.Start = r.Start
		}
		if r.End.After(out.End) {
			out.End = r.End
		}
		out.Observations = append(out.Observations, r.Observations...)
		out.Notes = append(out.Notes, r.Notes...)

		var src *sideBuilder
		if unplaced != nil {
			src = unplaced[ri]
		}
		for i := range r.Benchmarks {
			b := &r.Benchmarks[i]
			key := b.Key()
			bi, ok := bench[key]
			if !ok {
				bi = len(out.Benchmarks)
				bench[key] = bi
				from = append(from, ri)
				nb := *b
				nb.Metrics = make([]Metric, 0, len(b.Metrics))
				nb.Notes = slices.Clone(b.Notes)
				nb.Missing = nil
				out.Benchmarks = append(out.Benchmarks, nb)
			} else {
				ob := &out.Benchmarks[bi]
				ob.Notes = append(ob.Notes, b.Notes...)
				for k, v := range b.Config {
					if have, ok := ob.Config[k]; ok && have != v {
						note("config\x00"+k+"\x00"+have+"\x00"+v, fmt.Sprintf("configuration %s differs: %q in %s, %q in %s",
							k, have, sideNames(runs[from[bi]]), v, sideNames(r)))
					}
				}
			}
			ob := &out.Benchmarks[bi]
			// A run speaks only for its own sides: a stale entry for a
			// side it does not have (a baseline relabelled) is dropped.
			for _, s := range r.Sides {
				if m, ok := b.Missing[s.Label]; ok {
					ob.MarkMissing(s.Label, m.Kind, m.Reason)
				}
			}
			for j := range b.Metrics {
				m := &b.Metrics[j]
				c := copyFrom{samples: m.Samples}
				n := len(m.Samples)
				if src != nil {
					c.from, c.fromMetric = src, src.byBench[i][j]
					n = src.counts[c.fromMetric]
				}
				mk := metricKey{bi, m.Unit}
				gi, ok := metric[mk]
				if !ok {
					gi = len(refs)
					metric[mk] = gi
					refs = append(refs, metricRef{bi, len(ob.Metrics)})
					counts = append(counts, n)
					c.metric = gi
					copies = append(copies, c)
					ob.Metrics = append(ob.Metrics, *m)
					continue
				}
				om := &ob.Metrics[refs[gi].metric]
				if om.Better != m.Better || normAssume(om.Assume) != normAssume(m.Assume) {
					note("unit\x00"+m.Unit, fmt.Sprintf("unit %s has a different direction or assumption in %s than in %s; using %s's",
						m.Unit, sideNames(r), sideNames(runs[from[bi]]), sideNames(runs[from[bi]])))
				}
				counts[gi] += n
				c.metric = gi
				copies = append(copies, c)
			}
		}
	}
	// The inputs read by ReadFiles are needed no more, only their pending
	// samples: let them go before the merged samples are made, the heap's
	// peak.
	for _, b := range unplaced {
		if b != nil {
			b.release()
		}
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	all := make([]Sample, total)
	for gi, ref := range refs {
		m := &out.Benchmarks[ref.bench].Metrics[ref.metric]
		if counts[gi] == 0 {
			m.Samples = m.Samples[:0:0] // nil stays nil, as a clone of it was
			continue
		}
		m.Samples, all = all[:0:counts[gi]], all[counts[gi]:]
	}
	// An unplaced run's samples are placed by one pass over its builder's
	// pending samples, in input order, each into its metric's window of
	// the merged metric (win, by index in the builder's metrics).
	win := make(map[*sideBuilder][][]Sample)
	for _, c := range copies {
		m := &out.Benchmarks[refs[c.metric].bench].Metrics[refs[c.metric].metric]
		if c.from == nil {
			m.Samples = append(m.Samples, c.samples...)
			continue
		}
		w := win[c.from]
		if w == nil {
			w = make([][]Sample, len(c.from.metrics))
			win[c.from] = w
		}
		start := len(m.Samples)
		m.Samples = m.Samples[:start+c.from.counts[c.fromMetric]]
		w[c.fromMetric] = m.Samples[start:]
	}
	for b, w := range win {
		b.placeInto(w)
	}
	return out, nil
}

func normAssume(a string) string {
	if a == AssumeNothing {
		return ""
	}
	return a
}

// sideNames names a run by its sides' labels.
func sideNames(r *Run) string {
	var b bytes.Buffer
	for i, s := range r.Sides {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.Label)
	}
	if b.Len() == 0 {
		return "a run without sides"
	}
	return b.String()
}
