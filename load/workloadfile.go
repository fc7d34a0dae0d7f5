package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/rigorbench/rigor/model"
)

// A Workload is a mix of requests, each sent in proportion to its weight
// (a simulation, in Systems Performance's words: production's mix of
// requests, at a steady load). ParseWorkload reads one from a file.
type Workload struct {
	Source string // the file
	Format string // "yaml", "json" or "vegeta"
	// Seed seeds the sequence in which requests are picked; the same seed
	// sends the same sequence.
	Seed     uint64
	Requests []WorkloadRequest
}

// WorkloadRequest is one request of a Workload.
type WorkloadRequest struct {
	Name   string // unique in the workload
	Method string
	URL    string // absolute
	Header http.Header
	Body   []byte
	// Weight is the request's share of the mix, relative to the others'.
	Weight float64
	// ThinkMin and ThinkMax bound the pause a closed-loop worker makes
	// after the request, drawn uniformly between them; 0 for none.
	ThinkMin, ThinkMax time.Duration
	// SLO is the request's own objective, or nil.
	SLO *model.RequestSLO
	// Line is where the request is defined in the file.
	Line int
}

// DefaultSeed seeds a workload that names no seed.
const DefaultSeed = 1

// Limits on workload files.
const (
	maxWorkloadRequests = 1000
	maxWorkloadFile     = 16 << 20
)

// A FileError is bad input at a line of a workload or replay file.
type FileError struct {
	File string
	Line int // from 1; 0 when the error is the whole file's
	Err  error
}

// Error is one line: the file, the line, and what is wrong there.
func (e *FileError) Error() string {
	msg := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(e.Err.Error())
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, msg)
	}
	return fmt.Sprintf("%s: %s", e.File, msg)
}

func (e *FileError) Unwrap() error { return e.Err }

func fileErr(file string, line int, format string, args ...any) error {
	return &FileError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
}

// ParseWorkload reads a workload from data, the contents of the file at
// path: rigor's workload format in YAML or JSON, or vegeta's plain targets
// format (lines "GET http://host/path", header lines, "@body-file"),
// recognised by its first line. Relative URLs are resolved against base,
// which may be nil when every URL is absolute. Body files are read
// relative to the workload file's directory (vegeta's, as vegeta does,
// relative to the working directory). Errors are *FileError, naming the
// line at fault.
func ParseWorkload(path string, data []byte, base *url.URL) (*Workload, error) {
	return parseWorkload(path, data, base, ReadBody)
}

// parseWorkload is ParseWorkload reading body files with readBody.
func parseWorkload(path string, data []byte, base *url.URL, readBody func(string) ([]byte, error)) (*Workload, error) {
	if len(data) > maxWorkloadFile {
		return nil, fileErr(path, 0, "larger than %d MiB: is it a workload file?", maxWorkloadFile>>20)
	}
	if looksLikeVegeta(data) {
		return parseVegeta(path, data, base, readBody)
	}
	return parseWorkloadYAML(path, data, base, readBody)
}

var vegetaLine = regexp.MustCompile(`^[A-Z]+\s+\S`)

// looksLikeVegeta reports whether data's first line that is neither blank
// nor a comment is a vegeta target line, "METHOD URL".
func looksLikeVegeta(data []byte) bool {
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		return vegetaLine.Match(line) && !bytes.Contains(bytes.Fields(line)[0], []byte(":"))
	}
	return false
}

// yamlLine finds the line in a YAML parser's error message.
var yamlLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

func parseWorkloadYAML(path string, data []byte, base *url.URL, readBody func(string) ([]byte, error)) (*Workload, error) {
	format := "yaml"
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		format = "json"
	}
	if format == "json" {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			line := 0
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			}
			return nil, fileErr(path, line, "not valid JSON: %v", err)
		}
	}
	var doc yaml.Node
	if err := unmarshalYAML(data, &doc); err != nil {
		line, msg := 0, err.Error()
		if m := yamlLine.FindStringSubmatch(strings.SplitN(msg, "\n", 2)[0]); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		return nil, fileErr(path, yamlErrorLine(data, line), "not valid YAML: %s", msg)
	}
	if len(doc.Content) == 0 {
		return nil, fileErr(path, 0, "empty: a workload lists its requests under \"requests\"")
	}
	p := &wlParser{path: path, dir: filepath.Dir(path), base: base, readBody: readBody}
	w, err := p.workload(doc.Content[0])
	if err != nil {
		return nil, err
	}
	w.Source, w.Format = path, format
	return w, nil
}

