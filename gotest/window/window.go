// Package window makes the build overlay through which a go test binary
// reports, for exactly the window its benchmark timer measured, the
// process's CPU time and how long its threads waited for a CPU, the
// instructions and cycles its threads retired where the machine counts
// them, or, run under Valgrind's callgrind, marks each window so that the
// simulator counts its instructions.
//
// The overlay replaces the toolchain's src/testing/benchmark.go with a copy
// generated from that toolchain's own file (never a copy shipped with
// rigor): it parses the file, finds the timer's start, stop and reset, the
// end of each run of the benchmark function and the start of RunParallel,
// and inserts one call at each, on the line it belongs to so that the
// file's line numbers (in a panic's stack trace, say) stay those of the
// original. A second file added to package testing holds the calls: they
// read CLOCK_PROCESS_CPUTIME_ID and the run-queue delay of the process's
// threads (/proc/self/task/*/schedstat), without allocating, just outside
// the timer's own wall-clock reads, and report them as the metrics
// cpu-ns/op and wait-ns/op beside ns/op; and the voluntary context
// switches of the threads that did the window's work
// (/proc/self/task/*/status, read only for a thread scheduled in since its
// last read, as schedstat's third figure tells), as vcsw/op. The user's
// code is untouched; the build cache keeps the patched package testing
// apart from the real one.
//
// # Hardware counters
//
// Where the machine has them (CountersAvailable), the calls also open, for
// each of the process's threads but the Go runtime's sysmon, a counter of
// the instructions and one of the cycles it runs in user space
// (perf_event_open), read them where they read schedstat, and report the
// threads' counts summed over the window as instructions/op and cycles/op.
// A figure is reported exact or not at all: not when a thread's counter
// could not be opened or read, or shared the hardware with other counters
// for part of the window (the kernel then counts in turns); nor when a
// test binary's first open of it failed (no counters on the machine, or
// none for the process), which turns it off for the process, silently.
// Threads born inside a window are not counted (nor are their CPU waits).
// CountersOffEnv in the test binary's environment turns them off.
//
// # Simulation
//
// With SimulateEnv in the test binary's environment the calls read no clock,
// file or counter. They call testing.rigorSimZero, an empty function, last
// as a run of the benchmark function starts (and again as its timer first
// starts, and where ResetTimer restarts the window), and
// testing.rigorSimDump first as it ends, so that callgrind run with
// --zero-before=testing.rigorSimZero and --dump-before=testing.rigorSimDump
// writes one dump file per run, DIR/cg.out.1, DIR/cg.out.2, and so on, whose
// totals line is the instructions of the run's timed window, every
// thread's (and a constant few thousand of the timer's own: StopTimer reads
// the memory statistics; see SimResult.Instructions).
// Each result line then carries rigor-window, the number of its window's
// dump file; rigor-segments, how many times the timer started in the window
// (above 1, the benchmark stopped it inside its loop, and the dump counts
// what it did meanwhile); and rigor-parallel, 1 when the benchmark called
// RunParallel. Simulate runs a test binary so and reads its dumps.
package window

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
)

// The units the overlay adds to a benchmark's result line, as printed.
const (
	// CPUUnit is the process's CPU time (user plus system, every thread)
	// inside the timed window, per operation.
	CPUUnit = "cpu-ns/op"
	// WaitUnit is how long the process's threads were runnable but not
	// running (waiting for a CPU) inside the timed window, per operation.
	WaitUnit = "wait-ns/op"
	// InstructionsUnit is the instructions the process's threads retired
	// in user space inside the timed window, per operation, as the
	// machine's hardware counters count them.
	InstructionsUnit = "instructions/op"
	// CyclesUnit is the CPU cycles the process's threads ran in user space
	// inside the timed window, per operation.
	CyclesUnit = "cycles/op"
	// SwitchesUnit is the voluntary context switches of the threads that
	// did the window's work (a tenth of its CPU time or more, the Go
	// runtime's sysmon left out) inside the timed window, per operation:
	// how often the benchmark blocked (model.SwitchesUnit).
	SwitchesUnit = "vcsw/op"
)

// Settings of a test binary's environment that the overlay reads, each as
// it is added to the environment.
const (
	// SimulateEnv makes the overlay mark each window for callgrind, and
	// read nothing (see Simulation in the package documentation).
	SimulateEnv = "RIGOR_INSTRUCTIONS=simulate"
	// CountersOffEnv keeps the overlay from reading hardware counters.
	CountersOffEnv = "RIGOR_COUNTERS=off"
)

