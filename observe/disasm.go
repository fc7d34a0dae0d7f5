package observe

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rigorbench/rigor/model"
)

// An Inst is one machine instruction as go tool objdump prints it.
type Inst struct {
	Source string // file:line
	Addr   uint64
	Op     string // mnemonic in Go assembler syntax: "INCQ", "CALL"
	Args   string // operands: "0x210(AX), CX"
}

func (in Inst) String() string {
	if in.Args == "" {
		return in.Op
	}
	return in.Op + " " + in.Args
}

// A Func is one function's disassembly and the loops found in it.
type Func struct {
	Name  string
	Insts []Inst
	Loops []Loop
}

// A Loop is the code between a backward branch and its target.
type Loop struct {
	Insts []Inst
	// Calls are the loop's CALL instructions.
	Calls []Inst
	// Work are the instructions that are neither loop control (compare,
	// branch, counter increment) nor moves of the loop's counter.
	Work []Inst
}

// Empty reports whether the loop calls nothing and does no work: it only
// counts.
func (l Loop) Empty() bool { return len(l.Calls) == 0 && len(l.Work) == 0 }

// EmptyLoop returns the first empty loop of f, or nil.
func (f *Func) EmptyLoop() *Loop {
	for i := range f.Loops {
		if f.Loops[i].Empty() {
			return &f.Loops[i]
		}
	}
	return nil
}

// Disassembly runs `go tool objdump -s funcRegexp binary` and returns the
// functions it printed, with their loops.
func Disassembly(ctx context.Context, binary, funcRegexp string) ([]Func, error) {
	cmd := exec.CommandContext(ctx, "go", "tool", "objdump", "-s", funcRegexp, binary)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go tool objdump -s %q %s: %w: %s", funcRegexp, binary, err, strings.TrimSpace(stderr.String()))
	}
	return ParseObjdump(bytes.NewReader(out))
}

// ParseObjdump parses the output of go tool objdump: TEXT lines start a
// function, indented lines are instructions (source, address, encoding,
// assembly, separated by tabs). Loops are found from branches to an
// earlier address of the same function.
func ParseObjdump(r io.Reader) ([]Func, error) {
	var funcs []Func
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "TEXT "); ok {
			name, _, _ := strings.Cut(rest, " ")
			funcs = append(funcs, Func{Name: strings.TrimSuffix(name, "(SB)")})
			continue
		}
		if len(funcs) == 0 {
			continue
		}
		var fields []string
		for f := range strings.SplitSeq(line, "\t") {
			if f = strings.TrimSpace(f); f != "" {
				fields = append(fields, f)
			}
		}
		if len(fields) < 3 {
			continue
		}
		addr, err := strconv.ParseUint(strings.TrimPrefix(fields[1], "0x"), 16, 64)
		if err != nil || !strings.HasPrefix(fields[1], "0x") {
			continue
		}
		asm := fields[len(fields)-1]
		op, args, _ := strings.Cut(asm, " ")
		in := Inst{Source: fields[0], Addr: addr, Op: op, Args: strings.TrimSpace(args)}
		f := &funcs[len(funcs)-1]
		f.Insts = append(f.Insts, in)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading objdump output: %w", err)
	}
	for i := range funcs {
		funcs[i].Loops = findLoops(funcs[i].Insts)
	}
	return funcs, nil
}

// findLoops returns, for every branch to an earlier (or the same) address,
// the instructions from the target to the branch.
func findLoops(insts []Inst) []Loop {
	var loops []Loop
	for i, in := range insts {
		if !isBranch(in.Op) {
			continue
		}
		target, ok := branchTarget(in.Args, in.Addr)
		if !ok || target > in.Addr {
			continue
		}
		j := i
		for j > 0 && insts[j-1].Addr >= target {
			j--
		}
		if insts[j].Addr != target {
			continue // a jump into the middle of an instruction: not ours to judge
		}
		loops = append(loops, classifyLoop(insts[j:i+1]))
	}
	return loops
}

