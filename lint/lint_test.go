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
	fixes := map[string]bool{"elided": true, "noreset": true, "rigorsink": true}
	for _, tt := range []struct {
		a   *analysis.Analyzer
		pkg string
	}{
		{lint.Elided, "elided"},
		{lint.LoopMix, "loopmix"},
		{lint.LoopExit, "loopexit"},
		{lint.StopTimer, "stoptimer"},
		{lint.TimerLoop, "timerloop"},
		{lint.ResetLoop, "resetloop"},
		{lint.NoReset, "noreset"},
		{lint.NSize, "nsize"},
		{lint.NoBN, "nobn"},
		{lint.SetBN, "setbn"},
		{lint.Parallel, "parallel"},
		{lint.ParentWork, "parentwork"},
		{lint.RigorGroup, "rigorgroup"},
		{lint.RigorSink, "rigorsink"},
		{lint.RigorSetup, "rigorsetup"},
	} {
		t.Run(tt.a.Name, func(t *testing.T) {
			// Checks with mechanical fixes compare the fixed files
			// with the .golden files beside them.
			if fixes[tt.a.Name] {
				analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), tt.a, tt.pkg)
				return
			}
			analysistest.Run(t, analysistest.TestData(), tt.a, tt.pkg)
		})
	}
}
