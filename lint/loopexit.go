package lint

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// LoopExit reports a return, break or goto that leaves a timed loop. From
// a b.Loop loop, the benchmark then ends before b.Loop has returned
// false, and testing (Go 1.24 and later) fails it: "benchmark function
// returned without B.Loop() == false (break or return in loop?)"; no
// result is reported. From a b.N loop (or a range over b.N elements),
// testing cannot tell: when the exit is taken, fewer than b.N iterations
// ran and ns/op divides their time by b.N. Measured on Go 1.26.8
// linux/amd64 (lint/testdata/measure, medians of 5): a return after 100
// iterations of a 500 ns operation, with -benchtime 20000x, reported
// 0.99 ns/op. A
// return or break after b.Error, b.Errorf or b.Fail in the same block is
// not reported: the benchmark has failed already.
var LoopExit = &analysis.Analyzer{
	Name:     "loopexit",
	Doc:      "report return, break or goto out of a timed loop (b.Loop or b.N)",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#LoopExit",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runLoopExit,
}

func runLoopExit(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	for _, f := range benchFuncs(pass, in) {
		for _, l := range f.loops {
			checkExits(pass, l)
		}
	}
	return nil, nil
}

func checkExits(pass *analysis.Pass, l *timedLoop) {
	info := pass.TypesInfo
	// Labels declared inside the loop body: a branch to one stays inside.
	inner := map[string]bool{}
	ast.Inspect(l.body, func(n ast.Node) bool {
		if ls, ok := n.(*ast.LabeledStmt); ok {
			inner[ls.Label.Name] = true
		}
		_, lit := n.(*ast.FuncLit)
		return !lit
	})
	var walk func(list []ast.Stmt, breakable bool)
	var stmt func(s ast.Stmt, breakable bool, failed bool)
	walk = func(list []ast.Stmt, breakable bool) {
		failed := false
		for _, s := range list {
			if failsB(info, s) {
				failed = true
			}
			stmt(s, breakable, failed)
		}
	}
	// breakable: an unlabeled break here leaves an inner for, range,
	// switch or select, not the b.Loop loop.
	stmt = func(s ast.Stmt, breakable, failed bool) {
		switch s := s.(type) {
		case *ast.ReturnStmt:
			if failed {
				break
			}
			if l.kind == loopLoop {
				pass.ReportRangef(s, "return inside a b.Loop loop: the benchmark ends before b.Loop returns false, and testing fails it (\"benchmark function returned without B.Loop() == false\")")
			} else {
				pass.ReportRangef(s, "return inside the b.N loop: when it is taken, fewer than b.N iterations ran and ns/op divides their time by b.N; call b.Fatal for an error, or loop exactly b.N times")
			}
		case *ast.BranchStmt:
			switch {
			case s.Tok == token.BREAK && s.Label == nil && !breakable,
				s.Tok == token.BREAK && s.Label != nil && !inner[s.Label.Name],
				s.Tok == token.GOTO && !inner[s.Label.Name]:
				switch {
				case failed:
				case l.kind == loopLoop:
					pass.ReportRangef(s, "%s leaves the b.Loop loop before b.Loop returns false, and testing fails the benchmark (\"benchmark function returned without B.Loop() == false\")", s.Tok)
				default:
					pass.ReportRangef(s, "%s leaves the b.N loop: when it is taken, fewer than b.N iterations ran and ns/op divides their time by b.N; call b.Fatal for an error, or loop exactly b.N times", s.Tok)
				}
			}
		case *ast.BlockStmt:
			walk(s.List, breakable)
		case *ast.LabeledStmt:
			stmt(s.Stmt, breakable, failed)
		case *ast.IfStmt:
			// `if i >= b.N { return }` in a b.N loop that counts
			// iterations itself (as google/btree's do): the exit is taken
			// once b.N iterations ran.
			if l.kind == loopLoop || !mentionsBN(info, s.Cond) {
				walk(s.Body.List, breakable)
			}
			if s.Else != nil {
				stmt(s.Else, breakable, failed)
			}
		case *ast.ForStmt:
			walk(s.Body.List, true)
		case *ast.RangeStmt:
			walk(s.Body.List, true)
		case *ast.SwitchStmt:
			for _, c := range s.Body.List {
				walk(c.(*ast.CaseClause).Body, true)
			}
		case *ast.TypeSwitchStmt:
			for _, c := range s.Body.List {
				walk(c.(*ast.CaseClause).Body, true)
			}
		case *ast.SelectStmt:
			for _, c := range s.Body.List {
				walk(c.(*ast.CommClause).Body, true)
			}
		}
	}
	walk(l.body.List, false)
}

// failsB reports whether s calls b.Error, b.Errorf or b.Fail, or one of
// the methods that end the benchmark (Fatal, Skip and the like: a return
// after them is never reached).
func failsB(info *types.Info, s ast.Stmt) bool {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return false
	}
	c, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	for _, name := range []string{"Error", "Errorf", "Fail", "Fatal", "Fatalf", "FailNow", "Skip", "Skipf", "SkipNow"} {
		if isMethodCall(info, c, "testing", "B", name) || isMethodCall(info, c, "testing", "common", name) {
			return true
		}
	}
	return false
}
