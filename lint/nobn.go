package lint

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// NoBN reports a benchmark that never reads b.N nor calls b.Loop: it
// does the same work whatever b.N is. testing runs it with b.N = 1, then
// larger counts until the run fills -benchtime (up to a billion), and
// divides the time by b.N, so ns/op is the work's time divided by a count
// that has nothing to do with it; only when one run outlasts -benchtime
// does testing stop at b.N = 1 and report the work's time, and then not
// under -benchtime Nx or a longer -benchtime. Measured on Go 1.26.8
// linux/amd64 (lint/testdata/measure, medians of 5): a fixed 1000 calls
// of a 500 ns operation reported 8.9 ns/op at -benchtime 20000x.
//
// Only what testing runs is checked: a func Benchmark...(b *testing.B),
// and a function literal given to b.Run or testing.Benchmark. One that
// hands b to another function (which may loop b.N times), calls b.Run,
// b.RunParallel, b.StopTimer or b.ReportMetric (a benchmark that reports
// a metric of its own, such as memory in use, with its time not the
// point), skips or fails unconditionally, or does nothing but call b's
// methods is not reported; nor is package testing, whose tests run
// benchmarks to test testing (contexts, clean-ups), not to time anything.
var NoBN = &analysis.Analyzer{
	Name:     "nobn",
	Doc:      "report a benchmark that never reads b.N nor calls b.Loop",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#NoBN",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runNoBN,
}

func runNoBN(pass *analysis.Pass) (any, error) {
	if p := pass.Pkg.Path(); p == "testing" || p == "testing_test" {
		return nil, nil // its tests run benchmarks to test testing, not to time anything
	}
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo
	// The function literals testing runs as benchmarks.
	run := map[*ast.FuncLit]bool{}
	in.Preorder([]ast.Node{(*ast.CallExpr)(nil)}, func(n ast.Node) {
		c := n.(*ast.CallExpr)
		if len(c.Args) == 0 || !isMethodCall(info, c, "testing", "B", "Run") && !isFuncCall(info, c, "testing", "Benchmark") {
			return
		}
		if lit, ok := ast.Unparen(c.Args[len(c.Args)-1]).(*ast.FuncLit); ok {
			run[lit] = true
		}
	})
	for _, f := range benchFuncs(pass, in) {
		switch n := f.node.(type) {
		case *ast.FuncDecl:
			if n.Recv != nil || !strings.HasPrefix(n.Name.Name, "Benchmark") || n.Type.Params.NumFields() != 1 {
				continue
			}
		case *ast.FuncLit:
			if !run[n] {
				continue
			}
		}
		if !ignoresN(info, f) {
			continue
		}
		var at ast.Node = f.node
		switch n := f.node.(type) {
		case *ast.FuncDecl:
			at = n.Name
		case *ast.FuncLit:
			at = n.Type
		}
		pass.ReportRangef(at, "this benchmark never reads b.N nor calls b.Loop: it does the same work whatever b.N is, "+
			"and ns/op is that work's time divided by b.N, which testing raises until the run fills -benchtime "+
			"(the work's own time only while b.N is 1: when one run outlasts -benchtime); repeat the work b.N times, or in a for b.Loop() loop")
	}
	return nil, nil
}

// ignoresN reports whether f, run by testing as a benchmark, does work
// that b.N cannot reach: it never reads b.N (not even in a function
// literal), calls neither b.Loop, b.Run nor b.RunParallel, uses b only to
// call its methods, has a statement other than such calls, and none that
// skips or fails the benchmark unconditionally.
func ignoresN(info *types.Info, f *benchFunc) bool {
	if mentionsBN(info, f.body) {
		return false
	}
	// b.Loop, b.Run or b.RunParallel, in the body or in a function
	// literal of it (filepath.Walk(dir, func(...) error { b.Run(...) }));
	// or b.StopTimer or b.ReportMetric: a benchmark that reports a
	// metric of its own (memory in use, a size), its time not the point
	// (roaring's BenchmarkMemoryUsage stops the timer and reports
	// HeapInUse).
	drives := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			for _, name := range []string{"Loop", "Run", "RunParallel", "StopTimer", "ReportMetric"} {
				drives = drives || isMethodCall(info, c, "testing", "B", name)
			}
		}
		return !drives
	})
	if drives {
		return false
	}
	// b itself, not a method of it, handed on: to a helper that may loop
	// b.N times, or to a closure that does.
	handedOn := false
	ast.Inspect(f.body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && info.Uses[id] == f.b {
				return false
			}
		case *ast.Ident:
			if info.Uses[n] == f.b {
				handedOn = true
			}
		}
		return !handedOn
	})
	if handedOn {
		return false
	}
	work := false
	for _, s := range f.body.List {
		es, ok := s.(*ast.ExprStmt)
		if !ok {
			if _, empty := s.(*ast.EmptyStmt); !empty {
				work = true
			}
			continue
		}
		c, ok := ast.Unparen(es.X).(*ast.CallExpr)
		if !ok || !isTestingBMethod(info, c) {
			work = true
			continue
		}
		switch calleeName(c.Fun) {
		case "Skip", "SkipNow", "Skipf", "Fatal", "Fatalf", "FailNow":
			return false
		}
	}
	return work
}
