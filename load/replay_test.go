package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// genAccessLog writes n combined-format lines over secs seconds of
// timestamps; every tenth line is for other.example (an absolute request
// URL), the rest for the server's own paths.
func genAccessLog(n, secs int) (log string, own, other int) {
	var b strings.Builder
	for i := range n {
		sec := i * secs / n
		target := fmt.Sprintf("/item/%d?x=%d", i%7, i)
		if i%10 == 9 {
			target = "http://other.example/elsewhere"
			other++
		} else {
			own++
		}
		fmt.Fprintf(&b, "10.0.%d.%d - - [10/Oct/2026:13:55:%02d +0000] \"GET %s HTTP/1.1\" 200 %d \"-\" \"replay-test/1.0\"\n", i/256%256, i%256, sec, target, 100+i%50)
	}
	return b.String(), own, other
}

// countingServer counts the requests it serves and who they claimed to be.
type countingServer struct {
	*httptest.Server
	n      atomic.Int64
	mu     sync.Mutex
	agents map[string]int
	bodies []string
	paths  []string
}

func newCountingServer(t *testing.T) *countingServer {
	s := &countingServer{agents: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.n.Add(1)
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.agents[r.UserAgent()]++
		if len(s.paths) < 100 {
			s.paths = append(s.paths, r.Method+" "+r.URL.RequestURI()+" host="+r.Host)
			s.bodies = append(s.bodies, string(b))
		}
		s.mu.Unlock()
		w.Write([]byte("ok"))
	}))
	t.Cleanup(s.Close)
	return s
}

