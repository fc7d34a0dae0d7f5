package load

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// Sending a request and reading its response through net.Conn costs one
// read more than needed: Write returns as soon as the request is in the
// kernel, the Read that follows at once nearly always finds nothing (the
// server has not answered yet), fails with EAGAIN, and only then waits for
// the poller. On loopback that wasted read was about a third of a request's
// system calls.
//
// rawSend writes the request from inside a RawConn.Read callback instead:
// RawConn.Read resets the connection's read readiness before calling it,
// so the response's arrival, which can only follow the write, is the edge
// its wait sees, and the first read is made when there is something to
// read. It is used when the request fits in the socket at once and nothing
// from the server is left buffered; otherwise the plain path is taken.

// maxRawSend bounds the requests sent by rawSend: a larger one might not
// fit in the socket's send buffer at once.
const maxRawSend = 16 << 10

// rawSender is the state of one client's raw sends.
type rawSender struct {
	raw   syscall.RawConn
	rawOf net.Conn // the connection raw belongs to
	fn    func(fd uintptr) bool

	req     []byte
	written int   // bytes of req written; -1 before the write
	err     error // the write's error
}

// step is the RawConn.Read callback: its first call writes the request
// and asks to wait until the connection is readable; the next says it is.
func (s *rawSender) step(fd uintptr) bool {
	if s.written >= 0 {
		return true // readable: the response (or an error, or EOF) is there
	}
	for {
		n, err := syscall.Write(int(fd), s.req)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			s.written = 0
			return true // the socket is full: the plain path writes it
		case err != nil:
			s.written, s.err = 0, os.NewSyscallError("write", err)
			return true
		}
		s.written = n
		return n < len(s.req) // written in full: wait for the response
	}
}

// send writes req on c's connection. When it can, it also waits until the
// response can be read, so that readResponse's first read finds it. A
// failed wait (a deadline, a closed connection) is left for that read to
// report: send returns only the write's errors, which are safe to retry
// on a stale connection.
func (c *h1Client) send(req []byte) error {
	s := &c.rawSender
	if s.rawOf != c.conn {
		s.raw, s.rawOf = nil, c.conn
		if sc, ok := c.conn.(syscall.Conn); ok {
			s.raw, _ = sc.SyscallConn()
		}
	}
	if s.raw == nil || len(req) > maxRawSend || c.br.Buffered() > 0 {
		_, err := c.conn.Write(req)
		return err
	}
	if s.fn == nil {
		s.fn = s.step
	}
	s.req, s.written, s.err = req, -1, nil
	err := s.raw.Read(s.fn)
	s.req = nil
	switch {
	case s.err != nil:
		return s.err
	case s.written < 0:
		// The wait failed before the callback ran (the connection was
		// closed, or its deadline passed): nothing was sent.
		if err == nil {
			err = errors.New("request not sent")
		}
		return err
	case s.written < len(req):
		_, err := c.conn.Write(req[s.written:])
		return err
	}
	return nil
}
