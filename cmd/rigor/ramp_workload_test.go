package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
// sent are within 1 point of the weights, and each endpoint's p99 is in
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
	for i, want := range []float64{0.70, 0.20, 0.10} {
		q := s.ByRequest[i]
		t.Logf("%s: %d sent, share %.2f%%, p99 %v", q.Name, q.Sent, 100*q.Share, q.Latency.P99)
		if math.Abs(q.Share-want) > 0.01 {
			t.Errorf("%s: share %.4f, want %.2f within 1 point", q.Name, q.Share, want)
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
