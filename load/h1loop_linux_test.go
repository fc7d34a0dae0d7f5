//go:build linux

package load

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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
	awaitLoop(t, l, done, func() string { return fmt.Sprintf("finish %d requests in 30 s: %d done", n, len(outs)) })
	if b := bad.Load(); b != nil {
		t.Fatal(b)
	}
	return outs
}

// The event loop's exchanges, as TestH1ClientExchanges tests the
// goroutines' client (exchangeCases), and several workers, a request
// larger than the socket's buffer (partial writes), a host name whose
// addresses are tried in order.
func TestEventLoopExchanges(t *testing.T) {
	cases := append(exchangeCases(),
		exchangeCase{name: "four workers", serve: answer(okResponse, nil), workers: 4, requests: 40, conns: 4},
		exchangeCase{name: "a body larger than the socket's buffer", serve: answer(okResponse, nil), body: 8 << 20, requests: 3, conns: 1},
		exchangeCase{name: "localhost", serve: answer(okResponse, nil), host: "localhost", requests: 3, conns: 1})
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			target, conns := exchangeTarget(t, tt)
			workers := max(1, tt.workers)
			outs := loopRequests(t, target, workers, tt.requests)
			// Requests in flight when the last was recorded complete too.
			if len(outs) < tt.requests || len(outs) > tt.requests+workers-1 {
				t.Fatalf("%d requests recorded, want %d to %d", len(outs), tt.requests, tt.requests+workers-1)
			}
			checkExchange(t, tt, outs, conns())
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

// BenchmarkEventLoop is one request and response through the event loop
// over loopback, one connection (BenchmarkH1Client's exchange); allocs/op
// is the loop's hot path.
func BenchmarkEventLoop(b *testing.B) {
	addr, stop := cannedServer(b)
	defer stop()
	target, err := NewHTTP(HTTP{URL: "http://" + addr + "/", Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	l := closedLoopFor(context.Background(), target, 1)
	var (
		halt atomic.Bool
		n    int
	)
	b.ReportAllocs()
	b.ResetTimer()
	l.run(context.Background(), 1, time.Now(), int64(time.Hour), &halt, func(_ int, _, _ int64, out Outcome) {
		if out.Class != "" {
			b.Error(out.Class)
			halt.Store(true)
		}
		if n++; n >= b.N {
			halt.Store(true)
		}
	})
}

// When the loop returns, its connections are closed, as the step closes
// the goroutines' clients: a ramp of many steps does not keep every
// step's connections open.
func TestEventLoopClosesConnections(t *testing.T) {
	var open atomic.Int64
	addr, _ := scriptedServer(t, func(n int, c net.Conn, br *bufio.Reader) {
		open.Add(1)
		defer open.Add(-1)
		answer(okResponse, nil)(n, c, br)
	})
	target, err := NewHTTP(HTTP{URL: "http://" + addr + "/"})
	if err != nil {
		t.Fatal(err)
	}
	loopRequests(t, target, 3, 30)
	for wait := time.Now(); open.Load() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Since(wait) > 5*time.Second {
			t.Fatalf("%d connections still open 5 s after the loop returned", open.Load())
		}
	}
}

// A spin returns the events that arrive while it polls; one that finds
// nothing makes the next waits block without spinning, twice as many each
// time up to maxSkip, and counts its time as spun.
func TestLoopSpinBacksOff(t *testing.T) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ep)
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(efd)
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, efd, &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: 7}); err != nil {
		t.Fatal(err)
	}
	th := &loopThread{ep: ep}
	events := make([]unix.EpollEvent, 4)
	spins := 0
	for i := 0; i < 150; i++ {
		before := th.spun
		n, err := th.spin(events)
		if n != 0 || err != nil {
			t.Fatalf("wait %d: %d events, %v from an empty set", i, n, err)
		}
		if th.spun > before {
			spins++
			if th.spun-before < spinFor {
				t.Fatalf("wait %d: spun %v, less than spinFor", i, th.spun-before)
			}
		}
	}
	// Spins at waits 0, 2, 5, 10, 19, 36, 69, 134: skips of 1, 2, 4, ... 64.
	if spins != 8 || th.back != maxSkip {
		t.Errorf("%d spins in 150 empty waits, back %d; want 8 and %d", spins, th.back, maxSkip)
	}
	th.skip = 0
	var one [8]byte
	one[0] = 1
	if _, err := unix.Write(efd, one[:]); err != nil {
		t.Fatal(err)
	}
	n, err := th.spin(events)
	if n != 1 || err != nil || events[0].Fd != 7 || th.back != 0 {
		t.Errorf("spin with an event ready: %d events (fd %d), %v, back %d; want 1 (7), nil, 0", n, events[0].Fd, err, th.back)
	}
}

// A loop thread reschedules its goroutine at least every yieldEvery while
// it runs, so that the Go runtime's sysmon does not take it for a
// goroutine running too long (which kept sysmon at its shortest sleep,
// taking the thread's P in its system calls). The loop runs until its
// requests span 4 yieldEvery; it must have yielded at least once (about
// 4 times, fewer only if its thread was not running).
func TestEventLoopYields(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	target, err := NewHTTP(HTTP{URL: srv.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	l, ok := closedLoopFor(context.Background(), target, 2).(*eventLoop)
	if !ok {
		t.Fatal("no event loop for a plain http:// target")
	}
	var stop atomic.Bool
	n := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.run(context.Background(), 2, time.Now(), int64(time.Hour), &stop, func(_ int, _, end int64, _ Outcome) {
			n++
			if end >= int64(4*yieldEvery) {
				stop.Store(true)
			}
		})
	}()
	awaitLoop(t, l, done, func() string { return fmt.Sprintf("run for %v in 30 s", 4*yieldEvery) })
	yields := 0
	for _, th := range l.threads {
		yields += th.yields
	}
	if yields == 0 {
		t.Errorf("%d requests over %v: the loop never yielded", n, 4*yieldEvery)
	}
}

// awaitLoop waits for the event loop's run to close done; after 30 s it
// closes the loop, waits for run to return and fails with what the loop
// did not do (what, read once run has returned).
func awaitLoop(t *testing.T, l closedLoop, done <-chan struct{}, what func() string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		l.Close()
		<-done
		t.Fatalf("the event loop did not %s", what())
	}
}