// yamlErrorLine finds the line of a YAML syntax error: the first line
// whose addition makes the document's beginning fail to parse. (The
// parser reports where the construct it was in began, often line 1.) An
// error that only says the document ended early is not one: the lines
// after complete it. It returns reported when no line is found.
func yamlErrorLine(data []byte, reported int) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	fails := func(k int) bool {
		var n yaml.Node
		err := unmarshalYAML(bytes.Join(lines[:k], nil), &n)
		return err != nil && !strings.Contains(err.Error(), "end of stream")
	}
	lo, hi := 0, len(lines)
	if !fails(hi) {
		return reported
	}
	for hi-lo > 1 { // the first lo lines parse, the first hi do not
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// unmarshalYAML parses data into n; a panic of the parser on input it
// did not foresee is an error like any other.
func unmarshalYAML(data []byte, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	return yaml.Unmarshal(data, n)
}

type wlParser struct {
	path     string
	dir      string
	base     *url.URL
	readBody func(string) ([]byte, error)
}

func (p *wlParser) errAt(n *yaml.Node, format string, args ...any) error {
	return fileErr(p.path, n.Line, format, args...)
}

// fields returns a mapping's keys and values, refusing keys it does not
// know and keys given twice.
func (p *wlParser) fields(n *yaml.Node, what string, known ...string) (map[string]*yaml.Node, error) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return nil, p.errAt(n, "%s must be a mapping (key: value), not %s", what, kindName(n))
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, p.errAt(k, "%s: a key must be a plain name", what)
		}
		ok := false
		for _, name := range known {
			ok = ok || k.Value == name
		}
		if !ok {
			return nil, p.errAt(k, "%s: unknown field %q (want %s)", what, k.Value, strings.Join(known, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, p.errAt(k, "%s: %q given twice", what, k.Value)
		}
		out[k.Value] = v
	}
	return out, nil
}

// deref follows an alias (*name) to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 10; i++ {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "empty"
	}
	return fmt.Sprintf("%q", n.Value)
}

func (p *wlParser) str(n *yaml.Node, what string) (string, error) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", p.errAt(n, "%s must be a string, not %s", what, kindName(n))
	}
	return n.Value, nil
}

func (p *wlParser) workload(root *yaml.Node) (*Workload, error) {
	f, err := p.fields(root, "the workload", "seed", "think", "headers", "requests")
	if err != nil {
		return nil, err
	}
	w := &Workload{Seed: DefaultSeed}
	if n := f["seed"]; n != nil {
		s, err := p.str(n, "seed")
		if err != nil {
			return nil, err
		}
		if w.Seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			return nil, p.errAt(n, "seed must be a whole number from 0, not %q", s)
		}
	}
	var think [2]time.Duration
	if n := f["think"]; n != nil {
		if think, err = p.think(n); err != nil {
			return nil, err
		}
	}
	var common http.Header
	if n := f["headers"]; n != nil {
		if common, err = p.headers(n); err != nil {
			return nil, err
		}
	}
	reqs := f["requests"]
	if reqs == nil {
		return nil, p.errAt(root, "the workload lists no requests: give them under \"requests\"")
	}
	reqs = deref(reqs)
	if reqs.Kind != yaml.SequenceNode || len(reqs.Content) == 0 {
		return nil, p.errAt(reqs, "requests must be a list of at least one request")
	}
	if len(reqs.Content) > maxWorkloadRequests {
		return nil, p.errAt(reqs, "%d requests: at most %d", len(reqs.Content), maxWorkloadRequests)
	}
	names := map[string]int{}
	for _, n := range reqs.Content {
		r, err := p.request(n, think, common)
		if err != nil {
			return nil, err
		}
		if line, dup := names[r.Name]; dup {
			return nil, p.errAt(n, "request name %q is already used at line %d: names must be unique", r.Name, line)
		}
		names[r.Name] = r.Line
		w.Requests = append(w.Requests, r)
	}
	return w, nil
}

