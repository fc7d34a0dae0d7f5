package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/typeutil"
)

// A Loaded is what Load found: the packages to analyze, type-checked
// from source, ready for RootAnalyzers and checker.Analyze.
type Loaded struct {
	Packages   []*packages.Package // to analyze: p, or p's test variant and p_test
	Candidates []string            // the listed packages that can hold something to check
	Listed     int                 // how many distinct packages the patterns matched

	// Deps are the packages outside the standard library that Packages
	// import and that are not among them, type-checked from source (the
	// bodies purity reads only) in a universe of their own, for the
	// purity pass alone: run it on Deps before Packages, so that a
	// benchmark's call into another package of its module is seen to be
	// pure, as go vet -vettool sees it through facts.
	Deps []*packages.Package
}

// lintMarkers are the texts without which a package has nothing to check:
// benchmarks take a *testing.B, rigor groups import rigor.
var lintMarkers = [][]byte{[]byte("testing.B"), []byte("rigorbench/rigor")}

// Load lists the packages that patterns match (as go list takes them),
// with their tests when tests is set, and loads those that can hold
// something to check: a file that mentions testing.B or rigor. It
// type-checks from source only the packages that are analyzed: a package
// with tests is checked once, as its test variant "p [p.test]" (which
// holds p's files too), and the generated test main is not checked at all;
// their imports come from the export data go list builds. The packages
// and their type information are those go/packages gives in LoadSyntax
// mode, without the copies nothing reads, and without the function
// bodies no check reads (stripBodies), which are not type-checked. The
// module packages they import that are not analyzed are type-checked
// too, apart, for the purity pass (Loaded.Deps, Loaded.Prime).
//
// Errors from go list, the parser and the type checker of the loaded
// packages are returned as one error, naming the first; a type error in
// a body that is not read goes unreported, and so does a package that
// fails to load but has nothing to check.
func Load(ctx context.Context, patterns []string, tests bool) (*Loaded, error) {
	list, err := listPackages(ctx, patterns)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %s", strings.Join(patterns, " "), firstLine(err))
	}
	if err := listedErrors(list); err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("no packages match %s", strings.Join(patterns, " "))
	}
	out := &Loaded{Listed: len(list)}
	out.Candidates = candidates(list, tests)
	if len(out.Candidates) == 0 {
		return out, nil
	}
	mode := packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
		packages.NeedDeps | packages.NeedExportFile | packages.NeedTypesSizes | packages.NeedForTest | packages.NeedModule
	graph, err := packages.Load(&packages.Config{Context: ctx, Mode: mode, Tests: tests}, out.Candidates...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %s", strings.Join(patterns, " "), firstLine(err))
	}
	if err := packageErrors(withBrokenDeps(graph)); err != nil {
		return nil, err
	}
	roots := analyzedRoots(graph)
	l := newLoader(ctx, roots)
	l.loadAll(roots)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := packageErrors(roots); err != nil {
		return nil, err
	}
	out.Packages = roots
	if deps := calledDeps(roots, outsideDeps(roots)); len(deps) > 0 {
		dl := newLoader(ctx, deps)
		dl.pureOnly = true
		dl.loadAll(deps)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// A dependency that fails to type-check only leaves its
		// functions unknown to purity, as they were before it was loaded.
		for _, p := range deps {
			if len(p.Errors) == 0 {
				out.Deps = append(out.Deps, p)
			}
		}
	}
	return out, nil
}

// Prime runs prime, the purity pass of RootAnalyzers, on l.Deps and
// then on l.Packages, so that the checks that follow on l.Packages know
// the pure functions of both (p_test those of p, a benchmark those of
// the other packages of its module).
func (l *Loaded) Prime(prime *analysis.Analyzer) error {
	for _, pkgs := range [][]*packages.Package{l.Deps, l.Packages} {
		if len(pkgs) == 0 {
			continue
		}
		if _, err := checker.Analyze([]*analysis.Analyzer{prime}, pkgs, nil); err != nil {
			return err
		}
	}
	return nil
}

