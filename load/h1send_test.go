package load

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// readRequest reads one request's head and body from br.
func readRequest(br *bufio.Reader) error {
	length := 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length: "); ok {
			length, _ = strconv.Atoi(v)
		}
	}
	_, err := br.Discard(length)
	return err
}

// scriptedServer serves each connection with serve, which gets the
// connection's number (from 1) and its reader; it returns the address and
// the number of connections accepted so far.
func scriptedServer(t *testing.T, serve func(n int, c net.Conn, br *bufio.Reader)) (string, func() int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var conns atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := int(conns.Add(1))
			go func() {
				defer c.Close()
				serve(n, c, bufio.NewReader(c))
			}()
		}
	}()
	return ln.Addr().String(), conns.Load
}

const okResponse = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

// resetOnNext waits for the next request on c and resets the connection
// (SO_LINGER 0), as a server closing a connection with a request unread
// does: the client's read fails with ECONNRESET, not EOF.
func resetOnNext(c net.Conn) bool {
	var b [1]byte
	c.Read(b[:])
	c.(*net.TCPConn).SetLinger(0)
	return false
}

// answer serves each request on a connection with resp; after, if set,
// runs after each and says whether to go on.
func answer(resp string, after func(c net.Conn) bool) func(int, net.Conn, *bufio.Reader) {
	return func(_ int, c net.Conn, br *bufio.Reader) {
		for readRequest(br) == nil {
			if _, err := c.Write([]byte(resp)); err != nil || after != nil && !after(c) {
				return
			}
		}
	}
}

// An exchangeCase is a scripted server and what a client's requests to it
// must come to.
type exchangeCase struct {
	name     string
	serve    func(int, net.Conn, *bufio.Reader)
	host     string // instead of 127.0.0.1
	body     int    // POST a body of this many bytes
	workers  int    // event loop: connections (default 1)
	requests int
	first    string // the first request's class
	class    string // the others'
	conns    int64  // connections the requests took; 0 for any
}

// exchangeCases are the exchanges that both closed loops' clients are
// tested on: a kept connection, a stale one sent again, one reset,
// Connection: close, chunked, a response later than the timeout, an error
// status, a response that is not HTTP.
func exchangeCases() []exchangeCase {
	return []exchangeCase{
		{name: "keep-alive", serve: answer(okResponse, nil), requests: 5, conns: 1},
		// The server closes after each response without saying so: the
		// next request finds the connection stale and is sent again.
		{name: "stale connection", serve: answer(okResponse, func(net.Conn) bool { return false }), requests: 4, conns: 4},
		// The server resets the connection when the next request
		// arrives (closing with it unread): sent again, as a stale one.
		{name: "reset as the next request arrives", serve: answer(okResponse, resetOnNext), requests: 4, conns: 4},
		{name: "connection close", serve: answer("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", func(net.Conn) bool { return false }), requests: 3, conns: 3},
		{name: "chunked", serve: answer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", nil), requests: 3, conns: 1},
		{name: "later than the timeout", serve: answer(okResponse, func(net.Conn) bool { time.Sleep(time.Second); return true }), requests: 2, class: ClassTimeout},
		{name: "status 503", serve: answer("HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n", nil), requests: 3, first: "status 503", class: "status 503", conns: 1},
		{name: "not HTTP", serve: answer("HTTP/1.1 2x0 OK\r\n\r\n", nil), requests: 3, first: ClassProtocol, class: ClassProtocol, conns: 3},
	}
}

// exchangeTarget starts tt's server and returns a target for it (300 ms
// timeout) and the count of connections it accepted.
func exchangeTarget(t *testing.T, tt exchangeCase) (Target, func() int64) {
	t.Helper()
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
	return target, conns
}

// checkExchange checks the outcomes of tt's requests, and the connections
// they took.
func checkExchange(t *testing.T, tt exchangeCase, outs []Outcome, conns int64) {
	t.Helper()
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
	if tt.conns > 0 && conns != tt.conns {
		t.Errorf("%d requests took %d connections, want %d", len(outs), conns, tt.conns)
	}
}

// The client's exchanges through its raw send path and around it
// (exchangeCases, a request too large to send raw), and a request
// abandoned while it waits.
func TestH1ClientExchanges(t *testing.T) {
	cases := append(exchangeCases(),
		exchangeCase{name: "a body too large to send raw", serve: answer(okResponse, nil), body: 3 * maxRawSend, requests: 3, conns: 1})
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			target, conns := exchangeTarget(t, tt)
			c := target.NewClient()
			defer c.Close()
			var outs []Outcome
			for i := 0; i < tt.requests; i++ {
				outs = append(outs, c.Do(context.Background()))
			}
			checkExchange(t, tt, outs, conns())
		})
	}

	t.Run("abandoned while waiting", func(t *testing.T) {
		addr, _ := scriptedServer(t, func(_ int, c net.Conn, br *bufio.Reader) {
			readRequest(br)
			time.Sleep(5 * time.Second)
		})
		target, err := NewHTTP(HTTP{URL: "http://" + addr + "/", Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		c := target.NewClient()
		done := make(chan Outcome)
		go func() { done <- c.Do(context.Background()) }()
		time.Sleep(50 * time.Millisecond)
		c.Close()
		select {
		case out := <-done:
			if out.Class != ClassCanceled {
				t.Errorf("abandoned request: %q, want %q", out.Class, ClassCanceled)
			}
		case <-time.After(3 * time.Second):
			t.Fatal("Close did not end a request waiting for its response")
		}
	})
}

// envServer, set, makes TestH1ServerProcess serve canned responses on the
// address it names until its parent closes its stdin.
const envServer = "RIGOR_TEST_H1_SERVER"

func TestH1ServerProcess(t *testing.T) {
	if os.Getenv(envServer) == "" {
		t.Skip("the server process of TestH1OneReadPerResponse")
	}
	addr, stop := cannedServer(t)
	defer stop()
	fmt.Println(addr)
	buf := make([]byte, 1)
	os.Stdin.Read(buf)
}

// readSyscalls is this process's count of read system calls.
func readSyscalls(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skipf("no read system call counts: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "syscr: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no syscr in /proc/self/io")
	return 0
}

// The client reads each response with one read system call: it waits for
// the response to arrive rather than trying a read that finds nothing
// first (before, it made two per response). The server runs in another
// process, so that its reads are not counted.
func TestH1OneReadPerResponse(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts system calls in /proc/self/io")
	}
	srv := exec.Command(os.Args[0], "-test.run=^TestH1ServerProcess$", "-test.count=1")
	srv.Env = append(os.Environ(), envServer+"=1")
	stdin, err := srv.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Wait()
	defer stdin.Close()
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	target, err := NewHTTP(HTTP{URL: "http://" + strings.TrimSpace(addr) + "/", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c := target.NewClient()
	defer c.Close()
	ctx := context.Background()
	if out := c.Do(ctx); out.Class != "" { // connect outside the count
		t.Fatal(out.Class)
	}
	const n = 2000
	before := readSyscalls(t)
	for i := 0; i < n; i++ {
		if out := c.Do(ctx); out.Class != "" {
			t.Fatal(out.Class)
		}
	}
	reads := readSyscalls(t) - before
	t.Logf("%d read system calls for %d responses", reads, n)
	// A little slack for the test's own reads.
	if reads > n+n/20 {
		t.Errorf("%d read system calls for %d responses, want one each", reads, n)
	}
}
