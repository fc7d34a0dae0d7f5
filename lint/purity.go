package lint

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
)

// The purity analyzer finds the functions whose call the compiler can
// delete when the result is unused: pure (no writes to memory outside the
// function, no calls but to other such functions and to builtins that do
// not allocate, no panics, channel operations, go or defer), free of loops
// (the compiler deletes the work of a dead loop body but keeps the loop
// itself), and small enough to be inlined (Go's inliner has a budget of 80
// nodes; this analyzer counts syntax nodes, callee bodies included, which
// is close to the compiler's count but not the same).
//
// A pure function folds as well when its result depends on its arguments
// alone (no loads from memory): then a call with constant arguments is
// computed at compile time.
//
// Functions of other packages are known through facts (go vet -vettool
// and drivers that run on dependencies) and, for the standard library,
// through a table of math and math/bits functions checked on Go 1.26 by
// disassembly (see stdPure).
var purityAnalyzer = &analysis.Analyzer{
	Name:       "rigorpurity",
	Doc:        "find functions the compiler can delete a call of (internal to rigor lint)",
	Run:        runPurity,
	ResultType: reflect.TypeFor[*purity](),
	FactTypes:  []analysis.Fact{new(pureFact)},
}

// inlineBudget is the Go inliner's budget (cmd/compile/internal/inline:
// inlineMaxBudget).
const inlineBudget = 80

// A pureFact marks a function whose calls the compiler can delete.
type pureFact struct {
	Cost  int   // syntax nodes, callees inlined
	Folds bool  // the result depends on the arguments alone
	Keeps keeps // what of a deleted call the compiler may keep, callees included
}

// keeps says what of a pure call whose result is unused the compiler may
// keep: the checks that can panic (a panic is an effect, so the check
// stays when the compiler cannot prove it never fails), and the CPU
// feature tests of some standard library functions. What it deletes is
// the rest: the loads and arithmetic that only feed the result.
type keeps uint8

const (
	keepBounds  keeps = 1 << iota // an index or slice expression not provably in range
	keepNil                       // a load through a pointer (a nil check)
	keepDivide                    // an integer division or remainder by a variable (a divide-by-zero check)
	keepShift                     // a shift by a signed variable (a negative-shift check)
	keepFeature                   // a CPU feature test (math.Floor, bits.OnesCount on GOAMD64=v1)
)

// String lists what k keeps, in words: "bounds and nil checks".
func (k keeps) String() string {
	var checks []string
	for _, c := range []struct {
		k    keeps
		name string
	}{{keepBounds, "bounds"}, {keepNil, "nil"}, {keepDivide, "divide-by-zero"}, {keepShift, "shift"}} {
		if k&c.k != 0 {
			checks = append(checks, c.name)
		}
	}
	var out []string
	switch len(checks) {
	case 0:
	case 1:
		out = append(out, checks[0]+" checks")
	default:
		out = append(out, strings.Join(checks[:len(checks)-1], ", ")+" and "+checks[len(checks)-1]+" checks")
	}
	if k&keepFeature != 0 {
		out = append(out, "a CPU feature test")
	}
	return strings.Join(out, " and ")
}

func (*pureFact) AFact() {}

func (f *pureFact) String() string {
	if f.Folds {
		return "pure, folds"
	}
	return "pure"
}

// purity answers whether a call can be deleted.
type purity struct {
	pass   *analysis.Pass
	shared *sync.Map // FullName -> pureFact, across packages, for drivers without facts (RootAnalyzers)
	decls  map[*types.Func]*ast.FuncDecl
	memo   map[*types.Func]*pureFact // nil value: not pure
	busy   map[*types.Func]bool
}

