package execbench

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// An rssProbe reads the peak RSS wait4 will report for a command that
// uses less than this process: Linux folds the memory a process had
// before its exec into its peak, and a child this process spawns (Go
// spawns with CLONE_VM) has this process's memory until it execs, so the
// child's peak is at least this process's high-water mark at the exec.
//
// That mark is read with getrusage (RUSAGE_SELF's ru_maxrss: one system
// call, about 7 µs here), and reset to the current RSS (clear_refs 5,
// Linux 4.0 and later) only when it has risen by resetSlack since the
// last reset, so that the floor does not keep the high-water mark of an
// earlier analysis. Before, every run reset it and read statm, about
// 30 µs of rigor's CPU per run (BenchmarkRSSProbe).
//
// ru_maxrss is also the largest mark of any memory this process had
// before its own exec, or when one of its threads exited. When that
// exceeds its resident set at the start (a process that spawned rigor
// with CLONE_VM, as Go does, and used more), getrusage cannot tell the
// floor: every run resets the mark and reads statm's resident set
// instead. Where neither works, the high-water mark from
// /proc/self/status is the floor. The files stay open.
type rssProbe struct {
	clear, statm *os.File
	buf          [128]byte
	// statmOnly is set when getrusage's mark is not this process's.
	statmOnly bool
	// base is ru_maxrss at the last reset, in bytes.
	base int64
}

// resetSlack is how far this process's high-water mark may rise above
// its value at the last reset before it is reset again: a floor that
// much above the current RSS loses at most the peaks of commands that
// use within resetSlack plus rssMargin of this process.
const resetSlack = 256 << 10

func newRSSProbe() *rssProbe {
	p := &rssProbe{}
	p.clear, _ = os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0)
	p.statm, _ = os.Open("/proc/self/statm")
	if p.reset() {
		rss, g := p.resident(), maxRSS()
		p.statmOnly = rss <= 0 || g <= 0 || g > rss+rssMargin
		p.base = g
	}
	return p
}

func (p *rssProbe) close() {
	for _, f := range []*os.File{p.clear, p.statm} {
		if f != nil {
			f.Close()
		}
	}
}

// reset sets this process's high-water mark to its current RSS.
func (p *rssProbe) reset() bool {
	if p.clear == nil || p.statm == nil {
		return false
	}
	_, err := p.clear.Write([]byte("5"))
	return err == nil
}

// resident is this process's resident set in bytes, from statm's second
// field (pages); 0 when it cannot be read.
func (p *rssProbe) resident() int64 {
	n, _ := p.statm.ReadAt(p.buf[:], 0)
	if f := bytes.Fields(p.buf[:n]); len(f) > 1 {
		if pages, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
			return pages * int64(os.Getpagesize())
		}
	}
	return 0
}

// maxRSS is getrusage's ru_maxrss for this process, in bytes; 0 when it
// fails.
func maxRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Maxrss) << 10
}

// floor returns the peak RSS, in bytes, at or below which wait4 reports
// this process's pages rather than the command's; 0 when it cannot tell.
func (p *rssProbe) floor() int64 {
	switch {
	case p.clear != nil && p.statm != nil && p.statmOnly:
		if p.reset() {
			if rss := p.resident(); rss > 0 {
				return rss
			}
		}
	case p.clear != nil && p.statm != nil:
		g := maxRSS()
		if g > p.base+resetSlack && p.reset() {
			g = maxRSS()
			p.base = g
		}
		if g > 0 {
			return g
		}
	}
	return statusHWM()
}

// statusHWM is the high-water mark /proc/self/status reports, in bytes;
// 0 when it cannot be read.
func statusHWM() int64 {
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
