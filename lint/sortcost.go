package lint

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"path/filepath"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
)

// The usual reason for a StopTimer/StartTimer pair inside the loop is to
// refill a sort's input, and whether the pair matters then depends on
// how long the sort takes: on n, and on the order of the input (pdqsort,
// behind sort and slices, finishes input in order, ascending or
// descending, in about n comparisons). sortCosts are the medians of
// lint/testdata/sortcost (Go 1.26.8 linux/amd64, a shared 2-core machine,
// 5 runs of 2000 iterations on 100 and 1024 ints), the larger of the
// values for the two sizes: ns per n·log2(n) for input in no known order
// (random; for the stable sorts reversed input too, which costs them as
// much), ns per n for input in order.
var sortCosts = map[string]struct {
	any, asc, desc float64 // desc 0: no faster than any
}{
	"sort.Ints":        {any: 3.1, asc: 1.8, desc: 2.5},
	"slices.Sort":      {any: 4.5, asc: 2.9, desc: 3.8},
	"slices.SortFunc":  {any: 11.9, asc: 5.4, desc: 6.4},
	"sort.Slice":       {any: 7.6, asc: 7.7, desc: 6.5},
	"sort.Sort":        {any: 9.3, asc: 6.9, desc: 11.0},
	"sort.Stable":      {any: 23.9, asc: 9.4},
	"sort.SliceStable": {any: 20.5, asc: 10.7},
}

// smallSort is the estimate under which a sort is reported: at 10 µs
// the pair still adds 0.65% to ns/op, and the benchmark runs 5 times
// longer than it measures (40 µs of wall time per pair).
const smallSort = 10e3 // ns

// A sortEstimate is what sortTimed found.
type sortEstimate struct {
	routine string  // sort.Ints
	n       int64   // elements
	order   string  // "", "ascending", "descending"
	ns      float64 // estimated time
	site    string  // the call of the enclosing function that gives n, "" when none is needed
}

func (e *sortEstimate) String() string {
	s := fmt.Sprintf("%s of %d elements", e.routine, e.n)
	if e.order != "" {
		s += " in " + e.order + " order"
	}
	if e.site != "" {
		s += " (" + e.site + ")"
	}
	return s + fmt.Sprintf(", about %.1f µs", e.ns/1e3)
}

// sortTimed returns the estimate for a timed part that sorts a slice of
// known length with a routine of sortCosts, and smaller statements at
// most, when it is under smallSort; nil otherwise. The timed part is the
// part of the loop body between StartTimer and StopTimer, or of a loop
// nested in it that holds the timer calls. Its length comes from a make
// in the benchmark function, with a constant length or the length of
// another such slice, or a parameter of the function: then each call of
// the function in the package is tried, and the smallest estimate kept.
func sortTimed(pass *analysis.Pass, pure *purity, f *benchFunc, l *timedLoop) *sortEstimate {
	info := pass.TypesInfo
	block := toggleBlock(info, l.body)
	if block == nil {
		return nil
	}
	var call *ast.CallExpr
	var stmt ast.Stmt
	for _, s := range timedStmts(info, block.List) {
		if es, ok := s.(*ast.ExprStmt); ok && call == nil {
			if c, ok := ast.Unparen(es.X).(*ast.CallExpr); ok && !small(pass, pure, []ast.Stmt{s}, map[*types.Func]bool{}) {
				call, stmt = c, s
				continue
			}
		}
		if !small(pass, pure, []ast.Stmt{s}, map[*types.Func]bool{}) {
			return nil
		}
	}
	if call == nil || len(call.Args) == 0 {
		return nil
	}
	s := &sortSite{pass: pass, pure: pure, f: f, block: block, stmt: stmt, call: call}
	if est := s.estimate(nil); est != nil || !s.needsParams {
		return est
	}
	// The estimate depends on parameters of the function: try each call.
	fd, ok := f.node.(*ast.FuncDecl)
	if !ok {
		return nil
	}
	fn, ok := info.Defs[fd.Name].(*types.Func)
	if !ok {
		return nil
	}
	var best *sortEstimate
	for _, file := range pass.Files {
		ast.Inspect(file, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok || typeutil.Callee(info, c) != fn || len(c.Args) != fn.Signature().Params().Len() || fn.Signature().Variadic() {
				return true
			}
			env := map[*types.Var]ast.Expr{}
			for i, a := range c.Args {
				env[fn.Signature().Params().At(i)] = a
			}
			if est := s.estimate(env); est != nil && (best == nil || est.ns < best.ns) {
				pos := pass.Fset.Position(c.Pos())
				est.site = fmt.Sprintf("for the call at %s:%d", filepath.Base(pos.Filename), pos.Line)
				best = est
			}
			return true
		})
	}
	return best
}