// fact returns what is known of fn, nil when its calls cannot be deleted.
func (p *purity) fact(fn *types.Func) *pureFact {
	fn = fn.Origin()
	if f, ok := p.memo[fn]; ok {
		return f
	}
	if f, ok := stdPure[fn.FullName()]; ok {
		return &f
	}
	if fn.Pkg() != p.pass.Pkg {
		var f pureFact
		if len(p.pass.Analyzer.FactTypes) > 0 && fn.Pkg() != nil && p.pass.ImportObjectFact(fn, &f) {
			return &f
		}
		if p.shared != nil {
			if v, ok := p.shared.Load(fn.FullName()); ok {
				f := v.(pureFact)
				return &f
			}
		}
		return nil
	}
	d := p.decls[fn]
	if d == nil || p.busy[fn] { // no body, or recursive: not inlined
		return nil
	}
	p.busy[fn] = true
	f := p.analyze(d)
	delete(p.busy, fn)
	p.memo[fn] = f
	return f
}

// call returns what is known of the function call calls, nil when it is
// not a call of a function whose calls can be deleted.
func (p *purity) call(call *ast.CallExpr) *pureFact {
	fn, ok := typeutil.Callee(p.pass.TypesInfo, call).(*types.Func)
	if !ok {
		return nil
	}
	if recv := fn.Signature().Recv(); recv != nil && types.IsInterface(recv.Type()) {
		return nil // dynamic call
	}
	return p.fact(fn)
}

func runPurity(pass *analysis.Pass) (any, error) { return runPurityShared(pass, nil) }

// runPurityShared is runPurity that also reads and records what it finds
// in shared, when not nil.
func runPurityShared(pass *analysis.Pass, shared *sync.Map) (any, error) {
	p := &purity{
		pass:   pass,
		shared: shared,
		decls:  map[*types.Func]*ast.FuncDecl{},
		memo:   map[*types.Func]*pureFact{},
		busy:   map[*types.Func]bool{},
	}
	for _, file := range pass.Files {
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					p.decls[fn] = fd
				}
			}
		}
	}
	for fn := range p.decls {
		f := p.fact(fn)
		switch {
		case f == nil:
		case len(pass.Analyzer.FactTypes) > 0:
			pass.ExportObjectFact(fn, f)
		case shared != nil:
			shared.Store(fn.FullName(), *f)
		}
	}
	return p, nil
}

// noinline reports whether d carries a directive that keeps it out of line.
func noinline(d *ast.FuncDecl) bool {
	if d.Doc == nil {
		return false
	}
	for _, c := range d.Doc.List {
		if strings.HasPrefix(c.Text, "//go:noinline") || strings.HasPrefix(c.Text, "//go:norace") ||
			strings.HasPrefix(c.Text, "//go:linkname") || strings.HasPrefix(c.Text, "//go:uintptr") {
			return true
		}
	}
	return false
}

