package lint_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/rigorbench/rigor/lint"
)

// TestAnalyzers runs each check on its package under testdata/src, whose
// `// want` comments list every finding expected (a finding not wanted, or
// a want not found, fails the test); the cases without a want are those
// the check must not report.
func TestAnalyzers(t *testing.T) {
	for _, tt := range []struct {
		a   *analysis.Analyzer
		pkg string
	}{
		{lint.Elided, "elided"},
		{lint.LoopMix, "loopmix"},
		{lint.LoopExit, "loopexit"},
		{lint.StopTimer, "stoptimer"},
		{lint.TimerLoop, "timerloop"},
		{lint.NoReset, "noreset"},
		{lint.NSize, "nsize"},
		{lint.Parallel, "parallel"},
		{lint.ParentWork, "parentwork"},
		{lint.RigorGroup, "rigorapi"},
		{lint.RigorSink, "rigorapi"},
		{lint.RigorSetup, "rigorapi"},
	} {
		t.Run(tt.a.Name, func(t *testing.T) {
			analysistest.Run(t, analysistest.TestData(), tt.a, tt.pkg)
		})
	}
}
