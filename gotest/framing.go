package gotest

import (
	"regexp"
	"strings"
)

// Test binaries run with -test.v=test2json, the mode go test -json uses.
// Package testing then starts each of its own status lines with the byte
// 0x16 (^V, "framing"): "\x16=== RUN   BenchmarkX", "\x16=== NAME  ",
// "\x16--- BENCH: BenchmarkX-8", "\x16--- FAIL: ...", "\x16PASS". What a
// benchmark prints carries no marker, so its output can be told from the
// framework's. The result line itself is not framed; on Go 1.26 a leaf
// benchmark reads, byte for byte:
//
//	\x16=== RUN   BenchmarkX
//	BenchmarkX                     <- the framework echoes the name
//	...whatever the benchmark printed, possibly without a final newline...
//	BenchmarkX-8   \t  1000\t  30.00 ns/op\t ...   <- the result
//	[\x16--- BENCH: BenchmarkX-8 followed by its b.Log lines]
//	\x16=== NAME
//
// and after the last benchmark "\x16PASS". So the result is the last line
// before the "--- BENCH" or "=== NAME" marker that ends the benchmark's
// iteration, and within that line the framework's part starts at the last
// place where the running benchmark's name is followed by padding, a tab
// and the iteration count: what the benchmark printed without a newline
// is glued in front of it. The configuration lines (goos, goarch, pkg,
// cpu) come once, unframed, just before the first "=== RUN".
//
// A benchmark that prints the byte 0x16 itself, or whose goroutines go on
// printing after it returns, can still confuse this; nothing short of a
// separate channel for results could not be confused.

// marker starts every line package testing frames under -test.v=test2json.
const marker = '\x16'

// A framedOutput is a test binary's standard output, run with
// -test.v=test2json, taken apart.
type framedOutput struct {
	// results holds the framework's configuration and result lines, and
	// the benchmark's Unit metadata lines, in the Go benchmark format
	// ParseResults reads.
	results string
	// printed is everything else that was not the framework's own:
	// what the benchmarks printed, and their b.Log lines.
	printed string
	// passed is true when the binary printed its final PASS: it ran to
	// the end rather than exiting early.
	passed bool
}

// configKeys are the configuration lines package testing prints, in order.
var configKeys = []string{"goos", "goarch", "pkg", "cpu"}

// unitLine matches a benchmark format unit metadata line, which
// benchmarks print themselves to say a unit is better higher or exact.
var unitLine = regexp.MustCompile(`^Unit [^ \t]+( [^ \t=]+=[^ \t]+)+$`)

// deframe takes apart stdout, a test binary's standard output under
// -test.v=test2json.
func deframe(stdout string) framedOutput {
	var (
		results, printed strings.Builder
		out              framedOutput
		cur              string // the benchmark running, from "=== RUN"
		pending          bool   // its next result is not read yet
		seenRun          bool
	)
	rest := stdout
	for rest != "" {
		// chunk is unframed text, up to the next framed line.
		chunk := rest
		framed, hasFrame := "", false
		if i := strings.IndexByte(rest, marker); i >= 0 {
			chunk, rest = rest[:i], rest[i+1:]
			hasFrame = true
			if j := strings.IndexByte(rest, '\n'); j >= 0 {
				framed, rest = rest[:j], rest[j+1:]
			} else {
				framed, rest = rest, ""
			}
		} else {
			rest = ""
		}
		if !seenRun && hasFrame && strings.HasPrefix(framed, "=== RUN ") {
			var config string
			chunk, config = splitConfig(chunk)
			results.WriteString(config)
		}
		if hasFrame && pending && cur != "" {
			name, isBench := strings.CutPrefix(framed, "--- BENCH: ")
			if isBench || strings.TrimSpace(framed) == "=== NAME" {
				if !isBench || isBenchName(name, cur) {
					var line string
					chunk, line = splitResult(chunk, cur)
					if line != "" {
						results.WriteString(line)
						results.WriteByte('\n')
					}
				}
			}
		}
		printed.WriteString(chunk)
		if !hasFrame {
			break
		}
		if chunk != "" && !strings.HasSuffix(chunk, "\n") {
			printed.WriteByte('\n') // the framework's line broke it off
		}
		switch {
		case strings.HasPrefix(framed, "=== RUN "):
			seenRun = true
			cur = strings.TrimSpace(strings.TrimPrefix(framed, "=== RUN "))
			pending = true
			// The framework echoes the name on a line of its own.
			rest = strings.TrimPrefix(rest, cur+"\n")
		case strings.TrimSpace(framed) == "=== NAME", strings.HasPrefix(framed, "--- FAIL: "):
			pending = true // the next iteration (-test.count, -test.cpu)
		case strings.HasPrefix(framed, "--- BENCH: "):
			pending = false
		case framed == "PASS":
			out.passed = true
		case framed == "FAIL":
			out.passed = false
		}
		if strings.HasPrefix(framed, "--- ") {
			// The b.Log lines that follow are the benchmark's: keep
			// them under their heading.
			printed.WriteString(framed + "\n")
		}
	}
	out.printed = printed.String()
	for _, line := range strings.Split(out.printed, "\n") {
		if line = strings.TrimRight(line, "\r"); unitLine.MatchString(line) {
			results.WriteString(line + "\n")
		}
	}
	out.results = results.String()
	return out
}

