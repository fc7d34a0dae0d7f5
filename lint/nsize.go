package lint

import (
	"go/ast"
	"go/types"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"
)

// NSize reports b.N used as a problem size: data of b.N elements (make of
// a slice or map, strings.Repeat, bytes.Repeat, rand.Perm; not a channel,
// which counts b.N operations), made directly or by a function of the
// package that returns data of as many elements as its parameter says
// (`data := makeData(b.N)`), handed whole to one call that is not in a
// loop, as in `data := make([]int, b.N); ...; sort.Ints(data)`.
// ns/op is then the call's time divided by b.N, which is constant only for
// work exactly linear in its size: a sort's ns/op grows with log b.N, and
// every b.N (1, 100, 10,000, ...) puts the data in a different cache
// level. Measured on Go 1.26.8 linux/amd64 (lint/testdata/measure,
// medians of 5): sorting makeData(b.N) reported 392 ns/op at b.N =
// 1,000,000, where one sort of 1000 ints took 50 µs (50 ns per element). Measure a
// fixed size per iteration instead (sub-benchmarks for sizes, b.SetBytes
// for throughput).
var NSize = &analysis.Analyzer{
	Name:     "nsize",
	Doc:      "report b.N used as the size of the work done in one call",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#NSize",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runNSize,
}

func runNSize(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo
	var sizes map[*types.Func]int
	for _, f := range benchFuncs(pass, in) {
		if sizes == nil {
			sizes = sizeParams(pass)
		}
		sized := map[*types.Var]ast.Expr{} // variables holding b.N-sized data, and the expression that made them
		ast.Inspect(f.body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.AssignStmt:
				if len(n.Lhs) != len(n.Rhs) {
					return true
				}
				for i, rhs := range n.Rhs {
					id, ok := n.Lhs[i].(*ast.Ident)
					if !ok || !nSized(info, rhs, sizes) {
						continue
					}
					if v, ok := info.ObjectOf(id).(*types.Var); ok {
						sized[v] = rhs
					}
				}
			}
			return true
		})
		// With a b.N or b.Loop loop, b.N-sized data is one input per
		// iteration (a range over the data may be the fill).
		if len(sized) == 0 || slices.ContainsFunc(f.loops, func(l *timedLoop) bool { return l.kind != loopData }) {
			continue
		}
		// Calls before a ResetTimer are set-up (filling the data).
		var reset = f.body.Pos()
		for _, c := range calls(f.body, timerCall(info, "ResetTimer")) {
			reset = max(reset, c.Pos())
		}
		var visit func(n ast.Node, inLoop bool)
		visit = func(n ast.Node, inLoop bool) {
			ast.Inspect(n, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false
				case *ast.ForStmt:
					visit(n.Body, true)
					return false
				case *ast.RangeStmt:
					visit(n.Body, true)
					return false
				case *ast.CallExpr:
					if inLoop || n.Pos() < reset || isBuiltinOrB(info, n) {
						return true
					}
					for _, a := range n.Args {
						if v := sizedArg(info, a, sized); v != nil {
							pass.ReportRangef(n, "%s gets all b.N elements of %s (made by %s) in one call: ns/op is its time divided by b.N, "+
								"which changes with b.N unless the work is exactly linear (and the data moves between cache levels as b.N grows); "+
								"time a fixed size per iteration", types.ExprString(n.Fun), v.Name(), types.ExprString(sized[v]))
							return false
						}
					}
				}
				return true
			})
		}
		visit(f.body, false)
	}
	return nil, nil
}

// nSized reports whether e makes data of b.N elements: directly, or by
// a call of a function of the package that returns data of as many
// elements as one of its parameters says (sizes), given b.N there.
func nSized(info *types.Info, e ast.Expr, sizes map[*types.Func]int) bool {
	byN := func(x ast.Expr) bool { return mentionsBN(info, x) }
	if sizedBy(info, e, byN) {
		return true
	}
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok {
		return false
	}
	i, ok := sizes[fn.Origin()]
	return ok && i < len(call.Args) && byN(call.Args[i])
}

