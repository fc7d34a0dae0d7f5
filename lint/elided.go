package lint

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// Elided reports timed work the compiler deletes, so that the benchmark
// measures an empty loop.
//
// The compiler deletes a call whose result is unused when it can inline
// the callee and the callee is pure (see the purity analyzer: no writes
// outside itself, no loops, no calls but to other such functions, small
// enough for the inliner's budget of 80 nodes). It computes a call at
// compile time when, in addition, the arguments are constants (literals,
// constants, or local variables set once from constants) and the result
// depends on them alone.
//
// What b.Loop keeps (Go 1.26, cmd/compile/internal/bloop; verified by
// disassembly on Go 1.26.8 linux/amd64): in a loop written exactly `for
// b.Loop() { ... }`, for every statement of its body, and of the if, for,
// range, switch, select and block statements nested in it, the compiler
// keeps alive the variables assigned by an assignment (=, :=, op=; a blank
// _ is assigned to a temporary first), the results of a call used as a
// statement, and the arguments of a call statement that returns nothing.
// It does not keep alive what is computed inside a function literal in the
// body, nor in an if or switch condition, nor in the loop condition. And
// since Go 1.26 the calls are inlined (Go 1.24 and 1.25 kept them out of
// line instead): a pure call with constant arguments is folded, and what
// is kept alive is the constant. `x := 17; for b.Loop() { square(x) }`
// compiles to a loop that stores the constant 289 and does no
// multiplication.
//
// So in a b.N loop, Elided reports a pure call or expression whose result
// is discarded (a call statement, `_ = f(x)`, or a local variable that is
// assigned and never read); in any timed loop, and in rigor's Iter
// functions, a pure call with constant arguments. The suggested fix turns
// `for i := 0; i < b.N; i++` into `for b.Loop()` when i is not used.
var Elided = &analysis.Analyzer{
	Name:     "elided",
	Doc:      "report benchmark work the compiler deletes (a discarded pure result, constant arguments)",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#Elided",
	Requires: []*analysis.Analyzer{inspect.Analyzer, purityAnalyzer},
	Run:      runElided,
}

func runElided(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	pure := purityOf(pass)
	for _, f := range benchFuncs(pass, in) {
		consts := constLocals(pass.TypesInfo, f.body)
		var locals *knownLocals
		for _, l := range f.loops {
			reported := map[*ast.CallExpr]bool{}
			if l.kind == loopN || l.kind == loopData {
				fix := loopFix(pass, f, l)
				dead := discarded(pass, pure, l.body, f.body)
				if locals == nil && len(dead) > 0 {
					locals = known(pass.TypesInfo, f.body)
				}
				left := make(map[ast.Expr]leftover, len(dead))
				for _, d := range dead {
					left[d.expr] = leftOf(pass, pure, d.expr, locals)
				}
				empty := emptyLoop(l.body, left)
				for _, d := range dead {
					if c, ok := ast.Unparen(d.expr).(*ast.CallExpr); ok {
						reported[c] = true
					}
					effect := " and the loop is left empty, so ns/op times an empty loop (about 0.3-1 ns)"
					if !empty {
						effect = left[d.expr].clause(d.what) + ", so ns/op does not time its work, only what is left of the loop"
					}
					pass.Report(analysis.Diagnostic{
						Pos: d.expr.Pos(), End: d.expr.End(),
						Message: fmt.Sprintf("%s: the compiler deletes this pure %s%s; "+
							"use the result (b.Loop keeps it alive, or assign it to a package-level variable)", d.why, d.what, effect),
						SuggestedFixes: fix,
					})
				}
			}
			for _, c := range foldedCalls(pass, pure, l.body, consts) {
				if reported[c] {
					continue
				}
				pass.Report(analysis.Diagnostic{
					Pos: c.Pos(), End: c.End(),
					Message: fmt.Sprintf("%s has constant arguments: the compiler computes it once, at compile time, and the loop times a constant "+
						"(b.Loop does not prevent this); read the input from a package-level variable", types.ExprString(c)),
				})
			}
		}
	}
	return nil, nil
}

