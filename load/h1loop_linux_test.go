//go:build linux

package load

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// loopRequests runs target's event loop with the given workers until it
// has recorded n requests, and returns their outcomes in order. Each
// request's times must be ordered, and each worker's requests one after
// another.
func loopRequests(t *testing.T, target Target, workers, n int) []Outcome {
	t.Helper()
	l := closedLoopFor(context.Background(), target, workers)
	if l == nil {
		t.Fatal("no event loop for a plain http:// target")
	}
	var (
		stop atomic.Bool
		outs []Outcome
		last = make([]int64, workers)
		bad  atomic.Value
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.run(context.Background(), workers, time.Now(), int64(time.Hour), &stop, func(w int, sent, end int64, out Outcome) {
			if end < sent || sent < last[w] {
				bad.Store("times out of order")
			}
			last[w] = end
			outs = append(outs, out)
			if len(outs) >= n {
				stop.Store(true)
			}
		})
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		l.Close()
		<-done
		t.Fatalf("the event loop did not finish %d requests in 30 s: %d done", n, len(outs))
	}
	if b := bad.Load(); b != nil {
		t.Fatal(b)
	}
	return outs
}

// The event loop's exchanges, as TestH1ClientExchanges tests the
// goroutines' client: a kept connection, a stale one sent again,
// Connection: close, a request larger than the socket's buffer (partial
// writes), chunked, a timeout, a bad response, and a host name whose
// addresses are tried in order.
func TestEventLoopExchanges(t *testing.T) {
	answer := func(resp string, after func(c net.Conn) bool) func(int, net.Conn, *bufio.Reader) {
		return func(_ int, c net.Conn, br *bufio.Reader) {
			for readRequest(br) == nil {
				if _, err := c.Write([]byte(resp)); err != nil || after != nil && !after(c) {
					return
				}
			}
		}
	}
	for _, tt := range []struct {
		name     string
		serve    func(int, net.Conn, *bufio.Reader)
		host     string // instead of 127.0.0.1
		body     int
		workers  int
		requests int
		first    string // the first request's class
		class    string // the others'
		conns    int64  // connections the requests took
	}{
		{name: "keep-alive", serve: answer(okResponse, nil), requests: 5, conns: 1},
		{name: "four workers", serve: answer(okResponse, nil), workers: 4, requests: 40, conns: 4},
		{name: "stale connection", serve: answer(okResponse, func(net.Conn) bool { return false }), requests: 4, conns: 4},
		// The server resets the connection when the next request
		// arrives (closing with it unread): sent again, as a stale one.
		{name: "reset as the next request arrives", serve: answer(okResponse, resetOnNext), requests: 4, conns: 4},
		{name: "connection close", serve: answer("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", func(net.Conn) bool { return false }), requests: 3, conns: 3},
		{name: "a body larger than the socket's buffer", serve: answer(okResponse, nil), body: 8 << 20, requests: 3, conns: 1},
		{name: "chunked", serve: answer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", nil), requests: 3, conns: 1},
		{name: "later than the timeout", serve: answer(okResponse, func(net.Conn) bool { time.Sleep(time.Second); return true }), requests: 2, class: ClassTimeout},
		{name: "status 503", serve: answer("HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n", nil), requests: 3, first: "status 503", class: "status 503", conns: 1},
		{name: "not HTTP", serve: answer("HTTP/1.1 2x0 OK\r\n\r\n", nil), requests: 3, first: ClassProtocol, class: ClassProtocol, conns: 3},
		{name: "localhost", serve: answer(okResponse, nil), host: "localhost", requests: 3, conns: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr, conns := scriptedServer(t, tt.serve)
			if tt.host != "" {
				_, port, _ := net.SplitHostPort(addr)
				addr = net.JoinHostPort(tt.host, port)
			}
			h := HTTP{URL: "http://" + addr + "/", Timeout: 300 * time.Millisecond}
			if tt.body > 0 {
				h.Method, h.Body = "POST", bytes.Repeat([]byte("x"), tt.body)
			}
			target, err := NewHTTP(h)
			if err != nil {
				t.Fatal(err)
			}
			workers := max(1, tt.workers)
			outs := loopRequests(t, target, workers, tt.requests)
			// Requests in flight when the last was recorded complete too.
			if len(outs) < tt.requests || len(outs) > tt.requests+workers-1 {
				t.Fatalf("%d requests recorded, want %d to %d", len(outs), tt.requests, tt.requests+workers-1)
			}
			for i, out := range outs {
				want := tt.class
				if i == 0 {
					want = tt.first
				}
				if out.Class != want {
					t.Fatalf("request %d: %q, want %q", i+1, out.Class, want)
				}
				if want == "" && out.Bytes <= 0 {
					t.Errorf("request %d: %d bytes", i+1, out.Bytes)
				}
			}
			if tt.name == "keep-alive" && outs[0].Bytes != int64(len(okResponse)) {
				t.Errorf("%d bytes, want %d", outs[0].Bytes, len(okResponse))
			}
			if tt.conns > 0 && tt.workers == 0 && conns() != tt.conns || tt.workers > 0 && conns() != int64(tt.workers) {
				t.Errorf("%d requests took %d connections, want %d", tt.requests, conns(), tt.conns)
			}
		})
	}
}