// The Must-show replay: a generated access log of 10,000 lines over two
// seconds of timestamps, replayed at 1x and 4x. Each step sends exactly
// the lines for the target's host, 9,000, and the server receives them;
// the 1,000 lines for other.example are skipped, counted and never sent;
// the schedule's timing error is measured for every request.
func TestReplayAccessLog(t *testing.T) {
	srv := newCountingServer(t)
	log, own, other := genAccessLog(10000, 2)
	rec, err := ReadRecording("access.log", []byte(log))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Entries != 10000 || len(rec.Requests) != 10000 || rec.Resolution != time.Second {
		t.Fatalf("read %d entries, %d requests, resolution %v", rec.Entries, len(rec.Requests), rec.Resolution)
	}
	rp, err := NewReplay(rec, "", HTTP{URL: srv.URL, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ReplayRamp(context.Background(), rp, Config{}, []float64{1, 4})
	if err != nil {
		t.Fatal(err)
	}
	src := r.Workload.Replay
	if src.Entries != 10000 || src.Replayed != int64(own) || len(src.OtherHosts) != 1 || src.OtherHosts[0] != (model.HostCount{Host: "other.example", Count: int64(other)}) {
		t.Errorf("replay source: %+v", src)
	}
	if src.Span < 1900*time.Millisecond || src.Span >= 2*time.Second {
		t.Errorf("span %v: two seconds of timestamps, each second's requests spread across it", src.Span)
	}
	if len(r.Steps) != 2 || r.Mode != model.RampOpen {
		t.Fatalf("%d steps, mode %s", len(r.Steps), r.Mode)
	}
	for i, s := range r.Steps {
		lag := s.SendLag
		if lag == nil {
			t.Fatalf("step %d: no send lag", i+1)
		}
		t.Logf("workers %d errors %v pace %gx: offered %.0f/s, sent %d in %v, %d ok; timing error p50 %v p99 %v max %v; valid %v %s", s.Concurrency, s.Errors,
			s.Pace, s.Offered, s.Sent, s.Duration, s.Successes, lag.P50, lag.P99, lag.Max, s.Valid, s.Invalid)
		if s.Sent != int64(own) || s.Requests != int64(own) || lag.Count != int64(own) {
			t.Errorf("pace %gx: sent %d, completed %d, lag of %d: want %d each", s.Pace, s.Sent, s.Requests, lag.Count, own)
		}
		var groups int64
		for _, q := range s.ByRequest {
			groups += q.Sent
		}
		if groups != s.Sent || len(s.ByRequest) != 7 {
			t.Errorf("pace %gx: %d groups sent %d", s.Pace, len(s.ByRequest), groups)
		}
	}
	if want := 4.0; r.Steps[1].Offered < 0.99*want*r.Steps[0].Offered || r.Steps[1].Offered > 1.01*want*r.Steps[0].Offered {
		t.Errorf("offered %.0f/s at 4x, %.0f/s at 1x", r.Steps[1].Offered, r.Steps[0].Offered)
	}
	if got := srv.n.Load(); got != 2*int64(own) {
		t.Errorf("the server received %d requests, want %d", got, 2*own)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.agents["replay-test/1.0"] != 2*own {
		t.Errorf("user agents %v: the recorded one is replayed", srv.agents)
	}
	for _, p := range srv.paths {
		if !strings.HasPrefix(p, "GET /item/") || strings.Contains(p, "other.example") {
			t.Errorf("the server got %q", p)
		}
	}
}

// A closed-loop replay sends every request once, as fast as its workers
// can, in the recorded order.
func TestReplayClosed(t *testing.T) {
	srv := newCountingServer(t)
	log, own, _ := genAccessLog(500, 1)
	rec, err := ReadRecording("a.log", []byte(log))
	if err != nil {
		t.Fatal(err)
	}
	rp, err := NewReplay(rec, "", HTTP{URL: srv.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ReplayRamp(context.Background(), rp, Config{Concurrency: []int{1, 4}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Steps {
		if s.Sent != int64(own) || s.Successes != int64(own) || s.SendLag != nil || s.Pace != 0 {
			t.Errorf("concurrency %d: sent %d, ok %d, lag %v, pace %v; want %d sent and no schedule", s.Concurrency, s.Sent, s.Successes, s.SendLag, s.Pace, own)
		}
	}
	if srv.n.Load() != 2*int64(own) {
		t.Errorf("server got %d", srv.n.Load())
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if !strings.HasPrefix(srv.paths[0], "GET /item/0?x=0 host="+srv.Listener.Addr().String()) {
		t.Errorf("first request %q", srv.paths[0])
	}
}

const testHAR = `{
  "log": {
    "version": "1.2",
    "creator": {"name": "test", "version": "1"},
    "entries": [
      {
        "startedDateTime": "2026-10-10T13:55:36.200Z",
        "request": {
          "method": "POST",
          "url": "https://shop.example/cart?id=7",
          "headers": [
            {"name": ":authority", "value": "shop.example"},
            {"name": "Host", "value": "shop.example"},
            {"name": "content-type", "value": "application/json"},
            {"name": "Content-Length", "value": "9"}
          ],
          "postData": {"mimeType": "application/json", "text": "{\"qty\":2}"}
        },
        "response": {"status": 200}
      },
      {
        "startedDateTime": "2026-10-10T13:55:36.250Z",
        "request": {"method": "GET", "url": "https://cdn.example/logo.png", "headers": []}
      },
      {
        "startedDateTime": "2026-10-10T13:55:36.100Z",
        "request": {"method": "GET", "url": "https://shop.example/", "headers": [{"name": "User-Agent", "value": "har-agent"}]}
      },
      {
        "startedDateTime": "2026-10-10T13:55:36.300Z",
        "request": {"method": "GET", "url": "data:image/png;base64,AAAA", "headers": []}
      },
      {
        "startedDateTime": "2026-10-10T13:55:36.400Z",
        "request": {"method": "PUT", "url": "https://shop.example/raw", "headers": [],
          "postData": {"text": "aGVsbG8=", "encoding": "base64"}}
      }
    ]
  }
}`

// A HAR file's requests for the replayed host go to the target, with
// their bodies and headers (not the recorded Host, pseudo-headers or
// length); other hosts and data: URLs are skipped and counted.
func TestReplayHAR(t *testing.T) {
	srv := newCountingServer(t)
	rec, err := ReadRecording("shop.har", []byte(testHAR))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Format != "har" || rec.Entries != 5 || len(rec.Requests) != 4 || rec.Skipped[skipScheme] != 1 || rec.Requests[2].Line != 25 {
		t.Fatalf("recording: %+v", rec)
	}
	rp, err := NewReplay(rec, "shop.example", HTTP{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ReplayRamp(context.Background(), rp, Config{Concurrency: []int{1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := r.Workload.Replay
	if src.Replayed != 3 || src.Unordered != 1 || len(src.OtherHosts) != 1 || src.OtherHosts[0].Host != "cdn.example" || len(src.Skipped) != 1 || src.Span != 300*time.Millisecond {
		t.Errorf("source: %+v", src)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	host := srv.Listener.Addr().String()
	want := []string{"GET / host=" + host, "POST /cart?id=7 host=" + host, "PUT /raw host=" + host}
	if strings.Join(srv.paths, "|") != strings.Join(want, "|") || srv.bodies[1] != `{"qty":2}` || srv.bodies[2] != "hello" || srv.agents["har-agent"] != 1 {
		t.Errorf("server saw %q, bodies %q, agents %v", srv.paths, srv.bodies, srv.agents)
	}

	// The default host is the target's: nothing in the file is for it.
	if _, err := NewReplay(rec, "", HTTP{URL: srv.URL}); err == nil || !strings.Contains(err.Error(), "--replay-host") {
		t.Errorf("no request for the target's host: %v", err)
	}
}

func TestHostMatches(t *testing.T) {
	for _, tc := range []struct {
		scheme, host, want string
		ok                 bool
	}{
		{"", "", "127.0.0.1:8080", true},
		{"http", "shop.example", "shop.example", true},
		{"https", "shop.example", "shop.example:443", true},
		{"http", "shop.example", "shop.example:443", false},
		{"http", "shop.example:8080", "shop.example", true},
		{"http", "shop.example:8080", "shop.example:8081", false},
		{"", "www.example.com:80", "WWW.example.com", true},
		{"http", "cdn.example", "shop.example", false},
		{"http", "[::1]:8080", "[::1]:8080", true},
	} {
		if got := hostMatches(tc.scheme, tc.host, tc.want); got != tc.ok {
			t.Errorf("hostMatches(%q, %q, %q) = %v", tc.scheme, tc.host, tc.want, got)
		}
	}
}

func TestParseAccessLog(t *testing.T) {
	in := `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326
www.example.com:80 10.0.0.1 - - [10/Oct/2000:13:55:37 -0700] "POST /form?a=b HTTP/1.1" 302 - "http://ref.example/" "Mozilla/5.0 (X11; \"quoted\")"

10.0.0.2 - - [10/Oct/2000:13:55:37 -0700] "-" 408 0
10.0.0.3 - - [10/Oct/2000:13:55:38 -0700] "\x16\x03\x01\x02\x00\x01" 400 226 "-" "-"
10.0.0.4 - - [10/Oct/2000:13:55:38 -0700] "CONNECT example.com:443 HTTP/1.1" 200 0
10.0.0.5 - - [10/Oct/2000:13:55:39 -0700] "GET http://Proxy.Example:81/x HTTP/1.1" 200 1 "-" "ua" "extra" 0.003
`
	rec, err := ReadRecording("a.log", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Entries != 6 || len(rec.Requests) != 3 || rec.Skipped[skipNoRequest] != 1 || rec.Skipped[skipNotHTTP] != 1 || rec.Skipped[skipConnect] != 1 {
		t.Fatalf("%d entries, %d requests, skipped %v", rec.Entries, len(rec.Requests), rec.Skipped)
	}
	a, b, c := rec.Requests[0], rec.Requests[1], rec.Requests[2]
	if a.Method != "GET" || a.Target != "/apache_pb.gif" || a.Host != "" || a.Line != 1 || !a.At.Equal(time.Date(2000, 10, 10, 20, 55, 36, 0, time.UTC)) || len(a.Header) != 0 {
		t.Errorf("common: %+v", a)
	}
	if b.Method != "POST" || b.Target != "/form?a=b" || b.Host != "www.example.com:80" || b.Line != 2 ||
		strings.Join(b.Header, "|") != `Referer|http://ref.example/|User-Agent|Mozilla/5.0 (X11; "quoted")` {
		t.Errorf("vhost combined: %+v", b)
	}
	if c.Host != "proxy.example:81" || c.Scheme != "http" || c.Target != "/x" || c.Line != 7 {
		t.Errorf("absolute URL: %+v", c)
	}
}

// Bad recordings: one error naming the file and line.
func TestReadRecordingErrors(t *testing.T) {
	good := `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 1` + "\n"
	for _, tc := range []struct{ in, want string }{
		{"", "r: no requests recorded"},
		{"\n\n", "r: no requests recorded"},
		{good + "hello world\n", "r:2: want the common or combined log format"},
		{good + `1.2.3.4 - - [10/Oct/2000:13:55:36] "GET / HTTP/1.0" 200 1`, "r:2: bad time"},
		{good + good + `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 2000 1`, `r:3: bad status "2000"`},
		{good + `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 lots`, `r:2: bad size "lots"`},
		{`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0 200 1`, "r:1: a quoted field with no closing quote"},
		{`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700 "GET /" 200 1`, "r:1: a [ with no ]"},
		{`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] 200 1`, `r:1: want "request" status bytes after [time]`},
		{`{"log": {"entries": [`, "r:1: the HAR file ends early"},
		{"{\n\"log\": {\"entries\": [\n{\"startedDateTime\": \"yesterday\", \"request\": {\"method\": \"GET\", \"url\": \"http://h/\"}}]}}", `r:3: entry 1: bad startedDateTime "yesterday"`},
		{"{\"log\": {\"entries\": [\n{},\n{\"startedDateTime\": \"2026-10-10T13:55:36Z\"}]}}", "r:2: entry 1: bad startedDateTime"},
		{"{\"log\": {\"entries\": [\n{\"startedDateTime\": \"2026-10-10T13:55:36Z\"}]}}", "r:2: entry 1: no request"},
		{"{\"log\": {\"entries\": [\n{\"startedDateTime\": \"2026-10-10T13:55:36Z\",\n \"request\": {\"method\": 3}}]}}", "r:2: entry 1: request.method: want string"},
		{"{\"log\": {\"entries\": [\n{\"startedDateTime\": \"2026-10-10T13:55:36Z\", \"request\": {\"method\": \"G T\", \"url\": \"http://h/\"}}]}}", `r:2: entry 1: bad method "G T"`},
		{"{\"log\": {\"entries\": [\n{\"startedDateTime\": \"2026-10-10T13:55:36Z\", \"request\": {\"method\": \"GET\", \"url\": \"/relative\"}}]}}", ""},
		{"{\"log\": {\"entries\": [\n{\"startedDateTime\": \"2026-10-10T13:55:36Z\", \"request\": {\"method\": \"GET\", \"url\": \"nope\"}}]}}", `r:2: entry 1: bad url "nope"`},
		{"{\"log\": {\"entries\": [\n{\"startedDateTime\": \"2026-10-10T13:55:36Z\", \"request\": {\"method\": \"GET\", \"url\": \"http://h/\",\n\"headers\": [{\"name\": \"X\", \"value\": \"a\\nb\"}]}}]}}", "r:2: entry 1: header X: control characters"},
		{"{\"log\": {\"entries\": [\n{\"startedDateTime\": \"2026-10-10T13:55:36Z\", \"request\": {\"method\": \"POST\", \"url\": \"http://h/\",\n\"postData\": {\"text\": \"!!\", \"encoding\": \"base64\"}}}]}}", "r:2: entry 1: postData.text is not base64"},
		{"{\"log\": {\"pages\": []}}", `r:1: not a HAR file: no "log" with "entries"`},
		{"{\"log\": {\"entries\": {}}}", `r:1: "entries" must be a list`},
		{"{\"log\": {\"entries\": []}}\n{}", "r:2: more after the HAR object"},
		{"{\n\"log\": {\"entries\": [,]}}", "r:2: not valid JSON"},
	} {
		_, err := ReadRecording("r", []byte(tc.in))
		if tc.want == "" {
			// A relative URL in a HAR file is a request with no host.
			if err != nil {
				t.Errorf("%q: %v", tc.in, err)
			}
			continue
		}
		var fe *FileError
		if err == nil || !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q:\nerror %v\nwant  %q", tc.in, err, tc.want)
		}
	}
}