// A leftover is what the compiler keeps of a pure computation whose
// result is unused: the work in it that is not pure (a call of an impure
// function in its arguments, a map lookup), which stays, and the checks
// that can panic, which stay unless the compiler proves they cannot.
type leftover struct {
	work   []string // "the call of r.Int31n", in source order
	checks keeps
}

// clause says what is kept, to follow "the compiler deletes this call"
// (what is "call" or "expression"): ", keeping the call of f in its
// arguments and at most its bounds checks"; "" when nothing is.
func (lo leftover) clause(what string) string {
	var parts []string
	if len(lo.work) > 0 {
		in := " in it"
		if what == "call" {
			in = " in its arguments"
		}
		parts = append(parts, words(lo.work)+in)
	}
	if lo.checks != 0 {
		parts = append(parts, "at most its "+lo.checks.String())
	}
	if len(parts) == 0 {
		return ""
	}
	return ", keeping " + strings.Join(parts, " and ")
}

// words joins a list as prose: "a", "a and b", "a, b and c".
func words(list []string) string {
	if len(list) <= 1 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " and " + list[len(list)-1]
}

// leftOf returns what the compiler keeps of e, a pure call or expression
// whose result is unused. k gives what is known of the function's local
// variables (slices of a constant length, loop counters), for the bounds
// checks.
func leftOf(pass *analysis.Pass, pure *purity, e ast.Expr, k *knownLocals) leftover {
	info := pass.TypesInfo
	var lo leftover
	keep := func(what string) {
		if !slices.Contains(lo.work, what) {
			lo.work = append(lo.work, what)
		}
	}
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			keep("a function literal")
			return false
		case *ast.CallExpr:
			if tv, ok := info.Types[n.Fun]; ok && tv.IsType() {
				if len(n.Args) == 1 && !(cheapOperand(tv.Type) && cheapOperand(info.TypeOf(n.Args[0]))) {
					keep("the conversion to " + types.ExprString(n.Fun))
				}
				return true
			}
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				if b, ok := info.Uses[id].(*types.Builtin); ok {
					switch b.Name() {
					case "len", "cap", "real", "imag", "complex", "min", "max":
						return true
					}
					keep("the call of " + b.Name())
					return false
				}
			}
			if f := pure.call(n); f != nil {
				lo.checks |= f.Keeps
				return true
			}
			keep("the call of " + types.ExprString(n.Fun))
			return false
		case *ast.IndexExpr:
			switch info.TypeOf(n.X).Underlying().(type) {
			case *types.Map:
				keep("the map lookup " + types.ExprString(n))
				return false
			case *types.Signature: // an instantiation
			default:
				lo.checks |= indexKeeps(info, n, k)
			}
		case *ast.SliceExpr:
			lo.checks |= keepBounds
			if isPointer(info.TypeOf(n.X)) {
				lo.checks |= keepNil
			}
		case *ast.StarExpr:
			if tv, ok := info.Types[n]; !ok || !tv.IsType() {
				lo.checks |= keepNil
			}
		case *ast.SelectorExpr:
			// b.N's nil check is done already: the loop reads b.N.
			if s := info.Selections[n]; s != nil && s.Kind() == types.FieldVal && s.Indirect() && !isTestingB(s.Recv()) {
				lo.checks |= keepNil
			}
		case *ast.BinaryExpr:
			if !cheapOperand(info.TypeOf(n.X)) {
				keep("the operation " + n.Op.String() + " on " + info.TypeOf(n.X).String())
			}
			lo.checks |= opKeeps(info, n.Op, n.X, n.Y)
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				keep("the channel receive " + types.ExprString(n))
				return false
			}
		case *ast.TypeAssertExpr:
			keep("the type assertion " + types.ExprString(n))
		case *ast.CompositeLit:
			if _, isStruct := info.TypeOf(n).Underlying().(*types.Struct); !isStruct {
				keep("the composite literal")
			}
		}
		return true
	})
	return lo
}

