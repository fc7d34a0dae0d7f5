package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// rigor drives plain-text HTTP/1.1 with its own small client rather than
// net/http's: one connection per worker, the request's bytes built once,
// the response parsed in place and its body discarded. net/http's client
// spends more CPU per request than the server it measures on a small
// machine, which would make rigor benchmark itself.

// errProtocol marks a response that is not valid HTTP/1.x.
var errProtocol = errors.New("malformed HTTP response")

type h1Target struct {
	name    string
	addr    string // host:port to dial
	req     []byte // the whole request, headers and body
	head    bool   // HEAD: responses have no body
	retry   bool   // idempotent: resend once on a stale keep-alive connection
	close   bool   // Connection: close
	timeout time.Duration
	success statusSet
	dialer  net.Dialer
}

func (t *h1Target) Name() string     { return t.name }
func (t *h1Target) Protocol() string { return "HTTP/1.1" }

func (t *h1Target) NewClient() Client { return &h1Client{t: t} }

type h1Client struct {
	t      *h1Target
	br     *bufio.Reader
	conn   net.Conn // written under mu, read freely by Do's goroutine
	reused bool     // conn has carried a complete exchange
	rawSender

	mu     sync.Mutex
	closed bool
}

func (c *h1Client) Do(ctx context.Context) Outcome {
	var out Outcome
	for attempt := 0; ; attempt++ {
		if c.conn == nil {
			if err := c.dial(ctx); err != nil {
				if ctx.Err() != nil {
					return Outcome{Class: ClassCanceled}
				}
				return Outcome{Class: netClass(err, ClassConnect)}
			}
		}
		if c.t.timeout > 0 {
			c.conn.SetDeadline(time.Now().Add(c.t.timeout))
		}
		reused := c.reused
		if err := c.send(c.t.req); err != nil {
			c.drop()
			if reused && attempt == 0 {
				continue // the server closed an idle connection
			}
			return Outcome{Class: c.errClass(ctx, err)}
		}
		status, n, keep, err := readResponse(c.br, c.t.head)
		out.Bytes += n
		if err != nil {
			c.drop()
			if reused && attempt == 0 && n == 0 && c.t.retry && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
				// Closed before it read the request, or reset as it
				// closed with the request unread: safe to resend.
				continue
			}
			if errors.Is(err, errProtocol) {
				out.Class = ClassProtocol
			} else {
				out.Class = c.errClass(ctx, err)
			}
			return out
		}
		c.reused = true
		if !keep || c.t.close {
			c.drop()
		}
		out.Class = c.t.success.class(status)
		return out
	}
}

func (c *h1Client) errClass(ctx context.Context, err error) string {
	if ctx.Err() != nil || c.isClosed() {
		return ClassCanceled
	}
	return netClass(err, ClassConnection)
}

func (c *h1Client) dial(ctx context.Context) error {
	if c.isClosed() {
		return context.Canceled
	}
	dctx := ctx
	if c.t.timeout > 0 {
		var cancel context.CancelFunc
		dctx, cancel = context.WithTimeout(ctx, c.t.timeout)
		defer cancel()
	}
	conn, err := c.t.dialer.DialContext(dctx, "tcp", c.t.addr)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		conn.Close()
		return context.Canceled
	}
	c.conn = conn
	c.reused = false
	if c.br == nil {
		c.br = bufio.NewReaderSize(conn, 16<<10)
	} else {
		c.br.Reset(conn)
	}
	return nil
}

func (c *h1Client) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

func (c *h1Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Close closes the connection, abandoning a request in flight.
func (c *h1Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.conn != nil {
		return c.conn.Close()
	}
	return nil
}

// netClass classes a network error: timeouts, else fallback.
func netClass(err error, fallback string) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return ClassTimeout
	}
	return fallback
}

// respHead is what a response's status line and headers say about it.
type respHead struct {
	status        int
	contentLength int64 // -1 when not given
	chunked       bool
	keepAlive     bool
}

// statusLine parses a status line ("HTTP/1.1 200 OK\r\n") into h,
// resetting what the headers will say.
func (h *respHead) statusLine(line []byte) error {
	// "HTTP/1.1 200 OK": the status code is bytes 9..12.
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' || (line[7] != '0' && line[7] != '1') {
		return errProtocol
	}
	status := 0
	for _, ch := range line[9:12] {
		if ch < '0' || ch > '9' {
			return errProtocol
		}
		status = status*10 + int(ch-'0')
	}
	if status < 100 || len(line) > 12 && line[12] != ' ' && line[12] != '\r' && line[12] != '\n' {
		return errProtocol
	}
	*h = respHead{status: status, contentLength: -1, keepAlive: line[7] == '1'}
	return nil
}

