package lint

import (
	"go/ast"
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
	Cost  int  // syntax nodes, callees inlined
	Folds bool // the result depends on the arguments alone
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
				if !writable(lhs, local) {
					ok = false
				}
			}
		case *ast.IncDecStmt:
			ok = writable(n.X, local)
		case *ast.UnaryExpr:
			if n.Op == token.ARROW || n.Op == token.AND {
				ok = false
			}
		case *ast.BinaryExpr:
			if t := info.TypeOf(n.X); t != nil && !cheapOperand(t) {
				ok = false // string concatenation and comparison call the runtime
			}
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
			}
		case *ast.SliceExpr, *ast.StarExpr:
			f.Folds = false
		case *ast.SelectorExpr:
			if s := info.Selections[n]; s != nil {
				if s.Kind() != types.FieldVal {
					break // a method, checked at its call
				}
				if s.Indirect() {
					f.Folds = false
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
	return true
}

// writable reports whether assigning to lhs writes only local memory.
func writable(lhs ast.Expr, local func(*ast.Ident) bool) bool {
	switch lhs := ast.Unparen(lhs).(type) {
	case *ast.Ident:
		return lhs.Name == "_" || local(lhs)
	case *ast.SelectorExpr: // a field of a local struct value
		id, ok := lhs.X.(*ast.Ident)
		return ok && local(id)
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