// emptyLoop reports whether every statement of a timed loop's body is
// deleted: a pure computation whose result is unused and of which nothing
// is kept (left holds what is kept of each), an assignment of plain
// values to _, or an empty statement. The loop's header does no work of
// its own: a b.N loop counts, a range over a slice only its length.
func emptyLoop(body *ast.BlockStmt, left map[ast.Expr]leftover) bool {
	gone := func(e ast.Expr) bool {
		lo, ok := left[e]
		if ok {
			return len(lo.work) == 0 && lo.checks == 0
		}
		switch ast.Unparen(e).(type) {
		case *ast.Ident, *ast.BasicLit:
			return true
		}
		return false
	}
	for _, s := range body.List {
		switch s := s.(type) {
		case *ast.EmptyStmt:
		case *ast.ExprStmt:
			if !gone(s.X) {
				return false
			}
		case *ast.AssignStmt:
			if s.Tok != token.ASSIGN && s.Tok != token.DEFINE {
				return false
			}
			for _, r := range s.Rhs {
				if !gone(r) {
					return false
				}
			}
			if _, ok := left[s.Rhs[0]]; !ok && !allBlank(s.Lhs) {
				return false // x = y with x read: not deleted work
			}
		default:
			return false
		}
	}
	return true
}

// A deadWork is a pure computation whose result no one reads.
type deadWork struct {
	expr ast.Expr
	what string // "call" or "expression"
	why  string
}

// discarded returns the pure computations in body whose result is
// dropped: call statements, assignments to _, and assignments to local
// variables of fn that nothing reads. Function literals are not entered.
func discarded(pass *analysis.Pass, pure *purity, body, fn *ast.BlockStmt) []deadWork {
	info := pass.TypesInfo
	var out []deadWork
	var unread map[*types.Var]bool
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ExprStmt:
			if c, ok := ast.Unparen(n.X).(*ast.CallExpr); ok && pure.call(c) != nil {
				out = append(out, deadWork{c, "call", "result of " + types.ExprString(c.Fun) + " discarded"})
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE || n.Tok == token.ASSIGN {
				if len(n.Lhs) != len(n.Rhs) && len(n.Rhs) != 1 {
					return true
				}
				for _, lhs := range n.Lhs {
					id, ok := lhs.(*ast.Ident)
					if !ok {
						return true
					}
					if id.Name == "_" {
						continue
					}
					v, ok := info.ObjectOf(id).(*types.Var)
					if !ok {
						return true
					}
					if unread == nil {
						unread = unreadLocals(info, fn)
					}
					if !unread[v] {
						return true
					}
				}
				for _, rhs := range n.Rhs {
					what := pureWork(pure, info, rhs)
					if what == "" {
						continue
					}
					why := "value"
					if c, ok := ast.Unparen(rhs).(*ast.CallExpr); ok {
						why = "result of " + types.ExprString(c.Fun)
					}
					if allBlank(n.Lhs) {
						why += " assigned to _"
					} else {
						why += " assigned to a variable never read"
					}
					out = append(out, deadWork{rhs, what, why})
				}
			}
		}
		return true
	})
	return out
}

func allBlank(exprs []ast.Expr) bool {
	for _, e := range exprs {
		if id, ok := e.(*ast.Ident); !ok || id.Name != "_" {
			return false
		}
	}
	return true
}

// pureWork says whether e does work the compiler may delete: "call" for
// a call of a pure function, "expression" for arithmetic on such values,
// "" otherwise (including plain variables and conversions, which do no
// work, and anything with a side effect).
func pureWork(pure *purity, info *types.Info, e ast.Expr) string {
	what, ok := sideEffectFree(pure, info, e)
	if !ok {
		return ""
	}
	return what
}

