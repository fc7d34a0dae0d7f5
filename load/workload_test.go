package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rigorbench/rigor/model"
)

// mixServer answers /a fast, /b after 2 ms and /c after 5 ms, /fail with
// a 500, and counts the requests it served by path.
type mixServer struct {
	*httptest.Server
	mu    sync.Mutex
	paths map[string]int
}

func newMixServer(t *testing.T) *mixServer {
	s := &mixServer{paths: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths[r.Method+" "+r.URL.Path]++
		s.mu.Unlock()
		switch r.URL.Path {
		case "/b":
			time.Sleep(2 * time.Millisecond)
		case "/c":
			time.Sleep(5 * time.Millisecond)
		case "/fail":
			http.Error(w, "no", http.StatusInternalServerError)
			return
		}
		w.Write([]byte("ok"))
	}))
	t.Cleanup(s.Close)
	return s
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

const mix702010 = `# three endpoints, 70/20/10
seed: 7
requests:
  - name: fast
    url: /a
    weight: 70
  - name: medium
    url: /b
    weight: 20
    slo: p99=1s
  - name: slow
    url: /c
    weight: 10
`

// The Must-show workload: three endpoints weighted 70/20/10 against a
// local server. The shares of the requests sent are within 1 point of the
// weights (the picker's blocks of 10 make them exact to a block), each
// request's counts add up to the step's, and each has its own latency:
// /c's median is at least its 5 ms sleep, /a's far below it.
func TestWorkloadShares(t *testing.T) {
	srv := newMixServer(t)
	w, err := ParseWorkload("mix.yaml", []byte(mix702010), mustURL(t, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	target, err := NewWorkload(w, HTTP{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	slo := &model.RampSLO{Requests: w.RequestSLOs()}
	r := rampEnough(t, target, Config{Concurrency: []int{4}, Warmup: testWarmup, Duration: testDuration, SLO: slo}, 200)
	s := r.Steps[0]
	if len(s.ByRequest) != 3 {
		t.Fatalf("%d per-request results, want 3", len(s.ByRequest))
	}
	var sent, done, ok int64
	for i, want := range []float64{0.7, 0.2, 0.1} {
		q := s.ByRequest[i]
		t.Logf("%s: sent %d share %.4f, p50 %v p99 %v", q.Name, q.Sent, q.Share, q.Latency.P50, q.Latency.P99)
		if math.Abs(q.Share-want) > 0.01 {
			t.Errorf("%s: share %.4f of %d sent, want %.2f within 1 point", q.Name, q.Share, s.Sent, want)
		}
		if q.Latency.Count == 0 || q.Latency.P99 <= 0 {
			t.Errorf("%s: no latency", q.Name)
		}
		sent += q.Sent
		done += q.Requests
		ok += q.Successes
	}
	if sent != s.Sent || done != s.Requests || ok != s.Successes {
		t.Errorf("per-request counts (sent %d, done %d, ok %d) do not add up to the step's (%d, %d, %d)", sent, done, ok, s.Sent, s.Requests, s.Successes)
	}
	if a, c := s.ByRequest[0].Latency.P50, s.ByRequest[2].Latency.P50; c < 5*time.Millisecond || a >= c {
		t.Errorf("median of /a %v, of /c %v: want /c at least its 5ms sleep and above /a", a, c)
	}
	if !s.ByRequest[1].SLOMet || s.ByRequest[0].SLOMet || s.ByRequest[0].SLOMiss != "" {
		t.Errorf("medium has an SLO it met, fast none: %+v %+v", s.ByRequest[1], s.ByRequest[0])
	}
	if r.Workload == nil || r.Workload.Kind != model.WorkloadMix || len(r.Workload.Requests) != 3 || r.Workload.Requests[0].Share != 0.7 {
		t.Errorf("workload description: %+v", r.Workload)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.paths) != 3 || srv.paths["GET /a"] == 0 || srv.paths["GET /b"] == 0 || srv.paths["GET /c"] == 0 {
		t.Errorf("the server saw %v", srv.paths)
	}
}

// The picker's sequence: every block holds each request in proportion to
// its weight, whatever the seed, and the same seed repeats the sequence.
func TestPickerBlocks(t *testing.T) {
	for _, tc := range []struct {
		weights []float64
		block   []int
	}{
		{[]float64{70, 20, 10}, []int{7, 2, 1}},
		{[]float64{1, 1, 1}, []int{1, 1, 1}},
		{[]float64{0.7, 0.2, 0.1}, []int{7000, 2000, 1000}},
		{[]float64{3, 9}, []int{1, 3}},
		{[]float64{1, 1e6}, []int{1, 10000}},
	} {
		if got := apportion(tc.weights); !equalInts(got, tc.block) {
			t.Errorf("apportion(%v) = %v, want %v", tc.weights, got, tc.block)
			continue
		}
		n := 0
		for _, v := range tc.block {
			n += v
		}
		p, q := newPicker(tc.weights, 3), newPicker(tc.weights, 3)
		for b := 0; b < 3; b++ {
			count := make([]int, len(tc.weights))
			for range n {
				i := p.next()
				if j := q.next(); i != j {
					t.Fatalf("%v: the same seed gave %d and %d", tc.weights, i, j)
				}
				count[i]++
			}
			if !equalInts(count, tc.block) {
				t.Errorf("%v: block %d held %v, want %v", tc.weights, b, count, tc.block)
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A think time pauses a closed-loop worker between requests, outside any
// latency: one worker thinking 20 ms after each ~0 ms request sends about
// one request per 20 ms, and its latency stays far below the pause.
func TestWorkloadThink(t *testing.T) {
	if testing.Short() {
		t.Skip("asserts on pacing by the clock; -short runs on a busy machine")
	}
	srv := newMixServer(t)
	w, err := ParseWorkload("think.yaml", []byte("think: 20ms\nrequests:\n  - {name: a, url: /a}\n"), mustURL(t, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	target, err := NewWorkload(w, HTTP{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := rampEnough(t, target, Config{Concurrency: []int{1}, Warmup: testWarmup, Duration: 500 * time.Millisecond}, 5)
	s := r.Steps[0]
	if s.Requests > 26 || s.Requests < 10 {
		t.Errorf("%d requests in 500ms with 20ms think time, want about 24", s.Requests)
	}
	if s.Latency.P50 >= 20*time.Millisecond {
		t.Errorf("median latency %v includes the think time", s.Latency.P50)
	}
}

func TestParseWorkload(t *testing.T) {
	dir := t.TempDir()
	body := filepath.Join(dir, "body.json")
	if err := os.WriteFile(body, []byte(`{"id":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	base := mustURL(t, "http://127.0.0.1:8080/api/")
	yml := `seed: 9
think: 10ms..30ms
headers: {Authorization: Bearer x, Accept: text/plain}
requests:
  - name: list
    url: items?page=1
    weight: 3
    headers:
      Accept: application/json
  - name: create
    url: /v1/items
    body_file: body.json
    think: 0s
    slo: p99=50ms,errors=1%
  - name: delete
    method: DELETE
    url: https://other.example:8443/x
    weight: 0.5
`
	w, err := ParseWorkload(filepath.Join(dir, "w.yaml"), []byte(yml), base)
	if err != nil {
		t.Fatal(err)
	}
	if w.Format != "yaml" || w.Seed != 9 || len(w.Requests) != 3 {
		t.Fatalf("%+v", w)
	}
	l, c, d := w.Requests[0], w.Requests[1], w.Requests[2]
	if l.URL != "http://127.0.0.1:8080/api/items?page=1" || l.Method != "GET" || l.Weight != 3 || l.Line != 5 ||
		l.Header.Get("Accept") != "application/json" || l.Header.Get("Authorization") != "Bearer x" ||
		l.ThinkMin != 10*time.Millisecond || l.ThinkMax != 30*time.Millisecond {
		t.Errorf("list: %+v", l)
	}
	if c.URL != "http://127.0.0.1:8080/v1/items" || c.Method != "POST" || string(c.Body) != `{"id":1}` || c.Weight != 1 ||
		c.ThinkMax != 0 || c.SLO == nil || c.SLO.Latency != 50*time.Millisecond || c.SLO.Percentile != 99 || *c.SLO.MaxErrorRate != 0.01 {
		t.Errorf("create: %+v %+v", c, c.SLO)
	}
	if d.URL != "https://other.example:8443/x" || d.Method != "DELETE" || d.Weight != 0.5 {
		t.Errorf("delete: %+v", d)
	}

	// The same workload in JSON.
	js := `{"requests": [{"name": "a", "url": "/a", "weight": 7}, {"name": "b", "url": "/b", "weight": 3}]}`
	w, err = ParseWorkload("w.json", []byte(js), base)
	if err != nil {
		t.Fatal(err)
	}
	if w.Format != "json" || w.Seed != DefaultSeed || len(w.Requests) != 2 || w.Requests[1].URL != "http://127.0.0.1:8080/b" || w.Requests[1].Weight != 3 {
		t.Errorf("json: %+v", w)
	}
}

// Bad workload files: one error naming the file and the line at fault.
func TestParseWorkloadErrors(t *testing.T) {
	base := mustURL(t, "http://127.0.0.1:8080/")
	for _, tc := range []struct {
		name, in, want string
		base           *url.URL
	}{
		{"empty", "", "w.yaml: empty", base},
		{"syntax", "requests:\n  - name: a\n   url: /\n", "w.yaml:3: not valid YAML", base},
		{"json syntax", "{\"requests\": [\n{\"name\": \"a\",,}]}", "w.yaml:2: not valid JSON", base},
		{"not a mapping", "- a\n- b\n", "w.yaml:1: the workload must be a mapping", base},
		{"unknown top", "seed: 1\nrequest:\n  - {name: a, url: /}\n", `w.yaml:2: the workload: unknown field "request"`, base},
		{"no requests", "seed: 1\n", "w.yaml:1: the workload lists no requests", base},
		{"empty requests", "requests: []\n", "w.yaml:1: requests must be a list of at least one request", base},
		{"unknown field", "requests:\n  - name: a\n    url: /\n    wieght: 3\n", `w.yaml:4: a request: unknown field "wieght"`, base},
		{"no name", "requests:\n  - url: /\n", "w.yaml:2: the request has no name", base},
		{"no url", "requests:\n  - name: a\n", `w.yaml:2: request "a" has no url`, base},
		{"dup name", "requests:\n  - {name: a, url: /}\n  - {name: a, url: /b}\n", `w.yaml:3: request name "a" is already used at line 2`, base},
		{"bad weight", "requests:\n  - name: a\n    url: /\n    weight: -1\n", `w.yaml:4: request "a": weight must be a positive number`, base},
		{"zero weight", "requests:\n  - name: a\n    url: /\n    weight: 0\n", `w.yaml:4: request "a": weight must be a positive number`, base},
		{"weight list", "requests:\n  - name: a\n    url: /\n    weight: [1]\n", "w.yaml:4: weight must be a string, not a list", base},
		{"bad scheme", "requests:\n  - name: a\n    url: ftp://x/\n", `w.yaml:3: request "a": bad URL "ftp://x/": scheme must be http or https`, base},
		{"relative no base", "requests:\n  - name: a\n    url: /x\n", `w.yaml:3: request "a": URL "/x" is relative`, nil},
		{"bad method", "requests:\n  - name: a\n    url: /\n    method: \"GE T\"\n", `w.yaml:4: request "a": bad method "GE T"`, base},
		{"bad header", "requests:\n  - name: a\n    url: /\n    headers: {\"a b\": c}\n", `w.yaml:4: bad header name "a b"`, base},
		{"header ctl", "requests:\n  - name: a\n    url: /\n    headers: {A: \"x\\ny\"}\n", "w.yaml:4: header A: control characters", base},
		{"bad think", "requests:\n  - name: a\n    url: /\n    think: soon\n", "w.yaml:4: think: want a duration", base},
		{"think range", "think: 5s..1s\nrequests:\n  - {name: a, url: /}\n", "w.yaml:1: think: bad range", base},
		{"bad slo", "requests:\n  - name: a\n    url: /\n    slo: p98=1s\n", `w.yaml:4: request "a": bad SLO`, base},
		{"body and file", "requests:\n  - name: a\n    url: /\n    body: x\n    body_file: y\n", "w.yaml:5: request \"a\": give body or body_file, not both", base},
		{"no body file", "requests:\n  - name: a\n    url: /\n    body_file: /nonexistent/x\n", `w.yaml:4: request "a": body_file: open /nonexistent/x`, base},
		{"bad seed", "seed: -3\nrequests:\n  - {name: a, url: /}\n", `w.yaml:1: seed must be a whole number`, base},
		{"name newline", "requests:\n  - name: \"a\\nb\"\n    url: /\n", "w.yaml:2: the request's name must be a non-empty line", base},
		{"dup key", "requests:\n  - name: a\n    name: b\n    url: /\n", `w.yaml:3: a request: "name" given twice`, base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseWorkload("w.yaml", []byte(tc.in), tc.base)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			var fe *FileError
			if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want a *FileError starting %q on one line", err, tc.want)
			}
		})
	}
}

func TestParseVegeta(t *testing.T) {
	dir := t.TempDir()
	body := filepath.Join(dir, "thing.json")
	if err := os.WriteFile(body, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	in := `# vegeta targets
GET http://goku:9090/path/to/dragon?item=ball
X-Account-ID: 8675309

DELETE http://goku:9090/path/to/remove
Confirmation-Token: 90215
Authorization: Token DEADBEEF

POST http://goku:9090/things
@` + body + `

GET http://goku:9090/path/to/dragon?item=ball
X-Account-ID: 8675309
GET http://goku:9090/path/to/dragon?item=ball
X-Account-ID: 42
GET http://goku:9090/
`
	w, err := ParseWorkload("targets.txt", []byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.Format != "vegeta" || len(w.Requests) != 5 {
		t.Fatalf("%d requests, format %s: %+v", len(w.Requests), w.Format, w.Requests)
	}
	r := w.Requests
	if r[0].Name != "GET http://goku:9090/path/to/dragon?item=ball" || r[0].Weight != 2 || rawHeader(r[0].Header, "X-Account-ID") != "8675309" || r[0].Line != 2 {
		t.Errorf("repeated target: %+v", r[0])
	}
	if r[1].Method != "DELETE" || len(r[1].Header) != 2 || r[1].Header["Authorization"][0] != "Token DEADBEEF" {
		t.Errorf("delete: %+v", r[1])
	}
	if r[2].Method != "POST" || string(r[2].Body) != `{"a":1}` {
		t.Errorf("post: %+v", r[2])
	}
	if r[3].Name != "GET http://goku:9090/path/to/dragon?item=ball #2" || rawHeader(r[3].Header, "X-Account-ID") != "42" || r[3].Weight != 1 {
		t.Errorf("same URL, other header: %+v", r[3])
	}
	if r[4].URL != "http://goku:9090/" || r[4].Line != 16 {
		t.Errorf("last: %+v", r[4])
	}

	for _, tc := range []struct{ in, want string }{
		{"GET http://x/\nnot a header\n", "t.txt:2: want a header"},
		{"GET ftp://x/\n", `t.txt:1: bad URL "ftp://x/"`},
		{"GET /relative\n", `t.txt:1: URL "/relative" is relative`},
		{"POST http://x/\n@/nonexistent/body\n", "t.txt:2: body file: open /nonexistent/body"},
		{"POST http://x/\n@\n", "t.txt:2: @ names no body file"},
		{"POST http://x/\n@" + body + "\nX-A: b\n", "t.txt:3: the body file (@file) ends a target"},
		{"# only comments\nGET http://x/\nBad Name: v\n", `t.txt:3: bad header name "Bad Name"`},
	} {
		_, err := ParseWorkload("t.txt", []byte(tc.in), nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// rawHeader is the first value of h's header named exactly name: vegeta's
// targets keep a header's name as written.
func rawHeader(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// A client's think time after each request is that request's: fixed, or
// drawn within its range; none for a request without one.
func TestThinkTime(t *testing.T) {
	w := &Workload{Source: "w", Seed: 5, Requests: []WorkloadRequest{
		{Name: "fixed", Method: "GET", URL: "http://127.0.0.1:1/a", Weight: 1, ThinkMin: 20 * time.Millisecond, ThinkMax: 20 * time.Millisecond},
		{Name: "range", Method: "GET", URL: "http://127.0.0.1:1/b", Weight: 1, ThinkMin: 10 * time.Millisecond, ThinkMax: 30 * time.Millisecond},
		{Name: "none", Method: "GET", URL: "http://127.0.0.1:1/c", Weight: 1},
	}}
	target, err := NewWorkload(w, HTTP{})
	if err != nil {
		t.Fatal(err)
	}
	c := target.NewClient().(*mixClient)
	defer c.Close()
	lo, hi := time.Hour, time.Duration(0)
	for range 1000 {
		c.last = 1
		d := c.thinkTime()
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo < 10*time.Millisecond || hi > 30*time.Millisecond || hi-lo < 15*time.Millisecond {
		t.Errorf("range 10ms..30ms: drew from %v to %v", lo, hi)
	}
	for i, want := range map[int]time.Duration{0: 20 * time.Millisecond, 2: 0} {
		if c.last = i; c.thinkTime() != want {
			t.Errorf("%s: think %v, want %v", w.Requests[i].Name, c.thinkTime(), want)
		}
	}
}

// A closed-loop worker thinks after each request, up to the window's end:
// one worker thinking 10 s in a 200 ms window sends exactly one request.
func TestWorkloadThinkOneRequest(t *testing.T) {
	srv := newMixServer(t)
	w, err := ParseWorkload("think.yaml", []byte("think: 10s\nrequests:\n  - {name: a, url: /a}\n"), mustURL(t, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	target, err := NewWorkload(w, HTTP{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := Ramp(context.Background(), target, Config{Concurrency: []int{1}, Warmup: -1, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Steps[0]; s.Sent != 1 || s.ByRequest[0].Sent != 1 {
		t.Errorf("sent %d (%d by request), want 1", s.Sent, s.ByRequest[0].Sent)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the ramp took %v: the think time outlasted the window", d)
	}
}

// A workload run as two shards merges per request as it merges the step:
// counts add, and each request's latency is that of the union of the
// shards' histograms, here merged again independently.
func TestMergeWorkloadShards(t *testing.T) {
	srv := newMixServer(t)
	w, err := ParseWorkload("mix.yaml", []byte(mix702010), mustURL(t, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(200 * time.Millisecond)
	shards := make([]ShardResult, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range shards {
		target, err := NewWorkload(w, HTTP{Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Concurrency: []int{4}, Warmup: testWarmup, Duration: testDuration, Start: start,
			Shard: &Shard{Index: i, Count: 2, Config: "mix"}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := Ramp(context.Background(), target, cfg)
			shards[i], errs[i] = ShardResult{Source: fmt.Sprintf("s%d.json", i), Ramp: r}, err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	m, err := MergeShards(shards)
	if err != nil {
		t.Fatal(err)
	}
	if m.Workload == nil || len(m.Workload.Requests) != 3 {
		t.Fatalf("merged workload %+v", m.Workload)
	}
	st := m.Steps[0]
	if len(st.ByRequest) != 3 || st.Sent != shards[0].Ramp.Steps[0].Sent+shards[1].Ramp.Steps[0].Sent {
		t.Fatalf("merged step: sent %d, %d requests by name", st.Sent, len(st.ByRequest))
	}
	for j, q := range st.ByRequest {
		a, b := shards[0].Ramp.Steps[0].ByRequest[j], shards[1].Ramp.Steps[0].ByRequest[j]
		if q.Sent != a.Sent+b.Sent || q.Requests != a.Requests+b.Requests || q.Successes != a.Successes+b.Successes {
			t.Errorf("%s: sent %d, done %d, ok %d; shards %+v and %+v", q.Name, q.Sent, q.Requests, q.Successes, a, b)
		}
		both := hdrhistogram.New(histMin, histMax, histDigits)
		for _, enc := range []string{a.Histogram, b.Histogram} {
			h, err := decodeHist(enc)
			if err != nil {
				t.Fatal(err)
			}
			both.Merge(h)
		}
		if want := time.Duration(both.ValueAtQuantile(99)); q.Latency.P99 != want || q.Latency.Count != both.TotalCount() {
			t.Errorf("%s: merged p99 %v of %d, the union of the shards' histograms has p99 %v of %d", q.Name, q.Latency.P99, q.Latency.Count, want, both.TotalCount())
		}
		if q.Share < 0.09 || math.Abs(q.Share-[]float64{0.7, 0.2, 0.1}[j]) > 0.01 {
			t.Errorf("%s: merged share %.4f", q.Name, q.Share)
		}
	}
}
