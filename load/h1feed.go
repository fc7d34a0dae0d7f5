package load

import (
	"bytes"
	"io"
)

// respParser reads a response from bytes as they arrive, for the event
// loop (h1loop_linux.go), which cannot block in a bufio.Reader as
// readResponse does. It reads what readResponse reads, with the same
// errors and byte counts (FuzzRespParser checks it), through the same
// respHead.
type respParser struct {
	phase uint8
	head  bool // a response to HEAD
	h     respHead
	left  int64 // bytes left of the body or of the current chunk
	n     int64 // bytes consumed
}

// The parser's phases.
const (
	phStatus    = iota // the status line
	phHeader           // header lines
	phLength           // a Content-Length body
	phChunkSize        // a chunk-size line
	phChunkData        // a chunk's data
	phChunkCRLF        // the CRLF after a chunk's data
	phTrailer          // trailer lines
	phToClose          // a body read until the connection closes
	phDone
)

// maxLine is the longest line the parser takes, the size of the
// bufio.Reader that readResponse reads through.
const maxLine = 16 << 10

func (p *respParser) reset(head bool) { *p = respParser{head: head} }

// feed consumes what it can of b, the bytes received and not yet
// consumed; eof says the connection has closed after them. It returns
// the bytes used and whether the response is complete (then p.h holds
// its status and whether the connection may carry another request). With
// eof set and the response incomplete it returns readResponse's error.
// Without eof, it returns errProtocol only for bad input: otherwise it
// waits for more bytes.
func (p *respParser) feed(b []byte, eof bool) (used int, done bool, err error) {
	for {
		switch p.phase {
		case phLength, phChunkData:
			m := int(min(p.left, int64(len(b)-used)))
			used += m
			p.n += int64(m)
			p.left -= int64(m)
			if p.left > 0 {
				if eof {
					return used, false, io.ErrUnexpectedEOF
				}
				return used, false, nil
			}
			if p.phase == phLength {
				p.phase = phDone
			} else {
				p.phase = phChunkCRLF
			}
			continue
		case phToClose:
			p.n += int64(len(b) - used)
			used = len(b)
			if eof {
				p.phase = phDone
				continue
			}
			return used, false, nil
		case phDone:
			return used, true, nil
		}
		// A phase that reads a line.
		rest := b[used:]
		i := bytes.IndexByte(rest, '\n')
		if i < 0 || i >= maxLine {
			switch {
			case len(rest) >= maxLine:
				p.n += maxLine
				return used + maxLine, false, errProtocol
			case !eof:
				return used, false, nil
			}
			// The connection closed in the line.
			p.n += int64(len(rest))
			used = len(b)
			if p.phase == phStatus {
				return used, false, io.EOF
			}
			return used, false, errProtocol
		}
		line := rest[:i+1]
		used += len(line)
		p.n += int64(len(line))
		if err := p.line(line); err != nil {
			return used, false, err
		}
	}
}

// line takes one complete line of a line-reading phase.
func (p *respParser) line(line []byte) error {
	switch p.phase {
	case phStatus:
		if err := p.h.statusLine(line); err != nil {
			return err
		}
		p.phase = phHeader
	case phHeader:
		end, err := p.h.header(line)
		if err != nil || !end {
			return err
		}
		if p.h.interim() {
			p.phase = phStatus
			return nil
		}
		switch p.h.body(p.head) {
		case bodyNone:
			p.phase = phDone
		case bodyChunked:
			p.phase = phChunkSize
		case bodyLength:
			p.phase, p.left = phLength, p.h.contentLength
		case bodyToClose:
			p.phase = phToClose
		}
	case phChunkSize:
		size, ok := chunkSize(line)
		switch {
		case !ok:
			return errProtocol
		case size == 0:
			p.phase = phTrailer
		default:
			p.phase, p.left = phChunkData, size
		}
	case phChunkCRLF:
		if len(trimCRLF(line)) != 0 {
			return errProtocol
		}
		p.phase = phChunkSize
	case phTrailer:
		if len(trimCRLF(line)) == 0 {
			p.phase = phDone
		}
	}
	return nil
}

// respReader is a connection's receive buffer and the parser of the
// response arriving in it.
type respReader struct {
	p    respParser
	buf  []byte
	r, w int // buf[r:w] is received and not yet consumed
}

func newRespReader() *respReader { return &respReader{buf: make([]byte, maxLine)} }

// space returns the free end of the buffer, to read into, moving what is
// unconsumed to the front first when that makes room.
func (rr *respReader) space() []byte {
	if rr.r == rr.w {
		rr.r, rr.w = 0, 0
	} else if rr.w == len(rr.buf) && rr.r > 0 {
		rr.w = copy(rr.buf, rr.buf[rr.r:rr.w])
		rr.r = 0
	}
	return rr.buf[rr.w:]
}

// parse feeds the unconsumed bytes to the parser; eof says the
// connection has closed after them.
func (rr *respReader) parse(eof bool) (done bool, err error) {
	used, done, err := rr.p.feed(rr.buf[rr.r:rr.w], eof)
	rr.r += used
	return done, err
}

// clear drops what is buffered, for a new connection.
func (rr *respReader) clear() { rr.r, rr.w = 0, 0 }
