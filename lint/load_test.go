package lint_test

import (
	"context"
	"testing"

	"golang.org/x/tools/go/analysis/checker"

	"github.com/rigorbench/rigor/lint"
)

// BenchmarkLintStd times what `rigor lint std` does: list the standard
// library with its tests, load the packages with benchmarks and run every
// check. Profile it with
//
//	go test -run '^$' -bench LintStd -benchtime 1x -cpuprofile cpu.out ./lint
//
// It takes many seconds and needs a warm build cache (the first run builds
// the export data of every test variant of std).
func BenchmarkLintStd(b *testing.B) {
	for b.Loop() {
		loaded, err := lint.Load(context.Background(), []string{"std"}, true)
		if err != nil {
			b.Fatal(err)
		}
		prime, checks := lint.RootAnalyzers()
		if err := loaded.Prime(prime); err != nil {
			b.Fatal(err)
		}
		if _, err := checker.Analyze(checks, loaded.Packages, nil); err != nil {
			b.Fatal(err)
		}
	}
}