// Close abandons a request waiting for its response: it is recorded as
// cancelled, and the loop returns.
func TestEventLoopCloseAbandons(t *testing.T) {
	addr, _ := scriptedServer(t, func(_ int, c net.Conn, br *bufio.Reader) {
		readRequest(br)
		time.Sleep(5 * time.Second)
	})
	target, err := NewHTTP(HTTP{URL: "http://" + addr + "/"})
	if err != nil {
		t.Fatal(err)
	}
	l := closedLoopFor(context.Background(), target, 3)
	var stop atomic.Bool
	var outs []Outcome
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.run(context.Background(), 3, time.Now(), int64(time.Hour), &stop, func(_ int, _, _ int64, out Outcome) { outs = append(outs, out) })
	}()
	time.Sleep(100 * time.Millisecond)
	stop.Store(true) // as the step does at the window's end: nothing new is sent
	l.Close()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("Close did not end requests waiting for their responses")
	}
	if len(outs) != 3 {
		t.Fatalf("%d requests recorded, want the 3 in flight", len(outs))
	}
	for _, out := range outs {
		if out.Class != ClassCanceled {
			t.Errorf("abandoned request: %q, want %q", out.Class, ClassCanceled)
		}
	}
}

// A request the server never answers is abandoned drainGrace after the
// window and counted as the goroutines count it: unfinished, in the
// latency at its age then, not an error.
func TestRampEventLoopAbandonedRequestCounts(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			<-r.Context().Done()
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	defer srv.CloseClientConnections()
	target, err := NewHTTP(HTTP{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	bothLoops(t, func(t *testing.T) {
		n.Store(0)
		r, err := Ramp(context.Background(), target, Config{Concurrency: []int{2}, Warmup: -1, Duration: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		s := r.Steps[0]
		if s.Latency.Max < drainGrace || s.Unfinished != 1 || s.InFlight < 1 || len(s.Errors) != 0 {
			t.Errorf("max %v, unfinished %d, in flight %d, errors %+v: want the stalled request unfinished, at least %v, no error",
				s.Latency.Max, s.Unfinished, s.InFlight, s.Errors, drainGrace)
		}
	})
}

// Which targets the event loop runs: plain http:// of one request only.
func TestClosedLoopFor(t *testing.T) {
	plain, _ := NewHTTP(HTTP{URL: "http://127.0.0.1:1/"})
	tls, _ := NewHTTP(HTTP{URL: "https://127.0.0.1:1/"})
	h2c, _ := NewHTTP(HTTP{URL: "http://127.0.0.1:1/", HTTP2: true})
	unresolved, _ := NewHTTP(HTTP{URL: "http://no-such-host.invalid/"})
	f := Func(func(context.Context) error { return nil })
	for _, tt := range []struct {
		name   string
		target Target
		want   bool
	}{
		{"plain", plain, true},
		{"https", tls, false},
		{"h2c", h2c, false},
		{"a host that does not resolve", unresolved, false},
		{"func", f, false},
	} {
		if got := closedLoopFor(context.Background(), tt.target, 4) != nil; got != tt.want {
			t.Errorf("%s: event loop %v, want %v", tt.name, got, tt.want)
		}
	}
}
