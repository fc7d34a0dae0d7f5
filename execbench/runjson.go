package execbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rigorbench/rigor/experiment"
	"github.com/rigorbench/rigor/model"
)

// writeRun writes run to dir/name atomically, byte for byte what
// experiment.WriteRun writes (model's WriteJSON: two-space indentation,
// HTML left unescaped, a final newline), at about a third of its CPU.
// WriteJSON indents with encoding/json's scanner, a state machine called
// per byte, into a buffer grown as it goes: 14% of rigor exec's own CPU
// at 1000 runs of true, whose run.json (1.3 MB, an observation per run)
// is written in full at the end (BenchmarkExecOverhead's profile, issue
// 28). Here the run is encoded compactly with encoding/json and indented
// by appendIndent, which only has to find the ends of strings.
//
// The run is checked as WriteJSON checks it (see validateRun) before a
// byte is written.
func writeRun(dir, name string, run *model.Run) error {
	if err := validateRun(run); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	compact, err := encodeRun(run)
	if err != nil {
		return fmt.Errorf("writing %s: writing rigor JSON: %w", name, err)
	}
	// Indentation at most doubles a run's size (an observation's fields
	// are short), so one allocation is usually enough.
	b := appendIndent(make([]byte, 0, 2*len(compact)), compact)
	return experiment.WriteFile(dir, name, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// encodeRun encodes run compactly, as encoding/json does with HTML left
// unescaped, with a newline after it: the observations by obsEncoder,
// the rest by encoding/json, with a placeholder where the observations
// go (an observation with a benchmark name no run has, whose encoding is
// found and replaced).
func encodeRun(run *model.Run) ([]byte, error) {
	out := *run
	out.SchemaVersion = model.SchemaVersion
	obs := out.Observations
	if len(obs) > 0 {
		out.Observations = []model.Observation{placeholder}
	}
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&out); err != nil {
		return nil, err
	}
	b := compact.Bytes()
	if len(obs) == 0 {
		return b, nil
	}
	var ph bytes.Buffer
	enc = json.NewEncoder(&ph)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out.Observations); err != nil {
		return nil, err
	}
	key := append([]byte(`"observations":`), bytes.TrimSuffix(ph.Bytes(), []byte("\n"))...)
	i := bytes.Index(b, key)
	if i < 0 {
		return nil, errors.New("no placeholder for the observations") // cannot happen: it was just encoded
	}
	var e obsEncoder
	spliced := append(make([]byte, 0, len(b)+900*len(obs)), b[:i+len(`"observations":`)]...)
	spliced, err := e.appendObservations(spliced, obs)
	if err != nil {
		return nil, err
	}
	return append(spliced, b[i+len(key):]...), nil
}

// placeholder stands for the observations in encodeRun: its benchmark
// name holds NULs, which encoding/json escapes, so that its encoding
// cannot appear in the run's JSON but where it stands.
var placeholder = model.Observation{Benchmark: "\x00rigor execbench: the observations go here\x00"}

// validateRun checks run as model's WriteJSON does before it encodes
// anything, by calling it with a run that cannot be encoded past its
// first fields: a start time outside JSON's years, whose MarshalJSON
// fails before any benchmark or observation is encoded. WriteJSON's own
// checks come first and fail with their error; when they pass, the
// encoder fails with a *json.MarshalerError, or succeeds (should Run's
// fields ever be reordered or Start go: then only slower), and either
// means the run is valid.
func validateRun(run *model.Run) error {
	probe := *run
	probe.Start = unencodable
	err := probe.WriteJSON(io.Discard)
	if me := (*json.MarshalerError)(nil); err == nil || errors.As(err, &me) {
		return nil
	}
	return err
}

// unencodable is a time encoding/json refuses (time.Time's MarshalJSON
// takes years 0 to 9999).
var unencodable = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)

// appendIndent appends src, JSON as encoding/json encodes it (compact:
// no space outside strings but what follows the value), indented as
// json.Indent(dst, src, "", "  ") indents it: each element and field on
// a line of its own, indented two spaces a level, a space after each
// colon, empty objects and arrays kept as {} and [], and what follows
// the value (Encoder's newline) kept.
func appendIndent(dst, src []byte) []byte {
	depth := 0
	needIndent := false // after { or [: indent unless it closes at once
	for i := 0; i < len(src); i++ {
		c := src[i]
		if needIndent && c != '}' && c != ']' {
			needIndent = false
			depth++
			dst = appendNewline(dst, depth)
		}
		switch c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(src)-1)
			dst = append(dst, src[i:j+1]...)
			i = j
		case '{', '[':
			needIndent = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			dst = appendNewline(dst, depth)
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if needIndent {
				needIndent = false
			} else {
				depth--
				dst = appendNewline(dst, depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func appendNewline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, ' ', ' ')
	}
	return dst
}