// sideEffectFree reports whether evaluating e has no effect but its value,
// and what work it does ("call", "expression" or "").
func sideEffectFree(pure *purity, info *types.Info, e ast.Expr) (what string, ok bool) {
	ok = true
	ast.Inspect(e, func(n ast.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			if tv, isConv := info.Types[n.Fun]; isConv && tv.IsType() {
				if !cheapOperand(tv.Type) || !cheapOperand(info.TypeOf(n.Args[0])) {
					ok = false
				}
				return ok
			}
			if pure.call(n) == nil {
				ok = false
				return false
			}
			what = "call"
		case *ast.BinaryExpr:
			if !cheapOperand(info.TypeOf(n.X)) {
				ok = false
			} else if what == "" {
				what = "expression"
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW || n.Op == token.AND {
				ok = false
			}
		case *ast.IndexExpr:
			if _, isMap := info.TypeOf(n.X).Underlying().(*types.Map); isMap {
				ok = false
			}
		case *ast.FuncLit, *ast.CompositeLit, *ast.TypeAssertExpr, *ast.SliceExpr:
			ok = false
		}
		return ok
	})
	return what, ok
}

// unreadLocals returns the local variables of fn whose value is never
// read: every use assigns it, feeds an assignment to itself alone, or is
// `_ = v`. Variables whose address is taken, or that a function literal
// uses, are read.
func unreadLocals(info *types.Info, fn *ast.BlockStmt) map[*types.Var]bool {
	reads := map[*types.Var]bool{}
	locals := map[*types.Var]bool{}
	var visit func(n ast.Node, self *types.Var, inLit bool)
	visit = func(n ast.Node, self *types.Var, inLit bool) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				visit(n.Body, nil, true)
				return false
			case *ast.AssignStmt:
				var only *types.Var
				if len(n.Lhs) == 1 {
					if id, ok := n.Lhs[0].(*ast.Ident); ok {
						only, _ = info.ObjectOf(id).(*types.Var)
					}
				}
				for _, lhs := range n.Lhs {
					if id, ok := lhs.(*ast.Ident); ok {
						if v, ok := info.Defs[id].(*types.Var); ok {
							locals[v] = true
						}
						if inLit {
							if v, ok := info.Uses[id].(*types.Var); ok {
								reads[v] = true
							}
						}
						continue
					}
					visit(lhs, nil, inLit) // a[i] = ...: a and i are read
				}
				blank := allBlank(n.Lhs)
				for _, rhs := range n.Rhs {
					if id, ok := ast.Unparen(rhs).(*ast.Ident); ok && blank && !inLit {
						_ = id // `_ = v` does not read v
						continue
					}
					visit(rhs, only, inLit)
				}
				if n.Tok != token.ASSIGN && n.Tok != token.DEFINE {
					for _, lhs := range n.Lhs { // x += y reads x
						if id, ok := lhs.(*ast.Ident); ok {
							if v, ok := info.Uses[id].(*types.Var); ok && v != only {
								reads[v] = true
							}
						}
					}
				}
				return false
			case *ast.IncDecStmt:
				if _, ok := n.X.(*ast.Ident); ok && !inLit {
					return false
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					inLitSave := inLit
					visit(n.X, nil, true) // an address taken counts as a read
					inLit = inLitSave
					return false
				}
			case *ast.Ident:
				if v, ok := info.Uses[n].(*types.Var); ok && (v != self || inLit) {
					reads[v] = true
				}
			case *ast.ValueSpec:
				for _, id := range n.Names {
					if v, ok := info.Defs[id].(*types.Var); ok {
						locals[v] = true
					}
				}
				for _, e := range n.Values {
					visit(e, nil, inLit)
				}
				return false
			}
			return true
		})
	}
	visit(fn, nil, false)
	out := map[*types.Var]bool{}
	for v := range locals {
		if !reads[v] {
			out[v] = true
		}
	}
	return out
}

// constLocals returns the local variables of fn that are set once, from a
// constant, and never assigned again nor have their address taken
// (setOnce): the compiler knows their value.
func constLocals(info *types.Info, fn *ast.BlockStmt) map[*types.Var]bool {
	out := map[*types.Var]bool{}
	for v := range setOnce(info, fn, func(e ast.Expr) bool { return info.Types[e].Value != nil }) {
		out[v] = true
	}
	return out
}

