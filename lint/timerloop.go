package lint

import (
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// TimerLoop reports b.StopTimer or b.StartTimer inside a timed loop. Each
// call reads the clock and calls runtime.ReadMemStats, which stops the
// world. Measured on Go 1.26.8 linux/amd64 (a shared 2-core machine, 5
// runs of 200000 iterations, lint/testdata/timercost): a
// StopTimer/StartTimer pair around nothing added about 65 ns to the ns/op
// of a 1.6 ns body (median 67.0 against 1.65 ns/op), and took about 38 µs
// of wall time (median; 23-84 µs), so the benchmark runs some 10,000 times
// longer than it reports. Bodies under a few µs are mostly timer; prepare
// inputs before the loop instead (b.Loop resets the timer when it starts),
// or with rigor.IterWithSetup, which reads the clock once per batch.
var TimerLoop = &analysis.Analyzer{
	Name:     "timerloop",
	Doc:      "report b.StopTimer/b.StartTimer inside a timed loop",
	URL:      "https://pkg.go.dev/github.com/rigorbench/rigor/lint#TimerLoop",
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      runTimerLoop,
}

func runTimerLoop(pass *analysis.Pass) (any, error) {
	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	info := pass.TypesInfo
	for _, f := range benchFuncs(pass, in) {
		for _, l := range f.loops {
			cs := calls(l.body, timerCall(info, "StopTimer"))
			if len(cs) == 0 {
				cs = calls(l.body, timerCall(info, "StartTimer"))
			}
			if len(cs) == 0 {
				continue
			}
			pass.ReportRangef(cs[0], "StopTimer/StartTimer inside the timed loop: each pair adds about 65 ns to ns/op and about 40 µs of wall time "+
				"(two runtime.ReadMemStats, which stop the world); bodies under a few µs measure mostly the timer; prepare inputs before the loop")
		}
	}
	return nil, nil
}
