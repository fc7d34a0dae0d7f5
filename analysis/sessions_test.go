package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/model"
)

// TestSessionChange checks the comparison across sessions against a hand
// derivation. The medians are 100 and 110 (MAD 0 on both sides, so the
// samples add no variance), the spread between sessions is SD 0.02 with 4
// degrees of freedom: d = ln 1.1 = 0.0953101798, se = sqrt(2 × 0.02²) =
// 0.0282842712, t = 3.36970214; Student's t with 4 degrees of freedom has
// the closed form F(t) = 1/2 + t(t²+6) / (2 (t²+4)^(3/2)) and the 97.5%
// quantile 2.77644511 (the textbook table's 2.776). So p = 2 (1 - F(t)),
// the interval exp(d ± 2.77644511 se) - 1 = [+1.692%, +18.99%]: it
// clears the 1% band with p below 0.05, regressed.
func TestSessionChange(t *testing.T) {
	run := filesRun("sec/op", model.LowerIsBetter, []float64{99, 100, 100, 100, 101}, []float64{109, 110, 110, 110, 111})
	run.Sessions = &model.Sessions{Spreads: []model.SessionSpread{{Benchmark: "X", Unit: "sec/op", SD: 0.02, DF: 4, Results: 8}},
		Source: "the test", Remedy: "rigor ab --old REV ."}
	rep, err := Analyze(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Benchmarks[0].Metrics[0].Changes[0]
	d, se := math.Log(1.1), math.Sqrt(2*0.02*0.02)
	tt := d / se
	p := 2 * (0.5 - tt*(tt*tt+6)/(2*math.Pow(tt*tt+4, 1.5)))
	h := 2.7764451051977987 * se
	if c.Test != TestSessions || math.Abs(c.P-p) > 1e-9 || math.Abs(c.Lo-math.Expm1(d-h)) > 1e-9 || math.Abs(c.Hi-math.Expm1(d+h)) > 1e-9 ||
		math.Abs(c.Estimate-0.1) > 1e-12 || c.Verdict != Regressed {
		t.Errorf("change %+v\nwant test sessions, p %.9g, CI [%.6f, %.6f], regressed", c, p, math.Expm1(d-h), math.Expm1(d+h))
	}
	if !c.SessionLimited {
		t.Errorf("no sampling variance: more samples cannot narrow it, want SessionLimited")
	}
	if n := rep.Notes[len(rep.Notes)-1]; n.Kind != model.NoteBaseline || !strings.Contains(n.Text, "Compared across sessions") || !strings.Contains(n.Text, "rigor ab --old REV .") {
		t.Errorf("note %+v", n)
	}
}

// TestSessionsDrift: the same code measured in two sessions, the second
// 5% slower (the machine drifted), tightly within each. Compared as two
// unpaired samples, as rigor run --baseline did, it is a regression with
// a tiny p-value (issue 22: Sum-2 "regressed +26.91%" on unchanged code).
// Across sessions with a spread of 3% (3 degrees of freedom) it is not;
// and with no spread known it is inconclusive, saying why and what
// would answer.
func TestSessionsDrift(t *testing.T) {
	base := []float64{99.8, 100.1, 99.9, 100.2, 100, 99.7, 100.3, 100, 99.9, 100.1}
	cur := make([]float64, len(base))
	for i, v := range base {
		cur[i] = 1.05 * v
	}
	unpaired, _ := Analyze(filesRun("sec/op", model.LowerIsBetter, base, cur), DefaultOptions())
	if c := unpaired.Benchmarks[0].Metrics[0].Changes[0]; c.Verdict != Regressed {
		t.Fatalf("precondition: unpaired, %s (%s), want regressed", c.Verdict, c.Reason)
	}
	run := filesRun("sec/op", model.LowerIsBetter, base, cur)
	run.Sessions = &model.Sessions{Spreads: []model.SessionSpread{{Benchmark: "X", Unit: "sec/op", SD: 0.03, DF: 3, Results: 5}}}
	rep, _ := Analyze(run, DefaultOptions())
	if c := rep.Benchmarks[0].Metrics[0].Changes[0]; c.Verdict.Significant() {
		t.Errorf("across sessions with a 3%% spread: %s (%s), want no verdict of change", c.Verdict, c.Reason)
	}
	run.Sessions = &model.Sessions{Source: "no repeated results", Remedy: "rigor ab --old abc ./..."}
	rep, _ = Analyze(run, DefaultOptions())
	c := rep.Benchmarks[0].Metrics[0].Changes[0]
	if c.Verdict != Inconclusive || c.ReasonKind != ReasonSessions || !c.SessionLimited || !strings.Contains(c.Reason, "rigor ab --old abc ./...") ||
		!strings.Contains(c.Reason, "no repeated results") || math.Abs(c.Estimate-0.05) > 1e-9 {
		t.Errorf("no spread known: %+v, want inconclusive (sessions-unknown), the estimate, the reason and the remedy", c)
	}
}
