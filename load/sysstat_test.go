package load

import (
	"os"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		in           string
		utime, stime int64
		ok           bool
	}{
		// Fields after the name: state ppid pgrp session tty tpgid flags
		// minflt cminflt majflt cmajflt utime stime ...
		{"1234 (lockserver) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 8 0", 250, 75, true},
		{"42 (a (b) c) R 1 42 42 0 -1 0 0 0 0 0 7 3 0 0", 7, 3, true},
		{"42 (x) R 1 2", 0, 0, false},
		{"no parens here", 0, 0, false},
		{"42 (x) S 1 1 1 0 -1 0 0 0 0 0 -5 3", 0, 0, false},
	}
	for _, tt := range tests {
		u, s, err := parseProcStat([]byte(tt.in))
		if (err == nil) != tt.ok || u != tt.utime || s != tt.stime {
			t.Errorf("parseProcStat(%q) = %d, %d, %v; want %d, %d, ok=%v", tt.in, u, s, err, tt.utime, tt.stime, tt.ok)
		}
	}
}

func TestParseCtxSwitchesAndSchedstat(t *testing.T) {
	status := "Name:\tx\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t1500\nnonvoluntary_ctxt_switches:\t23\n"
	if v, n := parseCtxSwitches([]byte(status)); v != 1500 || n != 23 {
		t.Errorf("parseCtxSwitches = %d, %d; want 1500, 23", v, n)
	}
	if run, wait, ok := parseSchedstat([]byte("399501 2200 17\n")); !ok || run != 399501 || wait != 2200 {
		t.Errorf("parseSchedstat = %d, %d, %v", run, wait, ok)
	}
	if _, _, ok := parseSchedstat([]byte("12\n")); ok {
		t.Error("parseSchedstat accepted one field")
	}
	// user nice system idle iowait irq softirq steal guest guest_nice:
	// busy = 100+5+50+3+2+1 = 161, total = 161 + 800 + 40 = 1001.
	c := parseProcStatCPU([]byte("cpu  100 5 50 800 40 3 2 1 60 0\ncpu0 1 2 3 4\n"))
	if !c.ok || c.busy != 161 || c.total != 1001 {
		t.Errorf("parseProcStatCPU = %+v, want busy 161 of 1001", c)
	}
}

// The generator's own process, read through /proc as a --pid target, is
// consistent with getrusage.
func TestPidSampleSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	end := time.Now().Add(50 * time.Millisecond)
	x := 1
	for time.Now().Before(end) {
		x = x*31 + 7
	}
	_ = x
	p, err := pidSample(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	self := selfSample()
	if p.user+p.sys <= 0 {
		t.Fatalf("no CPU time read for this process after spinning: %+v", p)
	}
	// /proc counts in 10 ms ticks: allow a few ticks of disagreement.
	total := self.user + self.sys
	if diff := total - (p.user + p.sys); diff < -50*time.Millisecond || diff > 50*time.Millisecond+total/10 {
		t.Errorf("/proc says %v of CPU, getrusage %v", p.user+p.sys, self.user+self.sys)
	}
}

func FuzzParseProcStat(f *testing.F) {
	f.Add("1 (x) S 1 1 1 0 -1 0 0 0 0 0 5 6 0")
	f.Add("1 ((()) R")
	f.Fuzz(func(t *testing.T, s string) {
		u, st, err := parseProcStat([]byte(s))
		if err == nil && (u < 0 || st < 0) {
			t.Fatalf("%q: negative times %d %d", s, u, st)
		}
		parseCtxSwitches([]byte(s))
		parseSchedstat([]byte(s))
		parseProcStatCPU([]byte(s))
	})
}
