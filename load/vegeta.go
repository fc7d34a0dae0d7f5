package load

import (
	"bytes"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// parseVegeta reads vegeta's plain targets format ("http" format) as
// vegeta does:
//
//	# a comment
//	GET http://host:8080/path?query
//	Header-Name: value
//	@/path/to/body-file
//
// A target is a line "METHOD URL" followed by its header lines and, last,
// an optional "@file" whose contents are the body; a blank line or the
// next "METHOD URL" line ends it. Lines starting with # are comments.
// Every target has weight 1, as vegeta sends its targets in turn; a
// target repeated with the same headers and body is one request whose
// weight counts its repeats. Its name is "METHOD URL" (numbered when two
// targets differ in headers or body only). A body file is read as vegeta
// reads it, relative to the working directory.
func parseVegeta(path string, data []byte, base *url.URL, readBody func(string) ([]byte, error)) (*Workload, error) {
	w := &Workload{Source: path, Format: "vegeta", Seed: DefaultSeed}
	var cur *WorkloadRequest
	bodyDone := false
	byName := map[string][]int{} // indexes of the requests with a name
	finish := func() error {
		if cur == nil {
			return nil
		}
		r := *cur
		cur = nil
		for _, i := range byName[r.Name] {
			if sameRequest(&w.Requests[i], &r) {
				w.Requests[i].Weight++
				return nil
			}
		}
		if len(w.Requests) >= maxWorkloadRequests {
			return fileErr(path, r.Line, "more than %d distinct targets", maxWorkloadRequests)
		}
		name := r.Name
		if n := len(byName[name]); n > 0 {
			r.Name = name + " #" + strconv.Itoa(n+1)
		}
		byName[name] = append(byName[name], len(w.Requests))
		w.Requests = append(w.Requests, r)
		return nil
	}
	for i, raw := range bytes.Split(data, []byte("\n")) {
		line := strings.TrimSpace(string(raw))
		n := i + 1
		switch {
		case line == "":
			if err := finish(); err != nil {
				return nil, err
			}
			continue
		case line[0] == '#':
			continue
		case vegetaLine.MatchString(line) && (cur == nil || !strings.Contains(strings.Fields(line)[0], ":")):
			if err := finish(); err != nil {
				return nil, err
			}
			method, target, _ := strings.Cut(line, " ")
			target = strings.TrimSpace(target)
			u, err := resolveURL(target, base)
			if err != nil {
				return nil, fileErr(path, n, "%v", err)
			}
			cur = &WorkloadRequest{Name: method + " " + target, Method: method, URL: u, Header: http.Header{}, Weight: 1, Line: n}
			bodyDone = false
			if _, err := NewHTTP(HTTP{Method: method, URL: u}); err != nil {
				return nil, fileErr(path, n, "%v", err)
			}
		case cur == nil:
			return nil, fileErr(path, n, "want a target line such as \"GET http://host/path\", got %q", clip(line))
		case bodyDone:
			return nil, fileErr(path, n, "the body file (@file) ends a target: put a blank line before the next one, got %q", clip(line))
		case line[0] == '@':
			file := strings.TrimSpace(line[1:])
			if file == "" {
				return nil, fileErr(path, n, "@ names no body file")
			}
			b, err := readBody(file)
			if err != nil {
				return nil, fileErr(path, n, "body file: %v", err)
			}
			cur.Body = b
			bodyDone = true
		default:
			k, v, ok := strings.Cut(line, ":")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !ok || k == "" || v == "" {
				return nil, fileErr(path, n, "want a header \"Name: value\", a body \"@file\" or a blank line, got %q", clip(line))
			}
			if !validToken(k) {
				return nil, fileErr(path, n, "bad header name %q", clip(k))
			}
			if strings.ContainsRune(v, 0) {
				return nil, fileErr(path, n, "header %s: control characters in the value", k)
			}
			// As vegeta does: the name as written, not canonicalised.
			cur.Header[k] = append(cur.Header[k], v)
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(w.Requests) == 0 {
		return nil, fileErr(path, 0, "no targets")
	}
	return w, nil
}

func sameRequest(a, b *WorkloadRequest) bool {
	if a.Method != b.Method || a.URL != b.URL || !bytes.Equal(a.Body, b.Body) || len(a.Header) != len(b.Header) {
		return false
	}
	for k, va := range a.Header {
		vb := b.Header[k]
		if len(va) != len(vb) {
			return false
		}
		for i := range va {
			if va[i] != vb[i] {
				return false
			}
		}
	}
	return true
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
