package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/stats"
)

// verdicts rigor writes (docs/schema.md).
var verdicts = map[string]bool{"improved": true, "regressed": true, "unchanged": true, "inconclusive": true}

// rigorSide is one command's summary of one metric in rigor's exec JSON:
// its median with the median's confidence interval.
type rigorSide struct {
	Side   string
	Median float64
	// Lo and Hi bound the median's confidence interval; both NaN when
	// rigor had too few runs for one (it writes null).
	Lo, Hi float64
	N      int
	Mean   float64 // NaN when absent
}

// rigorChange is one command compared with the reference: new/old - 1
// with its interval, and rigor's verdict.
type rigorChange struct {
	Side             string
	Estimate, Lo, Hi float64 // NaN when absent
	Verdict          string
}

// rigorMetric is one metric (sec/op: wall time; cpu-sec/op: CPU time).
type rigorMetric struct {
	Unit    string
	Sides   []rigorSide
	Changes []rigorChange
}

// rigorExec is what the experiment needs from `rigor exec --format json`.
type rigorExec struct {
	// Sides are the commands' labels in the order given; the first is the
	// reference. Two identical commands are "true" and "true (2)".
	Sides   []string
	Metrics []rigorMetric
	// VerdictMetric is the unit the verdict is taken from: the benchmark's
	// verdict_metric, or sec/op when rigor wrote none.
	VerdictMetric string
	Notes         []string
}

// metric returns the metric of unit, if rigor reported it.
func (r rigorExec) metric(unit string) (rigorMetric, bool) {
	for _, m := range r.Metrics {
		if m.Unit == unit {
			return m, true
		}
	}
	return rigorMetric{}, false
}

// side returns the summary of the side labelled label, if there is one.
func (m rigorMetric) side(label string) (rigorSide, bool) {
	for _, s := range m.Sides {
		if s.Side == label {
			return s, true
		}
	}
	return rigorSide{}, false
}

// change returns the comparison of the side labelled label with the
// reference, if there is one.
func (m rigorMetric) change(label string) (rigorChange, bool) {
	for _, c := range m.Changes {
		if c.Side == label {
			return c, true
		}
	}
	return rigorChange{}, false
}

// jsonRigorSummary and jsonRigorChange are the parts of docs/schema.md's
// metric objects read here.
type jsonRigorSummary struct {
	Side   string   `json:"side"`
	Center *float64 `json:"center"`
	Lo     *float64 `json:"lo"`
	Hi     *float64 `json:"hi"`
	N      int      `json:"n"`
	Mean   *float64 `json:"mean"`
}

type jsonRigorChange struct {
	Side     string   `json:"side"`
	Estimate *float64 `json:"estimate"`
	Lo       *float64 `json:"lo"`
	Hi       *float64 `json:"hi"`
	Verdict  string   `json:"verdict"`
}