// header parses one header line into h; end reports the empty line that
// ends the headers.
func (h *respHead) header(line []byte) (end bool, err error) {
	line = trimCRLF(line)
	if len(line) == 0 {
		return true, nil
	}
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return false, errProtocol
	}
	name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
	switch {
	case asciiEqualFold(name, "content-length"):
		v, ok := parseUint(value)
		if !ok || h.contentLength >= 0 && h.contentLength != v {
			return false, errProtocol
		}
		h.contentLength = v
	case asciiEqualFold(name, "transfer-encoding"):
		// Chunked must be the last coding; anything else is read until
		// the connection closes.
		last := value
		if i := bytes.LastIndexByte(value, ','); i >= 0 {
			last = bytes.TrimSpace(value[i+1:])
		}
		h.chunked = asciiEqualFold(last, "chunked")
		if !h.chunked {
			h.contentLength = -1
			h.keepAlive = false
		}
	case asciiEqualFold(name, "connection"):
		if containsToken(value, "close") {
			h.keepAlive = false
		} else if containsToken(value, "keep-alive") {
			h.keepAlive = true
		}
	}
	return false, nil
}

// interim reports a 1xx response that a final one follows.
func (h *respHead) interim() bool { return h.status < 200 && h.status != 101 }

// How a final response's body is delimited.
const (
	bodyNone    = iota // no body
	bodyChunked        // chunked transfer coding
	bodyLength         // Content-Length bytes
	bodyToClose        // until the server closes the connection
)

// body says how the body that follows h is delimited, and clears
// keepAlive for a body read to the connection's close and for 101. head
// is true for a response to HEAD.
func (h *respHead) body(head bool) int {
	switch {
	case head || h.status == 204 || h.status == 304 || h.status == 101:
		if h.status == 101 {
			h.keepAlive = false
		}
		return bodyNone
	case h.chunked:
		return bodyChunked
	case h.contentLength >= 0:
		return bodyLength
	}
	h.keepAlive = false
	return bodyToClose
}

// chunkSize parses a chunk-size line, extensions and all.
func chunkSize(line []byte) (int64, bool) {
	line = trimCRLF(line)
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	return parseHex(bytes.TrimSpace(line))
}

// readResponse reads one HTTP/1.x response from br, discarding its body.
// It returns the final status (after any 1xx), the number of bytes read,
// and whether the connection may carry another request. head is true for
// a response to HEAD, which has no body whatever its headers say.
func readResponse(br *bufio.Reader, head bool) (status int, n int64, keepAlive bool, err error) {
	var h respHead
	for {
		line, err := br.ReadSlice('\n')
		n += int64(len(line))
		if err != nil {
			if err == bufio.ErrBufferFull {
				err = errProtocol
			}
			return 0, n, false, err
		}
		if err := h.statusLine(line); err != nil {
			return 0, n, false, err
		}
		for {
			line, err := br.ReadSlice('\n')
			n += int64(len(line))
			if err != nil {
				if err == bufio.ErrBufferFull || err == io.EOF {
					err = errProtocol
				}
				return 0, n, false, err
			}
			end, err := h.header(line)
			if err != nil {
				return 0, n, false, err
			}
			if end {
				break
			}
		}
		if h.interim() {
			continue // an interim response: the final one follows
		}
		switch h.body(head) {
		case bodyChunked:
			m, err := discardChunked(br)
			n += m
			if err != nil {
				return 0, n, false, err
			}
		case bodyLength:
			m, err := br.Discard(int(h.contentLength))
			n += int64(m)
			if err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return 0, n, false, err
			}
		case bodyToClose:
			m, err := io.Copy(io.Discard, br)
			n += m
			if err != nil {
				return 0, n, false, err
			}
		}
		return h.status, n, h.keepAlive, nil
	}
}

// discardChunked reads a chunked body and its trailers.
func discardChunked(br *bufio.Reader) (int64, error) {
	var n int64
	for {
		line, err := br.ReadSlice('\n')
		n += int64(len(line))
		if err != nil {
			if err == bufio.ErrBufferFull || err == io.EOF {
				err = errProtocol
			}
			return n, err
		}
		size, ok := chunkSize(line)
		if !ok {
			return n, errProtocol
		}
		if size == 0 {
			for { // trailers, up to an empty line
				t, err := br.ReadSlice('\n')
				n += int64(len(t))
				if err != nil {
					if err == bufio.ErrBufferFull || err == io.EOF {
						err = errProtocol
					}
					return n, err
				}
				if len(trimCRLF(t)) == 0 {
					return n, nil
				}
			}
		}
		m, err := br.Discard(int(size))
		n += int64(m)
		if err != nil {
			return n, io.ErrUnexpectedEOF
		}
		crlf, err := br.ReadSlice('\n')
		n += int64(len(crlf))
		if err != nil || len(trimCRLF(crlf)) != 0 {
			return n, errProtocol
		}
	}
}

func trimCRLF(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// asciiEqualFold reports whether b equals the lower-case ASCII s,
// ignoring case.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// containsToken reports whether the comma-separated list v holds token.
func containsToken(v []byte, token string) bool {
	for len(v) > 0 {
		var t []byte
		if i := bytes.IndexByte(v, ','); i >= 0 {
			t, v = v[:i], v[i+1:]
		} else {
			t, v = v, nil
		}
		if asciiEqualFold(bytes.TrimSpace(t), token) {
			return true
		}
	}
	return false
}

// maxBody bounds lengths read from headers, so that sums cannot overflow.
const maxBody = 1 << 40

func parseUint(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
		if v > maxBody {
			return 0, false
		}
	}
	return v, true
}

func parseHex(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | int64(c)
		if v > maxBody {
			return 0, false
		}
	}
	return v, true
}