// analyze decides whether d's calls can be deleted.
func (p *purity) analyze(d *ast.FuncDecl) *pureFact {
	if noinline(d) || d.Type.Results == nil || len(d.Type.Results.List) == 0 {
		return nil
	}
	info := p.pass.TypesInfo
	fn := info.Defs[d.Name].(*types.Func)
	sig := fn.Signature()
	for _, tuple := range []*types.Tuple{sig.Params(), sig.Results()} {
		for v := range tuple.Variables() {
			if !plainType(v.Type()) {
				return nil
			}
		}
	}
	if sig.Recv() != nil && !plainType(sig.Recv().Type()) {
		return nil
	}
	// locals are the variables declared in d: the receiver, the
	// parameters, the results and those in the body. Only they may be
	// written.
	local := func(id *ast.Ident) bool {
		obj := info.ObjectOf(id)
		return obj != nil && obj.Pos() >= d.Pos() && obj.Pos() < d.End()
	}
	f := &pureFact{Folds: true}
	ok := true
	ast.Inspect(d.Body, func(n ast.Node) bool {
		if !ok || n == nil {
			return false
		}
		f.Cost++
		switch n := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.GoStmt, *ast.DeferStmt, *ast.SelectStmt,
			*ast.SendStmt, *ast.FuncLit, *ast.LabeledStmt, *ast.BranchStmt, *ast.TypeSwitchStmt:
			ok = false
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				if !writable(info, lhs, local) {
					ok = false
				}
			}
			if op, isOp := assignOps[n.Tok]; isOp {
				f.Keeps |= opKeeps(info, op, n.Lhs[0], n.Rhs[0])
			}
		case *ast.IncDecStmt:
			ok = writable(info, n.X, local)
		case *ast.UnaryExpr:
			if n.Op == token.ARROW || n.Op == token.AND {
				ok = false
			}
		case *ast.BinaryExpr:
			if t := info.TypeOf(n.X); t != nil && !cheapOperand(t) {
				ok = false // string concatenation and comparison call the runtime
			}
			f.Keeps |= opKeeps(info, n.Op, n.X, n.Y)
		case *ast.CompositeLit:
			if _, isStruct := info.TypeOf(n).Underlying().(*types.Struct); !isStruct {
				ok = false
			}
		case *ast.IndexExpr:
			if _, isMap := info.TypeOf(n.X).Underlying().(*types.Map); isMap {
				ok = false
			}
			if _, isSig := info.TypeOf(n.X).Underlying().(*types.Signature); !isSig {
				f.Folds = false // a load
				f.Keeps |= indexKeeps(info, n, nil)
			}
		case *ast.SliceExpr:
			f.Folds = false
			f.Keeps |= keepBounds
			if isPointer(info.TypeOf(n.X)) {
				f.Keeps |= keepNil
			}
		case *ast.StarExpr:
			f.Folds = false
			if tv, isType := info.Types[n]; !isType || !tv.IsType() {
				f.Keeps |= keepNil
			}
		case *ast.SelectorExpr:
			if s := info.Selections[n]; s != nil {
				if s.Kind() != types.FieldVal {
					break // a method, checked at its call
				}
				if s.Indirect() {
					f.Folds = false
					f.Keeps |= keepNil
				}
			} else if v, isVar := info.Uses[n.Sel].(*types.Var); isVar && !v.IsField() {
				f.Folds = false // another package's variable
			}
		case *ast.Ident:
			if v, isVar := info.Uses[n].(*types.Var); isVar && !local(n) && v.Parent() == v.Pkg().Scope() {
				f.Folds = false // a package-level variable
			}
		case *ast.CallExpr:
			ok = p.pureCall(n, f)
		}
		return ok
	})
	if !ok || f.Cost > inlineBudget {
		return nil
	}
	return f
}

// pureCall reports whether call keeps its caller pure, adding the
// callee's inlined cost to f.
func (p *purity) pureCall(call *ast.CallExpr, f *pureFact) bool {
	info := p.pass.TypesInfo
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		// A conversion: pure between numbers; to or from a string it
		// calls the runtime, to an interface it may allocate.
		from, to := info.TypeOf(call.Args[0]), tv.Type
		return cheapOperand(from) && cheapOperand(to) || isUnsafePointer(from) || isUnsafePointer(to)
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := info.Uses[id].(*types.Builtin); ok {
			switch b.Name() {
			case "len", "cap", "real", "imag", "complex":
				return true
			case "min", "max":
				return cheapOperand(info.TypeOf(call))
			}
			return false
		}
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); ok {
			if pn, ok := info.Uses[id].(*types.PkgName); ok && pn.Imported().Path() == "unsafe" {
				return sel.Sel.Name == "Pointer" || sel.Sel.Name == "Sizeof"
			}
		}
	}
	g := p.call(call)
	if g == nil {
		return false
	}
	f.Cost += g.Cost
	f.Folds = f.Folds && g.Folds
	f.Keeps |= g.Keeps
	return true
}

