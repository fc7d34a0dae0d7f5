package lint

import (
	"go/ast"

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
// of the measurement, is right and not reported.
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
				for _, st := range starts {
					if s.Pos() < st.Pos() && st.Pos() < l.stmt.Pos() {
						restarted = true
					}
				}
				if !restarted {
					pass.ReportRangef(s, "StopTimer with no StartTimer before the timed loop: %s", untimed(l))
				}
				continue stop
			}
		}
	}
	return nil, nil
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
