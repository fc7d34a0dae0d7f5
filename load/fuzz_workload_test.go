package load

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// fakeBody stands in for body files in the fuzz targets: the fuzzer must
// not read /dev/stdin or /dev/zero.
func fakeBody(path string) ([]byte, error) {
	if strings.Contains(path, "missing") {
		return nil, errors.New("no such file")
	}
	return []byte("body of " + path), nil
}

// checkFileError: a parser's error is a *FileError on one line.
func checkFileError(t *testing.T, err error) {
	t.Helper()
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *FileError", err, err)
	}
	if strings.ContainsAny(err.Error(), "\r\n") {
		t.Fatalf("error %q is not one line", err)
	}
}

// FuzzParseWorkload: any file is a workload or one *FileError on one
// line, never a panic; a workload's requests have unique names, absolute
// http(s) URLs and positive weights, and NewWorkload accepts it.
func FuzzParseWorkload(f *testing.F) {
	for _, s := range []string{
		mix702010,
		"requests:\n  - {name: a, url: /a, weight: 2, think: 1ms..2ms, slo: p99=1s}\n",
		`{"seed": 3, "headers": {"A": ["x", "y"]}, "requests": [{"name": "a", "url": "http://h/", "body_file": "b.json"}]}`,
		"requests:\n  - &r {name: a, url: /}\n  - *r\n",
		"GET http://h/a\nX-A: 1\n\nPOST http://h/b\n@body.json\n",
		"# c\nGET /relative\n",
		"requests:\n  - name: a\n   url: /\n",
		"{\"requests\": [,]}",
		"requests: [{name: a, url: /, body_file: missing}]",
	} {
		f.Add(s)
	}
	base, _ := url.Parse("http://127.0.0.1:8080/base/")
	f.Fuzz(func(t *testing.T, s string) {
		w, err := parseWorkload("w.yaml", []byte(s), base, fakeBody)
		if err != nil {
			checkFileError(t, err)
			return
		}
		names := map[string]bool{}
		for _, r := range w.Requests {
			u, err := url.Parse(r.URL)
			if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
				t.Fatalf("request %q: URL %q", r.Name, r.URL)
			}
			if !(r.Weight > 0) || names[r.Name] || r.ThinkMin < 0 || r.ThinkMax < r.ThinkMin {
				t.Fatalf("request %+v", r)
			}
			names[r.Name] = true
		}
		if _, err := NewWorkload(w, HTTP{}); err != nil {
			t.Fatalf("NewWorkload refused a parsed workload: %v", err)
		}
	})
}

// FuzzReadRecording: any file is a recording or one *FileError on one
// line, never a panic; every recorded request can be sent: a valid
// method, a target that is an absolute path, headers without control
// characters.
func FuzzReadRecording(f *testing.F) {
	log, _, _ := genAccessLog(20, 2)
	for _, s := range []string{
		log, testHAR,
		`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://r/" "ua"`,
		`www.example.com:80 1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET http://h:81/x?y HTTP/1.1" 200 - "-" "-"`,
		`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "-" 408 0`,
		`{"log": {"entries": [{"startedDateTime": "2026-10-10T13:55:36Z", "request": {"method": "GET", "url": "http://h/"}}]}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rec, err := ReadRecording("r", []byte(s))
		if err != nil {
			checkFileError(t, err)
			return
		}
		if int64(len(rec.Requests)) > rec.Entries {
			t.Fatalf("%d requests from %d entries", len(rec.Requests), rec.Entries)
		}
		for _, q := range rec.Requests {
			if !validToken(q.Method) || !strings.HasPrefix(q.Target, "/") || strings.ContainsAny(q.Target, " \r\n") {
				t.Fatalf("request %+v", q)
			}
			for i := 0; i+1 < len(q.Header); i += 2 {
				if !validToken(q.Header[i]) || !validHeaderValue(q.Header[i+1]) {
					t.Fatalf("header %q: %q", q.Header[i], q.Header[i+1])
				}
			}
		}
		if len(rec.Requests) > 0 {
			rp, err := NewReplay(rec, "h", HTTP{URL: "http://127.0.0.1:1"})
			if err == nil {
				var b []byte
				for i := range rp.entries {
					b = rp.appendRequest(b[:0], rp.entries[i].q)
				}
			}
		}
	})
}

// FuzzParseThinkPaces: think times and paces parse or fail, never panic,
// and what parses is in range.
func FuzzParseThinkPaces(f *testing.F) {
	for _, s := range []string{"100ms", "50ms..150ms", "1s..1ms", "1x", "1x,4x", "0.5", "-1x", "1e9x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if th, err := ParseThink(s); err == nil && (th[0] < 0 || th[1] < th[0]) {
			t.Fatalf("ParseThink(%q) = %v", s, th)
		}
		if ps, err := ParsePaces(s); err == nil {
			for _, p := range ps {
				if !(p > 0) || p > 1e6 {
					t.Fatalf("ParsePaces(%q) = %v", s, ps)
				}
			}
		}
	})
}
