package observe

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// PerfAvailable is the Env.Perf value when instruction counts can be read.
const PerfAvailable = "available"

// PerfStatus says whether `perf stat -e instructions:u` can count
// instructions here: PerfAvailable, or why not in plain words. It runs perf
// once on /bin/true.
func PerfStatus(ctx context.Context) string {
	path, err := exec.LookPath("perf")
	if err != nil {
		return "unavailable: perf is not installed"
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		return "unavailable: no true command to test perf with"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "stat", "-x,", "-e", "instructions:u", "--", truePath).CombinedOutput()
	n, perr := parsePerfStat(strings.NewReader(string(out)))
	switch {
	case perr == nil && n > 0:
		return PerfAvailable
	case errors.Is(perr, errPerfNotSupported):
		return "unavailable: the CPU or hypervisor does not expose the instructions counter"
	case errors.Is(perr, errPerfNotCounted):
		return "unavailable: perf could not schedule the instructions counter"
	case strings.Contains(string(out), "perf_event_paranoid") || strings.Contains(string(out), "ermission"):
		return "unavailable: not permitted (kernel.perf_event_paranoid=" +
			readTrim(filepath.Join(procRoot, "sys/kernel/perf_event_paranoid")) + ")"
	case err != nil:
		return "unavailable: perf stat failed: " + firstLine(string(out), err)
	}
	return "unavailable: perf stat printed no instruction count"
}

func firstLine(out string, err error) string {
	if line, _, _ := strings.Cut(strings.TrimSpace(out), "\n"); line != "" {
		return line
	}
	return err.Error()
}

// PerfStatArgs wraps a command line so that perf counts the user-space
// instructions it executes, writing the count to csvPath; read it back
// with ReadPerfStat. Use it only when PerfStatus says PerfAvailable.
func PerfStatArgs(csvPath string, args ...string) []string {
	return append([]string{"perf", "stat", "-x,", "-o", csvPath, "-e", "instructions:u", "--"}, args...)
}

// ReadPerfStat reads the instruction count from a file written by a
// command built with PerfStatArgs.
func ReadPerfStat(csvPath string) (uint64, error) {
	f, err := os.Open(csvPath)
	if err != nil {
		return 0, fmt.Errorf("reading perf stat output: %w", err)
	}
	defer f.Close()
	n, err := parsePerfStat(f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", csvPath, err)
	}
	return n, nil
}

var (
	errPerfNotSupported = errors.New("instructions:u not supported")
	errPerfNotCounted   = errors.New("instructions:u not counted")
	errPerfNoCount      = errors.New("no instructions:u line")
)

// parsePerfStat reads perf stat's CSV (-x,) output: lines of
// value,unit,event,... with comments starting with "#".
func parsePerfStat(r io.Reader) (uint64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ",")
		if len(fields) < 3 || !strings.HasPrefix(fields[2], "instructions") {
			continue
		}
		switch v := fields[0]; {
		case strings.Contains(v, "not supported"):
			return 0, errPerfNotSupported
		case strings.Contains(v, "not counted"):
			return 0, errPerfNotCounted
		default:
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("perf stat: bad instruction count %q", v)
			}
			return n, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errPerfNoCount
}
