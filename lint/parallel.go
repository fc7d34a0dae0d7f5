package lint

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// Parallel reports a b.RunParallel body that never calls pb.Next, or that
// writes a variable declared outside it without synchronisation.
//
// Each goroutine RunParallel starts must loop `for pb.Next() { ... }`: the
// iterations b.N asks for are handed out through Next. A body without it
// runs once per goroutine, and ns/op is that one pass divided by b.N.
//
// A variable outside the body is shared by every goroutine. Writing it
// (sink = f(), n++, m[k] = v) is a data race, and the cache line it lives
// on moves between cores on every write, so what is measured is that
// contention (tens of ns per write) more than the work. Keep the variable
// inside the body; a body that calls Lock, or uses sync/atomic, is taken
// to synchronise and is not reported.
var Parallel = &analysis.Analyzer{
	Name:     "parallel",
	Doc:      "report RunParallel bodies that ignore pb.Next or write shared variables unsynchronised",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#Parallel",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runParallel,
}

func runParallel(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo
	in.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		call := n.(*ast.CallExpr)
		if !isMethodCall(info, call, "testing", "B", "RunParallel") || len(call.Args) != 1 {
			return
		}
		lit, ok := ast.Unparen(call.Args[0]).(*ast.FuncLit)
		if !ok || len(lit.Type.Params.List) != 1 {
			return
		}
		var pb types.Object
		if names := lit.Type.Params.List[0].Names; len(names) == 1 {
			pb = info.Defs[names[0]]
		}
		next, passed, syncs := false, false, false
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if isMethodCall(info, n, "testing", "PB", "Next") {
					next = true
				}
				if fn, ok := info.Uses[calleeIdent(n)].(*types.Func); ok {
					if strings.HasSuffix(fn.Name(), "Lock") || fn.Pkg() != nil && fn.Pkg().Path() == "sync/atomic" {
						syncs = true
					}
				}
				for _, a := range n.Args {
					if id, ok := ast.Unparen(a).(*ast.Ident); ok && pb != nil && info.Uses[id] == pb {
						passed = true // a helper runs the loop
					}
				}
			}
			return true
		})
		if !next && !passed {
			pass.ReportRangef(lit, "RunParallel body never calls pb.Next: each goroutine runs it once instead of the iterations b.N asks for, so ns/op is one pass divided by b.N; loop `for pb.Next() { ... }`")
		}
		if syncs {
			return
		}
		seen := map[types.Object]bool{}
		report := func(lhs ast.Expr) {
			obj := rootVar(info, lhs)
			if obj == nil || seen[obj] || within(obj.Pos(), lit) || isSyncType(obj.Type()) {
				return
			}
			seen[obj] = true
			pass.ReportRangef(lhs, "%s is declared outside the RunParallel body and written by every goroutine without synchronisation: a data race, and its cache line moves between cores on every write, which is what gets measured; declare it inside the body", obj.Name())
		}
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok == token.DEFINE {
					return true
				}
				for _, lhs := range n.Lhs {
					report(lhs)
				}
			case *ast.IncDecStmt:
				report(n.X)
			}
			return true
		})
	})
	return nil, nil
}

// calleeIdent returns the identifier naming the called function or method.
func calleeIdent(call *ast.CallExpr) *ast.Ident {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return f
	case *ast.SelectorExpr:
		return f.Sel
	}
	return nil
}

// rootVar returns the variable an assignment to lhs writes into: x for x,
// x.f, x[i], *x; nil for _ and for writes through a call's result.
func rootVar(info *types.Info, lhs ast.Expr) *types.Var {
	for {
		switch e := ast.Unparen(lhs).(type) {
		case *ast.Ident:
			if e.Name == "_" {
				return nil
			}
			v, _ := info.ObjectOf(e).(*types.Var)
			return v
		case *ast.SelectorExpr:
			if _, ok := info.Uses[e.Sel].(*types.Var); ok && info.Selections[e] == nil {
				return info.Uses[e.Sel].(*types.Var) // pkg.Var
			}
			lhs = e.X
		case *ast.IndexExpr:
			lhs = e.X
		case *ast.StarExpr:
			lhs = e.X
		default:
			return nil
		}
	}
}

// isSyncType reports whether t is from sync or sync/atomic (its methods
// synchronise).
func isSyncType(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && (n.Obj().Pkg().Path() == "sync" || n.Obj().Pkg().Path() == "sync/atomic")
}
