package execbench

import (
	"bytes"
	"os"
	"strconv"
)

// An rssProbe reads the peak RSS wait4 will report for a command that
// uses less than this process: Linux folds the memory a process had
// before its exec into its peak, and a child this process spawns (Go
// spawns with CLONE_VM) has this process's memory until it execs. The
// probe resets this process's peak to its current RSS first (clear_refs
// 5, Linux 4.0 and later), so that the floor does not keep the
// high-water mark of an earlier analysis; when that fails, the
// high-water mark is the floor. Its files stay open: a probe costs two
// system calls before every timed run.
type rssProbe struct {
	clear, statm *os.File
	buf          [128]byte
}

func newRSSProbe() *rssProbe {
	p := &rssProbe{}
	p.clear, _ = os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0)
	p.statm, _ = os.Open("/proc/self/statm")
	return p
}

func (p *rssProbe) close() {
	for _, f := range []*os.File{p.clear, p.statm} {
		if f != nil {
			f.Close()
		}
	}
}

// floor returns the peak RSS, in bytes, at or below which wait4 reports
// this process's pages rather than the command's; 0 when it cannot tell.
func (p *rssProbe) floor() int64 {
	if p.clear != nil && p.statm != nil {
		if _, err := p.clear.Write([]byte("5")); err == nil {
			// The peak is now the current RSS: statm's second field,
			// in pages.
			n, _ := p.statm.ReadAt(p.buf[:], 0)
			if f := bytes.Fields(p.buf[:n]); len(f) > 1 {
				if pages, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
					return pages * int64(os.Getpagesize())
				}
			}
		}
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(b, []byte("\nVmHWM:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(line), []byte("kB")))), 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
}
