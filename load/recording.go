package load

import (
	"bytes"
	"errors"
	"net/url"
	"sort"
	"strings"
	"time"
)

// A Recording is the requests read from a HAR file or an access log, to
// replay (see NewReplay). ReadRecording reads one.
type Recording struct {
	Source string // the file
	Format string // "har" or "access-log"
	// Requests are in the file's order.
	Requests []RecordedRequest
	// Entries counts the requests recorded in the file, those skipped
	// included: the HAR file's entries, or the access log's non-blank
	// lines.
	Entries int64
	// Skipped counts the entries that cannot be replayed, by reason.
	Skipped map[string]int64
	// Resolution is the clock resolution of the recorded times.
	Resolution time.Duration
}

// RecordedRequest is one recorded request.
type RecordedRequest struct {
	At     time.Time
	Method string
	// Scheme and Host are the recorded request's, when the file says
	// (HAR's URLs, an access log's absolute request URL or virtual host);
	// empty otherwise.
	Scheme string
	Host   string
	// Target is the request target: an absolute path and query.
	Target string
	// Header holds recorded headers as name, value pairs.
	Header []string
	Body   []byte
	Line   int // where it is in the file
}

// Reasons an entry is not replayed.
const (
	skipNoRequest = "no request line (\"-\"), as logged for connections closed before a request"
	skipNotHTTP   = "not an HTTP request line"
	skipScheme    = "not http or https (data:, blob:, ws: ...)"
	skipConnect   = "CONNECT: a proxy tunnel, not a request"
)

// maxRecording bounds the requests a recording holds: each is kept in
// memory for every step.
const (
	maxRecording     = 2_000_000
	maxRecordingFile = 1 << 30
)

// ReadRecording reads a recording from data, the contents of the file at
// path: a HAR file (it starts with "{") or an access log in the common or
// combined log format (optionally with a leading virtual host, as
// Apache's vhost_combined). Errors are *FileError, naming the line at
// fault.
func ReadRecording(path string, data []byte) (*Recording, error) {
	if len(data) > maxRecordingFile {
		return nil, fileErr(path, 0, "larger than %d GiB", maxRecordingFile>>30)
	}
	var rec *Recording
	var err error
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '{' {
		rec, err = parseHAR(path, data)
	} else {
		rec, err = parseAccessLog(path, data)
	}
	if err != nil {
		return nil, err
	}
	if len(rec.Requests) == 0 && rec.Entries == 0 {
		return nil, fileErr(path, 0, "no requests recorded")
	}
	return rec, nil
}

func (r *Recording) skip(reason string) {
	if r.Skipped == nil {
		r.Skipped = map[string]int64{}
	}
	r.Skipped[reason]++
}

func (r *Recording) add(path string, q RecordedRequest) error {
	if len(r.Requests) >= maxRecording {
		return fileErr(path, q.Line, "more than %d requests: replay a part of the file", maxRecording)
	}
	r.Requests = append(r.Requests, q)
	return nil
}

// splitTarget splits a request target as a request line or a HAR URL
// gives it into scheme, host and the origin-form target (path and
// query). It fails for one that cannot be sent as it is, with
// errSchemeNotHTTP for a URL of another scheme.
func splitTarget(t string) (scheme, host, target string, err error) {
	if strings.HasPrefix(t, "/") {
		if strings.ContainsAny(t, " \t\r\n\x00") {
			return "", "", "", errors.New("white space or control characters in the target")
		}
		return "", "", t, nil
	}
	u, err := url.Parse(t)
	if err != nil || !u.IsAbs() {
		return "", "", "", errors.New("not a path or an absolute URL")
	}
	scheme = strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return scheme, "", "", errSchemeNotHTTP
	}
	if u.Host == "" {
		return "", "", "", errors.New("no host")
	}
	if u.User != nil {
		return "", "", "", errors.New("credentials in the URL")
	}
	target = u.EscapedPath()
	if target == "" {
		target = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		target += "?" + u.RawQuery
	}
	return scheme, strings.ToLower(u.Host), target, nil
}

var errSchemeNotHTTP = errors.New("not http or https")

// hostMatches reports whether a request recorded for host (with scheme,
// both possibly empty) is one for want: the same host name, and the same
// port when want names one.
func hostMatches(scheme, host, want string) bool {
	if host == "" {
		return true
	}
	hn, hp := splitHostPort(host)
	wn, wp := splitHostPort(strings.ToLower(want))
	if hn != wn {
		return false
	}
	if wp == "" {
		return true
	}
	if hp == "" {
		switch scheme {
		case "http":
			hp = "80"
		case "https":
			hp = "443"
		}
	}
	return hp == wp
}

func splitHostPort(h string) (name, port string) {
	if strings.HasPrefix(h, "[") { // [v6]:port
		if i := strings.LastIndex(h, "]"); i > 0 {
			name, rest := h[1:i], h[i+1:]
			return name, strings.TrimPrefix(rest, ":")
		}
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 && strings.Count(h, ":") == 1 {
		return h[:i], h[i+1:]
	}
	return h, ""
}

// sortedCounts returns the counts of m, largest first, ties by key.
func sortedCounts(m map[string]int64) []struct {
	key string
	n   int64
} {
	out := make([]struct {
		key string
		n   int64
	}, 0, len(m))
	for k, n := range m {
		out = append(out, struct {
			key string
			n   int64
		}{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].n != out[j].n {
			return out[i].n > out[j].n
		}
		return out[i].key < out[j].key
	})
	return out
}
