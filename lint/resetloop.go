package lint

import (
	"go/ast"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// ResetLoop reports b.ResetTimer called in every iteration of a timed
// loop. ResetTimer sets the elapsed time to zero, so each iteration
// discards the time of those before it, and ns/op is the last
// iteration's time (and the loop's end) divided by b.N: close to 0.
// Measured on Go 1.26.8 linux/amd64 (lint/testdata/measure, -benchtime
// 20000x, medians of 5 on a busy machine): an operation of 500 ns
// reported 0.045 ns/op with ResetTimer in its b.N loop, 0.094 ns/op in
// its b.Loop loop. And since the time stays
// near zero, go test's default -benchtime raises b.N to its billion cap,
// and each ResetTimer reads the memory statistics (it stops the world):
// the run takes hours. A ResetTimer the loop body reaches only under a
// condition (`if i == 0`, after a lazy set-up) is not reported.
var ResetLoop = &analysis.Analyzer{
	Name:     "resetloop",
	Doc:      "report b.ResetTimer called in every iteration of a timed loop",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#ResetLoop",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runResetLoop,
}

func runResetLoop(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	isReset := timerCall(pass.TypesInfo, "ResetTimer")
	for _, f := range benchFuncs(pass, in) {
		for _, l := range f.loops {
			for _, c := range unconditionalCalls(l.body.List, isReset) {
				pass.ReportRangef(c, "ResetTimer in every iteration of the timed loop: each discards the time of the iterations before it, so ns/op is about one iteration's time divided by b.N, close to 0; call it once, before the loop")
			}
		}
	}
	return nil, nil
}

// unconditionalCalls returns the calls that match, made by statements of
// list that run whenever list does: expression statements, and those in
// plain and labeled blocks, not under an if, switch, select or inner loop.
func unconditionalCalls(list []ast.Stmt, match func(*ast.CallExpr) bool) []*ast.CallExpr {
	var out []*ast.CallExpr
	for _, s := range list {
		switch s := s.(type) {
		case *ast.ExprStmt:
			if c, ok := ast.Unparen(s.X).(*ast.CallExpr); ok && match(c) {
				out = append(out, c)
			}
		case *ast.BlockStmt:
			out = append(out, unconditionalCalls(s.List, match)...)
		case *ast.LabeledStmt:
			out = append(out, unconditionalCalls([]ast.Stmt{s.Stmt}, match)...)
		}
	}
	return out
}
