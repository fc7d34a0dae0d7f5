package lint

import (
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// ParentWork reports a benchmark that calls b.Run and also has a timed
// loop of its own. testing reports only the sub-benchmarks of a benchmark
// that calls b.Run: the parent runs once, with b.N = 1, and its own
// timing is discarded, so the loop measures nothing anyone sees. Move the
// work into a sub-benchmark.
var ParentWork = &analysis.Analyzer{
	Name:     "parentwork",
	Doc:      "report a benchmark with a timed loop that also calls b.Run",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#ParentWork",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runParentWork,
}

func runParentWork(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	for _, f := range benchFuncs(pass, in) {
		runs := calls(f.body, timerCall(pass.TypesInfo, "Run"))
		if len(runs) == 0 || len(f.loops) == 0 {
			continue
		}
		for _, l := range f.loops {
			pass.ReportRangef(l.stmt, "this benchmark also calls b.Run (line %d): testing then reports only the sub-benchmarks, runs the parent once with b.N = 1 and discards this loop's timing; move the work into a sub-benchmark",
				pass.Fset.Position(runs[0].Pos()).Line)
		}
	}
	return nil, nil
}
