package main

import (
	"encoding/csv"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// threeEndpoints serves /a at once, /b after 1 ms and /c after 3 ms.
func threeEndpoints(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/b":
			time.Sleep(time.Millisecond)
		case "/c":
			time.Sleep(3 * time.Millisecond)
		}
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

const workload702010 = `requests:
  - {name: home, url: /a, weight: 70}
  - {name: search, url: /b, weight: 20, slo: "p99=5s"}
  - {name: checkout, url: /c, weight: 10, method: POST, body: "{}"}
`

// TestRampWorkload is the Must-show: a workload of three endpoints
// weighted 70/20/10 against a local server. The shares of the requests
// sent are within 1 point of the weights (or, of a step that sent few,
// within what the shuffled blocks and the requests in flight allow), and each endpoint's p99 is in
// every format: text, Markdown, CSV and JSON from rigor ramp, HTML from
// rigor report of the JSON.
func TestRampWorkload(t *testing.T) {
	srv := threeEndpoints(t)
	dir := t.TempDir()
	wf := filepath.Join(dir, "mix.yaml")
	if err := os.WriteFile(wf, []byte(workload702010), 0o644); err != nil {
		t.Fatal(err)
	}
	common := []string{"ramp", "-q", "--workload", wf, "--concurrency", "4", "--warmup", "50ms", "--duration", "400ms"}
	stdout, stderr, code := rigor(t, append(common, "--format", "json", srv.URL)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var run model.Run
	if err := json.Unmarshal([]byte(stdout), &run); err != nil {
		t.Fatal(err)
	}
	r := run.Ramp
	if r == nil || len(r.Steps) != 1 || r.Workload == nil || len(r.Workload.Requests) != 3 {
		t.Fatalf("unexpected ramp: %+v", r)
	}
	s := r.Steps[0]
	if len(s.ByRequest) != 3 || s.Sent < 100 {
		t.Fatalf("step: %d requests sent, by request %+v", s.Sent, s.ByRequest)
	}
	p99 := map[string]time.Duration{}
	// The picks are blocks of 10 (7, 2 and 1 of each), shuffled: the
	// window holds a run of them cut at both ends, at most 2 parts of a
	// request's from its share, and at each end the concurrency's
	// requests in flight can fall either side. A starved machine sends
	// few, where that, not 1 point, bounds a share (CI: search 19 of 102).
	const concurrency = 4
	for i, want := range []float64{0.70, 0.20, 0.10} {
		q := s.ByRequest[i]
		parts := want * 10
		tol := max(0.01, (2*parts+2*concurrency)/float64(s.Sent))
		t.Logf("%s: %d sent, share %.2f%%, p99 %v (tolerance %.2f points)", q.Name, q.Sent, 100*q.Share, q.Latency.P99, 100*tol)
		if math.Abs(q.Share-want) > tol {
			t.Errorf("%s: share %.4f, want %.2f within %.2f points", q.Name, q.Share, want, 100*tol)
		}
		p99[q.Name] = q.Latency.P99
	}
	if !s.ByRequest[1].SLOMet || r.SLO == nil || len(r.SLO.Requests) != 1 {
		t.Errorf("search's SLO: %+v, ramp SLO %+v", s.ByRequest[1], r.SLO)
	}
	if p99["checkout"] < 3*time.Millisecond {
		t.Errorf("checkout's p99 %v is below its 3 ms sleep", p99["checkout"])
	}

	// Every format shows each endpoint's p99: the text and Markdown
	// tables have a row per endpoint with its name; the CSV a row per
	// endpoint with p99_ns; the HTML the same table.
	text, stderr, code := rigor(t, append(common, srv.URL)...)
	if code != exitOK {
		t.Fatalf("text: exit %d: %s", code, stderr)
	}
	md, _, _ := rigor(t, append(common, "--format", "md", srv.URL)...)
	for name, out := range map[string]string{"text": text, "md": md} {
		for _, want := range []string{"by request", "home", "search", "checkout", "p99", "weight", "70.0%", "20.0%", "10.0%"} {
			if !strings.Contains(strings.ToLower(out), strings.ToLower(want)) {
				t.Errorf("%s output lacks %q:\n%s", name, want, out)
			}
		}
	}
	t.Logf("text:\n%s", text)
	out, _, _ := rigor(t, append(common, "--format", "csv", srv.URL)...)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	got := map[string]string{}
	for _, row := range rows[1:] {
		if name := row[col["request"]]; name != "" {
			got[name] = row[col["p99_ns"]]
		}
	}
	for _, name := range []string{"home", "search", "checkout"} {
		if v := got[name]; v == "" || v == "0" {
			t.Errorf("csv: no p99 for %s: %v\n%s", name, got, out)
		}
	}
	in := filepath.Join(dir, "run.json")
	if err := os.WriteFile(in, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	html, stderr, code := rigor(t, "report", "--format", "html", in)
	if code != exitOK {
		t.Fatalf("html: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"By request", "<td>home</td>", "<td>search</td>", "<td>checkout</td>", "<th>p99</th>"} {
		if !strings.Contains(html, want) {
			t.Errorf("html lacks %q", want)
		}
	}
}

// Bad workload input: one line naming the file and line, exit 2.
func TestRampWorkloadBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", "requests:\n  - {name: a, url: /a}\n")
	bad := write("bad.yaml", "requests:\n  - name: a\n    url: /a\n    weight: lots\n")
	veg := write("targets.txt", "GET http://127.0.0.1:1/\nnot a header\n")
	notpem := write("ca.pem", "not a certificate\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ramp", "--workload", bad, "http://127.0.0.1:1/"}, "rigor: " + bad + ":4: request \"a\": weight must be a positive number"},
		{[]string{"ramp", "--workload", veg}, "rigor: " + veg + ":2: want a header"},
		{[]string{"ramp", "--workload", good}, "rigor: " + good + ":2: request \"a\": URL \"/a\" is relative"},
		{[]string{"ramp", "--workload", filepath.Join(dir, "missing.yaml"), "http://127.0.0.1:1/"}, "rigor: --workload: open"},
		{[]string{"ramp", "--workload", good, "-X", "PUT", "http://127.0.0.1:1/"}, "rigor: -X does not apply to --workload"},
		{[]string{"ramp", "--workload", good, "-d", "x", "http://127.0.0.1:1/"}, "rigor: -d does not apply to --workload"},
		{[]string{"ramp", "--workload", good, "a", "b"}, "rigor: ramp takes one URL, got 2 arguments"},
		{[]string{"ramp", "--cacert", notpem, "https://127.0.0.1:1/"}, "rigor: --cacert: " + notpem + " holds no PEM certificate"},
		{[]string{"ramp", "--cacert", notpem, "--insecure", "https://127.0.0.1:1/"}, "rigor: --cacert: give --insecure or --cacert, not both"},
	} {
		_, stderr, code := rigor(t, tc.args...)
		if code != exitUsage || !strings.HasPrefix(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line starting %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestRampReplay is the Must-show replay: a generated access log of
// 10,000 lines over two seconds, 1,000 of them for another host, replayed
// at 1x and 4x. Each step sends the 9,000 lines for the target; the
// report counts the 1,000 skipped, gives the schedule's timing error and
// says that a replay does not react to latency as clients do.
func TestRampReplay(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	var b strings.Builder
	for i := range 10000 {
		target := fmt.Sprintf("/page/%d", i%5)
		if i%10 == 0 {
			target = "http://elsewhere.example/x"
		}
		fmt.Fprintf(&b, "10.1.%d.%d - - [01/Dec/2026:09:00:%02d +0000] \"GET %s HTTP/1.1\" 200 10 \"-\" \"gen\"\n", i/256%256, i%256, i/5000, target)
	}
	log := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := rigor(t, "ramp", "-q", "--replay", log, "--pace", "1x,4x", "--format", "json", srv.URL)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var run model.Run
	if err := json.Unmarshal([]byte(stdout), &run); err != nil {
		t.Fatal(err)
	}
	r := run.Ramp
	if r.Workload == nil || r.Workload.Replay == nil || len(r.Steps) != 2 {
		t.Fatalf("ramp: %+v", r)
	}
	src := r.Workload.Replay
	if src.Entries != 10000 || src.Replayed != 9000 || len(src.OtherHosts) != 1 || src.OtherHosts[0].Count != 1000 || src.OtherHosts[0].Host != "elsewhere.example" {
		t.Errorf("source %+v", src)
	}
	for _, s := range r.Steps {
		if s.Sent != 9000 || s.SendLag == nil || s.SendLag.Count != 9000 {
			t.Errorf("pace %gx: sent %d, lag %+v; want 9000 sent, each with its timing error", s.Pace, s.Sent, s.SendLag)
			continue
		}
		t.Logf("pace %gx: %d sent over %v (offered %.0f/s, sent %.0f/s, valid %v); timing error p50 %v, p99 %v, max %v",
			s.Pace, s.Sent, s.Duration, s.Offered, s.Achieved, s.Valid, s.SendLag.P50, s.SendLag.P99, s.SendLag.Max)
	}
	// rigor is done when each request is answered or its step ended; the
	// server's handlers can still be reading the last (a starved machine
	// in CI: 17,927 when rigor exited).
	for deadline := time.Now().Add(10 * time.Second); served.Load() < 18000 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := served.Load(); got != 18000 {
		t.Errorf("the server got %d requests, want 2 × 9000", got)
	}
	in := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(in, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	text, _, code := rigor(t, "report", "--format", "text", in)
	for _, want := range []string{"does not react to latency as real clients do", "skipped 1000 requests for other hosts, never sent: elsewhere.example ×1000",
		"9000 requests for 127.0.0.1", "step 2 (4x, ", "schedule error (actual − intended send time): p50"} {
		if !strings.Contains(text, want) {
			t.Errorf("exit %d; text lacks %q:\n%s", code, want, text)
		}
	}
}

// Bad replay input: one line naming the file and line, exit 2.
func TestRampReplayBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	line := `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 1` + "\n"
	good := write("good.log", line)
	bad := write("bad.log", line+line+"garbage\n")
	har := write("bad.har", "{\"log\": {\"entries\": [\n{\"startedDateTime\": \"soon\"}]}}")
	other := write("other.log", `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET http://far.example/ HTTP/1.0" 200 1`+"\n")
	u := "http://127.0.0.1:1"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ramp", "--replay", bad, u}, "rigor: " + bad + ":3: want the common or combined log format"},
		{[]string{"ramp", "--replay", har, u}, "rigor: " + har + ":2: entry 1: bad startedDateTime"},
		{[]string{"ramp", "--replay", other, u}, "rigor: " + other + ": none of its 1 requests is for 127.0.0.1:1 (1 are for far.example): name the recorded host to replay with --replay-host"},
		{[]string{"ramp", "--replay", filepath.Join(dir, "none.log"), u}, "rigor: --replay: open"},
		{[]string{"ramp", "--replay", good, "--pace", "fast", u}, `rigor: --pace: bad pace "fast"`},
		{[]string{"ramp", "--replay", good, "--pace", "0x", u}, `rigor: --pace: bad pace "0x"`},
		{[]string{"ramp", "--replay", good, "--pace", "2x", "--concurrency", "4", u}, "rigor: give --pace (open loop) or --concurrency/--ramp (closed loop) to --replay, not both"},
		{[]string{"ramp", "--replay", good, "--rate", "100", u}, "rigor: --rate does not apply to --replay"},
		{[]string{"ramp", "--replay", good, "--duration", "1s", u}, "rigor: --warmup and --duration do not apply to --replay"},
		{[]string{"ramp", "--replay", good, "-d", "x", u}, "rigor: -X and -d do not apply to --replay"},
		{[]string{"ramp", "--replay", good, u + "/base"}, "rigor: bad URL \"http://127.0.0.1:1/base\": a replay sends the recorded paths"},
		{[]string{"ramp", "--replay", good}, "rigor: ramp takes one URL, got none"},
		{[]string{"ramp", "--pace", "2x", u}, "rigor: --pace paces a replay: give --replay FILE"},
		{[]string{"ramp", "--replay-host", "a", u}, "rigor: --replay-host names the recorded host of a replay"},
		{[]string{"ramp", "--replay", good, "--workload", good, u}, "rigor: give --workload or --replay, not both"},
		{[]string{"ramp", "--replay", good, "--shard", "0/2", "--format", "json", u}, "rigor: --shard does not apply to --replay"},
	} {
		_, stderr, code := rigor(t, tc.args...)
		if code != exitUsage || !strings.HasPrefix(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line starting %q", tc.args, code, stderr, tc.want)
		}
	}
}

// An https test server with its own CA: without --cacert every request
// fails verification; with --cacert (the server's certificate) or
// --insecure (and its warning line) they succeed, for one URL and for a
// workload alike.
func TestRampTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshakes are the point
	srv.StartTLS()
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	pemBlock := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemBlock, 0o644); err != nil {
		t.Fatal(err)
	}
	wf := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(wf, []byte("requests:\n  - {name: a, url: /a}\n  - {name: b, url: /b}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(extra ...string) (model.RampStep, string) {
		t.Helper()
		args := append([]string{"ramp", "-q", "--concurrency", "1", "--warmup", "0", "--duration", "300ms", "--format", "json"}, extra...)
		stdout, stderr, code := rigor(t, append(args, srv.URL)...)
		if code != exitOK {
			t.Fatalf("%q: exit %d: %s", extra, code, stderr)
		}
		var run model.Run
		if err := json.Unmarshal([]byte(stdout), &run); err != nil {
			t.Fatal(err)
		}
		return run.Ramp.Steps[0], stderr
	}
	// (Under the race detector a failed handshake can outlast the window:
	// then nothing completed, which is no success either.)
	if s, _ := run(); s.Successes != 0 || s.Requests > 0 && len(s.Errors) == 0 {
		t.Errorf("no CA: %d successes, errors %v; want every request to fail verification", s.Successes, s.Errors)
	}
	for _, extra := range [][]string{{"--cacert", ca}, {"--cacert", ca, "--workload", wf}, {"--insecure"}} {
		s, stderr := run(extra...)
		if s.Successes == 0 || len(s.Errors) != 0 {
			t.Errorf("%q: %d successes, errors %v", extra, s.Successes, s.Errors)
		}
		warned := strings.HasPrefix(stderr, "rigor: warning: --insecure: the server's TLS certificate is not verified")
		if insecure := extra[0] == "--insecure"; warned != insecure || insecure && strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: stderr %q", extra, stderr)
		}
	}
}