// parseRigorExec reads rigor exec's comparison document (--format json,
// docs/schema.md). It fails on anything it cannot vouch for: another kind
// of document, not exactly one benchmark, no sec/op metric, a side that is
// not one of the commands or is summarised twice, a median that is not a
// positive number or lies outside its own interval, an unknown verdict.
func parseRigorExec(data []byte) (rigorExec, error) {
	var doc struct {
		SchemaVersion *int         `json:"schema_version"`
		Kind          string       `json:"kind"`
		Sides         []string     `json:"sides"`
		Notes         []model.Note `json:"notes"`
		Benchmarks    []struct {
			Name          string `json:"name"`
			VerdictMetric string `json:"verdict_metric"`
			Metrics       []struct {
				Unit    string             `json:"unit"`
				Sides   []jsonRigorSummary `json:"sides"`
				Changes []*jsonRigorChange `json:"changes"`
			} `json:"metrics"`
			Notes []model.Note `json:"notes"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return rigorExec{}, fmt.Errorf("reading rigor's JSON: %w", err)
	}
	switch {
	case doc.SchemaVersion == nil:
		return rigorExec{}, errors.New("not rigor's JSON output: no schema_version")
	case *doc.SchemaVersion < 1 || *doc.SchemaVersion > model.SchemaVersion:
		return rigorExec{}, fmt.Errorf("rigor's JSON has schema_version %d; this reads 1 to %d", *doc.SchemaVersion, model.SchemaVersion)
	case doc.Kind != "exec":
		return rigorExec{}, fmt.Errorf("rigor's JSON is of kind %q, not exec", doc.Kind)
	case len(doc.Sides) == 0:
		return rigorExec{}, errors.New("rigor's JSON names no commands")
	case len(doc.Benchmarks) != 1:
		return rigorExec{}, fmt.Errorf("rigor's JSON has %d benchmarks, want the one of rigor exec", len(doc.Benchmarks))
	}
	known := map[string]bool{}
	for _, s := range doc.Sides {
		if known[s] {
			return rigorExec{}, fmt.Errorf("rigor's JSON names command %q twice", s)
		}
		known[s] = true
	}
	b := doc.Benchmarks[0]
	r := rigorExec{Sides: doc.Sides, VerdictMetric: b.VerdictMetric}
	if r.VerdictMetric == "" {
		r.VerdictMetric = "sec/op"
	}
	units := map[string]bool{}
	for _, jm := range b.Metrics {
		if units[jm.Unit] {
			return rigorExec{}, fmt.Errorf("rigor's JSON: metric %q appears twice", jm.Unit)
		}
		units[jm.Unit] = true
		m := rigorMetric{Unit: jm.Unit}
		seen := map[string]bool{}
		for _, js := range jm.Sides {
			if !known[js.Side] || seen[js.Side] {
				return rigorExec{}, fmt.Errorf("rigor's JSON, %s: side %q is not one of the commands or appears twice", jm.Unit, js.Side)
			}
			seen[js.Side] = true
			s, err := readSummary(js)
			if err != nil {
				return rigorExec{}, fmt.Errorf("rigor's JSON, %s of %q: %w", jm.Unit, js.Side, err)
			}
			m.Sides = append(m.Sides, s)
		}
		changed := map[string]bool{}
		for _, jc := range jm.Changes {
			if jc == nil {
				continue // rigor writes null where a side had no samples to compare
			}
			if !known[jc.Side] || changed[jc.Side] {
				return rigorExec{}, fmt.Errorf("rigor's JSON, %s: change of %q, not one of the commands or given twice", jm.Unit, jc.Side)
			}
			changed[jc.Side] = true
			if !verdicts[jc.Verdict] {
				return rigorExec{}, fmt.Errorf("rigor's JSON, %s of %q: no known verdict (%q)", jm.Unit, jc.Side, jc.Verdict)
			}
			c := rigorChange{Side: jc.Side, Estimate: orNaN(jc.Estimate), Lo: orNaN(jc.Lo), Hi: orNaN(jc.Hi), Verdict: jc.Verdict}
			if !(c.Estimate > -1) || math.IsInf(c.Estimate, 0) {
				return rigorExec{}, fmt.Errorf("rigor's JSON, %s of %q: change %v is not a change of a positive time", jm.Unit, jc.Side, c.Estimate)
			}
			m.Changes = append(m.Changes, c)
		}
		r.Metrics = append(r.Metrics, m)
	}
	wall, ok := r.metric("sec/op")
	if !ok || len(wall.Sides) != len(r.Sides) {
		return rigorExec{}, errors.New("rigor's JSON has no wall time (sec/op) of every command")
	}
	for _, s := range wall.Sides {
		if s.N < 1 {
			return rigorExec{}, fmt.Errorf("rigor's JSON has no wall time (sec/op) of %q", s.Side)
		}
	}
	if _, ok := r.metric(r.VerdictMetric); !ok {
		return rigorExec{}, fmt.Errorf("rigor's JSON: verdict_metric %q is not a metric", r.VerdictMetric)
	}
	r.Notes = append(model.Texts(doc.Notes), model.Texts(b.Notes)...)
	return r, nil
}

// readSummary checks one side's summary: a median that is not negative,
// inside its interval, the interval either both bounds or neither; or no
// samples at all (n 0, no median: rigor writes that for a metric a command
// has none of, such as peak RSS below rigor's own).
func readSummary(js jsonRigorSummary) (rigorSide, error) {
	s := rigorSide{Side: js.Side, Median: orNaN(js.Center), Lo: orNaN(js.Lo), Hi: orNaN(js.Hi), N: js.N, Mean: orNaN(js.Mean)}
	if s.N == 0 && js.Center == nil && js.Lo == nil && js.Hi == nil {
		return s, nil
	}
	switch {
	case !(s.Median >= 0) || math.IsInf(s.Median, 0):
		return s, fmt.Errorf("median %v is not a time", s.Median)
	case s.N < 1:
		return s, fmt.Errorf("%d runs", s.N)
	case math.IsNaN(s.Lo) != math.IsNaN(s.Hi):
		return s, errors.New("an interval with one bound")
	case !math.IsNaN(s.Lo) && !(s.Lo <= s.Median && s.Median <= s.Hi):
		return s, fmt.Errorf("median %v outside its interval [%v, %v]", s.Median, s.Lo, s.Hi)
	}
	return s, nil
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// hfResult is one command of hyperfine's --export-json: its summary and
// every run's wall time in seconds.
type hfResult struct {
	Command string
	// Mean, Stddev and Median are hyperfine's own numbers; Stddev is NaN
	// when hyperfine wrote null (one run). MedianFromTimes says Median was
	// not in the file (older hyperfine versions wrote none) and is the
	// median of Times.
	Mean, Stddev, Median float64
	MedianFromTimes      bool
	// User and System are the mean CPU times per run.
	User, System float64
	Times        []float64
}

// parseHyperfine reads hyperfine's --export-json. It fails on a file
// without results, a result without runs, and times that are not finite
// non-negative seconds.
func parseHyperfine(data []byte) ([]hfResult, error) {
	var doc struct {
		Results []struct {
			Command *string   `json:"command"`
			Mean    *float64  `json:"mean"`
			Stddev  *float64  `json:"stddev"`
			Median  *float64  `json:"median"`
			User    *float64  `json:"user"`
			System  *float64  `json:"system"`
			Times   []float64 `json:"times"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("reading hyperfine's JSON: %w", err)
	}
	if len(doc.Results) == 0 {
		return nil, errors.New("hyperfine's JSON has no results")
	}
	out := make([]hfResult, 0, len(doc.Results))
	for i, jr := range doc.Results {
		if jr.Command == nil {
			return nil, fmt.Errorf("hyperfine's JSON, result %d: no command", i+1)
		}
		r := hfResult{Command: *jr.Command, Mean: orNaN(jr.Mean), Stddev: orNaN(jr.Stddev), Median: orNaN(jr.Median),
			User: orNaN(jr.User), System: orNaN(jr.System), Times: jr.Times}
		if len(r.Times) == 0 {
			return nil, fmt.Errorf("hyperfine's JSON, %q: no times", r.Command)
		}
		for _, t := range r.Times {
			if !(t >= 0) || math.IsInf(t, 0) {
				return nil, fmt.Errorf("hyperfine's JSON, %q: time %v is not a duration", r.Command, t)
			}
		}
		if jr.Median == nil {
			r.Median, r.MedianFromTimes = stats.Median(r.Times), true
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"mean", r.Mean}, {"median", r.Median}, {"user", r.User}, {"system", r.System}} {
			if !(f.v >= 0) || math.IsInf(f.v, 0) {
				return nil, fmt.Errorf("hyperfine's JSON, %q: %s %v is not a duration", r.Command, f.name, f.v)
			}
		}
		if !math.IsNaN(r.Stddev) && (r.Stddev < 0 || math.IsInf(r.Stddev, 0)) {
			return nil, fmt.Errorf("hyperfine's JSON, %q: stddev %v", r.Command, r.Stddev)
		}
		out = append(out, r)
	}
	return out, nil
}
