package lint

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// stripBodies drops from p's syntax the function bodies that no check
// reads, so that they are not type-checked (most of the time of loading
// goes to function bodies, most of them tests and the code under test),
// and returns the files it dropped some from. What every check sees of
// the functions it reads is the same with or without the others' bodies
// (TestStripKeepsFindings); type errors in a dropped body go unreported.
//
// A body is kept when a check reads it directly (an entry point): the
// function can take a *testing.B (its parameter's type is looked up, in
// the package's aliases and the imported packages' types), or holds a
// function literal that can, a call named RunParallel, Iter or
// IterWithSetup (the parallel and rigor checks read the function literal
// given to them), or a local type alias; every function of a file that
// imports rigor (rigorgroup reads any function that calls
// rigor.NewGroup) or a package whose types are not loaded; generic
// functions and init, which go/types requires a body of; every function
// of package testing (timerloop takes a function of testing it has no
// body for as small). A body is kept too when a check reads it on the
// way from an entry point:
//   - purity, of any function with results: kept are the bodies of at
//     most inlineBudget nodes with no statement purity gives up on (a
//     longer one costs more than the budget, so purity gives up too);
//   - timerloop's "small", of the package's functions called from the
//     timed part of a loop with timer calls, and from those: kept are the
//     loop-free bodies of functions whose name is called, directly or
//     through other such bodies, from an entry point that calls
//     StopTimer or StartTimer ("small" gives up on a loop), and, when
//     there is such an entry point, of methods named Len, Less and Swap
//     (timerloop reads those of a sort.Interface it sees sorted);
//   - timerloop's sort estimate, of the calls of a benchmark helper:
//     kept are the bodies that call a function by the name of one that
//     can take a *testing.B and calls StopTimer or StartTimer;
//   - nsize, of a function that makes data of a size its parameter
//     gives: kept are the bodies of functions with one result whose name
//     an entry point calls with an argument that reads a field N (b.N).
func (l *loader) stripBodies(p *packages.Package) map[*token.File]bool {
	if p.PkgPath == "testing" {
		return nil
	}
	aliases := map[string]bool{} // package-level alias declarations
	for _, f := range p.Syntax {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					if ts := s.(*ast.TypeSpec); ts.Assign.IsValid() {
						aliases[ts.Name.Name] = true
					}
				}
			}
		}
	}
	var funcs []*bodyFacts
	for _, f := range p.Syntax {
		imports, dots, whole := l.fileImports(p, f)
		mayBeB := func(t ast.Expr) bool { return mayBeTestingB(t, aliases, imports, dots) }
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			bf := factsOf(fd, mayBeB)
			bf.whole = whole
			bf.entry = bf.entry || whole || fd.Type.TypeParams != nil || fd.Recv == nil && fd.Name.Name == "init"
			bf.file = l.fset.File(f.Pos())
			funcs = append(funcs, bf)
		}
	}
	// The names "small" may reach: called from an entry point with timer
	// calls, or from a loop-free body whose name it may reach.
	reach := map[string]bool{}
	var add func(names []string)
	add = func(names []string) {
		var more []string
		for _, n := range names {
			if !reach[n] {
				reach[n] = true
				more = append(more, n)
			}
		}
		if len(more) == 0 {
			return
		}
		for _, bf := range funcs {
			if !bf.entry && !bf.loop && slices.Contains(more, bf.fd.Name.Name) {
				add(bf.callees)
			}
		}
	}
	// "small" starts from the timed part of a loop with timer calls, and
	// timerloop reads the methods of a sort.Interface it sees sorted
	// there, and the calls of a benchmark helper with timer calls, for
	// its arguments.
	helpers := map[string]bool{}
	sizers := map[string]bool{} // called with b.N from an entry point
	for _, bf := range funcs {
		if bf.entry {
			for _, n := range bf.nCallees {
				sizers[n] = true
			}
		}
		if bf.entry && bf.timer {
			add([]string{"Len", "Less", "Swap"})
			add(bf.callees)
		}
		if bf.takesB && bf.timer {
			helpers[bf.fd.Name.Name] = true
		}
	}
	stripped := map[*token.File]bool{}
	for _, bf := range funcs {
		pureCandidate := bf.results && bf.nodes <= inlineBudget && !bf.impure
		smallCandidate := !bf.loop && reach[bf.fd.Name.Name]
		sizeCandidate := sizers[bf.fd.Name.Name] && bf.fd.Type.Results.NumFields() == 1
		if l.pureOnly {
			// Loaded.Deps: read by purity alone.
			bf.entry = bf.fd.Type.TypeParams != nil || bf.fd.Recv == nil && bf.fd.Name.Name == "init" || bf.whole
			smallCandidate, sizeCandidate = false, false
		}
		if bf.entry || pureCandidate || smallCandidate || sizeCandidate || slices.ContainsFunc(bf.callees, func(n string) bool { return helpers[n] }) {
			continue
		}
		bf.fd.Body = nil
		stripped[bf.file] = true
	}
	return stripped
}