// toggleBlock returns the block of body, or of the loops nested in it,
// whose statements hold the StartTimer/StopTimer calls; nil when there
// is no such block.
func toggleBlock(info *types.Info, body *ast.BlockStmt) *ast.BlockStmt {
	isTimer := func(c *ast.CallExpr) bool {
		return timerCall(info, "StopTimer")(c) || timerCall(info, "StartTimer")(c)
	}
	for {
		var holder ast.Stmt
		for _, s := range body.List {
			if len(calls(s, isTimer)) == 0 {
				continue
			}
			if es, ok := s.(*ast.ExprStmt); ok {
				if c, ok := es.X.(*ast.CallExpr); ok && isTimer(c) {
					return body
				}
			}
			if holder != nil {
				return nil
			}
			holder = s
		}
		switch h := holder.(type) {
		case *ast.ForStmt:
			body = h.Body
		case *ast.RangeStmt:
			body = h.Body
		default:
			return nil
		}
	}
}

// A sortSite is a call in a timed part that may be a sort.
type sortSite struct {
	pass        *analysis.Pass
	pure        *purity
	f           *benchFunc
	block       *ast.BlockStmt // the block of the timer calls
	stmt        ast.Stmt       // the statement of call, in block
	call        *ast.CallExpr
	needsParams bool // set by estimate: a parameter of f was needed
}

// estimate returns the estimate of the sort, with env for the values of
// f's parameters (nil: none known), when it is under smallSort.
func (s *sortSite) estimate(env map[*types.Var]ast.Expr) *sortEstimate {
	info := s.pass.TypesInfo
	routine := s.routine(s.call.Fun, env)
	cost, ok := sortCosts[routine]
	if !ok {
		return nil
	}
	arg := ast.Unparen(s.call.Args[0])
	var iface types.Type // the sort.Interface, for sort.Sort and sort.Stable
	if c, ok := arg.(*ast.CallExpr); ok && len(c.Args) == 1 {
		if tv, ok := info.Types[c.Fun]; ok && tv.IsType() {
			iface, arg = tv.Type, ast.Unparen(c.Args[0])
		}
	}
	id, ok := arg.(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok {
		return nil
	}
	if iface == nil {
		iface = v.Type()
	}
	switch routine {
	case "sort.Sort", "sort.Stable":
		if !s.cheapInterface(iface) {
			return nil
		}
	case "sort.Slice", "sort.SliceStable", "slices.SortFunc":
		if !integerSlice(v.Type()) || len(s.call.Args) != 2 || !s.cheapFunc(s.call.Args[1]) {
			return nil
		}
	default:
		if !integerSlice(v.Type()) {
			return nil
		}
	}
	n, ok := s.length(v, env, 0)
	if !ok || n < 2 {
		return nil
	}
	est := &sortEstimate{routine: routine, n: n, order: s.order(v, n)}
	switch {
	case est.order == "ascending":
		est.ns = cost.asc * float64(n)
	case est.order == "descending" && cost.desc > 0:
		est.ns = cost.desc * float64(n)
	default:
		est.order = ""
		est.ns = cost.any * float64(n) * math.Log2(float64(n))
	}
	if est.ns >= smallSort {
		return nil
	}
	return est
}

// routine returns the full name of the function fun denotes: a function,
// or a parameter of f bound in env to one.
func (s *sortSite) routine(fun ast.Expr, env map[*types.Var]ast.Expr) string {
	info := s.pass.TypesInfo
	var obj types.Object
	switch e := ast.Unparen(fun).(type) {
	case *ast.Ident:
		obj = info.Uses[e]
	case *ast.SelectorExpr:
		obj = info.Uses[e.Sel]
	case *ast.IndexExpr: // slices.Sort[[]int]
		return s.routine(e.X, env)
	}
	switch o := obj.(type) {
	case *types.Func:
		return o.Origin().FullName()
	case *types.Var:
		if s.isParam(o) {
			s.needsParams = true
			if a, ok := env[o]; ok {
				return s.routine(a, nil)
			}
		}
	}
	return ""
}

// isParam reports whether v is a parameter of f.
func (s *sortSite) isParam(v *types.Var) bool {
	var typ *ast.FuncType
	switch n := s.f.node.(type) {
	case *ast.FuncDecl:
		typ = n.Type
	case *ast.FuncLit:
		typ = n.Type
	}
	return v.Pos() >= typ.Pos() && v.Pos() < typ.End()
}

// length returns the length of slice v: v is made once in f, by
// make(T, n) with n a constant, len of another such slice, or a
// parameter of f bound in env to a constant.
func (s *sortSite) length(v *types.Var, env map[*types.Var]ast.Expr, depth int) (int64, bool) {
	info := s.pass.TypesInfo
	if depth > 4 || !within(v.Pos(), s.f.body) {
		return 0, false
	}
	var made ast.Expr
	writes := 0
	ast.Inspect(s.f.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if id, ok := ast.Unparen(lhs).(*ast.Ident); ok && info.ObjectOf(id) == v {
					writes++
					if len(n.Lhs) == len(n.Rhs) {
						made = n.Rhs[i]
					}
				}
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if info.Defs[name] == v {
					writes++
					if len(n.Names) == len(n.Values) {
						made = n.Values[i]
					}
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok && e != nil && info.ObjectOf(id) == v {
					writes++
				}
			}
		case *ast.UnaryExpr:
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok && n.Op == token.AND && info.Uses[id] == v {
				writes++ // its address escapes: anything may happen
			}
		}
		return true
	})
	c, ok := ast.Unparen(made).(*ast.CallExpr)
	if writes != 1 || !ok || len(c.Args) < 2 {
		return 0, false
	}
	if id, ok := ast.Unparen(c.Fun).(*ast.Ident); !ok || id.Name != "make" {
		return 0, false
	} else if _, ok := info.Uses[id].(*types.Builtin); !ok {
		return 0, false
	}
	return s.intValue(c.Args[1], env, depth)
}

