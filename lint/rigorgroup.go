package lint

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

const rigorPath = "github.com/rigorbench/rigor"

// RigorGroup reports a rigor.Group that is measured without a variant: a
// local variable set from rigor.NewGroup, passed to package harness (Run,
// Main, Measure) or rigor.NewSampler in the same function, on which no
// Bench, BenchParallel or BenchScaling is called. Measuring it fails
// ("group ... has no variants") after everything before it has run. A group that leaves the
// function (returned, stored, passed to anything but package harness) is
// not reported.
var RigorGroup = &analysis.Analyzer{
	Name:     "rigorgroup",
	Doc:      "report a rigor.Group with no Bench",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#RigorGroup",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runRigorGroup,
}

func runRigorGroup(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo
	in.Preorder([]ast.Node{(*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)}, func(n ast.Node) {
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.FuncDecl:
			body = n.Body
		case *ast.FuncLit:
			body = n.Body
		}
		if body == nil {
			return
		}
		groups := map[*types.Var]*ast.CallExpr{}
		ast.Inspect(body, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
				return true
			}
			call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
			if !ok || !isFuncCall(info, call, rigorPath, "NewGroup") {
				return true
			}
			if id, ok := as.Lhs[0].(*ast.Ident); ok {
				if v, ok := info.ObjectOf(id).(*types.Var); ok && v.Parent() != v.Pkg().Scope() {
					groups[v] = call
				}
			}
			return true
		})
		for v, mk := range groups {
			if measured(info, body, v) && !benched(info, body, v) {
				pass.ReportRangef(mk, "group %s gets no Bench, BenchParallel or BenchScaling: measuring it fails with \"group has no variants\"", v.Name())
			}
		}
	})
	return nil, nil
}

// measured reports whether body passes g to package harness (Run, Main,
// Measure) or to rigor.NewSampler: only then does a group without
// variants fail.
func measured(info *types.Info, body *ast.BlockStmt, g *types.Var) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		fn, ok := info.Uses[calleeIdent(call)].(*types.Func)
		if !ok || fn.Pkg() == nil || !(fn.Pkg().Path() == rigorPath+"/harness" || fn.Pkg().Path() == rigorPath && fn.Name() == "NewSampler") {
			return true
		}
		for _, a := range call.Args {
			if id, ok := ast.Unparen(a).(*ast.Ident); ok && info.Uses[id] == g {
				found = true
			}
		}
		return !found
	})
	return found
}

// benched reports whether g gets a variant in body, or leaves it.
func benched(info *types.Info, body *ast.BlockStmt, g *types.Var) bool {
	found := false
	var parents []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		if n == nil {
			parents = parents[:len(parents)-1]
			return true
		}
		defer func() { parents = append(parents, n) }()
		id, ok := n.(*ast.Ident)
		if !ok || info.Uses[id] != g {
			return true
		}
		parent := parents[len(parents)-1]
		switch p := parent.(type) {
		case *ast.SelectorExpr:
			switch p.Sel.Name {
			case "Bench", "BenchParallel", "BenchScaling":
				found = true
			}
			return true // g.Config, g.Baseline(...): still here
		case *ast.CallExpr:
			if fn, ok := info.Uses[calleeIdent(p)].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == rigorPath+"/harness" {
				return true
			}
		}
		found = true // returned, stored or passed on: assume it gets variants there
		return true
	})
	return found
}
