package lint

import (
	"go/ast"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// SetBN reports a benchmark that writes b.N. testing sets b.N before it
// calls the benchmark, and when the benchmark returns divides the time by
// b.N as the benchmark left it, and picks the next b.N from it. Written
// after or inside the timed loop, b.N then divides the loop's time by
// another count than the iterations run: measured on Go 1.26.8
// linux/amd64 (lint/testdata/measure, medians of 5), `b.N = 1` after
// 20000 iterations of a 500 ns operation reported 13 ms/op, and under go
// test's default -benchtime the run had not ended after a minute (the
// next b.N is one more than the last). Written before the loop, the benchmark runs the count it sets whatever
// -benchtime asks (1000 iterations for -benchtime 20000x), and rigor's
// samples are not the length it planned. Package testing, which sets b.N,
// is not checked.
var SetBN = &analysis.Analyzer{
	Name:     "setbn",
	Doc:      "report a benchmark that writes b.N",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#SetBN",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runSetBN,
}

func runSetBN(pass *analysis.Pass) (any, error) {
	if pass.Pkg.Path() == "testing" {
		return nil, nil
	}
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo
	for _, f := range benchFuncs(pass, in) {
		ast.Inspect(f.body, func(n ast.Node) bool {
			var lhs []ast.Expr
			switch n := n.(type) {
			case *ast.FuncLit:
				return false // a function of its own, if it takes a *testing.B
			case *ast.AssignStmt:
				lhs = n.Lhs
			case *ast.IncDecStmt:
				lhs = []ast.Expr{n.X}
			}
			for _, e := range lhs {
				if !isBN(info, e) {
					continue
				}
				after := false
				for _, l := range f.loops {
					after = after || e.Pos() > l.stmt.Pos()
				}
				if after {
					pass.ReportRangef(e, "b.N written after the timed loop started: testing divides the time by b.N as the benchmark leaves it, "+
						"so ns/op is the loop's time divided by another count than the iterations run; let testing set b.N")
				} else {
					pass.ReportRangef(e, "b.N written: the benchmark then runs the count it sets, not the b.N testing chose for -benchtime "+
						"(and testing picks the next b.N from it); let testing set b.N, or give -benchtime Nx")
				}
			}
			return true
		})
	}
	return nil, nil
}
