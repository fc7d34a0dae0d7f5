package lint

import "golang.org/x/tools/go/analysis"

// Analyzers returns rigor's checks, in the order the package doc lists
// them. They share an internal analyzer that exports facts about pure
// functions, so that a driver which analyzes dependencies (go vet
// -vettool, unitchecker, multichecker) sees through calls into other
// packages.
func Analyzers() []*analysis.Analyzer {
	return []*analysis.Analyzer{
		Elided, LoopMix, LoopExit, StopTimer, TimerLoop, NoReset, NSize,
		Parallel, ParentWork, RigorGroup, RigorSink, RigorSetup,
	}
}

// RootAnalyzers returns the same checks for a driver that has syntax only
// for the packages it reports on (packages.LoadSyntax), as `rigor lint`
// does: the purity analyzer neither imports nor exports facts, so only
// the package's own functions and the standard library table count as
// pure. Analyzing every dependency from source would take about twice as
// long for the standard library.
func RootAnalyzers() []*analysis.Analyzer {
	local := *purityAnalyzer
	local.FactTypes = nil
	var out []*analysis.Analyzer
	for _, a := range Analyzers() {
		c := *a
		c.Requires = nil
		for _, r := range a.Requires {
			if r == purityAnalyzer {
				r = &local
			}
			c.Requires = append(c.Requires, r)
		}
		out = append(out, &c)
	}
	return out
}
