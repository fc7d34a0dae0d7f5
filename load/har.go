package load

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// harEntry is the part of a HAR 1.2 entry a replay uses.
type harEntry struct {
	StartedDateTime string `json:"startedDateTime"`
	Request         *struct {
		Method  string `json:"method"`
		URL     string `json:"url"`
		Headers []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"headers"`
		PostData *struct {
			Text     string `json:"text"`
			Encoding string `json:"encoding"`
		} `json:"postData"`
	} `json:"request"`
}

// hopHeaders are not replayed: they describe the recorded connection, or
// are set by the client for the new one.
var hopHeaders = map[string]bool{
	"host": true, "content-length": true, "connection": true, "keep-alive": true, "proxy-connection": true,
	"transfer-encoding": true, "te": true, "trailer": true, "upgrade": true,
}

// parseHAR reads a HAR file's log.entries: each entry's start time,
// method, URL, headers (HTTP/2 pseudo-headers and connection headers
// left out) and postData.text (base64 when its "encoding" says so). The
// file is read as a stream of tokens so that an error names the line of
// the entry at fault.
func parseHAR(path string, data []byte) (*Recording, error) {
	rec := &Recording{Source: path, Format: "har", Resolution: time.Millisecond}
	dec := json.NewDecoder(bytes.NewReader(data))
	lineAt := func(off int64) int {
		off = min(max(off, 0), int64(len(data)))
		// Step over the separators before a value.
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		return 1 + bytes.Count(data[:off], []byte("\n"))
	}
	fail := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fileErr(path, lineAt(se.Offset-1), "not valid JSON: %v", err)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fileErr(path, lineAt(int64(len(data))), "the HAR file ends early")
		}
		return fileErr(path, lineAt(dec.InputOffset()), "%v", err)
	}
	// object enters an object, calling field for each key at the value.
	object := func(what string, field func(key string) error) error {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return fileErr(path, lineAt(off), "%s must be an object", what)
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return fail(err)
			}
			if err := field(tok.(string)); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return fail(err)
		}
		return nil
	}
	skipValue := func() error {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fail(err)
		}
		return nil
	}
	sawLog, sawEntries := false, false
	err := object("a HAR file", func(key string) error {
		if key != "log" {
			return skipValue()
		}
		sawLog = true
		return object(`"log"`, func(key string) error {
			if key != "entries" {
				return skipValue()
			}
			sawEntries = true
			off := dec.InputOffset()
			tok, err := dec.Token()
			if err != nil {
				return fail(err)
			}
			if d, ok := tok.(json.Delim); !ok || d != '[' {
				return fileErr(path, lineAt(off), `"entries" must be a list`)
			}
			for n := 1; dec.More(); n++ {
				line := lineAt(dec.InputOffset())
				var e harEntry
				if err := dec.Decode(&e); err != nil {
					var te *json.UnmarshalTypeError
					if errors.As(err, &te) {
						return fileErr(path, line, "entry %d: %s: want %s", n, te.Field, te.Type)
					}
					return fail(err)
				}
				rec.Entries++
				if err := addHAREntry(rec, path, line, n, &e); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			if err != nil {
				return fail(err)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fileErr(path, lineAt(dec.InputOffset()), "more after the HAR object")
	}
	if !sawLog || !sawEntries {
		return nil, fileErr(path, 1, `not a HAR file: no "log" with "entries"`)
	}
	return rec, nil
}

func addHAREntry(rec *Recording, path string, line, n int, e *harEntry) error {
	bad := func(format string, args ...any) error {
		return fileErr(path, line, "entry %d: %s", n, fmt.Sprintf(format, args...))
	}
	at, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
	if err != nil {
		return bad("bad startedDateTime %q: want an ISO 8601 time such as 2009-04-16T12:07:25.123+01:00", clip(e.StartedDateTime))
	}
	r := e.Request
	if r == nil {
		return bad("no request")
	}
	if !validToken(r.Method) {
		return bad("bad method %q", clip(r.Method))
	}
	q := RecordedRequest{At: at, Method: r.Method, Line: line}
	if q.Method == "CONNECT" {
		rec.skip(skipConnect)
		return nil
	}
	switch scheme, host, target, err := splitTarget(r.URL); {
	case errors.Is(err, errSchemeNotHTTP):
		rec.skip(skipScheme)
		return nil
	case err != nil:
		return bad("bad url %q: %v", clip(r.URL), err)
	default:
		q.Scheme, q.Host, q.Target = scheme, host, target
	}
	for _, h := range r.Headers {
		if strings.HasPrefix(h.Name, ":") || hopHeaders[strings.ToLower(h.Name)] {
			continue
		}
		if !validToken(h.Name) {
			return bad("bad header name %q", clip(h.Name))
		}
		if !validHeaderValue(h.Value) {
			return bad("header %s: control characters in the value", clip(h.Name))
		}
		q.Header = append(q.Header, h.Name, h.Value)
	}
	if p := r.PostData; p != nil && p.Text != "" {
		q.Body = []byte(p.Text)
		if p.Encoding == "base64" {
			if q.Body, err = base64.StdEncoding.DecodeString(p.Text); err != nil {
				return bad("postData.text is not base64: %v", err)
			}
		}
		if len(q.Body) > MaxBody {
			return bad("a body larger than %d MiB", MaxBody>>20)
		}
	}
	return rec.add(path, q)
}
