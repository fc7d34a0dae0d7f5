package load

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// feedChunks reads data through a respReader as the event loop does, in
// reads of at most the given sizes (cycled), and returns what readResponse
// returns.
func feedChunks(data []byte, head bool, sizes []int) (status int, n int64, keep bool, err error) {
	rr := newRespReader()
	rr.p.reset(head)
	for i := 0; ; i++ {
		done, err := rr.parse(false)
		if err == nil && done {
			return rr.p.h.status, rr.p.n, rr.p.h.keepAlive, nil
		}
		if err != nil {
			return 0, rr.p.n, false, err
		}
		sp := rr.space()
		m := min(len(sp), len(data), max(1, sizes[i%len(sizes)]))
		if m == 0 {
			if len(sp) == 0 {
				panic("buffer full and the parser waits")
			}
			done, err := rr.parse(true)
			if err == nil && done {
				return rr.p.h.status, rr.p.n, rr.p.h.keepAlive, nil
			}
			return 0, rr.p.n, false, err
		}
		copy(sp, data[:m])
		data = data[m:]
		rr.w += m
	}
}

func sameResult(t *testing.T, data []byte, head bool, sizes []int) {
	t.Helper()
	ws, wn, wk, werr := readResponse(bufio.NewReaderSize(bytes.NewReader(data), 16<<10), head)
	gs, gn, gk, gerr := feedChunks(data, head, sizes)
	if !errors.Is(gerr, werr) && !(gerr == nil && werr == nil) {
		t.Fatalf("%q head=%v sizes=%v: err %v, readResponse %v", data, head, sizes, gerr, werr)
	}
	if gs != ws || gn != wn || gk != wk {
		t.Fatalf("%q head=%v sizes=%v: (%d, %d, %v), readResponse (%d, %d, %v)", data, head, sizes, gs, gn, gk, ws, wn, wk)
	}
}

func TestRespParserMatchesReadResponse(t *testing.T) {
	long := strings.Repeat("x", 20000)
	cases := []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel",
		"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
		"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi",
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nhi",
		"HTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx",
		"HTTP/1.1 101 Switching\r\nUpgrade: x\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nTrailer: x\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nuntil close",
		"HTTP/1.1 200 OK\r\n\r\nuntil close",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx",
		"HTTP/1.1 200 OK\r\nBad header\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n",
		"HTTP/1.1 2x0 OK\r\n\r\n",
		"HTTP/1.1 200",
		"",
		"HTTP/1.1 200 OK\r\nX: " + long + "\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 20000\r\n\r\n" + long,
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiHTTP/1.1 200 OK\r\n",
	}
	for _, c := range cases {
		for _, head := range []bool{false, true} {
			for _, sizes := range [][]int{{1 << 20}, {1}, {7, 3}, {16 << 10}, {100, 1}} {
				sameResult(t, []byte(c), head, sizes)
			}
		}
	}
}

func FuzzRespParser(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"), false, uint8(3), uint8(200))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"), false, uint8(1), uint8(2))
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\n\r\nbody"), true, uint8(9), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, head bool, a, b uint8) {
		sameResult(t, data, head, []int{int(a), int(b)})
	})
}

// TestRespParserEOF: what a connection closed at each point of a response
// reads as, against readResponse, which the plain client's retry and error
// classes depend on (io.EOF before any byte is a stale connection).
func TestRespParserEOF(t *testing.T) {
	full := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
	for i := 0; i <= len(full); i++ {
		sameResult(t, []byte(full[:i]), false, []int{3})
	}
	_, _, _, err := feedChunks(nil, false, []int{1})
	if err != io.EOF {
		t.Fatalf("no bytes: %v, want io.EOF", err)
	}
}

// BenchmarkRespParser parses a small response arriving in one read, as
// the event loop does for each.
func BenchmarkRespParser(b *testing.B) {
	resp := []byte("HTTP/1.1 200 OK\r\nDate: Wed, 02 Dec 2026 04:57:15 GMT\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\n\r\nhello, world\n")
	rr := newRespReader()
	b.ReportAllocs()
	for b.Loop() {
		rr.p.reset(false)
		rr.w += copy(rr.space(), resp)
		if done, err := rr.parse(false); !done || err != nil {
			b.Fatal(done, err)
		}
	}
}