// sizedBy reports whether e makes data of as many elements as a size
// that isSize accepts: make of a slice or map (not a channel, which
// counts operations, one completion each, received one at a time: not
// data), strings.Repeat, bytes.Repeat, rand.Perm or (*rand.Rand).Perm.
func sizedBy(info *types.Info, e ast.Expr, isSize func(ast.Expr) bool) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "make" {
			if _, isChan := info.TypeOf(call).Underlying().(*types.Chan); isChan {
				return false
			}
			return len(call.Args) >= 2 && isSize(call.Args[1])
		}
	}
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return false
	}
	name := fn.Pkg().Path() + "." + fn.Name()
	if r := fn.Signature().Recv(); r != nil {
		if !isPtrTo(r.Type(), fn.Pkg().Path(), "Rand") {
			return false
		}
		name = fn.Pkg().Path() + ".Rand." + fn.Name()
	}
	switch name {
	case "strings.Repeat", "bytes.Repeat":
		return len(call.Args) == 2 && isSize(call.Args[1])
	case "math/rand.Perm", "math/rand/v2.Perm", "math/rand.Rand.Perm", "math/rand/v2.Rand.Perm":
		return len(call.Args) == 1 && isSize(call.Args[0])
	}
	return false
}

// sizeParams returns the functions of the package that return data of
// as many elements as one of their parameters says, with that
// parameter's index: a function of one result whose every return
// statement returns data made by sizedBy with the parameter as the size,
// or a local variable set once from such data (and then only written
// element by element), as `func makeData(n int) []int` that fills and
// returns make([]int, n).
func sizeParams(pass *analysis.Pass) map[*types.Func]int {
	info := pass.TypesInfo
	out := map[*types.Func]int{}
	for _, file := range pass.Files {
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Type.Results.NumFields() != 1 {
				continue
			}
			fn, ok := info.Defs[fd.Name].(*types.Func)
			if !ok {
				continue
			}
			params := fn.Signature().Params()
			for i := range params.Len() {
				p := params.At(i)
				isP := func(x ast.Expr) bool {
					id, ok := ast.Unparen(x).(*ast.Ident)
					return ok && info.Uses[id] == p
				}
				if returnsSized(info, fd.Body, func(e ast.Expr) bool { return sizedBy(info, e, isP) }) {
					out[fn] = i
					break
				}
			}
		}
	}
	return out
}

// returnsSized reports whether body has a return statement and each
// returns a value that sized accepts, or a local variable set once from
// one (setOnce).
func returnsSized(info *types.Info, body *ast.BlockStmt, sized func(ast.Expr) bool) bool {
	var set map[*types.Var]ast.Expr
	returns, all := 0, true
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			returns++
			if len(n.Results) == 1 && sized(n.Results[0]) {
				return false
			}
			if set == nil {
				set = setOnce(info, body, sized)
			}
			var v *types.Var
			if len(n.Results) == 1 {
				if id, ok := ast.Unparen(n.Results[0]).(*ast.Ident); ok {
					v, _ = info.Uses[id].(*types.Var)
				}
			}
			if _, ok := set[v]; !ok || v == nil {
				all = false
			}
			return false
		}
		return true
	})
	return returns > 0 && all
}

// sizedArg returns the b.N-sized variable that a passes whole (v or v[:]).
func sizedArg(info *types.Info, a ast.Expr, sized map[*types.Var]ast.Expr) *types.Var {
	a = ast.Unparen(a)
	if s, ok := a.(*ast.SliceExpr); ok && s.Low == nil && s.High == nil {
		a = s.X
	}
	id, ok := a.(*ast.Ident)
	if !ok {
		return nil
	}
	v, _ := info.Uses[id].(*types.Var)
	if _, ok := sized[v]; ok && v != nil {
		return v
	}
	return nil
}

// isBuiltinOrB reports whether call is of a builtin (len, copy, append...)
// or a method of testing.B, which do not process data per element.
func isBuiltinOrB(info *types.Info, call *ast.CallExpr) bool {
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if _, ok := info.Uses[id].(*types.Builtin); ok {
			return true
		}
	}
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		return true
	}
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok {
		return false
	}
	if r := fn.Signature().Recv(); r != nil && (isTestingB(r.Type()) || isNamed(r.Type(), "testing", "B")) {
		return true
	}
	return fn.Pkg() != nil && fn.Pkg().Path() == "testing"
}
