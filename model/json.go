package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"golang.org/x/perf/benchunit"
)

// WriteJSON writes r as indented JSON with schema_version set to
// SchemaVersion (see docs/schema.md). It refuses to write a run that
// ReadJSON would reject.
func (r *Run) WriteJSON(w io.Writer) error {
	out := *r
	out.SchemaVersion = SchemaVersion
	if err := out.validate(); err != nil {
		return fmt.Errorf("writing rigor JSON: %w", err)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&out); err != nil {
		return fmt.Errorf("writing rigor JSON: %w", err)
	}
	return nil
}

// ReadJSON reads a Run written by WriteJSON. It rejects files without a
// schema_version and files of a newer schema than this package's, and
// checks that the run is consistent: side labels are unique, every sample
// belongs to a side, values are finite, units are tidied.
func ReadJSON(r io.Reader) (*Run, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return readJSON(data)
}

func readJSON(data []byte) (*Run, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, errors.New("empty input")
	}
	if trimmed[0] != '{' {
		return nil, errors.New("not a rigor result file: it is not a JSON object")
	}
	var probe struct {
		Version json.RawMessage `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, jsonError(data, err)
	}
	if probe.Version == nil {
		return nil, errors.New("not a rigor result file: no schema_version")
	}
	var version int
	if err := json.Unmarshal(probe.Version, &version); err != nil {
		v := string(probe.Version)
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		return nil, fmt.Errorf("schema_version %s is not an integer", oneLine(v))
	}
	switch {
	case version > SchemaVersion:
		return nil, fmt.Errorf("schema_version %d is newer than this rigor reads (%d); upgrade rigor", version, SchemaVersion)
	case version < 1:
		return nil, fmt.Errorf("schema_version %d is not a valid version", version)
	}
	run := new(Run)
	if err := json.Unmarshal(data, run); err != nil {
		return nil, jsonError(data, err)
	}
	if err := run.validate(); err != nil {
		return nil, err
	}
	for i := range run.Benchmarks {
		for j := range run.Benchmarks[i].Metrics {
			if m := &run.Benchmarks[i].Metrics[j]; m.Better == 0 {
				m.Better = DefaultBetter(m.Unit)
			}
		}
	}
	return run, nil
}

// jsonError adds the line number to a decoding error.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return fmt.Errorf("invalid rigor JSON: %w", err)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	return fmt.Errorf("invalid rigor JSON at line %d: %w", line, err)
}

// validate checks what the JSON schema cannot: references between fields
// and the value domains of docs/schema.md. A zero Better is accepted: it
// means the unit's default.
func (r *Run) validate() error {
	sides := make(map[string]bool, len(r.Sides))
	for i, s := range r.Sides {
		if s.Label == "" {
			return fmt.Errorf("sides[%d] has no label", i)
		}
		if sides[s.Label] {
			return fmt.Errorf("side label %q appears twice", s.Label)
		}
		sides[s.Label] = true
	}
	keys := make(map[string]bool, len(r.Benchmarks))
	for i := range r.Benchmarks {
		b := &r.Benchmarks[i]
		if keys[b.Key()] {
			return fmt.Errorf("benchmark %s appears twice", oneLine(b.Key()))
		}
		keys[b.Key()] = true
		if b.Procs < 0 {
			return fmt.Errorf("benchmark %s: procs %d is negative", oneLine(b.Key()), b.Procs)
		}
		for side, m := range b.Missing {
			if !sides[side] {
				return fmt.Errorf("benchmark %s: missing: side %q is not one of the run's sides", oneLine(b.Key()), side)
			}
			switch m.Kind {
			case MissingBuild, MissingFailed, MissingAbsent:
			default:
				return fmt.Errorf("benchmark %s: missing on %s: kind is %q, want %q, %q or %q", oneLine(b.Key()), oneLine(side), m.Kind, MissingBuild, MissingFailed, MissingAbsent)
			}
		}
		units := make(map[string]bool, len(b.Metrics))
		for j := range b.Metrics {
			m := &b.Metrics[j]
			where := func() string { return fmt.Sprintf("benchmark %s, unit %q", oneLine(b.Key()), m.Unit) }
			if m.Unit == "" {
				return fmt.Errorf("benchmark %s: metrics[%d] has no unit", oneLine(b.Key()), j)
			}
			if units[m.Unit] {
				return fmt.Errorf("%s: unit appears twice", where())
			}
			units[m.Unit] = true
			if _, tidy := benchunit.Tidy(1, m.Unit); tidy != m.Unit {
				return fmt.Errorf("%s: unit is not tidied (want %q)", where(), tidy)
			}
			switch m.Better {
			case LowerIsBetter, HigherIsBetter, 0:
			default:
				return fmt.Errorf("%s: better is %d, want %d (lower is better) or %d (higher is better)", where(), m.Better, LowerIsBetter, HigherIsBetter)
			}
			switch m.Assume {
			case "", AssumeNothing, AssumeExact:
			default:
				return fmt.Errorf("%s: assume is %q, want %q or %q", where(), m.Assume, AssumeNothing, AssumeExact)
			}
			for k, s := range m.Samples {
				switch {
				case !sides[s.Side]:
					return fmt.Errorf("%s: samples[%d]: side %q is not one of the run's sides", where(), k, s.Side)
				case s.Round < 0:
					return fmt.Errorf("%s: samples[%d]: round %d is negative", where(), k, s.Round)
				case s.Iters < 0:
					return fmt.Errorf("%s: samples[%d]: iters %d is negative", where(), k, s.Iters)
				case math.IsNaN(s.Value) || math.IsInf(s.Value, 0):
					return fmt.Errorf("%s: samples[%d]: value %v is not a finite number", where(), k, s.Value)
				}
			}
		}
	}
	return nil
}
