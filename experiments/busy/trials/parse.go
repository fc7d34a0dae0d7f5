package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rigorbench/rigor/model"
	"io"
	"math"
	"strconv"
	"strings"
)

// verdicts rigor writes in metrics[].verdict (docs/schema.md).
var verdicts = map[string]bool{"improved": true, "regressed": true, "unchanged": true, "inconclusive": true}

// metricReading is one metric of one benchmark as rigor judged it.
type metricReading struct {
	Unit    string  `json:"unit"`
	Verdict string  `json:"verdict"`
	Change  float64 `json:"change"` // new/old - 1; NaN when absent
	Lo, Hi  float64 `json:"-"`      // its interval; NaN when absent
	P       float64 `json:"p_adjusted"`
	Rounds  int     `json:"rounds"` // the smaller side's sample count
}

// rigorReading is what a trial needs from `rigor ab --format json`.
type rigorReading struct {
	// Metrics by unit, in the order rigor wrote them.
	Metrics []metricReading
	// HeadlineField and HeadlineUnit name the metric the verdict is taken
	// from, when the benchmark says so: a benchmark-level string field
	// (whatever its name, e.g. verdict_metric or clock) whose value is the
	// unit of one of its metrics. Both are empty when there is none.
	HeadlineField, HeadlineUnit string
	// ClockReason is the benchmark's clock.reason, rigor's words on why
	// its verdict uses the clock it uses; empty when absent.
	ClockReason string
	Notes       []string
	// Decision is the benchmark's one verdict against the new side
	// (decisions[0], or the benchmark's verdict field when the document
	// has no decisions); nil when rigor wrote neither.
	Decision *decisionReading
}

// decisionReading is a benchmark's decision (docs/schema.md,
// decisions[]): its verdict, the metric that decided it and why.
type decisionReading struct {
	Verdict string
	// By is why Unit decides: "time", "exact", "metric" or
	// "instructions" (the time could not decide and the instructions per
	// op did); empty when rigor did not say.
	By, Unit string
	// TimeVerdict is the time's own verdict when another metric decided
	// in its place (By "instructions"); empty otherwise.
	TimeVerdict string
	// Estimate, Lo, Hi are the deciding metric's change; NaN when absent.
	Estimate, Lo, Hi float64
}

// instructionsUnit is the unit of the instructions a benchmark retired
// per operation (issue 37): counted or simulated, evidence beside the time.
const instructionsUnit = model.InstructionsUnit

// contextUnits are units whose metric may come without a verdict (a
// count on one side only) without making the document unreadable.
var contextUnits = map[string]bool{model.InstructionsUnit: true, model.CyclesUnit: true}

// metric returns the reading of unit, if rigor reported it.
func (r rigorReading) metric(unit string) (metricReading, bool) {
	for _, m := range r.Metrics {
		if m.Unit == unit {
			return m, true
		}
	}
	return metricReading{}, false
}

// cpuUnit returns the unit of the CPU-time metric of time per operation:
// cpu-sec/op as issue 10 names it, or any unit starting "cpu" and ending
// "sec/op". Empty when there is none.
func (r rigorReading) cpuUnit() string {
	for _, m := range r.Metrics {
		if strings.HasPrefix(m.Unit, "cpu") && strings.HasSuffix(m.Unit, "sec/op") {
			return m.Unit
		}
	}
	return ""
}

// Fields of a benchmark in the comparison document that are known not to
// name a metric.
var knownBenchFields = map[string]bool{
	"name": true, "full_name": true, "pkg": true, "group": true, "variant": true,
	"procs": true, "config": true, "metrics": true, "notes": true,
	"verdict": true, "decisions": true, "missing": true,
}