// intValue returns the value of e: a constant, len of a slice whose
// length is known, or a parameter of f bound in env to a constant.
func (s *sortSite) intValue(e ast.Expr, env map[*types.Var]ast.Expr, depth int) (int64, bool) {
	info := s.pass.TypesInfo
	if tv, ok := info.Types[e]; ok && tv.Value != nil {
		return constInt(tv.Value)
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok && id.Name == "len" && len(e.Args) == 1 {
			if _, ok := info.Uses[id].(*types.Builtin); !ok {
				return 0, false
			}
			if a, ok := ast.Unparen(e.Args[0]).(*ast.Ident); ok {
				if v, ok := info.Uses[a].(*types.Var); ok {
					return s.length(v, env, depth+1)
				}
			}
		}
	case *ast.Ident:
		v, ok := info.Uses[e].(*types.Var)
		if !ok || !s.isParam(v) {
			return 0, false
		}
		s.needsParams = true
		if a, ok := env[v]; ok {
			if tv, ok := info.Types[a]; ok && tv.Value != nil && s.unchanged(v) {
				return constInt(tv.Value)
			}
		}
	}
	return 0, false
}

// unchanged reports whether parameter v is never assigned in f.
func (s *sortSite) unchanged(v *types.Var) bool {
	info := s.pass.TypesInfo
	ok := true
	ast.Inspect(s.f.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				if id, isID := ast.Unparen(lhs).(*ast.Ident); isID && info.Uses[id] == v {
					ok = false
				}
			}
		case *ast.IncDecStmt:
			if id, isID := ast.Unparen(n.X).(*ast.Ident); isID && info.Uses[id] == v {
				ok = false
			}
		case *ast.UnaryExpr:
			if id, isID := ast.Unparen(n.X).(*ast.Ident); isID && n.Op == token.AND && info.Uses[id] == v {
				ok = false
			}
		}
		return ok
	})
	return ok
}

func constInt(v constant.Value) (int64, bool) {
	v = constant.ToInt(v)
	if v.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(v)
}

