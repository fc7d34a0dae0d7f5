package lint

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// StopTimer reports a b.StopTimer that no b.StartTimer follows before
// timed work: one before a timed loop with no StartTimer between them, or
// one inside a timed loop whose body never calls StartTimer. With b.N the
// loop (or every iteration after the first) is then not timed, and ns/op
// is close to 0; b.Loop fails the benchmark ("B.Loop called with timer
// stopped"). A StopTimer after the last timed loop, to leave clean-up out
// of the measurement, is right and not reported; so is a loop that runs
// with the timer stopped and is followed by a StartTimer and more work:
// set-up, such as filling a b.N-sized input that a later loop ranges
// over (a range over a slice made with make([]T, b.N) is a timed loop
// too).
var StopTimer = &analysis.Analyzer{
	Name:     "stoptimer",
	Doc:      "report b.StopTimer with no b.StartTimer before the timed work",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#StopTimer",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runStopTimer,
}

func runStopTimer(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo
	for _, f := range benchFuncs(pass, in) {
		stops := calls(f.body, timerCall(info, "StopTimer"))
		starts := calls(f.body, timerCall(info, "StartTimer"))
	stop:
		for _, s := range stops {
			for _, l := range f.loops {
				if within(s.Pos(), l.body) {
					if !anyWithin(starts, l.body) {
						pass.ReportRangef(s, "StopTimer inside the timed loop with no StartTimer in it: %s", untimed(l))
					}
					continue stop
				}
			}
			for _, l := range f.loops {
				if l.stmt.Pos() < s.Pos() {
					continue
				}
				// Restarted before the loop, or in its body (around
				// the timed part of each iteration).
				restarted := anyWithin(starts, l.body)
				var after *ast.CallExpr // the first StartTimer after the loop
				for _, st := range starts {
					if s.Pos() < st.Pos() && st.Pos() < l.stmt.Pos() {
						restarted = true
					}
					if after == nil && st.Pos() >= l.stmt.End() {
						after = st
					}
				}
				if restarted {
					continue stop
				}
				// Stopped around the loop, and restarted for work after
				// it: the loop is set-up (filling a b.N-sized input),
				// untimed on purpose; the timed loop is a later one.
				if l.kind != loopLoop && after != nil && workAfter(info, f.body, after) {
					continue
				}
				pass.ReportRangef(s, "StopTimer with no StartTimer before the timed loop: %s", untimed(l))
				continue stop
			}
		}
	}
	return nil, nil
}

// workAfter reports whether body has a statement after the call c, other
// than calls of testing.B's methods and returns: something for the timer
// c starts to time.
func workAfter(info *types.Info, body *ast.BlockStmt, c *ast.CallExpr) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found || n == nil || n.End() <= c.End() && !within(c.Pos(), n) {
			return false
		}
		st, ok := n.(ast.Stmt)
		if !ok || n.Pos() < c.End() {
			return true // c is inside: look at what follows it there
		}
		switch st := st.(type) {
		case *ast.ReturnStmt, *ast.EmptyStmt:
			return false
		case *ast.ExprStmt:
			if call, ok := ast.Unparen(st.X).(*ast.CallExpr); ok && isTestingBMethod(info, call) {
				return false
			}
		}
		found = true
		return false
	})
	return found
}

// isTestingBMethod reports whether call calls a method of *testing.B
// (its own or testing.common's).
func isTestingBMethod(info *types.Info, call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	s := info.Selections[sel]
	return s != nil && s.Kind() == types.MethodVal && isTestingB(s.Recv())
}

func untimed(l *timedLoop) string {
	if l.kind == loopLoop {
		return "b.Loop fails the benchmark (\"B.Loop called with timer stopped\"); call b.StartTimer before the loop"
	}
	return "the loop is not timed and ns/op is close to 0; call b.StartTimer"
}

func anyWithin(cs []*ast.CallExpr, n ast.Node) bool {
	for _, c := range cs {
		if within(c.Pos(), n) {
			return true
		}
	}
	return false
}