func (p *wlParser) request(n *yaml.Node, think [2]time.Duration, common http.Header) (WorkloadRequest, error) {
	r := WorkloadRequest{Line: n.Line, Weight: 1, ThinkMin: think[0], ThinkMax: think[1]}
	f, err := p.fields(n, "a request", "name", "method", "url", "headers", "body", "body_file", "weight", "think", "slo")
	if err != nil {
		return r, err
	}
	if f["name"] == nil {
		return r, p.errAt(n, "the request has no name")
	}
	if r.Name, err = p.str(f["name"], "name"); err != nil {
		return r, err
	}
	if r.Name = strings.TrimSpace(r.Name); r.Name == "" || strings.ContainsAny(r.Name, "\r\n\t") {
		return r, p.errAt(f["name"], "the request's name must be a non-empty line")
	}
	if f["url"] == nil {
		return r, p.errAt(n, "request %q has no url", r.Name)
	}
	raw, err := p.str(f["url"], "url")
	if err != nil {
		return r, err
	}
	if r.URL, err = resolveURL(raw, p.base); err != nil {
		return r, p.errAt(f["url"], "request %q: %v", r.Name, err)
	}
	r.Header = common.Clone()
	if h := f["headers"]; h != nil {
		own, err := p.headers(h)
		if err != nil {
			return r, err
		}
		if r.Header == nil {
			r.Header = http.Header{}
		}
		for k, v := range own {
			r.Header[k] = v // the request's own replace the workload's
		}
	}
	switch b, bf := f["body"], f["body_file"]; {
	case b != nil && bf != nil:
		return r, p.errAt(bf, "request %q: give body or body_file, not both", r.Name)
	case b != nil:
		s, err := p.str(b, "body")
		if err != nil {
			return r, err
		}
		r.Body = []byte(s)
	case bf != nil:
		s, err := p.str(bf, "body_file")
		if err != nil {
			return r, err
		}
		if !filepath.IsAbs(s) {
			s = filepath.Join(p.dir, s)
		}
		if r.Body, err = p.readBody(s); err != nil {
			return r, p.errAt(bf, "request %q: body_file: %v", r.Name, err)
		}
	}
	r.Method = http.MethodGet
	if r.Body != nil {
		r.Method = http.MethodPost // as curl -d does
	}
	if m := f["method"]; m != nil {
		if r.Method, err = p.str(m, "method"); err != nil {
			return r, err
		}
		if !validToken(r.Method) {
			return r, p.errAt(m, "request %q: bad method %q", r.Name, r.Method)
		}
	}
	if wn := f["weight"]; wn != nil {
		s, err := p.str(wn, "weight")
		if err != nil {
			return r, err
		}
		r.Weight, err = strconv.ParseFloat(s, 64)
		if err != nil || !(r.Weight > 0) || math.IsInf(r.Weight, 0) {
			return r, p.errAt(wn, "request %q: weight must be a positive number, not %q", r.Name, s)
		}
	}
	if t := f["think"]; t != nil {
		th, err := p.think(t)
		if err != nil {
			return r, err
		}
		r.ThinkMin, r.ThinkMax = th[0], th[1]
	}
	if s := f["slo"]; s != nil {
		v, err := p.str(s, "slo")
		if err != nil {
			return r, err
		}
		slo, err := ParseSLO(v, nil)
		if err != nil {
			return r, p.errAt(s, "request %q: %v", r.Name, err)
		}
		r.SLO = &model.RequestSLO{Name: r.Name, Percentile: slo.Percentile, Latency: slo.Latency, MaxErrorRate: slo.MaxErrorRate}
	}
	// The checks NewHTTP makes, here where the line is known.
	if _, err := NewHTTP(HTTP{Method: r.Method, URL: r.URL, Header: r.Header, Body: r.Body}); err != nil {
		return r, p.errAt(n, "request %q: %v", r.Name, err)
	}
	return r, nil
}

func (p *wlParser) headers(n *yaml.Node) (http.Header, error) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return nil, p.errAt(n, "headers must be a mapping of names to values, not %s", kindName(n))
	}
	h := http.Header{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name, err := p.str(k, "a header's name")
		if err != nil {
			return nil, err
		}
		if !validToken(name) {
			return nil, p.errAt(k, "bad header name %q", name)
		}
		var vals []*yaml.Node
		if v.Kind == yaml.SequenceNode {
			vals = v.Content
		} else {
			vals = []*yaml.Node{v}
		}
		for _, vn := range vals {
			s, err := p.str(vn, "header "+name)
			if err != nil {
				return nil, err
			}
			if strings.ContainsAny(s, "\r\n\x00") {
				return nil, p.errAt(vn, "header %s: control characters in the value", name)
			}
			h.Add(name, s)
		}
	}
	return h, nil
}

func (p *wlParser) think(n *yaml.Node) ([2]time.Duration, error) {
	s, err := p.str(n, "think")
	if err != nil {
		return [2]time.Duration{}, err
	}
	t, err := ParseThink(s)
	if err != nil {
		return t, p.errAt(n, "think: %v", err)
	}
	return t, nil
}

// ParseThink parses a think time: a duration ("100ms") or a range of
// durations ("50ms..150ms") drawn from uniformly.
func ParseThink(s string) ([2]time.Duration, error) {
	var t [2]time.Duration
	lo, hi, isRange := strings.Cut(strings.TrimSpace(s), "..")
	a, err := time.ParseDuration(strings.TrimSpace(lo))
	if err != nil || a < 0 {
		return t, fmt.Errorf("want a duration such as 100ms, or a range 50ms..150ms, not %q", s)
	}
	b := a
	if isRange {
		if b, err = time.ParseDuration(strings.TrimSpace(hi)); err != nil || b < a {
			return t, fmt.Errorf("bad range %q: want MIN..MAX with MIN ≤ MAX", s)
		}
	}
	if b > time.Hour {
		return t, fmt.Errorf("think time %v is longer than an hour", b)
	}
	return [2]time.Duration{a, b}, nil
}

// resolveURL resolves raw against base and checks that the result is an
// http or https URL.
func resolveURL(raw string, base *url.URL) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", fmt.Errorf("bad URL %q: %v", raw, err)
	}
	if !u.IsAbs() {
		if base == nil {
			return "", fmt.Errorf("URL %q is relative, and no URL was given on the command line to resolve it against", raw)
		}
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("bad URL %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return "", fmt.Errorf("bad URL %q: no host", raw)
	}
	return u.String(), nil
}