// CountersAvailable reports whether this machine lets a process count the
// instructions its threads retire, as the overlay does for a test binary
// run on it, and, when it does not, why, in plain words (no counters, as on
// most VMs; perf_event_paranoid; a container's restrictions). With
// CountersOffEnv in this process's environment it reports false, saying so:
// a test binary run with this environment would not count.
func CountersAvailable() (ok bool, why string) {
	if os.Getenv("RIGOR_COUNTERS") == "off" {
		return false, "the environment has " + CountersOffEnv
	}
	return countersAvailable()
}

//go:embed hooks.go.txt
var hooks []byte

// SimSegments is the most timed segments (StartTimer to StopTimer) of a
// window whose instructions a simulation counts, each in a callgrind dump
// of its own (the hooks' rigorSimSegments): a benchmark that stops its
// timer around its set-up has two or three; one that stops it in every
// iteration has as many as iterations, and is not counted.
const SimSegments = 8

// HooksFile is the name of the file the overlay adds to package testing.
const HooksFile = "rigor_window.go"

// An insertion is text to insert at a byte offset of the source.
type insertion struct {
	off  int
	text string
}

// Patch returns src, the source of a toolchain's testing/benchmark.go,
// with the window's calls inserted. It fails, saying what it did not
// find, when src does not have the shape the calls need: a B struct; a
// StartTimer, and a ResetTimer under b.timerOn, that set b.start; a
// StopTimer that adds to b.duration; a ResetTimer that zeroes it; and a
// runN that calls b.ResetTimer() and b.StopTimer() around the benchmark
// function; and a RunParallel. Every Go release from 1.20 to 1.26 has it.
func Patch(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "benchmark.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parsing testing/benchmark.go: %w", err)
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	var ins []insertion
	var missing []string
	need := func(ok bool, what string) {
		if !ok {
			missing = append(missing, what)
		}
	}

	// type B struct { ...; rigorWin rigorWindowState; }
	var structOK bool
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			if st, ok := ts.Type.(*ast.StructType); ok && ts.Name.Name == "B" {
				ins = append(ins, insertion{off(st.Fields.Closing), "rigorWin rigorWindowState; "})
				structOK = true
			}
		}
	}
	need(structOK, "type B struct")

	methods := map[string]*ast.FuncDecl{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Body != nil && recvIsB(fd) {
			methods[fd.Name.Name] = fd
		}
	}

	// StartTimer: "if !b.timerOn { ...; b.start = now; ... }".
	if fd := methods["StartTimer"]; fd != nil {
		st := findAssign(fd.Body, "start", token.ASSIGN)
		need(st != nil, "the assignment to b.start in StartTimer")
		if st != nil {
			ins = append(ins, insertion{off(st.Pos()), "rigorWindowStart(b); "})
		}
	} else {
		need(false, "B.StartTimer")
	}

	// StopTimer: "b.duration += since(b.start)".
	if fd := methods["StopTimer"]; fd != nil {
		st := findAssign(fd.Body, "duration", token.ADD_ASSIGN)
		need(st != nil, "the addition to b.duration in StopTimer")
		if st != nil {
			ins = append(ins, insertion{off(st.End()), "; rigorWindowStop(b)"})
		}
	} else {
		need(false, "B.StopTimer")
	}

	// ResetTimer: "if b.timerOn { ...; b.start = now }" and "b.duration = 0".
	if fd := methods["ResetTimer"]; fd != nil {
		st := findAssign(fd.Body, "start", token.ASSIGN)
		need(st != nil, "the assignment to b.start in ResetTimer")
		if st != nil {
			ins = append(ins, insertion{off(st.Pos()), "rigorWindowStart(b); "})
		}
		z := findAssign(fd.Body, "duration", token.ASSIGN)
		need(z != nil, "the zeroing of b.duration in ResetTimer")
		if z != nil {
			ins = append(ins, insertion{off(z.End()), "; rigorWindowReset(b)"})
		}
	} else {
		need(false, "B.ResetTimer")
	}

	// runN: "b.ResetTimer(); b.StartTimer(); b.benchFunc(b); b.StopTimer()".
	if fd := methods["runN"]; fd != nil {
		reset, stop := topLevelCall(fd.Body, "ResetTimer"), topLevelCall(fd.Body, "StopTimer")
		need(reset != nil, "the call of b.ResetTimer() in runN")
		need(stop != nil, "the call of b.StopTimer() in runN")
		if reset != nil && stop != nil {
			ins = append(ins, insertion{off(reset.Pos()), "rigorWindowOpen(b); "},
				insertion{off(stop.End()), "; rigorWindowReport(b)"})
		}
	} else {
		need(false, "B.runN")
	}

	// RunParallel: a call first of all, so that a simulation can say that the
	// window's instructions are those of several goroutines.
	if fd := methods["RunParallel"]; fd != nil {
		named := len(fd.Recv.List[0].Names) == 1 && fd.Recv.List[0].Names[0].Name == "b"
		need(named, "a receiver named b in B.RunParallel")
		if named {
			ins = append(ins, insertion{off(fd.Body.Lbrace) + 1, "rigorWindowParallel(b); "})
		}
	} else {
		need(false, "B.RunParallel")
	}

	if len(missing) > 0 {
		return nil, &ShapeError{Missing: missing}
	}
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].off < ins[j].off })
	var out bytes.Buffer
	last := 0
	for _, in := range ins {
		out.Write(src[last:in.off])
		out.WriteString(in.text)
		last = in.off
	}
	out.Write(src[last:])
	if _, err := parser.ParseFile(token.NewFileSet(), "benchmark.go", out.Bytes(), parser.SkipObjectResolution); err != nil {
		return nil, fmt.Errorf("the patched testing/benchmark.go does not parse: %w", err)
	}
	return out.Bytes(), nil
}