// bodyFacts is what stripBodies needs to know of a function declaration.
type bodyFacts struct {
	fd      *ast.FuncDecl
	file    *token.File
	entry   bool     // a check reads the body itself
	whole   bool     // every body of the file is kept
	takesB  bool     // a parameter can be a *testing.B
	timer   bool     // the body calls StopTimer or StartTimer
	results bool     // the function has results
	nodes   int      // syntax nodes in the body, as purity counts them
	impure  bool     // the body has a statement or expression purity gives up on
	loop    bool     // the body has a loop, go or select statement ("small" gives up)
	callees []string // the names of the functions the body calls

	nCallees []string // the names of the functions called with an argument reading a field N
}

func factsOf(fd *ast.FuncDecl, mayBeB func(ast.Expr) bool) *bodyFacts {
	bf := &bodyFacts{fd: fd, results: fd.Type.Results != nil && len(fd.Type.Results.List) > 0}
	for _, field := range fd.Type.Params.List {
		bf.takesB = bf.takesB || mayBeB(field.Type)
	}
	bf.entry = bf.takesB
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		bf.nodes++
		switch n := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.GoStmt, *ast.SelectStmt:
			bf.loop, bf.impure = true, true
		case *ast.DeferStmt, *ast.SendStmt, *ast.LabeledStmt, *ast.BranchStmt, *ast.TypeSwitchStmt:
			bf.impure = true
		case *ast.FuncLit:
			bf.impure = true
			for _, field := range n.Type.Params.List {
				bf.entry = bf.entry || mayBeB(field.Type)
			}
		case *ast.CallExpr:
			name := calleeName(n.Fun)
			switch name {
			case "StopTimer", "StartTimer":
				bf.timer = true
			case "RunParallel", "Iter", "IterWithSetup":
				bf.entry = true
			case "":
			default:
				bf.callees = append(bf.callees, name)
				if slices.ContainsFunc(n.Args, readsFieldN) {
					bf.nCallees = append(bf.nCallees, name)
				}
			}
		case *ast.TypeSpec:
			bf.entry = bf.entry || n.Assign.IsValid() // a local alias, maybe of testing.B
		}
		return true
	})
	return bf
}

// fileImports returns the packages f imports, by the name f uses for
// them, and those it dot-imports (nil for those whose types are not
// loaded), and whether every function of f is to be kept: f imports
// rigor, or a package whose types are not loaded.
func (l *loader) fileImports(p *packages.Package, f *ast.File) (imports map[string]*types.Package, dots []*types.Package, whole bool) {
	imports = map[string]*types.Package{}
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil || path == rigorPath || strings.HasPrefix(path, rigorPath+"/") {
			return nil, nil, true
		}
		imp := p.Imports[path]
		if imp == nil {
			if path == "C" || path == "unsafe" {
				continue
			}
			return nil, nil, true
		}
		tp := l.nodes[imp].types
		if !tp.Complete() {
			return nil, nil, true
		}
		switch {
		case spec.Name == nil:
			imports[tp.Name()] = tp
		case spec.Name.Name == ".":
			dots = append(dots, tp)
		default:
			imports[spec.Name.Name] = tp
		}
	}
	return imports, dots, false
}

// mayBeTestingB reports whether a parameter of type t can be a
// *testing.B: t names testing.B or an alias of it or of *testing.B (in
// the package, or found in an imported package's types), or is a type it
// cannot tell.
func mayBeTestingB(t ast.Expr, aliases map[string]bool, imports map[string]*types.Package, dots []*types.Package) bool {
	isB := func(obj types.Object) bool {
		tn, ok := obj.(*types.TypeName)
		if !ok {
			return true
		}
		t := types.Unalias(tn.Type())
		return isNamed(t, "testing", "B") || isTestingB(t)
	}
	for {
		switch e := t.(type) {
		case *ast.ParenExpr:
			t = e.X
		case *ast.StarExpr:
			t = e.X
		case *ast.Ident:
			for _, d := range dots {
				if obj := d.Scope().Lookup(e.Name); obj != nil {
					return isB(obj)
				}
			}
			return aliases[e.Name]
		case *ast.SelectorExpr:
			x, ok := e.X.(*ast.Ident)
			if !ok || imports[x.Name] == nil {
				return true
			}
			return isB(imports[x.Name].Scope().Lookup(e.Sel.Name))
		case *ast.Ellipsis, *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType, *ast.StructType:
			return false
		default:
			return true
		}
	}
}

// readsFieldN reports whether e reads a field or method named N, as b.N.
func readsFieldN(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "N" {
			found = true
		}
		return !found
	})
	return found
}

// calleeName returns the name a call's function is written with: f for
// f(), pkg.f() and x.f(), f[T]() too; "" for other calls.
func calleeName(fun ast.Expr) string {
	for {
		switch e := fun.(type) {
		case *ast.ParenExpr:
			fun = e.X
		case *ast.IndexExpr:
			fun = e.X
		case *ast.IndexListExpr:
			fun = e.X
		case *ast.Ident:
			return e.Name
		case *ast.SelectorExpr:
			return e.Sel.Name
		default:
			return ""
		}
	}
}

// unusedImport reports whether a type checker error says an import is
// not used.
func unusedImport(msg string) bool {
	return strings.Contains(msg, "imported") && strings.HasSuffix(msg, "and not used")
}
