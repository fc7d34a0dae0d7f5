package lint

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// RigorSink reports work the compiler deletes inside the function given to
// rigor's timing loops (B.Iter, Iter, IterWithSetup's routine). rigor calls
// that function through a function value in a loop that is not inlined,
// which keeps the function's result alive, but not what the function
// computes and drops: in `b.Iter(func() { square(x) })` the call is
// deleted. The function is compiled on its own, so a pure call with
// constant arguments is folded too: `rigor.Iter(b, func() int { return
// square(17) })` returns a constant.
//
// The suggested fixes pass a dropped result to rigor.Sink, and wrap
// constant arguments in rigor.Opaque.
var RigorSink = &analysis.Analyzer{
	Name:     "rigorsink",
	Doc:      "report results dropped, and constant arguments folded, in rigor's Iter functions",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#RigorSink",
	Requires: []*analysis.Analyzer{inspect.Analyzer, purityAnalyzer},
	Run:      runRigorSink,
}

func runRigorSink(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	pure := purityOf(pass)
	info := pass.TypesInfo
	in.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		call := n.(*ast.CallExpr)
		var lit *ast.FuncLit
		switch {
		case isMethodCall(info, call, rigorPath, "B", "Iter") && len(call.Args) == 1:
			lit, _ = ast.Unparen(call.Args[0]).(*ast.FuncLit)
		case isFuncCall(info, call, rigorPath, "Iter") && len(call.Args) == 2:
			lit, _ = ast.Unparen(call.Args[1]).(*ast.FuncLit)
		case isFuncCall(info, call, rigorPath, "IterWithSetup") && len(call.Args) == 3:
			lit, _ = ast.Unparen(call.Args[2]).(*ast.FuncLit)
		}
		if lit == nil {
			return
		}
		rigorName := importName(pass, call.Pos(), rigorPath)
		reported := map[ast.Expr]bool{}
		for _, d := range discarded(pass, pure, lit.Body, lit.Body) {
			reported[d.expr] = true
			var fixes []analysis.SuggestedFix
			if stmt := stmtOf(lit.Body, d.expr); stmt != nil && rigorName != "" {
				fixes = []analysis.SuggestedFix{{
					Message: "pass the result to rigor.Sink",
					TextEdits: []analysis.TextEdit{{
						Pos: stmt.Pos(), End: stmt.End(),
						NewText: []byte(rigorName + ".Sink(" + types.ExprString(d.expr) + ")"),
					}},
				}}
			}
			pass.Report(analysis.Diagnostic{
				Pos: d.expr.Pos(), End: d.expr.End(),
				Message: fmt.Sprintf("%s: the compiler deletes this pure %s, so the sample times an empty function call; "+
					"return the result (rigor.Iter) or pass it to rigor.Sink", d.why, d.what),
				SuggestedFixes: fixes,
			})
		}
		consts := constLocals(info, lit.Body)
		for _, c := range foldedCalls(pass, pure, lit.Body, consts) {
			if reported[c] {
				continue
			}
			var edits []analysis.TextEdit
			for _, a := range c.Args {
				if rigorName != "" {
					edits = append(edits,
						analysis.TextEdit{Pos: a.Pos(), End: a.Pos(), NewText: []byte(rigorName + ".Opaque(")},
						analysis.TextEdit{Pos: a.End(), End: a.End(), NewText: []byte(")")})
				}
			}
			var fixes []analysis.SuggestedFix
			if edits != nil {
				fixes = []analysis.SuggestedFix{{Message: "wrap the constant arguments in rigor.Opaque", TextEdits: edits}}
			}
			pass.Report(analysis.Diagnostic{
				Pos: c.Pos(), End: c.End(),
				Message: fmt.Sprintf("%s has constant arguments: the compiler computes it at compile time and the sample times a constant; "+
					"wrap the arguments in rigor.Opaque", types.ExprString(c)),
				SuggestedFixes: fixes,
			})
		}
	})
	return nil, nil
}

// stmtOf returns the statement of body that is e alone (`f(x)` or `_ =
// f(x)`), nil if there is none.
func stmtOf(body *ast.BlockStmt, e ast.Expr) ast.Stmt {
	var out ast.Stmt
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.ExprStmt:
			if s.X == e {
				out = s
			}
		case *ast.AssignStmt:
			if len(s.Rhs) == 1 && s.Rhs[0] == e && allBlank(s.Lhs) {
				out = s
			}
		}
		return out == nil
	})
	return out
}

// importName returns the name under which the file holding pos imports
// path, "" if it does not.
func importName(pass *analysis.Pass, pos token.Pos, path string) string {
	if f := fileOf(pass, pos); f != nil {
		for _, imp := range f.Imports {
			if strings.Trim(imp.Path.Value, `"`) != path {
				continue
			}
			if imp.Name != nil {
				return imp.Name.Name
			}
			return "rigor"
		}
	}
	return ""
}