// parseRigor reads rigor's comparison document (--format json) and returns
// the benchmark called name. It fails on anything it cannot vouch for: a
// missing schema_version, no such benchmark or two of them, a metric
// without a known verdict.
func parseRigor(data []byte, name string) (rigorReading, error) {
	var doc struct {
		SchemaVersion *int              `json:"schema_version"`
		Benchmarks    []json.RawMessage `json:"benchmarks"`
		Notes         []model.Note      `json:"notes"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return rigorReading{}, fmt.Errorf("reading rigor's JSON: %w", err)
	}
	if doc.SchemaVersion == nil {
		return rigorReading{}, errors.New("not rigor's JSON output: no schema_version")
	}
	if v := *doc.SchemaVersion; v < 1 || v > model.SchemaVersion {
		return rigorReading{}, fmt.Errorf("rigor's JSON has schema_version %d; this reads 1 to %d", v, model.SchemaVersion)
	}
	var r rigorReading
	found := 0
	for i, raw := range doc.Benchmarks {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return rigorReading{}, fmt.Errorf("benchmark %d: %w", i, err)
		}
		type change struct {
			Estimate, Lo, Hi *float64
			Verdict          *string `json:"verdict"`
		}
		var b struct {
			Name      string  `json:"name"`
			Verdict   *string `json:"verdict"`
			Decisions []struct {
				Verdict          string `json:"verdict"`
				Unit             string `json:"unit"`
				By               string `json:"by"`
				TimeVerdict      string `json:"time_verdict"`
				Estimate, Lo, Hi *float64
			} `json:"decisions"`
			Metrics []struct {
				Unit     string    `json:"unit"`
				Verdict  *string   `json:"verdict"`
				P        *float64  `json:"p_adjusted"`
				Change   *change   `json:"change"`
				Changes  []*change `json:"changes"`
				Old, New *struct {
					N int `json:"n"`
				}
			} `json:"metrics"`
			Notes []model.Note `json:"notes"`
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			return rigorReading{}, fmt.Errorf("benchmark %d: %w", i, err)
		}
		if b.Name != name {
			continue
		}
		if found++; found > 1 {
			return rigorReading{}, fmt.Errorf("benchmark %q appears more than once", name)
		}
		var clock struct {
			Reason string `json:"reason"`
		}
		if c, ok := fields["clock"]; ok && json.Unmarshal(c, &clock) == nil {
			r.ClockReason = clock.Reason
		}
		switch {
		case len(b.Decisions) > 0:
			d := b.Decisions[0]
			if d.Verdict != "" && !verdicts[d.Verdict] || d.TimeVerdict != "" && !verdicts[d.TimeVerdict] {
				return rigorReading{}, fmt.Errorf("benchmark %s: decision %q (time %q) is no known verdict", name, d.Verdict, d.TimeVerdict)
			}
			if d.Verdict != "" {
				r.Decision = &decisionReading{Verdict: d.Verdict, By: d.By, Unit: d.Unit, TimeVerdict: d.TimeVerdict,
					Estimate: orNaN(d.Estimate), Lo: orNaN(d.Lo), Hi: orNaN(d.Hi)}
			}
		case b.Verdict != nil && *b.Verdict != "":
			if !verdicts[*b.Verdict] {
				return rigorReading{}, fmt.Errorf("benchmark %s: verdict %q is no known verdict", name, *b.Verdict)
			}
			r.Decision = &decisionReading{Verdict: *b.Verdict, Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		}
		units, seen := map[string]bool{}, map[string]bool{} // units read; units met
		for _, m := range b.Metrics {
			if m.Verdict == nil && m.Change == nil {
				// The metric's first change, when the document gives
				// only changes[] (one per side after the baseline).
				for _, c := range m.Changes {
					if c != nil {
						m.Change, m.Verdict = c, c.Verdict
						break
					}
				}
			}
			if seen[m.Unit] {
				return rigorReading{}, fmt.Errorf("benchmark %s: unit %s appears twice", name, m.Unit)
			}
			seen[m.Unit] = true
			if (m.Verdict == nil || *m.Verdict == "") && contextUnits[m.Unit] {
				continue // a count without a comparison: nothing to read
			}
			if m.Verdict == nil || !verdicts[*m.Verdict] {
				return rigorReading{}, fmt.Errorf("benchmark %s, %s: no known verdict", name, m.Unit)
			}
			units[m.Unit] = true
			mr := metricReading{Unit: m.Unit, Verdict: *m.Verdict, Change: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: math.NaN()}
			if m.P != nil {
				mr.P = *m.P
			}
			if c := m.Change; c != nil {
				mr.Change, mr.Lo, mr.Hi = orNaN(c.Estimate), orNaN(c.Lo), orNaN(c.Hi)
			}
			if m.Old != nil && m.New != nil {
				mr.Rounds = min(m.Old.N, m.New.N)
			}
			r.Metrics = append(r.Metrics, mr)
		}
		r.Notes = append(append(r.Notes, model.Texts(doc.Notes)...), model.Texts(b.Notes)...)
		for k, v := range fields {
			var s string
			if knownBenchFields[k] || json.Unmarshal(v, &s) != nil || !units[s] {
				continue
			}
			if r.HeadlineField != "" {
				return rigorReading{}, fmt.Errorf("benchmark %s: both %s and %s name a metric", name, r.HeadlineField, k)
			}
			r.HeadlineField, r.HeadlineUnit = k, s
		}
	}
	if found == 0 {
		return rigorReading{}, fmt.Errorf("no benchmark %q in rigor's output", name)
	}
	return r, nil
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// bsRow is one benchmark of one unit in benchstat's -format csv output,
// comparing the second column of results with the first.
type bsRow struct {
	Unit, Name string
	// Delta is the change benchstat printed, a fraction (+4.08% is
	// 0.0408); NaN when it printed "~" (its test found no difference) or
	// "?" (it could not compute one).
	Delta float64
	// P is the test's p-value as printed (three decimals). benchstat leaves
	// "p=" out exactly when p is 0, so then P is 0.
	P float64
	// N is the smaller sample.
	N int
}

// significant reports whether benchstat found a difference at alpha: it
// printed a change rather than "~" and its p-value is at most alpha.
func (r bsRow) significant(alpha float64) bool {
	return !math.IsNaN(r.Delta) && r.P <= alpha
}

// parseBenchstatCSV reads the output of benchstat -format csv with two
// columns of results. Lines that are not part of a table (the
// configuration lines benchstat copies, goos: linux and the like) are
// skipped; geomean rows are left out.
func parseBenchstatCSV(rd io.Reader) ([]bsRow, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("reading benchstat's output: %w", err)
	}
	var rows []bsRow
	unit, deltaCol, pCol := "", -1, -1
	for ln, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || !strings.Contains(line, ",") {
			unit, deltaCol, pCol = "", -1, -1 // a configuration line or a blank one ends a table
			continue
		}
		cr := csv.NewReader(bytes.NewReader([]byte(line)))
		cr.FieldsPerRecord = -1
		rec, err := cr.Read()
		if err != nil {
			return nil, fmt.Errorf("benchstat's output, line %d: %w", ln+1, err)
		}
		if i := index(rec, "vs base"); i >= 0 {
			// The header naming the unit: ,sec/op,CI,sec/op,CI,vs base,P
			if len(rec) < 2 || rec[1] == "" {
				return nil, fmt.Errorf("benchstat's output, line %d: header without a unit", ln+1)
			}
			unit, deltaCol, pCol = rec[1], i, index(rec, "P")
			if pCol < 0 {
				return nil, fmt.Errorf("benchstat's output, line %d: no P column", ln+1)
			}
			continue
		}
		if deltaCol < 0 || rec[0] == "" || rec[0] == "geomean" {
			continue // the header naming the files, or a geomean
		}
		if len(rec) <= max(deltaCol, pCol) {
			return nil, fmt.Errorf("benchstat's output, line %d: %d fields, want at least %d", ln+1, len(rec), max(deltaCol, pCol)+1)
		}
		row := bsRow{Unit: unit, Name: rec[0]}
		if row.Delta, err = parseDelta(rec[deltaCol]); err != nil {
			return nil, fmt.Errorf("benchstat's output, line %d: %w", ln+1, err)
		}
		if row.P, row.N, err = parsePN(rec[pCol]); err != nil {
			return nil, fmt.Errorf("benchstat's output, line %d: %w", ln+1, err)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, errors.New("benchstat's output has no comparison (one input, or no results?)")
	}
	return rows, nil
}

func index(rec []string, s string) int {
	for i, f := range rec {
		if f == s {
			return i
		}
	}
	return -1
}

// parseDelta reads benchstat's "vs base" column: "+4.08%", "-1.50%",
// "0.00%", or "~" and "?" (NaN).
func parseDelta(s string) (float64, error) {
	if s == "~" || s == "?" {
		return math.NaN(), nil
	}
	num, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, fmt.Errorf("change %q is not a percentage, ~ or ?", s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("change %q is not a percentage, ~ or ?", s)
	}
	return v / 100, nil
}

// parsePN reads benchstat's P column: "p=0.000 n=10", "p=0.002 n=4+10",
// or "n=10" (p is 0).
func parsePN(s string) (p float64, n int, err error) {
	bad := fmt.Errorf("the P column %q is not \"p=P n=N\"", s)
	f := strings.Fields(s)
	if len(f) == 2 {
		ps, ok := strings.CutPrefix(f[0], "p=")
		if !ok {
			return 0, 0, bad
		}
		if p, err = strconv.ParseFloat(ps, 64); err != nil || !(p >= 0 && p <= 1) {
			return 0, 0, bad
		}
		f = f[1:]
	}
	if len(f) != 1 {
		return 0, 0, bad
	}
	ns, ok := strings.CutPrefix(f[0], "n=")
	if !ok {
		return 0, 0, bad
	}
	n = -1
	for part := range strings.SplitSeq(ns, "+") {
		k, err := strconv.Atoi(part)
		if err != nil || k < 0 {
			return 0, 0, bad
		}
		if n < 0 || k < n {
			n = k
		}
	}
	return p, n, nil
}
