package load

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// Short steps keep the package's tests to a few seconds; nothing below
// asserts on speed.
const (
	testWarmup   = 50 * time.Millisecond
	testDuration = 250 * time.Millisecond
)

// rampEnough runs a ramp, retrying with longer steps while a step completed
// fewer than min requests: on a busy shared machine a short window can
// pass with the test process barely scheduled. It checks behaviour, not
// speed.
func rampEnough(t *testing.T, target Target, cfg Config, min int64) *model.Ramp {
	t.Helper()
	for try := 0; ; try++ {
		r, err := Ramp(context.Background(), target, cfg)
		if err != nil {
			t.Fatal(err)
		}
		enough := len(r.Steps) > 0
		for _, s := range r.Steps {
			enough = enough && s.Requests >= min
		}
		if enough || try == 3 {
			return r
		}
		cfg.Duration *= 2
		t.Logf("fewer than %d requests completed: the machine is busy; retrying with %v steps", min, cfg.Duration)
	}
}

func errorCount(s model.RampStep, class string) int64 {
	for _, e := range s.Errors {
		if e.Class == class {
			return e.Count
		}
	}
	return 0
}

// A handler that fails every other request: the failures are reported by
// class, and throughput and latency count only the successes.
func TestRampHTTPHalfErrors(t *testing.T) {
	bothLoops(t, func(t *testing.T) {
		var n atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1)%2 == 0 {
				http.Error(w, "boom", http.StatusInternalServerError)
				return
			}
			w.Write([]byte("ok"))
		}))
		defer srv.Close()
		target, err := NewHTTP(HTTP{URL: srv.URL + "/x?y=1", Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		r := rampEnough(t, target, Config{Concurrency: []int{2}, Warmup: testWarmup, Duration: testDuration}, 20)
		if len(r.Steps) != 1 {
			t.Fatalf("%d steps, want 1", len(r.Steps))
		}
		s := r.Steps[0]
		if s.Requests < 20 {
			t.Fatalf("only %d requests completed in %v", s.Requests, s.Duration)
		}
		if len(s.Errors) != 1 || s.Errors[0].Class != "status 500" {
			t.Fatalf("errors = %+v, want only status 500", s.Errors)
		}
		failed := s.Errors[0].Count
		if s.Successes+failed != s.Requests {
			t.Errorf("successes %d + failures %d != requests %d", s.Successes, failed, s.Requests)
		}
		// The server alternates, so about half of those in the window failed.
		if math.Abs(float64(failed)/float64(s.Requests)-0.5) > 0.05 {
			t.Errorf("%d of %d failed, want about half", failed, s.Requests)
		}
		if math.Abs(s.ErrorRate-float64(failed)/float64(s.Requests)) > 1e-12 {
			t.Errorf("error rate %v, want %d/%d", s.ErrorRate, failed, s.Requests)
		}
		if want := float64(s.Successes) / s.Duration.Seconds(); math.Abs(s.Throughput-want) > 1e-9*want {
			t.Errorf("throughput %v, want successes/duration = %v", s.Throughput, want)
		}
		// Closed loop: the latency holds the successes and the requests still
		// in flight at the window's end, at most one per worker.
		if s.Latency.Count != s.Successes+s.InFlight || s.InFlight > 2 {
			t.Errorf("latency histogram holds %d requests, want the %d successes and the %d in flight (at most 2)", s.Latency.Count, s.Successes, s.InFlight)
		}
		if s.ErrorLatency == nil || s.ErrorLatency.Count != failed {
			t.Errorf("error latency = %+v, want %d failures", s.ErrorLatency, failed)
		}
		if s.BytesPerSec <= 0 {
			t.Errorf("bytes/s = %v", s.BytesPerSec)
		}
		if s.Offered != s.Achieved || s.Achieved != float64(s.Requests)/s.Duration.Seconds() {
			t.Errorf("closed loop: offered %v, achieved %v, want both requests/duration", s.Offered, s.Achieved)
		}
	})
}