// foldedCalls returns the calls in body of functions that fold, all of
// whose arguments the compiler knows. Function literals are entered only
// when enterLits (rigor's Iter functions are themselves literals).
func foldedCalls(pass *analysis.Pass, pure *purity, body ast.Node, consts map[*types.Var]bool) []*ast.CallExpr {
	info := pass.TypesInfo
	known := func(e ast.Expr) bool {
		if info.Types[e].Value != nil {
			return true
		}
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			v, ok := info.Uses[id].(*types.Var)
			return ok && consts[v]
		}
		return false
	}
	var out []*ast.CallExpr
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if len(n.Args) == 0 || info.Types[n].Value != nil {
				return true
			}
			if f := pure.call(n); f == nil || !f.Folds {
				return true
			}
			for _, a := range n.Args {
				if !known(a) {
					return true
				}
			}
			out = append(out, n)
			return false
		}
		return true
	})
	return out
}

// loopFix rewrites `for i := 0; i < b.N; i++ {` or `for range b.N {` as
// `for b.Loop() {` when that is safe: testing.B has Loop, the counter is
// unused, b.N is read nowhere else in the function, no timer calls in the
// function, and the loop is the function's only timed loop.
func loopFix(pass *analysis.Pass, f *benchFunc, l *timedLoop) []analysis.SuggestedFix {
	info := pass.TypesInfo
	if len(f.loops) != 1 || l.kind != loopN {
		return nil
	}
	// b.Loop is a method of testing.B from Go 1.24 on; the compiler keeps
	// the body's results alive whatever the module's go version.
	if obj, _, _ := types.LookupFieldOrMethod(f.b.Type(), true, nil, "Loop"); obj == nil {
		return nil
	}
	// b.N anywhere but in this loop's header would change meaning: it
	// is 1 before a b.Loop loop and 0 inside it.
	bnElsewhere := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && isBN(info, e) && (!within(e.Pos(), l.stmt) || within(e.Pos(), l.body)) {
			bnElsewhere = true
		}
		return !bnElsewhere
	})
	if bnElsewhere || len(calls(f.body, func(c *ast.CallExpr) bool {
		return timerCall(info, "StopTimer")(c) || timerCall(info, "StartTimer")(c) || timerCall(info, "ResetTimer")(c)
	})) > 0 {
		return nil
	}
	var counter *ast.Ident
	var bexpr ast.Expr
	switch s := l.stmt.(type) {
	case *ast.ForStmt:
		init, ok := s.Init.(*ast.AssignStmt)
		cond, ok2 := s.Cond.(*ast.BinaryExpr)
		post, ok3 := s.Post.(*ast.IncDecStmt)
		if !ok || !ok2 || !ok3 || len(init.Lhs) != 1 || cond.Op != token.LSS || post.Tok != token.INC {
			return nil
		}
		counter, _ = init.Lhs[0].(*ast.Ident)
		if counter == nil || !isBN(info, cond.Y) || types.ExprString(cond.X) != counter.Name ||
			types.ExprString(post.X) != counter.Name {
			return nil
		}
		if lit, ok := init.Rhs[0].(*ast.BasicLit); !ok || lit.Value != "0" {
			return nil
		}
		bexpr = ast.Unparen(cond.Y).(*ast.SelectorExpr).X
	case *ast.RangeStmt:
		if s.Value != nil {
			return nil
		}
		counter, _ = s.Key.(*ast.Ident)
		bexpr = ast.Unparen(s.X).(*ast.SelectorExpr).X
	}
	if counter != nil && counter.Name != "_" {
		v := info.ObjectOf(counter)
		used := false
		ast.Inspect(l.body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && info.Uses[id] == v {
				used = true
			}
			return !used
		})
		if used {
			return nil
		}
	}
	return []analysis.SuggestedFix{{
		Message: "use for b.Loop(), which keeps the results of calls in its body alive",
		TextEdits: []analysis.TextEdit{{
			Pos: l.stmt.Pos(), End: l.body.Lbrace,
			NewText: []byte("for " + types.ExprString(bexpr) + ".Loop() "),
		}},
	}}
}

// fileOf returns the file of pass that holds pos.
func fileOf(pass *analysis.Pass, pos token.Pos) *ast.File {
	for _, f := range pass.Files {
		if f.FileStart <= pos && pos <= f.FileEnd {
			return f
		}
	}
	return nil
}
