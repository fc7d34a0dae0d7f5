package load

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestReadResponse(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		head   bool
		status int
		keep   bool
		err    error // nil, errProtocol, or a read error
		rest   string
	}{
		{name: "content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloNEXT", status: 200, keep: true, rest: "NEXT"},
		{name: "status without reason", in: "HTTP/1.1 204\r\n\r\nNEXT", status: 204, keep: true, rest: "NEXT"},
		{name: "500 keeps the connection", in: "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 3\r\n\r\nerr", status: 500, keep: true},
		{name: "chunked with extension and trailer", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\nNEXT", status: 200, keep: true, rest: "NEXT"},
		{name: "interim 100 then 200", in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", status: 201, keep: true},
		{name: "HEAD has no body", in: "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\nNEXT", head: true, status: 200, keep: true, rest: "NEXT"},
		{name: "304 has no body", in: "HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\nNEXT", status: 304, keep: true, rest: "NEXT"},
		{name: "connection close", in: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", status: 200, keep: false},
		{name: "HTTP/1.0 closes by default", in: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", status: 200, keep: false},
		{name: "HTTP/1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok", status: 200, keep: true},
		{name: "body to EOF", in: "HTTP/1.1 200 OK\r\n\r\nall of this", status: 200, keep: false},
		{name: "bare LF line ends", in: "HTTP/1.1 404 Not Found\nContent-Length: 1\n\nx", status: 404, keep: true},
		{name: "case-insensitive names", in: "HTTP/1.1 200 OK\r\ncOnTeNt-LeNgTh: 1\r\n\r\nxNEXT", status: 200, keep: true, rest: "NEXT"},
		{name: "garbage", in: "SSH-2.0-OpenSSH\r\n", err: errProtocol},
		{name: "bad status", in: "HTTP/1.1 2x0 OK\r\n\r\n", err: errProtocol},
		{name: "conflicting lengths", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", err: errProtocol},
		{name: "bad chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", err: errProtocol},
		{name: "truncated body", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", err: io.ErrUnexpectedEOF},
		{name: "headers cut off", in: "HTTP/1.1 200 OK\r\nContent-Le", err: errProtocol},
		{name: "empty", in: "", err: io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tt.in), 64)
			status, n, keep, err := readResponse(br, tt.head)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if status != tt.status || keep != tt.keep {
				t.Errorf("status, keep = %d, %v; want %d, %v", status, keep, tt.status, tt.keep)
			}
			rest, _ := io.ReadAll(br)
			if string(rest) != tt.rest {
				t.Errorf("left %q unread, want %q", rest, tt.rest)
			}
			if want := int64(len(tt.in) - len(tt.rest)); n != want {
				t.Errorf("counted %d bytes, want %d", n, want)
			}
		})
	}
}

func TestReadResponseAllocs(t *testing.T) {
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")
	r := bytes.NewReader(resp)
	br := bufio.NewReader(r)
	allocs := testing.AllocsPerRun(100, func() {
		r.Reset(resp)
		br.Reset(r)
		if _, _, _, err := readResponse(br, false); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("readResponse allocates %v times per response, want 0", allocs)
	}
}

// FuzzReadResponse checks that the parser never panics, never counts more
// bytes than it was given, and agrees on the status with net/http whenever
// both accept a response.
func FuzzReadResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.0 404 Not Found\r\n\r\nbody",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, in []byte, head bool) {
		br := bufio.NewReaderSize(bytes.NewReader(in), 64)
		status, n, _, err := readResponse(br, head)
		if n < 0 || n > int64(len(in)) {
			t.Fatalf("counted %d bytes of %d", n, len(in))
		}
		if err != nil {
			return
		}
		if status < 100 || status > 999 {
			t.Fatalf("status %d accepted", status)
		}
		method := "GET"
		if head {
			method = "HEAD"
		}
		resp, herr := http.ReadResponse(bufio.NewReader(bytes.NewReader(in)), &http.Request{Method: method})
		if herr != nil {
			return
		}
		_, berr := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if berr == nil && resp.StatusCode != status && resp.StatusCode >= 200 {
			t.Fatalf("status %d, net/http says %d", status, resp.StatusCode)
		}
	})
}