// calledDeps returns the packages of deps that a timed loop of roots
// calls a function of, or a file of roots that imports rigor (whose Iter
// functions rigorsink reads): the only calls whose purity a check asks.
func calledDeps(roots, deps []*packages.Package) []*packages.Package {
	byPath := map[string]*packages.Package{}
	for _, p := range deps {
		byPath[p.PkgPath] = p
	}
	called := map[*packages.Package]bool{}
	mark := func(info *types.Info, n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if fn, ok := typeutil.Callee(info, c).(*types.Func); ok && fn.Pkg() != nil && byPath[fn.Pkg().Path()] != nil {
					called[byPath[fn.Pkg().Path()]] = true
				}
			}
			return true
		})
	}
	for _, p := range roots {
		if p.TypesInfo == nil {
			continue
		}
		for _, f := range p.Syntax {
			if slices.ContainsFunc(f.Imports, func(s *ast.ImportSpec) bool { return strings.Contains(s.Path.Value, rigorPath) }) {
				mark(p.TypesInfo, f)
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if typ, body := funcParts(n); body != nil && testingBParam(p.TypesInfo, typ) != nil {
					for _, l := range findLoops(p.TypesInfo, body) {
						mark(p.TypesInfo, l.body)
					}
				}
				return true
			})
		}
	}
	var out []*packages.Package
	for _, p := range deps {
		if called[p] {
			out = append(out, p)
		}
	}
	return out
}

// outsideDeps returns the packages that roots import directly, from a
// module (not the standard library, whose pure functions purity knows
// from a table), and that are not roots themselves (a root's functions
// are known from its own purity pass).
func outsideDeps(roots []*packages.Package) []*packages.Package {
	isRoot := map[string]bool{}
	for _, p := range roots {
		isRoot[p.PkgPath] = true
	}
	seen := map[*packages.Package]bool{}
	var out []*packages.Package
	for _, p := range roots {
		for _, imp := range sortedImports(p) {
			if !seen[imp] && !isRoot[imp.PkgPath] && imp.Module != nil && len(imp.CompiledGoFiles) > 0 {
				seen[imp] = true
				out = append(out, imp)
			}
		}
	}
	return out
}

// A listedPackage is what go list says of a package, the fields Load
// reads.
type listedPackage struct {
	ImportPath, Dir                              string
	GoFiles, CgoFiles, TestGoFiles, XTestGoFiles []string
	Error                                        *struct{ Pos, Err string }
}

// listPackages lists the packages patterns match, with their files,
// tests included, as go list -find does: without resolving imports (the
// graph of the candidates is loaded afterwards), which takes a fraction
// of the time of listing test variants (go list -test).
func listPackages(ctx context.Context, patterns []string) ([]*listedPackage, error) {
	args := append([]string{"list", "-e", "-find", "-json=ImportPath,Dir,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Error", "--"}, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, errors.New(msg)
		}
		return nil, err
	}
	var list []*listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		p := new(listedPackage)
		if err := dec.Decode(p); err != nil {
			return nil, fmt.Errorf("reading go list output: %v", err)
		}
		list = append(list, p)
	}
	return list, nil
}

// listedErrors returns the first of the listed packages' errors, worded
// as go/packages words it, with a count of the others; nil when there are
// none.
func listedErrors(list []*listedPackage) error {
	var errs []packages.Error
	for _, p := range list {
		if p.Error != nil {
			errs = append(errs, packages.Error{Pos: p.Error.Pos, Msg: strings.TrimSpace(p.Error.Err), Kind: packages.ListError})
		}
	}
	return packageErrors([]*packages.Package{{Errors: errs}})
}

