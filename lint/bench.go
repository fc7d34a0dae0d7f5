package lint

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// A benchFunc is a function, declared or literal, that takes a *testing.B:
// a benchmark, a sub-benchmark passed to b.Run, or a helper.
type benchFunc struct {
	node  ast.Node // *ast.FuncDecl or *ast.FuncLit
	body  *ast.BlockStmt
	b     *types.Var   // the *testing.B parameter
	loops []*timedLoop // the timed loops in body, outermost first, none inside a nested function literal
}

type loopKind int

const (
	loopN    loopKind = iota // for i := 0; i < b.N; i++ / for range b.N
	loopLoop                 // for b.Loop()
	loopData                 // for _, v := range s, s made by make([]T, b.N): b.N iterations too
)

// A timedLoop is a loop that runs a benchmark's iterations.
type timedLoop struct {
	kind loopKind
	stmt ast.Stmt // *ast.ForStmt or *ast.RangeStmt
	body *ast.BlockStmt
}

// benchFuncs returns every function in the package that takes a
// *testing.B, in source order.
func benchFuncs(pass *analysis.Pass, in *inspector.Inspector) []*benchFunc {
	var out []*benchFunc
	in.Preorder([]ast.Node{(*ast.FuncDecl)(nil), (*ast.FuncLit)(nil)}, func(n ast.Node) {
		typ, body := funcParts(n)
		if body == nil {
			return
		}
		bv := testingBParam(pass.TypesInfo, typ)
		if bv == nil {
			return
		}
		f := &benchFunc{node: n, body: body, b: bv}
		f.loops = findLoops(pass.TypesInfo, body)
		out = append(out, f)
	})
	return out
}

// funcParts returns the type and body of a function declaration or
// literal, nils for any other node (and a nil body for a declaration
// without one).
func funcParts(n ast.Node) (*ast.FuncType, *ast.BlockStmt) {
	switch n := n.(type) {
	case *ast.FuncDecl:
		return n.Type, n.Body
	case *ast.FuncLit:
		return n.Type, n.Body
	}
	return nil, nil
}

// testingBParam returns the first parameter of type *testing.B.
func testingBParam(info *types.Info, typ *ast.FuncType) *types.Var {
	if typ.Params == nil {
		return nil
	}
	for _, field := range typ.Params.List {
		for _, name := range field.Names {
			if v, ok := info.Defs[name].(*types.Var); ok && isTestingB(v.Type()) {
				return v
			}
		}
	}
	return nil
}

// findLoops returns the outermost timed loops in body, not looking into
// function literals.
func findLoops(info *types.Info, body *ast.BlockStmt) []*timedLoop {
	var loops []*timedLoop
	var data map[*types.Var]bool
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt:
			if n.Cond != nil && isBLoopCall(info, n.Cond) {
				loops = append(loops, &timedLoop{loopLoop, n, n.Body})
				return false
			}
			if mentionsBN(info, n.Cond) || (n.Cond != nil && mentionsBN(info, n.Init)) {
				loops = append(loops, &timedLoop{loopN, n, n.Body})
				return false
			}
		case *ast.RangeStmt:
			if isBN(info, n.X) {
				loops = append(loops, &timedLoop{loopN, n, n.Body})
				return false
			}
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok {
				if data == nil {
					data = nSlices(info, body)
				}
				if v, ok := info.Uses[id].(*types.Var); ok && data[v] {
					loops = append(loops, &timedLoop{loopData, n, n.Body})
					return false
				}
			}
		}
		return true
	})
	return loops
}

// setOnce returns the local variables of body that are defined from an
// expression from accepts (x := e, var x = e) and never assigned again
// (=, op=, ++, a range), nor their address taken, with that expression.
// Writes to their elements or fields do not count.
func setOnce(info *types.Info, body *ast.BlockStmt, from func(ast.Expr) bool) map[*types.Var]ast.Expr {
	set := map[*types.Var]ast.Expr{}
	spoiled := map[*types.Var]bool{}
	spoil := func(e ast.Expr) {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok {
				spoiled[v] = true
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				id, ok := ast.Unparen(lhs).(*ast.Ident)
				if !ok {
					continue
				}
				if v, ok := info.Defs[id].(*types.Var); ok {
					if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) && from(n.Rhs[i]) {
						set[v] = n.Rhs[i]
					}
					continue
				}
				spoil(id)
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if v, ok := info.Defs[id].(*types.Var); ok && len(n.Values) == len(n.Names) && from(n.Values[i]) {
					set[v] = n.Values[i]
				}
			}
		case *ast.IncDecStmt:
			spoil(n.X)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				spoil(n.X)
			}
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if e != nil {
						spoil(e)
					}
				}
			}
		}
		return true
	})
	for v := range spoiled {
		delete(set, v)
	}
	return set
}