// splitConfig splits the configuration lines package testing prints
// before the first benchmark off the end of chunk.
func splitConfig(chunk string) (rest, config string) {
	i := strings.LastIndex(chunk, "goos: ")
	if i < 0 || !strings.HasSuffix(chunk, "\n") {
		return chunk, ""
	}
	lines := strings.Split(strings.TrimSuffix(chunk[i:], "\n"), "\n")
	k := 0
	for _, line := range lines {
		key, _, ok := strings.Cut(line, ": ")
		for ok && k < len(configKeys) && configKeys[k] != key {
			k++
		}
		if !ok || k == len(configKeys) {
			return chunk, ""
		}
		k++
	}
	if len(lines) < 2 { // goos and goarch are always there
		return chunk, ""
	}
	return chunk[:i], chunk[i:]
}

// splitResult splits the framework's result line for benchmark name off
// the end of chunk, the text that preceded the marker ending an iteration.
// It returns the chunk without it and the line, or chunk and "" when the
// chunk does not end in a result.
func splitResult(chunk, name string) (rest, line string) {
	if !strings.HasSuffix(chunk, "\n") {
		return chunk, ""
	}
	// The candidate is chunk[start:end], end at its newline.
	end := len(chunk) - 1
	start := strings.LastIndexByte(chunk[:end], '\n') + 1
	// The warning package testing prints after the result, to standard
	// error, which is standard output in this mode.
	if w := chunk[start:end]; start > 0 && strings.HasPrefix(w, "testing: "+name) && strings.Contains(w, " left GOMAXPROCS set to ") {
		end = start - 1
		start = strings.LastIndexByte(chunk[:end], '\n') + 1
	}
	i := resultStart(chunk[start:end], name)
	if i < 0 {
		return chunk, ""
	}
	at := start + i
	rest = chunk[:at]
	if at > start {
		rest += "\n" // what was printed without a newline ends here
	}
	return rest + chunk[end+1:], strings.TrimRight(chunk[at:end], "\r")
}

// isBenchName reports whether name is benchmark cur's name as printed:
// cur, or cur with a GOMAXPROCS suffix.
func isBenchName(name, cur string) bool {
	procs, ok := strings.CutPrefix(name, cur+"-")
	return name == cur || ok && procs != "" && strings.Trim(procs, "0123456789") == ""
}

// resultStart returns the last index in line where the framework's result
// line for benchmark name starts, or -1: the name, a GOMAXPROCS suffix or
// none, padding, a tab, the iteration count right-aligned, and a tab or
// the end. Nowhere else in a result line does a number end in a tab (a
// metric is "value unit"), so the last such place is the framework's.
func resultStart(line, name string) int {
	if name == "" {
		return -1
	}
	for end := len(line); ; {
		i := strings.LastIndex(line[:end], name)
		if i < 0 {
			return -1
		}
		if isResultTail(line[i+len(name):]) {
			return i
		}
		end = i + len(name) - 1
	}
}

// isResultTail reports whether s is what follows the benchmark's name in
// a result line: optional "-procs", padding, tab, padding, the iteration
// count, and a tab or the end.
func isResultTail(s string) bool {
	digits := func() int {
		n := 0
		for n < len(s) && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		s = s[n:]
		return n
	}
	if strings.HasPrefix(s, "-") {
		s = s[1:]
		if digits() == 0 {
			return false
		}
	}
	s = strings.TrimLeft(s, " ")
	var ok bool
	if s, ok = strings.CutPrefix(s, "\t"); !ok {
		return false
	}
	s = strings.TrimLeft(s, " ")
	return digits() > 0 && (s == "" || s[0] == '\t')
}