// candidates returns the import paths of the listed packages that have a
// file containing a marker (test files only when tests is set).
func candidates(list []*listedPackage, tests bool) []string {
	var paths []string
	for _, p := range list {
		files := slices.Concat(p.GoFiles, p.CgoFiles)
		if tests {
			files = slices.Concat(files, p.TestGoFiles, p.XTestGoFiles)
		}
		if slices.ContainsFunc(files, func(name string) bool {
			b, err := os.ReadFile(filepath.Join(p.Dir, name))
			return err == nil && slices.ContainsFunc(lintMarkers, func(m []byte) bool { return bytes.Contains(b, m) })
		}) {
			paths = append(paths, p.ImportPath)
		}
	}
	sort.Strings(paths)
	return slices.Compact(paths)
}

// isTestMain reports whether p is the generated main package of a test
// binary, "p.test", which holds nothing to check.
func isTestMain(p *packages.Package) bool {
	return strings.HasSuffix(p.ID, ".test") && p.Name == "main"
}

// analyzedRoots returns the packages of roots to analyze: with tests,
// p's files are also in its test variant "p [p.test]", so p is dropped
// when that variant exists, and so is the test main "p.test".
func analyzedRoots(roots []*packages.Package) []*packages.Package {
	hasTestVariant := map[string]bool{}
	for _, p := range roots {
		if p.ForTest != "" && p.PkgPath == p.ForTest {
			hasTestVariant[p.PkgPath] = true
		}
	}
	var out []*packages.Package
	for _, p := range roots {
		switch {
		case isTestMain(p):
		case p.ForTest == "" && hasTestVariant[p.PkgPath]:
		default:
			out = append(out, p)
		}
	}
	return out
}

// packageErrors returns the errors of pkgs as one error, nil when there
// are none. A package that does not compile (go list builds the export
// data of every package loaded) gets the compiler's own lines, as go
// build and go vet print them, under "p does not compile:"; each other
// error gets its first line. The same lines for two packages (p and its
// test variant hold the same files) are given once, and at most
// maxErrorLines are, then a count of the others.
func packageErrors(pkgs []*packages.Package) error {
	var lines []string
	seen := map[string]bool{}
	more := 0
	add := func(line string) {
		if len(lines) < maxErrorLines {
			lines = append(lines, line)
		} else {
			more++
		}
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			header, body, isBuild := strings.Cut(strings.TrimSpace(e.Msg), "\n")
			if e.Pos != "" || !isBuild || !strings.HasPrefix(header, "# ") {
				if line := firstLine(e); !seen[line] {
					seen[line] = true
					add(line)
				}
				continue
			}
			var fresh []string
			for _, line := range strings.Split(body, "\n") {
				if line = strings.TrimRight(line, " \t\r"); line != "" && !seen[line] {
					seen[line] = true
					fresh = append(fresh, line)
				}
			}
			if len(fresh) == 0 {
				continue
			}
			if len(lines) < maxErrorLines {
				lines = append(lines, strings.TrimPrefix(header, "# ")+" does not compile:")
			}
			for _, line := range fresh {
				add(line)
			}
		}
	}
	if len(lines) == 0 {
		return nil
	}
	msg := strings.Join(lines, "\n")
	if more > 0 {
		msg += fmt.Sprintf("\n(and %d more errors)", more)
	}
	return errors.New(msg)
}

// maxErrorLines is how many lines of errors Load returns at most, as many
// as the compiler prints before "too many errors".
const maxErrorLines = 10

// withBrokenDeps returns roots followed by the packages they import,
// directly or not, that have errors and no export data: they did not
// compile, so no root that imports one can be type-checked, and their
// errors say why.
func withBrokenDeps(roots []*packages.Package) []*packages.Package {
	out := slices.Clone(roots)
	isRoot := map[*packages.Package]bool{}
	for _, p := range roots {
		isRoot[p] = true
	}
	packages.Visit(roots, nil, func(p *packages.Package) {
		if !isRoot[p] && len(p.Errors) > 0 && p.ExportFile == "" {
			out = append(out, p)
		}
	})
	return out
}