// indexKeeps says what the index expression x[i] keeps when its value
// is unused: a bounds check unless i is provably in range (see span),
// and a nil check when x is a pointer to an array. k, which may be nil,
// gives what is known of the function's local variables.
func indexKeeps(info *types.Info, e *ast.IndexExpr, k *knownLocals) keeps {
	var out keeps
	t := info.TypeOf(e.X)
	if isPointer(t) {
		out |= keepNil
		t = t.Underlying().(*types.Pointer).Elem()
	}
	length := int64(-1)
	switch u := t.Underlying().(type) {
	case *types.Array:
		length = u.Len()
	case *types.Slice:
		if id, ok := ast.Unparen(e.X).(*ast.Ident); ok && k != nil {
			if v, ok := info.Uses[id].(*types.Var); ok {
				if n, ok := k.lens[v]; ok {
					length = n
				}
			}
		}
	}
	if lo, hi, ok := span(info, e.Index, k); length < 0 || !ok || lo < 0 || hi >= length {
		out |= keepBounds
	}
	return out
}

// knownLocals is what is known of a function's local variables for
// span: the slices of a constant length, and the counters of loops with
// constant bounds.
type knownLocals struct {
	lens     map[*types.Var]int64
	counters map[*types.Var]counter
}

// A counter is the variable of `for j := lo; j < K; j++` (or j <= K, or
// `for j := range K`), not assigned in the loop: within body, lo <= j <=
// hi.
type counter struct {
	lo, hi int64
	body   *ast.BlockStmt
}

// known returns what is known of the local variables of body.
func known(info *types.Info, body *ast.BlockStmt) *knownLocals {
	k := &knownLocals{lens: constLenSlices(info, body), counters: map[*types.Var]counter{}}
	constOf := func(e ast.Expr) (int64, bool) {
		tv := info.Types[e]
		if tv.Value == nil {
			return 0, false
		}
		return constant.Int64Val(constant.ToInt(tv.Value))
	}
	assigned := func(v *types.Var, body *ast.BlockStmt) bool {
		found := false
		ast.Inspect(body, func(n ast.Node) bool {
			var lhs []ast.Expr
			switch n := n.(type) {
			case *ast.AssignStmt:
				lhs = n.Lhs
			case *ast.IncDecStmt:
				lhs = []ast.Expr{n.X}
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					lhs = []ast.Expr{n.X}
				}
			}
			for _, e := range lhs {
				if id, ok := ast.Unparen(e).(*ast.Ident); ok && info.Uses[id] == v {
					found = true
				}
			}
			return !found
		})
		return found
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ForStmt:
			init, ok1 := n.Init.(*ast.AssignStmt)
			cond, ok2 := n.Cond.(*ast.BinaryExpr)
			post, ok3 := n.Post.(*ast.IncDecStmt)
			if !ok1 || !ok2 || !ok3 || init.Tok != token.DEFINE || len(init.Lhs) != 1 || len(init.Rhs) != 1 || post.Tok != token.INC {
				return true
			}
			id, ok := init.Lhs[0].(*ast.Ident)
			v, _ := info.Defs[id].(*types.Var)
			if !ok || v == nil || types.ExprString(cond.X) != id.Name || types.ExprString(post.X) != id.Name {
				return true
			}
			lo, ok1 := constOf(init.Rhs[0])
			hi, ok2 := constOf(cond.Y)
			if cond.Op == token.LSS {
				hi--
			} else if cond.Op != token.LEQ {
				return true
			}
			if ok1 && ok2 && lo <= hi && !assigned(v, n.Body) {
				k.counters[v] = counter{lo, hi, n.Body}
			}
		case *ast.RangeStmt:
			id, ok := n.Key.(*ast.Ident)
			if !ok || n.Tok != token.DEFINE {
				return true
			}
			v, _ := info.Defs[id].(*types.Var)
			if hi, ok := constOf(n.X); ok && v != nil && hi > 0 && !assigned(v, n.Body) {
				k.counters[v] = counter{0, hi - 1, n.Body}
			}
		}
		return true
	})
	return k
}

