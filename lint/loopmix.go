package lint

import (
	"go/ast"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// LoopMix reports a benchmark that uses b.Loop and also reads b.N before
// or inside its b.Loop loop. A benchmark that calls b.Loop runs once: b.N
// is 1 until b.Loop starts, 0 inside the loop (testing sets it so), and
// the number of iterations after it ends, when reading it is right (for a
// custom metric). So a b.N loop before the b.Loop loop runs once, untimed
// (b.Loop resets the timer); one after it repeats the work b.N times with
// the timer stopped; `make([]T, b.N)` before it makes one element.
var LoopMix = &analysis.Analyzer{
	Name:     "loopmix",
	Doc:      "report b.N read before or inside a b.Loop loop, and b.N loops in a b.Loop benchmark",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#LoopMix",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runLoopMix,
}

func runLoopMix(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo
	for _, f := range benchFuncs(pass, in) {
		var first *timedLoop // the first b.Loop loop
		for _, l := range f.loops {
			if l.kind == loopLoop {
				first = l
				break
			}
		}
		if first == nil {
			continue
		}
		for _, l := range f.loops {
			if l.kind != loopN {
				continue
			}
			msg := "b.N loop in a benchmark that uses b.Loop: b.N is 1 before b.Loop starts, so this loop runs once, untimed; use one b.Loop loop"
			if l.stmt.Pos() > first.stmt.End() {
				msg = "b.N loop after b.Loop: it repeats the work b.N times with the timer stopped, which only slows the run; use one b.Loop loop"
			}
			pass.ReportRangef(l.stmt, "%s", msg)
		}
		// b.N read before the first b.Loop loop, or inside a b.Loop loop.
		ast.Inspect(f.body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.SelectorExpr:
				if !isBN(info, n) || inNLoopHeader(f, n) {
					return true
				}
				for _, l := range f.loops {
					if l.kind == loopLoop && within(n.Pos(), l.body) {
						pass.ReportRangef(n, "b.N is 0 inside a b.Loop loop (testing sets it so until the loop ends); count iterations yourself or read b.N after the loop")
						return true
					}
				}
				if n.Pos() < first.stmt.Pos() && !inNLoop(f, n) {
					pass.ReportRangef(n, "b.N is 1 before b.Loop starts (a b.Loop benchmark runs once), so this uses 1, not the iteration count")
				}
			}
			return true
		})
	}
	return nil, nil
}

// inNLoopHeader reports whether e is in the header of one of f's b.N
// loops (reported as a loop already).
func inNLoopHeader(f *benchFunc, e ast.Node) bool {
	for _, l := range f.loops {
		if l.kind == loopN && within(e.Pos(), l.stmt) && !within(e.Pos(), l.body) {
			return true
		}
	}
	return false
}

// inNLoop reports whether e is inside one of f's b.N loops.
func inNLoop(f *benchFunc, e ast.Node) bool {
	for _, l := range f.loops {
		if l.kind == loopN && within(e.Pos(), l.stmt) {
			return true
		}
	}
	return false
}