// firstLine keeps an error to its first line: go list errors can run to
// many.
func firstLine(err error) string {
	s := strings.TrimPrefix(strings.TrimSpace(err.Error()), "-: ")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// A loader gives types to a package graph the way go/packages does in
// LoadSyntax mode, for a chosen set of source packages: those are parsed
// and type-checked from source, their direct imports are read from
// export data, and every other package of the graph gets what the export
// data of those imports says of it.
type loader struct {
	pureOnly bool // keep only the bodies purity reads (Loaded.Deps)
	ctx      context.Context
	fset     *token.FileSet
	nodes    map[*packages.Package]*node
	exportMu sync.Mutex    // gcexportdata may change any package of a view: one read at a time
	cpu      chan struct{} // tokens for parsing and type-checking
}

// A node is one package of the graph.
type node struct {
	pkg       *packages.Package
	types     *types.Package
	source    bool // parse and type-check pkg
	needTypes bool // read pkg's export data (a direct import of a source package)
	once      sync.Once
	err       error // from reading export data
}

func newLoader(ctx context.Context, sources []*packages.Package) *loader {
	l := &loader{
		ctx:   ctx,
		fset:  token.NewFileSet(),
		nodes: map[*packages.Package]*node{},
		cpu:   make(chan struct{}, runtime.GOMAXPROCS(0)),
	}
	var add func(p *packages.Package) *node
	add = func(p *packages.Package) *node {
		if n := l.nodes[p]; n != nil {
			return n
		}
		// Every package gets its types.Package before any export data
		// is read, so that reading never has to create one.
		n := &node{pkg: p, types: types.NewPackage(p.PkgPath, p.Name)}
		if p.PkgPath == "unsafe" {
			n.types = types.Unsafe
		}
		l.nodes[p] = n
		for _, imp := range p.Imports {
			add(imp)
		}
		return n
	}
	for _, p := range sources {
		add(p).source = true
	}
	for _, p := range sources {
		for _, imp := range p.Imports {
			l.nodes[imp].needTypes = true
		}
	}
	return l
}

// loadAll loads the packages in pkgs and what they need, in dependency
// order: a package is loaded after everything it imports.
func (l *loader) loadAll(pkgs []*packages.Package) {
	var wg sync.WaitGroup
	for _, p := range pkgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.load(l.nodes[p])
		}()
	}
	wg.Wait()
}

func (l *loader) load(n *node) {
	n.once.Do(func() {
		l.loadAll(sortedImports(n.pkg))
		if l.ctx.Err() != nil {
			return
		}
		switch {
		case n.pkg.PkgPath == "unsafe":
		case n.source:
			l.check(n)
		case n.needTypes:
			n.err = l.readExport(n)
		}
	})
}

