package analysis

import (
	"math"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// TestGateFailureString: the one wording of a failed gate, for every
// front end, from Gate's own failures. The expected lines are written out
// by hand from the inputs: B/op 100 -> 150 exactly is +50.00%, 50.00%
// worse; 0 -> 1 allocs/op is +1 from zero; a B/s falling from 100 to 40
// is -60.00%, 60.00% worse. A limit of 7% is 0.07 to Gate, and 0.07*100
// is 7.000000000000001 in floating point: the line says 7%.
func TestGateFailureString(t *testing.T) {
	tests := []struct {
		name     string
		unit     string
		better   int
		old, new float64
		limit    float64
		want     string
	}{
		{"percentage", "B/op", model.LowerIsBetter, 100, 150, 0.07,
			"X B/op regressed on new: +50.00%, 50.00% worse, beyond the 7% limit"},
		{"from zero", "allocs/op", model.LowerIsBetter, 0, 1, 10,
			"X allocs/op regressed on new: +1 allocs/op from 0, beyond any percentage limit"},
		{"higher is better", "B/s", model.HigherIsBetter, 100, 40, 0.025,
			"X B/s regressed on new: -60.00%, 60.00% worse, beyond the 2.5% limit"},
		// 1 -> 1e149 is +1e151% (1e149 - 1 is 1e149 in float64): in
		// exponent form, not the 152 digits of %.2f.
		{"huge", "B/op", model.LowerIsBetter, 1, 1e149, 0.05,
			"X B/op regressed on new: +1e+151%, 1e+151% worse, beyond the 5% limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Analyze(filesRun(tt.unit, tt.better, repeat(tt.old, 6), repeat(tt.new, 6)), DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			fails := rep.Gate(tt.limit)
			if len(fails) != 1 {
				t.Fatalf("Gate(%v) = %+v, want one failure", tt.limit, fails)
			}
			if got := fails[0].String(); got != tt.want {
				t.Errorf("String() = %q\nwant       %q", got, tt.want)
			}
		})
	}
}

// TestGateFailureStringLost: a lost benchmark is said with what happened
// and the first line of the reason, naming the baseline.
func TestGateFailureStringLost(t *testing.T) {
	nan := math.NaN()
	for _, tt := range []struct {
		kind, reason, want string
	}{
		{model.MissingAbsent, "", "p.Y is missing on new where base has it"},
		{model.MissingFailed, "panicked (exit status 2) in round 2\n\tgoroutine 1", "p.Y failed on new where base has it: panicked (exit status 2) in round 2"},
		{model.MissingBuild, "  package p does not build  ", "p.Y did not build on new where base has it: package p does not build"},
	} {
		g := GateFailure{Benchmark: "p.Y", Side: "new", Base: "base", Limit: 0.05,
			Change: nan, Estimate: nan, Old: nan, New: nan, Delta: nan,
			Missing: &Missing{Benchmark: "p.Y", Side: "new", Kind: tt.kind, Reason: tt.reason, Lost: true}}
		if got := g.String(); got != tt.want {
			t.Errorf("%s: String() = %q, want %q", tt.kind, got, tt.want)
		}
	}
}