// arm64Branches are arm64's conditional branches in Go syntax.
var arm64Branches = map[string]bool{
	"B": true, "BEQ": true, "BNE": true, "BCS": true, "BCC": true, "BHS": true, "BLO": true,
	"BMI": true, "BPL": true, "BVS": true, "BVC": true, "BHI": true, "BLS": true,
	"BGE": true, "BLT": true, "BGT": true, "BLE": true,
	"CBZ": true, "CBNZ": true, "CBZW": true, "CBNZW": true, "TBZ": true, "TBNZ": true,
}

// isBranch reports whether op is a jump or conditional branch (amd64 J*,
// arm64 B.cond, CBZ, TBZ), excluding calls.
func isBranch(op string) bool {
	return strings.HasPrefix(op, "J") || arm64Branches[op]
}

// branchTarget is the address a branch at addr goes to: a hexadecimal
// operand (amd64), or n(PC), n instructions of 4 bytes away (arm64).
func branchTarget(args string, addr uint64) (uint64, bool) {
	for a := range strings.SplitSeq(args, ",") {
		a = strings.TrimSpace(a)
		if h, ok := strings.CutPrefix(a, "0x"); ok {
			if v, err := strconv.ParseUint(h, 16, 64); err == nil {
				return v, true
			}
		}
		if n, ok := strings.CutSuffix(a, "(PC)"); ok {
			if v, err := strconv.ParseInt(n, 10, 64); err == nil {
				return uint64(int64(addr) + 4*v), true
			}
		}
	}
	return 0, false
}

var regRE = regexp.MustCompile(`\b(?:[A-Z][A-Z0-9]{1,3}|R[0-9]{1,2}|X[0-9]{1,2})\b`)

// directRegs returns the registers used directly (not as an address
// base) by an instruction's operands.
func directRegs(args string) []string {
	var regs []string
	for a := range strings.SplitSeq(args, ",") {
		a = strings.TrimSpace(a)
		if strings.Contains(a, "(") || strings.HasPrefix(a, "$") {
			continue
		}
		regs = append(regs, regRE.FindAllString(a, -1)...)
	}
	return regs
}

// counting reports whether an instruction only maintains a loop: compares,
// branches, increments or adds a constant, no-ops.
func counting(in Inst) bool {
	op := in.Op
	switch {
	case isBranch(op):
		return true
	case strings.HasPrefix(op, "CMP"), strings.HasPrefix(op, "TEST"), op == "CMN",
		strings.HasPrefix(op, "INC"), strings.HasPrefix(op, "DEC"), strings.HasPrefix(op, "NOP"):
		return true
	case (strings.HasPrefix(op, "ADD") || strings.HasPrefix(op, "SUB")) && strings.HasPrefix(in.Args, "$"):
		return true
	case strings.HasPrefix(op, "LEA") && strings.Count(in.Args, ",") == 1:
		// LEAQ 1(CX), CX: an increment written as an address computation.
		src, dst, _ := strings.Cut(in.Args, ",")
		base := regRE.FindString(src[strings.Index(src, "(")+1:])
		return strings.Contains(src, "(") && !strings.Contains(src, "*") && base == strings.TrimSpace(dst)
	}
	return false
}

// classifyLoop sorts a loop's instructions into calls, control and work.
// Moves are control when they mention a counter register (one that the
// loop increments or compares), as a loop whose counter lives in memory
// loads and stores it; any other instruction is work.
func classifyLoop(insts []Inst) Loop {
	l := Loop{Insts: insts}
	counters := map[string]bool{}
	for _, in := range insts {
		if counting(in) {
			for _, r := range directRegs(in.Args) {
				counters[r] = true
			}
		}
	}
	for _, in := range insts {
		switch {
		case in.Op == "CALL" || in.Op == "BL":
			l.Calls = append(l.Calls, in)
		case counting(in):
		case isMove(in.Op) && anyIn(regRE.FindAllString(in.Args, -1), counters):
		default:
			l.Work = append(l.Work, in)
		}
	}
	return l
}