// sortedImports returns p's imports in import path order.
func sortedImports(p *packages.Package) []*packages.Package {
	paths := make([]string, 0, len(p.Imports))
	for path := range p.Imports {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	out := make([]*packages.Package, len(paths))
	for i, path := range paths {
		out[i] = p.Imports[path]
	}
	return out
}

// readExport reads n's export data into n.types, with a view of n's
// transitive imports, as go/packages does.
func (l *loader) readExport(n *node) error {
	l.exportMu.Lock()
	defer l.exportMu.Unlock()
	if n.types.Complete() {
		return nil
	}
	if n.pkg.ExportFile == "" {
		return fmt.Errorf("no export data for %s", n.pkg.ID)
	}
	f, err := os.Open(n.pkg.ExportFile)
	if err != nil {
		return err
	}
	defer f.Close()
	// go list -export (Go 1.26) names archive files, which only
	// NewReader reads, as go/packages does.
	//lint:ignore SA1019 the export files of go list are archives until Go 1.29.
	r, err := gcexportdata.NewReader(f)
	if err != nil {
		return fmt.Errorf("reading %s: %v", n.pkg.ExportFile, err)
	}
	view := map[string]*types.Package{}
	seen := map[*packages.Package]bool{}
	var visit func(imports map[string]*packages.Package)
	visit = func(imports map[string]*packages.Package) {
		for _, p := range imports {
			if !seen[p] {
				seen[p] = true
				view[p.PkgPath] = l.nodes[p].types
				visit(p.Imports)
			}
		}
	}
	visit(n.pkg.Imports)
	view[n.pkg.PkgPath] = n.types
	tp, err := gcexportdata.Read(r, l.fset, view, n.pkg.PkgPath)
	if err != nil {
		return fmt.Errorf("reading %s: %v", n.pkg.ExportFile, err)
	}
	if tp != n.types {
		return fmt.Errorf("reading %s: export data made a new package for %s", n.pkg.ExportFile, n.pkg.PkgPath)
	}
	return nil
}

// check parses and type-checks a source package, filling in the fields
// of n.pkg that go/packages fills in LoadSyntax mode.
func (l *loader) check(n *node) {
	p := n.pkg
	p.Fset = l.fset
	p.Types = n.types
	p.TypesInfo = &types.Info{
		Types:        make(map[ast.Expr]types.TypeAndValue),
		Defs:         make(map[*ast.Ident]types.Object),
		Uses:         make(map[*ast.Ident]types.Object),
		Implicits:    make(map[ast.Node]types.Object),
		Instances:    make(map[*ast.Ident]types.Instance),
		Scopes:       make(map[ast.Node]*types.Scope),
		Selections:   make(map[*ast.SelectorExpr]*types.Selection),
		FileVersions: make(map[*ast.File]string),
	}
	addErr := func(err error) {
		switch err := err.(type) {
		case scanner.ErrorList:
			for _, e := range err {
				p.Errors = append(p.Errors, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
			}
		case types.Error:
			p.TypeErrors = append(p.TypeErrors, err)
			p.Errors = append(p.Errors, packages.Error{Pos: err.Fset.Position(err.Pos).String(), Msg: err.Msg, Kind: packages.TypeError})
		case *os.PathError:
			p.Errors = append(p.Errors, packages.Error{Pos: err.Path + ":1", Msg: err.Err.Error(), Kind: packages.ParseError})
		default:
			p.Errors = append(p.Errors, packages.Error{Pos: "-", Msg: err.Error(), Kind: packages.UnknownError})
		}
	}
	l.cpu <- struct{}{}
	defer func() { <-l.cpu }()
	for _, name := range p.CompiledGoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			addErr(err)
			continue
		}
		// The checks read no ast.Object: skip resolving them.
		f, err := parser.ParseFile(l.fset, name, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			addErr(err)
		}
		if f != nil {
			p.Syntax = append(p.Syntax, f)
		}
	}
	var stripped map[*token.File]bool
	if !keepBodies {
		stripped = l.stripBodies(p)
	}
	importer := importerFunc(func(path string) (*types.Package, error) {
		if path == "unsafe" {
			return types.Unsafe, nil
		}
		imp := p.Imports[path]
		if imp == nil {
			return nil, fmt.Errorf("no metadata for %s", path)
		}
		in := l.nodes[imp]
		if in.err != nil {
			return nil, in.err
		}
		if !in.types.Complete() {
			return nil, fmt.Errorf("no types for %s", imp.ID)
		}
		return in.types, nil
	})
	ignored := 0
	tc := &types.Config{Importer: importer, Sizes: p.TypesSizes, Error: func(err error) {
		// An import used only in the bodies stripped is unused now.
		if e, ok := err.(types.Error); ok && e.Soft && stripped[l.fset.File(e.Pos)] && unusedImport(e.Msg) {
			ignored++
			return
		}
		addErr(err)
	}}
	typErr := types.NewChecker(tc, l.fset, p.Types, p.TypesInfo).Files(p.Syntax)
	if typErr != nil && len(p.Errors) == 0 && ignored == 0 {
		addErr(typErr)
	}
	p.IllTyped = len(p.Errors) > 0
}

// keepBodies turns stripBodies off, for the tests that check it changes
// no finding.
var keepBodies = false

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
