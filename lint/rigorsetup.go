package lint

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// RigorSetup reports rigor.IterWithSetup whose routine never reads the
// value setup returns, and reads a variable from outside instead. setup runs, untimed, once per iteration for
// nothing, and routine works on something captured from outside instead:
// shared by all iterations, so what setup was meant to renew (a fresh
// unsorted copy, say) is not renewed, and after the first iteration
// routine measures the easy case.
var RigorSetup = &analysis.Analyzer{
	Name:     "rigorsetup",
	Doc:      "report rigor.IterWithSetup whose routine ignores setup's value",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#RigorSetup",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runRigorSetup,
}

func runRigorSetup(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo
	in.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		call := n.(*ast.CallExpr)
		if !isFuncCall(info, call, rigorPath, "IterWithSetup") || len(call.Args) != 3 {
			return
		}
		lit, ok := ast.Unparen(call.Args[2]).(*ast.FuncLit)
		if !ok || len(lit.Type.Params.List) != 1 {
			return
		}
		names := lit.Type.Params.List[0].Names
		if len(names) == 1 && names[0].Name != "_" {
			param := info.Defs[names[0]]
			used := false
			ast.Inspect(lit.Body, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && info.Uses[id] == param {
					used = true
				}
				return !used
			})
			if used {
				return
			}
		}
		// The message is about input captured from outside: a routine
		// that reads nothing from outside (a stub) is another matter.
		captured := false
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if v, ok := info.Uses[id].(*types.Var); ok && !within(v.Pos(), lit) && !v.IsField() {
					captured = true
				}
			}
			return !captured
		})
		if !captured {
			return
		}
		pass.ReportRangef(lit.Type, "routine never reads the value setup returns: setup runs once per iteration for nothing, and routine's input, captured from outside, is shared by all iterations (what setup should renew is not renewed)")
	})
	return nil, nil
}