// madeSlices returns the local variables of body set once (setOnce) by
// make([]T, n) (a capacity aside), with the length n each was made with:
// a range over one runs n iterations, and an index below n is in range.
func madeSlices(info *types.Info, body *ast.BlockStmt) map[*types.Var]ast.Expr {
	length := func(e ast.Expr) ast.Expr {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok || len(call.Args) < 2 {
			return nil
		}
		id, ok := ast.Unparen(call.Fun).(*ast.Ident)
		if !ok {
			return nil
		}
		if b, ok := info.Uses[id].(*types.Builtin); !ok || b.Name() != "make" {
			return nil
		}
		if _, isSlice := info.TypeOf(call).Underlying().(*types.Slice); !isSlice {
			return nil
		}
		return call.Args[1]
	}
	out := map[*types.Var]ast.Expr{}
	for v, e := range setOnce(info, body, func(e ast.Expr) bool { return length(e) != nil }) {
		out[v] = length(e)
	}
	return out
}

// nSlices returns the local variables of body that hold a slice of
// exactly b.N elements (madeSlices, with length b.N).
func nSlices(info *types.Info, body *ast.BlockStmt) map[*types.Var]bool {
	out := map[*types.Var]bool{}
	for v, n := range madeSlices(info, body) {
		if isBN(info, n) {
			out[v] = true
		}
	}
	return out
}

// constLenSlices returns the local variables of body that hold a slice
// of a constant length (madeSlices), with the length.
func constLenSlices(info *types.Info, body *ast.BlockStmt) map[*types.Var]int64 {
	out := map[*types.Var]int64{}
	for v, n := range madeSlices(info, body) {
		if tv := info.Types[n]; tv.Value != nil {
			if k, ok := constant.Int64Val(constant.ToInt(tv.Value)); ok {
				out[v] = k
			}
		}
	}
	return out
}

func isTestingB(t types.Type) bool { return isPtrTo(t, "testing", "B") }

// isPtrTo reports whether t is *pkg.name.
func isPtrTo(t types.Type, pkg, name string) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isNamed(p.Elem(), pkg, name)
}

func isNamed(t types.Type, pkg, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	o := n.Obj()
	return o.Name() == name && o.Pkg() != nil && o.Pkg().Path() == pkg
}

// isBN reports whether e is b.N for a *testing.B.
func isBN(info *types.Info, e ast.Expr) bool {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "N" {
		return false
	}
	s := info.Selections[sel]
	return s != nil && s.Kind() == types.FieldVal && isTestingB(s.Recv())
}

// mentionsBN reports whether b.N occurs in n.
func mentionsBN(info *types.Info, n ast.Node) bool {
	if n == nil {
		return false
	}
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && isBN(info, e) {
			found = true
		}
		return !found
	})
	return found
}

// isBLoopCall reports whether e is a call of (*testing.B).Loop.
func isBLoopCall(info *types.Info, e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	return ok && isMethodCall(info, call, "testing", "B", "Loop")
}

// isMethodCall reports whether call calls method name of pkg.typ (or of
// *pkg.typ).
func isMethodCall(info *types.Info, call *ast.CallExpr, pkg, typ, name string) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Name() != name {
		return false
	}
	sig := fn.Signature()
	if sig.Recv() == nil {
		return false
	}
	rt := sig.Recv().Type()
	if p, ok := types.Unalias(rt).(*types.Pointer); ok {
		rt = p.Elem()
	}
	return isNamed(rt, pkg, typ)
}

// isFuncCall reports whether call calls the package-level function
// pkg.name.
func isFuncCall(info *types.Info, call *ast.CallExpr, pkg, name string) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	return ok && fn.Name() == name && fn.Pkg() != nil && fn.Pkg().Path() == pkg && fn.Signature().Recv() == nil
}

// calls returns the calls in n that satisfy match, in source order, not
// looking into function literals.
func calls(n ast.Node, match func(*ast.CallExpr) bool) []*ast.CallExpr {
	var out []*ast.CallExpr
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if match(n) {
				out = append(out, n)
			}
		}
		return true
	})
	return out
}

// timerCall returns a matcher for (*testing.B).name calls.
func timerCall(info *types.Info, name string) func(*ast.CallExpr) bool {
	return func(c *ast.CallExpr) bool { return isMethodCall(info, c, "testing", "B", name) }
}

// within reports whether pos lies in n.
func within(pos token.Pos, n ast.Node) bool { return n.Pos() <= pos && pos < n.End() }