// span returns bounds of the integer expression e, as the compiler's
// prove pass sees them in the common cases: a constant; a loop counter
// with constant bounds (k); x&m and x%m, x>>c, x+y, x-y and x*y of
// known operands; and otherwise the range of an unsigned type narrower
// than 63 bits. ok is false when nothing is known.
func span(info *types.Info, e ast.Expr, k *knownLocals) (lo, hi int64, ok bool) {
	const limit = 1 << 40 // beyond it, give up rather than overflow
	e = ast.Unparen(e)
	defer func() {
		if ok && (lo < -limit || hi > limit) {
			ok = false
		}
	}()
	if tv := info.Types[e]; tv.Value != nil {
		v, exact := constant.Int64Val(constant.ToInt(tv.Value))
		return v, v, exact
	}
	typeSpan := func() (int64, int64, bool) {
		if w := unsignedBits(info.TypeOf(e)); w > 0 && w < 63 {
			return 0, 1<<w - 1, true
		}
		return 0, 0, false
	}
	switch e := e.(type) {
	case *ast.Ident:
		if v, isVar := info.Uses[e].(*types.Var); isVar && k != nil {
			if c, found := k.counters[v]; found && within(e.Pos(), c.body) {
				return c.lo, c.hi, true
			}
		}
	case *ast.CallExpr:
		if tv, isConv := info.Types[e.Fun]; isConv && tv.IsType() && len(e.Args) == 1 {
			l, h, known := span(info, e.Args[0], k)
			tl, th, narrow := typeSpan()
			switch {
			case known && (!narrow || l >= tl && h <= th):
				return l, h, true
			case narrow:
				return tl, th, true
			}
			return 0, 0, false
		}
	case *ast.BinaryExpr:
		xl, xh, xok := span(info, e.X, k)
		yl, yh, yok := span(info, e.Y, k)
		switch e.Op {
		case token.AND:
			if yok && yl == yh && yl >= 0 {
				return 0, yl, true
			}
			if xok && xl == xh && xl >= 0 {
				return 0, xl, true
			}
		case token.REM:
			if yok && yl == yh && yl > 0 && (xok && xl >= 0 || unsignedBits(info.TypeOf(e.X)) > 0) {
				if xok && xl >= 0 && xh < yl {
					return xl, xh, true
				}
				return 0, yl - 1, true
			}
		case token.SHR:
			if yok && yl == yh && yl >= 0 && yl < 63 {
				if xok && xl >= 0 {
					return xl >> yl, xh >> yl, true
				}
				if w := unsignedBits(info.TypeOf(e.X)); w > 0 {
					if yl >= w {
						return 0, 0, true
					}
					if w-yl < 63 {
						return 0, 1<<(w-yl) - 1, true
					}
				}
			}
		case token.ADD:
			if xok && yok {
				return wrap(info.TypeOf(e), xl+yl, xh+yh)
			}
		case token.SUB:
			if xok && yok {
				return wrap(info.TypeOf(e), xl-yh, xh-yl)
			}
		case token.MUL:
			if xok && yok && xl >= 0 && yl >= 0 && xh < limit && yh < limit && (xh == 0 || yh <= limit/xh) {
				return wrap(info.TypeOf(e), xl*yl, xh*yh)
			}
		}
	}
	return typeSpan()
}

// wrap returns the bounds of a result in [lo, hi] before it is stored in
// t: the same when they fit, all of an unsigned t when they do not (the
// value wraps around), nothing known for a signed t that overflows.
func wrap(t types.Type, lo, hi int64) (int64, int64, bool) {
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return 0, 0, false
	}
	if w := unsignedBits(t); w > 0 {
		if w >= 63 || lo >= 0 && hi < 1<<w {
			return lo, hi, lo >= 0 || w < 63
		}
		return 0, 1<<w - 1, true
	}
	w := int64(64)
	switch b.Kind() {
	case types.Int8:
		w = 8
	case types.Int16:
		w = 16
	case types.Int32:
		w = 32
	}
	if w < 64 && (lo < -(1<<(w-1)) || hi >= 1<<(w-1)) {
		return 0, 0, false
	}
	return lo, hi, true
}

