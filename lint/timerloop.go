package lint

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// TimerLoop reports b.StopTimer/b.StartTimer inside a timed loop whose
// timed part is small. Each call reads the clock and calls
// runtime.ReadMemStats, which stops the world. Measured on Go 1.26.8
// linux/amd64 (a shared 2-core machine, 5 runs of 200000 iterations,
// lint/testdata/timercost): a StopTimer/StartTimer pair around nothing
// added about 65 ns to the ns/op of a 1.6 ns body (median 67.0 against
// 1.65 ns/op), and took about 38 µs of wall time (median; 23-84 µs), so
// the benchmark ran some 10,000 times longer than it reported.
//
// A pair costs little next to milliseconds of work (sorting 100,000 ints,
// a garbage collection), which is where the standard library mostly uses
// it, so the check reports only a timed part it can see is small: no
// loops, and calls only to builtins, to pure functions, and to functions
// of the package that have no loop; or a sort (the usual reason for the
// pair: refilling its input) estimated under 10 µs from the routine, the
// number of elements and their order (sortTimed, sortCosts). Prepare the
// inputs before the loop instead (b.Loop resets the timer when it
// starts), or with rigor.IterWithSetup, which reads the clock once per
// batch.
var TimerLoop = &analysis.Analyzer{
	Name:     "timerloop",
	Doc:      "report b.StopTimer/b.StartTimer inside a timed loop around a small timed part",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#TimerLoop",
	Requires: []*analysis.Analyzer{inspect.Analyzer, purityAnalyzer},
	Run:      runTimerLoop,
}

func runTimerLoop(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	pure := purityOf(pass)
	info := pass.TypesInfo
	for _, f := range benchFuncs(pass, in) {
		for _, l := range f.loops {
			cs := calls(l.body, func(c *ast.CallExpr) bool {
				return timerCall(info, "StopTimer")(c) || timerCall(info, "StartTimer")(c)
			})
			if len(cs) == 0 {
				continue
			}
			timed := timedStmts(info, l.body.List)
			if len(timed) > 0 && small(pass, pure, timed, map[*types.Func]bool{}) {
				pass.ReportRangef(cs[0], "StopTimer/StartTimer inside the timed loop around a small timed part: each pair adds about 65 ns to ns/op and about 40 µs of wall time "+
					"(two runtime.ReadMemStats, which stop the world), more than the work; prepare inputs before the loop")
				continue
			}
			if est := sortTimed(pass, pure, f, l); est != nil {
				pass.ReportRangef(cs[0], "StopTimer/StartTimer inside the timed loop around %s: each pair adds about 65 ns to ns/op (%.1f%%) and about 40 µs of wall time "+
					"(two runtime.ReadMemStats, which stop the world); prepare inputs before the loop", est, 65/est.ns*100)
			}
		}
	}
	return nil, nil
}

// timedStmts returns the statements of a loop body that run with the
// timer on, from the StopTimer and StartTimer calls among them: the state
// at the top of the body is the one its end leaves for the next iteration.
func timedStmts(info *types.Info, list []ast.Stmt) []ast.Stmt {
	toggle := func(s ast.Stmt) (on, off bool) {
		es, ok := s.(*ast.ExprStmt)
		if !ok {
			return false, false
		}
		c, ok := es.X.(*ast.CallExpr)
		if !ok {
			return false, false
		}
		return timerCall(info, "StartTimer")(c), timerCall(info, "StopTimer")(c)
	}
	running := true
	for _, s := range list {
		if on, off := toggle(s); on {
			running = true
		} else if off {
			running = false
		}
	}
	var out []ast.Stmt
	for _, s := range list {
		on, off := toggle(s)
		switch {
		case on:
			running = true
		case off:
			running = false
		case running:
			out = append(out, s)
		}
	}
	return out
}

// small reports whether the statements visibly do little: no loops, and
// calls only to builtins, conversions, pure functions, testing's methods
// and functions of this package that are small themselves (and not
// recursive; visiting holds the functions being checked).
func small(pass *analysis.Pass, pure *purity, stmts []ast.Stmt, visiting map[*types.Func]bool) bool {
	info := pass.TypesInfo
	ok := true
	for _, s := range stmts {
		ast.Inspect(s, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ForStmt, *ast.RangeStmt, *ast.GoStmt, *ast.SelectStmt:
				ok = false
			case *ast.CallExpr:
				if tv, isType := info.Types[n.Fun]; isType && tv.IsType() {
					break
				}
				if id, isID := ast.Unparen(n.Fun).(*ast.Ident); isID {
					if _, isBuiltin := info.Uses[id].(*types.Builtin); isBuiltin {
						break
					}
				}
				fn, isFunc := typeutil.Callee(info, n).(*types.Func)
				switch {
				case !isFunc:
					ok = false
				case pure.call(n) != nil:
				case fn.Pkg() == pass.Pkg && pure.decls[fn.Origin()] != nil:
					d := pure.decls[fn.Origin()]
					if visiting[fn.Origin()] {
						ok = false // recursive: no bound on the work
						break
					}
					visiting[fn.Origin()] = true
					ok = small(pass, pure, d.Body.List, visiting)
					delete(visiting, fn.Origin())
				case fn.Pkg() != nil && fn.Pkg().Path() == "testing":
				default:
					ok = false
				}
			}
			return ok
		})
	}
	return ok
}