// A ShapeError says that a toolchain's testing/benchmark.go lacks what the
// overlay needs, so the window cannot be measured with it.
type ShapeError struct {
	Missing []string
}

func (e *ShapeError) Error() string {
	return fmt.Sprintf("testing/benchmark.go does not have the shape rigor's timer overlay needs (no %s)", joinWords(e.Missing))
}

func joinWords(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := s[0]
	for _, w := range s[1 : len(s)-1] {
		out += ", " + w
	}
	return out + " or " + s[len(s)-1]
}

// recvIsB reports whether fd is a method on *B.
func recvIsB(fd *ast.FuncDecl) bool {
	if len(fd.Recv.List) != 1 {
		return false
	}
	star, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && id.Name == "B"
}

// findAssign finds, anywhere in body, the statement "b.FIELD tok ...".
func findAssign(body *ast.BlockStmt, field string, tok token.Token) *ast.AssignStmt {
	var found *ast.AssignStmt
	ast.Inspect(body, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		a, ok := n.(*ast.AssignStmt)
		if !ok || a.Tok != tok || len(a.Lhs) != 1 {
			return true
		}
		if isSelector(a.Lhs[0], "b", field) {
			found = a
		}
		return true
	})
	return found
}

// topLevelCall finds the statement "b.NAME()" directly in body.
func topLevelCall(body *ast.BlockStmt, name string) *ast.ExprStmt {
	for _, s := range body.List {
		es, ok := s.(*ast.ExprStmt)
		if !ok {
			continue
		}
		if c, ok := es.X.(*ast.CallExpr); ok && len(c.Args) == 0 && isSelector(c.Fun, "b", name) {
			return es
		}
	}
	return nil
}

func isSelector(e ast.Expr, x, sel string) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok || s.Sel.Name != sel {
		return false
	}
	id, ok := s.X.(*ast.Ident)
	return ok && id.Name == x
}

// Supported reports whether the overlay can measure the window for a
// build targeting goos and goarch: the hooks read Linux's clocks and
// /proc.
func Supported(goos, goarch string) bool {
	return goos == "linux"
}

// Make writes, into dir, the patched benchmark.go of the toolchain at
// goroot, the hooks file, and an overlay file mapping goroot's paths to
// them, merged with the overlay at userOverlay (a user's -overlay from
// GOFLAGS; "" for none), and returns the overlay file's path.
func Make(goroot, dir, userOverlay string) (string, error) {
	orig := filepath.Join(goroot, "src", "testing", "benchmark.go")
	src, err := os.ReadFile(orig)
	if err != nil {
		return "", fmt.Errorf("reading the toolchain's testing package: %w", err)
	}
	patched, err := Patch(src)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bench, hook := filepath.Join(dir, "benchmark.go"), filepath.Join(dir, HooksFile)
	if err := os.WriteFile(bench, patched, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(hook, hooks, 0o644); err != nil {
		return "", err
	}
	replace := map[string]string{}
	if userOverlay != "" {
		user, err := readOverlay(userOverlay)
		if err != nil {
			return "", err
		}
		for k, v := range user {
			replace[k] = v
		}
		if _, clash := user[orig]; clash {
			return "", fmt.Errorf("the overlay %s already replaces %s, which rigor's timer overlay needs to replace", userOverlay, orig)
		}
	}
	replace[orig] = bench
	replace[filepath.Join(goroot, "src", "testing", HooksFile)] = hook
	data, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "\t")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// readOverlay reads the Replace map of a go command overlay file.
func readOverlay(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the -overlay in GOFLAGS: %w", err)
	}
	var o struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("reading the -overlay in GOFLAGS: %s: %w", path, err)
	}
	if o.Replace == nil {
		return nil, errors.New("reading the -overlay in GOFLAGS: " + path + " has no Replace map")
	}
	return o.Replace, nil
}