// isMove reports whether op only moves data (loads, stores, register
// copies).
func isMove(op string) bool {
	for _, p := range []string{"MOV", "LDP", "STP", "LDR", "STR"} {
		if strings.HasPrefix(op, p) {
			return true
		}
	}
	return false
}

func anyIn(regs []string, set map[string]bool) bool {
	for _, r := range regs {
		if set[r] {
			return true
		}
	}
	return false
}

// BenchmarkFuncRegexp is the go tool objdump -s pattern for the functions
// of benchmark b in its package: the Benchmark function named by the first
// element of b.Name and the closures inside it (sub-benchmarks).
func BenchmarkFuncRegexp(b *model.Benchmark) string {
	top, _, _ := strings.Cut(b.Name, "/")
	fn := regexp.QuoteMeta("Benchmark"+top) + `(\.func[0-9.]+)*$`
	if b.Pkg == "" {
		return `\.` + fn
	}
	return "^" + regexp.QuoteMeta(b.Pkg) + `\.` + fn
}

// ConfirmElision disassembles benchmark b in the test binary built for it
// and says whether its timed loop does anything, as JudgeElision does.
// Call it for the benchmarks LikelyElided reports, after Annotate.
func ConfirmElision(ctx context.Context, binary string, b *model.Benchmark) (string, error) {
	funcs, err := Disassembly(ctx, binary, BenchmarkFuncRegexp(b))
	if err != nil {
		return "", err
	}
	return JudgeElision(b, funcs)
}

// JudgeElision decides from b's disassembled functions whether its timed
// loop does anything. The verdict replaces the "likely optimized away"
// note Annotate wrote (if any) in b.Notes, and is returned: either
// confirmed ("the loop ... has no call and no work ...: the benchmark
// measures an empty loop") or refuted ("shows work in its loops ...: it is
// just fast").
func JudgeElision(b *model.Benchmark, funcs []Func) (string, error) {
	note, err := elisionVerdict(b, funcs)
	if err != nil {
		return "", err
	}
	// The topic says which way the disassembly decided, as data: reports
	// show a confirmed empty loop, and the refutation only on request.
	topic := model.TopicNotElided
	if slices.ContainsFunc(funcs, func(f Func) bool { return f.EmptyLoop() != nil }) {
		topic = model.TopicEmptyLoop
	}
	b.Notes = slices.DeleteFunc(b.Notes, func(n model.Note) bool { return n.Kind == model.NoteElision })
	addNote(&b.Notes, model.Note{Kind: model.NoteDisassembly, Topic: topic, Source: source, Benchmark: b.Key(), Text: note})
	return note, nil
}

// elisionVerdict is ConfirmElision's judgement of a disassembly.
func elisionVerdict(b *model.Benchmark, funcs []Func) (string, error) {
	top, _, _ := strings.Cut(b.Name, "/")
	name := "Benchmark" + top
	if len(funcs) == 0 {
		return "", fmt.Errorf("no function matching %s in the binary", name)
	}
	var work []string
	for i := range funcs {
		f := &funcs[i]
		if l := f.EmptyLoop(); l != nil {
			var insts []string
			for _, in := range l.Insts {
				insts = append(insts, in.String())
			}
			return fmt.Sprintf("confirmed from the disassembly: the loop in %s has no call and no work (%s), so the benchmark measures an empty loop",
				shortFunc(f.Name), strings.Join(insts, "; ")), nil
		}
		for _, l := range f.Loops {
			for _, in := range l.Work {
				if len(work) < 3 && !slices.Contains(work, in.String()) {
					work = append(work, in.String())
				}
			}
		}
	}
	if len(work) == 0 {
		return fmt.Sprintf("the disassembly of %s has no loop without a call; the compiler did not reduce it to an empty loop", name), nil
	}
	return fmt.Sprintf("the disassembly of %s shows work in its loops (%s): the code was not optimized away, it is just fast",
		name, strings.Join(work, "; ")), nil
}

// shortFunc drops the import path: "benchlab.BenchmarkElided".
func shortFunc(name string) string {
	if i := strings.LastIndex(name, "/"); i >= 0 {
		return name[i+1:]
	}
	return name
}
