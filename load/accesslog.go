package load

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parseAccessLog reads an access log in the common log format
//
//	host ident user [10/Oct/2000:13:55:36 -0700] "GET /a.gif HTTP/1.0" 200 2326
//
// or the combined one, which adds "referer" "user-agent" (later fields,
// as some servers log, are ignored), each optionally led by a virtual
// host ("www.example.com:80", Apache's vhost_combined). A line that does
// not have this shape is an error at that line; a line whose request
// cannot be sent ("-" for a connection closed before its request, bytes
// that are not a request line, CONNECT) is counted as skipped. The
// combined format's user agent and referer are replayed as headers; an
// access log holds no request bodies.
func parseAccessLog(path string, data []byte) (*Recording, error) {
	rec := &Recording{Source: path, Format: "access-log", Resolution: time.Second}
	line := 0
	for len(data) > 0 {
		var raw []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			raw, data = data, nil
		}
		line++
		raw = bytes.TrimRight(raw, "\r")
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		rec.Entries++
		q, skip, err := parseLogLine(string(raw))
		if err != nil {
			return nil, fileErr(path, line, "%v", err)
		}
		if skip != "" {
			rec.skip(skip)
			continue
		}
		q.Line = line
		if err := rec.add(path, q); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// A logField is one field of a log line: bare, [bracketed] or "quoted".
type logField struct {
	s    string
	kind byte // ' ', '[' or '"'
}

// splitLogLine splits a log line into its fields.
func splitLogLine(s string) ([]logField, error) {
	var out []logField
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return nil, errors.New("a [ with no ]")
			}
			out = append(out, logField{s[i+1 : i+j], '['})
			i += j + 1
		case c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\') {
					j++
				}
				b.WriteByte(s[j])
			}
			if j == len(s) {
				return nil, errors.New("a quoted field with no closing quote")
			}
			out = append(out, logField{b.String(), '"'})
			i = j + 1
		default:
			j := strings.IndexAny(s[i:], " \t")
			if j < 0 {
				j = len(s) - i
			}
			out = append(out, logField{s[i : i+j], ' '})
			i += j
		}
		if len(out) > 64 {
			return nil, errors.New("more than 64 fields: is it an access log?")
		}
	}
	return out, nil
}

const logTime = "02/Jan/2006:15:04:05 -0700"

// parseLogLine parses one line. skip is the reason its request cannot be
// replayed, if so.
func parseLogLine(s string) (q RecordedRequest, skip string, err error) {
	f, err := splitLogLine(s)
	if err != nil {
		return q, "", err
	}
	// The time is the fourth field, or the fifth after a virtual host.
	t := -1
	for i := 3; i <= 4 && i < len(f); i++ {
		if f[i].kind == '[' {
			t = i
			break
		}
	}
	if t < 0 {
		return q, "", errors.New(`want the common or combined log format: host ident user [time] "request" status bytes ["referer" "user-agent"]`)
	}
	for _, x := range f[:t] {
		if x.kind != ' ' {
			return q, "", errors.New(`want host ident user before [time]`)
		}
	}
	if q.At, err = time.Parse(logTime, f[t].s); err != nil {
		return q, "", fmt.Errorf("bad time [%s]: want [10/Oct/2000:13:55:36 -0700]", clip(f[t].s))
	}
	if t+3 >= len(f) || f[t+1].kind != '"' || f[t+2].kind != ' ' || f[t+3].kind != ' ' {
		return q, "", errors.New(`want "request" status bytes after [time]`)
	}
	if st := f[t+2].s; st != "-" {
		if n, err := strconv.Atoi(st); err != nil || len(st) != 3 || n < 100 {
			return q, "", fmt.Errorf("bad status %q: want three digits", clip(st))
		}
	}
	if b := f[t+3].s; b != "-" {
		if _, err := strconv.ParseUint(b, 10, 63); err != nil {
			return q, "", fmt.Errorf("bad size %q: want a number of bytes or -", clip(b))
		}
	}
	if t == 4 {
		// A virtual host, as Apache's %v:%p logs it.
		q.Host = strings.ToLower(f[0].s)
	}
	reqLine := f[t+1].s
	if reqLine == "-" || reqLine == "" {
		return q, skipNoRequest, nil
	}
	parts := strings.Split(reqLine, " ")
	if len(parts) < 2 || len(parts) > 3 || !validToken(parts[0]) || len(parts) == 3 && !strings.HasPrefix(parts[2], "HTTP/") {
		return q, skipNotHTTP, nil
	}
	q.Method = parts[0]
	if q.Method == "CONNECT" {
		return q, skipConnect, nil
	}
	scheme, host, target, err := splitTarget(parts[1])
	switch {
	case errors.Is(err, errSchemeNotHTTP):
		return q, skipScheme, nil
	case err != nil:
		return q, skipNotHTTP, nil
	}
	q.Scheme, q.Target = scheme, target
	if host != "" {
		q.Host = host // an absolute request URL names its host
	}
	if t+5 < len(f) && f[t+4].kind == '"' && f[t+5].kind == '"' {
		if ref := f[t+4].s; ref != "-" && ref != "" && validHeaderValue(ref) {
			q.Header = append(q.Header, "Referer", ref)
		}
		if ua := f[t+5].s; ua != "-" && ua != "" && validHeaderValue(ua) {
			q.Header = append(q.Header, "User-Agent", ua)
		}
	}
	return q, "", nil
}

// validHeaderValue reports whether v can be sent as a header's value.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
