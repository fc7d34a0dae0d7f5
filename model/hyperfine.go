package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// MaxRSSUnit is the unit of a process's peak resident set size, in bytes:
// hyperfine's memory_usage_byte, and what rigor exec records per run from
// wait4's rusage. It varies from run to run, so it is not exact.
const MaxRSSUnit = "max-rss-B"

// HyperfineExport is the JSON hyperfine's --export-json writes, and rigor
// exec's --export-json in the same shape: one result per benchmarked
// command (per parameter value, in a parameter scan). Times are in seconds.
type HyperfineExport struct {
	Results []HyperfineResult `json:"results"`
}

// A HyperfineResult is one benchmarked command as hyperfine exports it.
// User and System are means over the runs; only Times, MemoryUsageBytes
// and ExitCodes are per run.
type HyperfineResult struct {
	Command string    `json:"command"`
	Mean    float64   `json:"mean"`
	StdDev  *float64  `json:"stddev"` // null after a single run
	Median  float64   `json:"median"`
	User    float64   `json:"user"`
	System  float64   `json:"system"`
	Min     float64   `json:"min"`
	Max     float64   `json:"max"`
	Times   []float64 `json:"times,omitempty"`
	// MemoryUsageBytes is each run's peak RSS (hyperfine 1.19 and later).
	MemoryUsageBytes []uint64 `json:"memory_usage_byte,omitempty"`
	// ExitCodes has one entry per run: null when a signal ended it.
	ExitCodes  []*int            `json:"exit_codes"`
	Parameters map[string]string `json:"parameters,omitempty"`
}

