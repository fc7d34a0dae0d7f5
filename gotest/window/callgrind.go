package window

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// sysmonFunc is the Go runtime's system monitor, the root function of a
// thread of its own that runs no goroutine: what it does, it does by the
// clock (it wakes every 20 µs to 10 ms), not for the benchmark.
const sysmonFunc = "runtime.sysmon"

// A dumpCount is what a callgrind dump counted: every thread's
// instructions (its totals line), and of them those of the runtime's
// sysmon thread.
type dumpCount struct {
	Totals, Sysmon float64
}

// readDump reads a callgrind dump (the format callgrind_annotate reads:
// valgrind's docs, "Callgrind Format Specification") of the one event
// Ir: its totals, and the inclusive instructions of runtime.sysmon, its
// own (the cost lines in its fn= block) and its callees' (the cost line
// after each calls= line in that block). Names are compressed: "fn=(12)
// name" defines 12, and a later "fn=(12)" or "cfn=(12)" refers to it;
// "cfn=(12) name" defines it too.
func readDump(r io.Reader, path string) (dumpCount, error) {
	var d dumpCount
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	names := map[string]string{}
	inSysmon, haveTotals := false, false
	name := func(spec string) string {
		// "(12) runtime.sysmon", "(12)" or, uncompressed, "runtime.sysmon".
		id, rest, ok := strings.Cut(spec, " ")
		if !strings.HasPrefix(spec, "(") {
			return spec
		}
		if ok {
			names[id] = rest
			return rest
		}
		return names[spec]
	}
	for line := 0; sc.Scan(); line++ {
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, "totals:"):
			n, err := firstUint(strings.TrimPrefix(text, "totals:"))
			if err != nil {
				return d, fmt.Errorf("%s: totals %q: %w", path, text, err)
			}
			d.Totals, haveTotals = n, true
		case strings.HasPrefix(text, "fn="):
			inSysmon = name(text[len("fn="):]) == sysmonFunc
		case strings.HasPrefix(text, "cfn="):
			name(text[len("cfn="):])
		case text == "" || !isCostLine(text):
			// Headers, calls=, file and object names, summary, jumps.
		case inSysmon:
			// Its own cost, or, after a calls= line, a callee's
			// inclusive cost: both are sysmon's.
			_, cost, _ := strings.Cut(text, " ")
			n, err := firstUint(cost)
			if err != nil {
				return d, fmt.Errorf("%s:%d: cost line %q: %w", path, line+1, text, err)
			}
			d.Sysmon += n
		}
	}
	if err := sc.Err(); err != nil {
		return d, err
	}
	if !haveTotals {
		return d, fmt.Errorf("%s has no totals line", path)
	}
	// A call of sysmon's that began before the zeroing and returned after
	// it (a sleep) has an inclusive cost that is not the dump's: in a
	// segment of a few hundred instructions it can exceed them (568
	// against 227, seen). It is at most one such call, a few hundred
	// instructions: the dump's part is kept within its totals.
	d.Sysmon = min(d.Sysmon, d.Totals)
	return d, nil
}

// isCostLine reports whether a dump line is a cost line: a position
// (a number, or relative: "+3", "-2", "*") and costs.
func isCostLine(s string) bool {
	c := s[0]
	return c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*'
}

// firstUint parses the first field of s as an unsigned count.
func firstUint(s string) (float64, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, fmt.Errorf("no count")
	}
	n, err := strconv.ParseUint(f[0], 10, 64)
	return float64(n), err
}