// unsignedBits returns the width of an unsigned integer type, 0 for any
// other type (uint and uintptr count as 64 bits).
func unsignedBits(t types.Type) int64 {
	if t == nil {
		return 0
	}
	b, ok := t.Underlying().(*types.Basic)
	if !ok || b.Info()&types.IsUnsigned == 0 {
		return 0
	}
	switch b.Kind() {
	case types.Uint8:
		return 8
	case types.Uint16:
		return 16
	case types.Uint32:
		return 32
	}
	return 64
}

// assignOps maps the assignment operators that divide or shift to their
// operator.
var assignOps = map[token.Token]token.Token{
	token.QUO_ASSIGN: token.QUO, token.REM_ASSIGN: token.REM, token.SHL_ASSIGN: token.SHL, token.SHR_ASSIGN: token.SHR,
}

// opKeeps says what x op y keeps: for an integer division or remainder,
// the check of a divisor that is not a non-zero constant; for a shift, the
// check of a signed count that is not constant.
func opKeeps(info *types.Info, op token.Token, x, y ast.Expr) keeps {
	b, ok := info.TypeOf(x).Underlying().(*types.Basic)
	if !ok || b.Info()&types.IsInteger == 0 {
		return 0
	}
	switch op {
	case token.QUO, token.REM:
		if tv := info.Types[y]; tv.Value == nil || constant.Sign(tv.Value) == 0 {
			return keepDivide
		}
	case token.SHL, token.SHR:
		yb, ok := info.TypeOf(y).Underlying().(*types.Basic)
		if tv := info.Types[y]; tv.Value == nil && ok && yb.Info()&types.IsUnsigned == 0 {
			return keepShift
		}
	}
	return 0
}

func isPointer(t types.Type) bool {
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Pointer)
	return ok
}

// writable reports whether assigning to lhs writes only local memory: a
// local variable, or a field of a local struct value (not one reached
// through a pointer, such as a pointer receiver's).
func writable(info *types.Info, lhs ast.Expr, local func(*ast.Ident) bool) bool {
	switch lhs := ast.Unparen(lhs).(type) {
	case *ast.Ident:
		return lhs.Name == "_" || local(lhs)
	case *ast.SelectorExpr:
		id, ok := lhs.X.(*ast.Ident)
		s := info.Selections[lhs]
		return ok && local(id) && s != nil && !s.Indirect()
	}
	return false
}

// plainType reports whether values of t can be passed without the
// compiler having to allocate or call the runtime: no interfaces,
// channels, maps or functions.
func plainType(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Kind() != types.UntypedNil
	case *types.Pointer:
		return true
	case *types.Slice:
		return true
	case *types.Array:
		return plainType(u.Elem())
	case *types.Struct:
		for f := range u.Fields() {
			if !plainType(f.Type()) {
				return false
			}
		}
		return true
	}
	return false
}

// cheapOperand reports whether operators on t compile to instructions
// (numbers and booleans), not to runtime calls (strings, interfaces).
func cheapOperand(t types.Type) bool {
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsNumeric|types.IsBoolean) != 0
}

func isUnsafePointer(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.UnsafePointer
}

// purityOf returns the purity result among pass's prerequisites, which
// may be purityAnalyzer or its fact-free copy (RootAnalyzers).
func purityOf(pass *analysis.Pass) *purity {
	for _, r := range pass.ResultOf {
		if p, ok := r.(*purity); ok {
			return p
		}
	}
	panic("lint: purity analyzer missing from Requires")
}