func TestRampHTTPTimeoutsAndConnectErrors(t *testing.T) {
	bothLoops(t, func(t *testing.T) {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer srv.Close()
		defer close(release)
		slow, err := NewHTTP(HTTP{URL: srv.URL, Timeout: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		r := rampEnough(t, slow, Config{Concurrency: []int{1}, Warmup: -1, Duration: 200 * time.Millisecond}, 1)
		s := r.Steps[0]
		if errorCount(s, ClassTimeout) == 0 || s.Successes != 0 || s.Throughput != 0 {
			t.Errorf("slow server: errors %+v, successes %d, throughput %v; want only timeouts", s.Errors, s.Successes, s.Throughput)
		}

		// A port with nothing listening.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		closed, err := NewHTTP(HTTP{URL: "http://" + addr + "/", Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		r = rampEnough(t, closed, Config{Concurrency: []int{1}, Warmup: -1, Duration: 100 * time.Millisecond}, 1)
		if s := r.Steps[0]; errorCount(s, ClassConnect) == 0 || s.Successes != 0 {
			t.Errorf("closed port: errors %+v, successes %d; want connect errors", s.Errors, s.Successes)
		}
		if r.Headline.Basis != "none" {
			t.Errorf("headline %+v for a target that never answered", r.Headline)
		}
	})
}

func TestRampFuncErrorClasses(t *testing.T) {
	var n atomic.Int64
	f := Func(func(ctx context.Context) error {
		switch n.Add(1) % 4 {
		case 0:
			return ErrorClass("rate limited", errors.New("429"))
		case 1:
			return context.DeadlineExceeded
		}
		return nil
	})
	r := rampEnough(t, f, Config{Name: "limiter", Concurrency: []int{1}, Warmup: testWarmup, Duration: 100 * time.Millisecond}, 8)
	s := r.Steps[0]
	if r.Target != "limiter" || r.Protocol != "func" {
		t.Errorf("target %q protocol %q", r.Target, r.Protocol)
	}
	limited, timeouts := errorCount(s, "rate limited"), errorCount(s, ClassTimeout)
	if len(s.Errors) != 2 || limited == 0 || timeouts == 0 {
		t.Fatalf("errors = %+v, want rate limited and timeout", s.Errors)
	}
	// One call in four of each class, so the two counts differ by at most one.
	if d := limited - timeouts; d < -1 || d > 1 {
		t.Errorf("rate limited %d vs timeouts %d, want equal within one", limited, timeouts)
	}
	if s.Target == nil {
		t.Error("a Func target with no PID should be measured as this process")
	}
}

// In the open loop one stalled request holds up those scheduled behind it
// (one worker): latency from the intended start counts the stall for all
// of them, latency from the send only for the one that stalled.
func TestRampOpenLoopCoordinatedOmission(t *testing.T) {
	const stall = 200 * time.Millisecond
	var once sync.Once
	start := time.Now()
	f := Func(func(ctx context.Context) error {
		if time.Since(start) > testWarmup+100*time.Millisecond {
			once.Do(func() { time.Sleep(stall) })
		}
		return nil
	})
	r, err := Ramp(context.Background(), f, Config{Rates: []float64{200}, Warmup: testWarmup, Duration: 600 * time.Millisecond, MaxWorkers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != model.RampOpen || r.Amdahl != nil {
		t.Errorf("mode %q, fit %v: want open and no fit", r.Mode, r.Amdahl)
	}
	s := r.Steps[0]
	if s.ServiceLatency == nil {
		t.Fatal("no latency from the send in the open loop")
	}
	corrected, sent := s.Latency, *s.ServiceLatency
	t.Logf("corrected p50 %v p90 %v max %v; from send p50 %v p90 %v max %v", corrected.P50, corrected.P90, corrected.Max, sent.P50, sent.P90, sent.Max)
	// 200/s for 600 ms is 120 requests; a 200 ms stall delays about 40.
	// The stalled request's latency is at least the sleep whatever the
	// machine does: a lower bound, safe under -short.
	if corrected.Max < stall {
		t.Errorf("corrected max %v, want at least the %v stall", corrected.Max, stall)
	}
	if s.Offered != 200 {
		t.Errorf("offered %v, want 200", s.Offered)
	}
	if testing.Short() {
		t.Skip("-short: the p90 comparisons below assume the machine ran the 5 ms schedule and the no-op calls promptly, which a shared, busy machine need not")
	}
	if corrected.P90 < 20*time.Millisecond {
		t.Errorf("corrected p90 %v: the requests queued behind the stall should push it up", corrected.P90)
	}
	if sent.P90 > corrected.P90/2 {
		t.Errorf("latency from the send p90 %v should hide the stall that the corrected p90 %v shows", sent.P90, corrected.P90)
	}
}

// A schedule the generator cannot keep (one worker, each request 20 ms, 200
// offered per second) is marked invalid.
func TestRampOpenLoopBehindScheduleIsInvalid(t *testing.T) {
	f := Func(func(ctx context.Context) error {
		time.Sleep(20 * time.Millisecond)
		return nil
	})
	r, err := Ramp(context.Background(), f, Config{Rates: []float64{200}, Warmup: -1, Duration: 300 * time.Millisecond, MaxWorkers: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Steps[0]
	if s.Valid || !strings.Contains(s.Invalid, "offered") {
		t.Errorf("valid %v (%q) with achieved %v of %v offered", s.Valid, s.Invalid, s.Achieved, s.Offered)
	}
}

func TestRampStopsAtBrokenSLO(t *testing.T) {
	f := Func(func(ctx context.Context) error { time.Sleep(time.Millisecond); return nil })
	slo, _ := ParseSLO("p99=1ns", nil)
	r, err := Ramp(context.Background(), f, Config{Concurrency: []int{1, 2, 4}, Warmup: -1, Duration: 100 * time.Millisecond, SLO: slo})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Steps) != 1 || !strings.Contains(r.Stopped, "SLO") {
		t.Errorf("%d steps, stopped %q: want to stop after the first step broke the SLO", len(r.Steps), r.Stopped)
	}
	if s := r.Steps[0]; s.SLOMet || !strings.Contains(s.SLOMiss, "p99") {
		t.Errorf("SLO met %v, miss %q", s.SLOMet, s.SLOMiss)
	}
	if r.Headline.Basis != "none" || !strings.Contains(r.Headline.Reason, "no step met the SLO") {
		t.Errorf("headline %+v", r.Headline)
	}

	// KeepGoing runs every step.
	r, err = Ramp(context.Background(), f, Config{Concurrency: []int{1, 2}, Warmup: -1, Duration: 50 * time.Millisecond, SLO: slo, KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Steps) != 2 || r.Stopped != "" {
		t.Errorf("KeepGoing: %d steps, stopped %q", len(r.Steps), r.Stopped)
	}
}

// A function serialized by a lock cannot gain 50% from more workers, so
// the ramp stops at the knee. TestStopper checks the rule itself on
// hand-made steps.
func TestRampStopsAtKnee(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: asserts a measured knee, and on a shared machine one slow step can look like a gain; TestStopper checks the rule deterministically")
	}
	var mu sync.Mutex
	f := Func(func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		end := time.Now().Add(100 * time.Microsecond)
		for time.Now().Before(end) {
		}
		return nil
	})
	r, err := Ramp(context.Background(), f, Config{Concurrency: []int{1, 2, 4, 8, 16, 32}, Warmup: 20 * time.Millisecond, Duration: 100 * time.Millisecond, Knee: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Steps) == 6 || !strings.Contains(r.Stopped, "knee") {
		t.Errorf("%d steps, stopped %q: want to stop at the knee", len(r.Steps), r.Stopped)
	}
}

func TestRampCancel(t *testing.T) {
	f := Func(func(ctx context.Context) error {
		select {
		case <-time.After(time.Millisecond):
		case <-ctx.Done():
		}
		return ctx.Err()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	began := time.Now()
	r, err := Ramp(ctx, f, Config{Concurrency: []int{1, 2, 4, 8}, Warmup: -1, Duration: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Stopped, "interrupted") || len(r.Steps) == 4 {
		t.Errorf("stopped %q after %d steps", r.Stopped, len(r.Steps))
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("cancelled ramp took %v to return", d)
	}
}

func TestConfigErrors(t *testing.T) {
	f := Func(func(context.Context) error { return nil })
	bad := []Config{
		{},
		{Concurrency: []int{1}, Rates: []float64{1}},
		{Concurrency: []int{0}},
		{Rates: []float64{-1}},
		{Concurrency: []int{1}, Knee: -1},
		{Concurrency: []int{1}, SLO: &model.RampSLO{Percentile: 98, Latency: time.Millisecond}},
		{Concurrency: []int{1}, PID: 1 << 30},
	}
	for i, c := range bad {
		if _, err := Ramp(context.Background(), f, c); err == nil {
			t.Errorf("config %d (%+v): no error", i, c)
		}
	}
}

func TestNewHTTPErrors(t *testing.T) {
	for _, h := range []HTTP{
		{URL: "ftp://x/"},
		{URL: "http://"},
		{URL: "://nope"},
		{URL: "http://u:p@host/"},
		{URL: "http://host/", Method: "GE T"},
		{URL: "http://host/", Header: http.Header{"X-Bad": {"a\r\nb"}}},
		{URL: "http://host/", Header: http.Header{"Bad Name": {"v"}}},
	} {
		if _, err := NewHTTP(h); err == nil {
			t.Errorf("NewHTTP(%+v): no error", h)
		}
	}
}

// POST bodies and headers arrive intact through rigor's HTTP/1.1 client
// and through net/http's HTTP/2 (h2c) client.
func TestHTTPRequestShape(t *testing.T) {
	type seen struct {
		method, body, header, proto string
	}
	got := make(chan seen, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 64)
		n, _ := r.Body.Read(b)
		select {
		case got <- seen{r.Method, string(b[:n]), r.Header.Get("X-Test"), r.Proto}:
		default:
		}
		w.Write([]byte("ok"))
	})
	srv := httptest.NewUnstartedServer(h)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	defer srv.Close()
	for _, h2 := range []bool{false, true} {
		target, err := NewHTTP(HTTP{Method: "POST", URL: srv.URL, Header: http.Header{"X-Test": {"yes"}}, Body: []byte(`{"a":1}`), HTTP2: h2})
		if err != nil {
			t.Fatal(err)
		}
		c := target.NewClient()
		out := c.Do(context.Background())
		c.Close()
		if out.Class != "" {
			t.Fatalf("http2=%v: request failed: %q", h2, out.Class)
		}
		s := <-got
		wantProto := "HTTP/1.1"
		if h2 {
			wantProto = "HTTP/2.0"
		}
		if s.method != "POST" || s.body != `{"a":1}` || s.header != "yes" || s.proto != wantProto {
			t.Errorf("http2=%v: server saw %+v", h2, s)
		}
	}
}

// Without a warm-up, every request the server handled completed in the
// window except at most one per worker still in flight at its end: the
// generator counts what really happened.
func TestRampCountsMatchServer(t *testing.T) {
	bothLoops(t, func(t *testing.T) {
		var served atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			served.Add(1)
			w.Write([]byte("hello"))
		}))
		defer srv.Close()
		target, err := NewHTTP(HTTP{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		const workers = 4
		r, err := Ramp(context.Background(), target, Config{Concurrency: []int{workers}, Warmup: -1, Duration: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		s := r.Steps[0]
		if d := served.Load() - s.Requests; d < 0 || d > workers {
			t.Errorf("server handled %d requests, rigor counted %d in the window: want at most %d more", served.Load(), s.Requests, workers)
		}
		if s.Successes != s.Requests || len(s.Errors) != 0 {
			t.Errorf("errors %+v", s.Errors)
		}
	})
}