// order returns "ascending" or "descending" when the last statement
// before the sort, in its block, that mentions v fills all n elements of
// v in index order: `for i := 0; i < len(v); i++ { v[i] = e }` (or
// i < n, or `for i := range v`) with e i plus or minus a constant or
// len(v), or such a constant minus i. It returns "" otherwise.
func (s *sortSite) order(v *types.Var, n int64) string {
	info := s.pass.TypesInfo
	var last ast.Stmt
	for _, st := range s.block.List {
		if st == s.stmt {
			break
		}
		if mentions(info, st, v) {
			last = st
		}
	}
	var body *ast.BlockStmt
	var index types.Object
	switch l := last.(type) {
	case *ast.ForStmt:
		if as, ok := l.Init.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && as.Tok == token.DEFINE {
			if id, ok := as.Lhs[0].(*ast.Ident); ok {
				if tv := info.Types[as.Rhs[0]]; tv.Value != nil && constant.Sign(tv.Value) == 0 {
					index = info.Defs[id]
				}
			}
		}
		if inc, ok := l.Post.(*ast.IncDecStmt); !ok || inc.Tok != token.INC || !isUse(info, inc.X, index) {
			return ""
		}
		cond, ok := ast.Unparen(l.Cond).(*ast.BinaryExpr)
		if !ok || cond.Op != token.LSS || !isUse(info, cond.X, index) {
			return ""
		}
		if m, ok := s.intValue(cond.Y, nil, 0); !ok || m != n {
			if !isLen(info, cond.Y, v) {
				return ""
			}
		}
		body = l.Body
	case *ast.RangeStmt:
		if id, ok := l.Key.(*ast.Ident); ok && l.Tok == token.DEFINE {
			if x, ok := ast.Unparen(l.X).(*ast.Ident); ok && info.Uses[x] == v {
				index = info.Defs[id]
			}
		}
		body = l.Body
	}
	if index == nil || len(body.List) != 1 {
		return ""
	}
	as, ok := body.List[0].(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return ""
	}
	ix, ok := ast.Unparen(as.Lhs[0]).(*ast.IndexExpr)
	if !ok || !isUse(info, ix.X, v) || !isUse(info, ix.Index, index) {
		return ""
	}
	// e: i, i ± k, k ± i, with k a constant or len(v).
	k := func(e ast.Expr) bool {
		tv := info.Types[e]
		return tv.Value != nil || isLen(info, e, v)
	}
	switch e := ast.Unparen(as.Rhs[0]).(type) {
	case *ast.Ident:
		if info.Uses[e] == index {
			return "ascending"
		}
	case *ast.BinaryExpr:
		switch {
		case isUse(info, e.X, index) && (e.Op == token.ADD || e.Op == token.SUB) && k(e.Y),
			isUse(info, e.Y, index) && e.Op == token.ADD && k(e.X):
			return "ascending"
		case isUse(info, e.Y, index) && e.Op == token.SUB && k(e.X):
			return "descending"
		}
	}
	return ""
}

// isLen reports whether e is len(v).
func isLen(info *types.Info, e ast.Expr, v *types.Var) bool {
	c, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(c.Args) != 1 || !isUse(info, c.Args[0], v) {
		return false
	}
	id, ok := ast.Unparen(c.Fun).(*ast.Ident)
	if !ok || id.Name != "len" {
		return false
	}
	_, builtin := info.Uses[id].(*types.Builtin)
	return builtin
}

func isUse(info *types.Info, e ast.Expr, obj types.Object) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && info.Uses[id] == obj
}

// mentions reports whether v occurs in n.
func mentions(info *types.Info, n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == v {
			found = true
		}
		return !found
	})
	return found
}

// integerSlice reports whether t is a slice of integers.
func integerSlice(t types.Type) bool {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	b, ok := s.Elem().Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// cheapInterface reports whether sorting a value of t costs what sorting
// sort.IntSlice costs: t is sort.IntSlice, or a slice type of this
// package whose Len, Less and Swap are small and compare numbers.
func (s *sortSite) cheapInterface(t types.Type) bool {
	if isNamed(t, "sort", "IntSlice") {
		return true
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() != s.pass.Pkg {
		return false
	}
	if _, ok := n.Underlying().(*types.Slice); !ok {
		return false
	}
	for _, name := range []string{"Len", "Less", "Swap"} {
		obj, _, _ := types.LookupFieldOrMethod(n, true, s.pass.Pkg, name)
		fn, ok := obj.(*types.Func)
		if !ok {
			return false
		}
		d := s.pure.decls[fn.Origin()]
		if d == nil || !small(s.pass, s.pure, d.Body.List, map[*types.Func]bool{}) || !cheapCompares(s.pass.TypesInfo, d.Body) {
			return false
		}
	}
	return true
}

// cheapFunc reports whether e is a function literal whose body is small
// and compares numbers (a less or cmp function).
func (s *sortSite) cheapFunc(e ast.Expr) bool {
	lit, ok := ast.Unparen(e).(*ast.FuncLit)
	return ok && small(s.pass, s.pure, lit.Body.List, map[*types.Func]bool{}) && cheapCompares(s.pass.TypesInfo, lit.Body)
}

// cheapCompares reports whether every comparison in n is between numbers
// (strings compare in a runtime call, at a cost that grows with their
// common prefix).
func cheapCompares(info *types.Info, n ast.Node) bool {
	ok := true
	ast.Inspect(n, func(n ast.Node) bool {
		if b, isBin := n.(*ast.BinaryExpr); isBin {
			switch b.Op {
			case token.LSS, token.GTR, token.LEQ, token.GEQ, token.EQL, token.NEQ, token.SUB:
				if !cheapOperand(info.TypeOf(b.X)) {
					ok = false
				}
			}
		}
		return ok
	})
	return ok
}
