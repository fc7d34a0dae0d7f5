package gotest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"unicode"
	"unicode/utf8"
)

// declaredBenchmarks returns the top-level benchmarks declared in files
// (func BenchmarkXxx(b *testing.B)), found by parsing them, without
// building or running anything. ok is false when a file cannot be read or
// parsed: then nothing can be concluded.
func declaredBenchmarks(files []string) (names []string, ok bool) {
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, false
		}
		for _, d := range f.Decls {
			fn, isFunc := d.(*ast.FuncDecl)
			if isFunc && fn.Recv == nil && isBenchmarkName(fn.Name.Name) && fn.Type.Params.NumFields() == 1 {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names, true
}

// isBenchmarkName applies go test's rule: "Benchmark" alone, or followed
// by a character that is not a lower-case letter.
func isBenchmarkName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Benchmark")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}
