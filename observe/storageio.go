package observe

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rigorbench/rigor/model"
)

// ioCounts are the cumulative storage counters of /proc/self/io. The
// kernel adds a reaped child's counters (its own and its reaped
// descendants') to its parent's, so this process's counters grow by
// what every measured process it started and waited for read and wrote:
// their difference over an interval is the measured processes' I/O and
// rigor's own, and nobody else's.
type ioCounts struct {
	read, write, cancelled int64
	ok                     bool
}

// A selfIO reads this process's storage counters. The file stays open:
// a pread from offset 0 makes the kernel write the counters afresh, so
// a boundary costs one system call, not three.
type selfIO struct {
	f *os.File
}

// openSelfIO opens /proc/self/io, or returns nil where there is none
// (not Linux, or a kernel without task I/O accounting) or it cannot be
// read.
func openSelfIO() *selfIO {
	f, err := os.Open(filepath.Join(procRoot, "self", "io"))
	if err != nil {
		return nil
	}
	s := &selfIO{f: f}
	if !s.read().ok {
		f.Close()
		return nil
	}
	return s
}

// read returns the counters now; ok is false when they cannot be read.
func (s *selfIO) read() ioCounts {
	if s == nil {
		return ioCounts{}
	}
	var buf [512]byte
	n, err := s.f.ReadAt(buf[:], 0)
	if n == 0 && err != nil {
		return ioCounts{}
	}
	return parseSelfIO(buf[:n])
}

func (s *selfIO) close() {
	if s != nil {
		s.f.Close()
	}
}

// parseSelfIO reads read_bytes, write_bytes and cancelled_write_bytes
// from the text of /proc/PID/io ("name: value" lines); ok only when all
// three are there.
func parseSelfIO(b []byte) ioCounts {
	var c ioCounts
	seen := 0
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		name, value, found := bytes.Cut(line, []byte(": "))
		if !found {
			continue
		}
		var dst *int64
		switch string(name) { // no allocation: the compiler compares in place
		case "read_bytes":
			dst = &c.read
		case "write_bytes":
			dst = &c.write
		case "cancelled_write_bytes":
			dst = &c.cancelled
		default:
			continue
		}
		v, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if err != nil || v < 0 {
			return ioCounts{}
		}
		*dst = v
		seen++
	}
	if seen != 3 {
		return ioCounts{}
	}
	c.ok = true
	return c
}

// storageIO is the I/O between counters a and b, or nil when either is
// unknown or a counter went backwards (they never do).
func storageIO(a, b ioCounts) *model.StorageIO {
	if !a.ok || !b.ok || b.read < a.read || b.write < a.write || b.cancelled < a.cancelled {
		return nil
	}
	return &model.StorageIO{ReadBytes: b.read - a.read, WriteBytes: b.write - a.write, CancelledWriteBytes: b.cancelled - a.cancelled}
}