// isHyperfineJSON reports whether data, a JSON object, is a hyperfine
// export: it has "results" and no "schema_version" (which every rigor
// JSON file has).
func isHyperfineJSON(data []byte) bool {
	var probe struct {
		Results json.RawMessage `json:"results"`
		Version json.RawMessage `json:"schema_version"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.Results != nil && probe.Version == nil
}

// readHyperfine reads a hyperfine JSON export into a Run with one side
// labelled side: each result is a benchmark named by its command (with
// its parameters as configuration), each entry of times a sample of
// sec/op, and each of memory_usage_byte one of MaxRSSUnit. User and
// system CPU time are exported as means only, which cannot be compared
// run by run, so they are not read; a note says so. Values that cannot be
// measurements (negative, not finite) are skipped and noted, as in Go
// benchmark format.
func readHyperfine(data []byte, name, side string) (*Run, error) {
	var exp struct {
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		return nil, fmt.Errorf("%s: invalid hyperfine JSON: %w", name, err)
	}
	run := &Run{
		SchemaVersion: SchemaVersion,
		Kind:          KindFiles,
		Sides:         []Side{{Label: side, Source: name}},
		Benchmarks:    []Benchmark{},
	}
	var skipped []string
	seen := map[string]int{}
	for i, raw := range exp.Results {
		var r HyperfineResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("%s: results[%d]: invalid hyperfine result: %v", name, i, oneLine(err.Error()))
		}
		bname := strings.TrimSpace(r.Command)
		if bname == "" {
			bname = fmt.Sprintf("result %d", i+1)
		}
		// The same command benchmarked twice (an A/A run) is two rows.
		bname = uniqueName(seen, bname)
		b := Benchmark{Name: bname, Metrics: []Metric{}}
		if len(r.Parameters) > 0 {
			b.Config = r.Parameters
		}
		wall := Metric{Unit: "sec/op", Better: LowerIsBetter}
		for k, v := range r.Times {
			if why := Implausible(v, wall.Unit); why != "" {
				skipped = append(skipped, fmt.Sprintf("results[%d].times[%d] %v %s", i, k, v, why))
				continue
			}
			wall.Samples = append(wall.Samples, Sample{Side: side, Round: k + 1, Iters: 1, Value: v})
		}
		if len(wall.Samples) > 0 {
			b.Metrics = append(b.Metrics, wall)
		}
		rss := Metric{Unit: MaxRSSUnit, Better: LowerIsBetter}
		for k, v := range r.MemoryUsageBytes {
			if why := Implausible(float64(v), rss.Unit); why != "" {
				skipped = append(skipped, fmt.Sprintf("results[%d].memory_usage_byte[%d] %v %s", i, k, v, why))
				continue
			}
			rss.Samples = append(rss.Samples, Sample{Side: side, Round: k + 1, Iters: 1, Value: float64(v)})
		}
		if len(rss.Samples) > 0 {
			b.Metrics = append(b.Metrics, rss)
		}
		if len(b.Metrics) == 0 {
			run.Notes = append(run.Notes, inputNote(fmt.Sprintf("%s: %s has no per-run times (only a mean), so it is not read.", name, oneLine(bname))))
			continue
		}
		if failed := failedRuns(r.ExitCodes); failed > 0 {
			b.Notes = append(b.Notes, Note{Kind: NoteFailure, Source: "model", Benchmark: bname, Side: side,
				Evidence: map[string]float64{"failed_runs": float64(failed), "runs": float64(len(r.ExitCodes))},
				Text:     fmt.Sprintf("%s failed (non-zero exit or a signal) in %d of %d runs; hyperfine kept them (--ignore-failure).", oneLine(bname), failed, len(r.ExitCodes))})
		}
		run.Benchmarks = append(run.Benchmarks, b)
	}
	if len(skipped) > 0 {
		msg := fmt.Sprintf("%s: %d %s skipped: %s", name, len(skipped), plural(len(skipped), "value that cannot be a measurement was", "values that cannot be measurements were"), strings.Join(skipped[:min(len(skipped), 3)], "; "))
		if len(skipped) > 3 {
			msg += fmt.Sprintf(" and %d more", len(skipped)-3)
		}
		run.Notes = append(run.Notes, inputNote(msg+"."))
	}
	if len(run.Benchmarks) == 0 {
		return nil, fmt.Errorf("%s: hyperfine JSON without a result that has per-run times", name)
	}
	run.Notes = append(run.Notes, inputNote(fmt.Sprintf(
		"%s is a hyperfine export: each result is a benchmark of one run per sample; its user and system times are means, not per run, so they are not compared.", name)))
	if err := run.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return run, nil
}

// uniqueName returns name, or name with " (2)", " (3)", ... when seen
// has it already, and adds what it returns to seen.
func uniqueName(seen map[string]int, name string) string {
	unique := name
	for n := seen[name]; seen[unique] > 0; {
		n++
		unique = fmt.Sprintf("%s (%d)", name, n)
	}
	seen[name]++
	if unique != name {
		seen[unique]++
	}
	return unique
}

// failedRuns counts the runs whose exit code is not 0 (null: a signal).
func failedRuns(codes []*int) int {
	return len(codes) - len(slices.DeleteFunc(slices.Clone(codes), func(c *int) bool { return c == nil || *c != 0 }))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Write writes exp as hyperfine writes it: indented by two
// spaces, with a final newline. A value that is not finite, which JSON
// cannot hold, is an error.
func (exp *HyperfineExport) Write(w io.Writer) error {
	for _, r := range exp.Results {
		for _, v := range append([]float64{r.Mean, r.Median, r.User, r.System, r.Min, r.Max}, r.Times...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("writing hyperfine JSON: %s: value %v is not a finite number", r.Command, v)
			}
		}
		if r.StdDev != nil && (math.IsNaN(*r.StdDev) || math.IsInf(*r.StdDev, 0)) {
			return fmt.Errorf("writing hyperfine JSON: %s: stddev %v is not a finite number", r.Command, *r.StdDev)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(exp); err != nil {
		return fmt.Errorf("writing hyperfine JSON: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing hyperfine JSON: %w", err)
	}
	return nil
}
