package lint

import (
	"sync"

	"golang.org/x/tools/go/analysis"
)

// Analyzers returns rigor's checks, in the order the package doc lists
// them. They share an internal analyzer that exports facts about pure
// functions, so that a driver which analyzes dependencies (go vet
// -vettool, unitchecker, multichecker) sees through calls into other
// packages.
func Analyzers() []*analysis.Analyzer {
	return []*analysis.Analyzer{
		Elided, LoopMix, LoopExit, StopTimer, TimerLoop, ResetLoop, NoReset, NSize,
		NoBN, SetBN, Parallel, ParentWork, RigorGroup, RigorSink, RigorSetup,
	}
}

// RootAnalyzers returns the same checks for a driver that has syntax only
// for the packages it reports on (packages.LoadSyntax), as `rigor lint`
// does: the purity analyzer neither imports nor exports facts. It returns
// as well a purity analyzer to run first, on the same packages, in a
// separate checker.Analyze (Loaded.Prime runs it on Load's dependencies
// too): what it finds is kept in memory that the checks read, so that an
// external test package (p_test) sees the pure functions of the package
// under test, and a benchmark those of the module packages it imports,
// which it could otherwise know only through facts. Without that first
// pass only the package's own functions and the standard library table
// count. Analyzing every dependency from source for facts would take
// about twice as long for the standard library.
func RootAnalyzers() (prime *analysis.Analyzer, checks []*analysis.Analyzer) {
	shared := new(sync.Map)
	local := *purityAnalyzer
	local.FactTypes = nil
	local.Run = func(pass *analysis.Pass) (any, error) { return runPurityShared(pass, shared) }
	for _, a := range Analyzers() {
		c := *a
		c.Requires = nil
		for _, r := range a.Requires {
			if r == purityAnalyzer {
				r = &local
			}
			c.Requires = append(c.Requires, r)
		}
		checks = append(checks, &c)
	}
	return &local, checks
}
