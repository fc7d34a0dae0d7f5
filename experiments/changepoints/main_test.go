package main

import (
	"testing"

	"github.com/rigorbench/rigor/history"
)

// TestCalibration is the simulation, short, at the default level 0.001:
// on pure noise at most 1 series in 100 with a change point (nominal: 1
// in 1000), or a transient, and at most 1 newest-result false alarm in
// 100 checks; +3% steps found at sigma 2% with 10 samples; bursts of 2
// or more results at +20% reported, and a single outlier not. Before
// issue 22, at 5 samples and 5% noise, 3.1 series in 100 had a false
// change point and the newest-result check fired 6.8 times in 100.
func TestCalibration(t *testing.T) {
	histories := 20
	if testing.Short() {
		histories = 6
	}
	for i, cond := range []condition{{10, 0.02, 0.01}, {5, 0.05, 0}} {
		tl := run(cond, histories, uint64(100+i), history.Options{})
		if tl.nullWithFalse*100 > max(1, tl.nullSeries) || tl.nullTransients*100 > max(1, tl.nullSeries) {
			t.Errorf("%+v: %d of %d series of pure noise with a change point, %d transients; want at most 1 in 100",
				cond, tl.nullWithFalse, tl.nullSeries, tl.nullTransients)
		}
		if tl.checkFalse*100 > max(1, tl.checks) {
			t.Errorf("%+v: %d newest-result false alarms in %d checks, want at most 1 in 100", cond, tl.checkFalse, tl.checks)
		}
		if b := tl.bursts[1]; b.n != 0 {
			t.Errorf("%+v: %s single outliers reported as transients, want none", cond, b)
		}
		if cond.samples != 10 {
			continue
		}
		if s := tl.steps[1.03]; s.n*100 < 95*s.of {
			t.Errorf("%+v: +3%% steps found %s, want at least 95%%", cond, s)
		}
		for _, l := range burstLens[1:] {
			if b := tl.bursts[l]; b.n*100 < 90*b.of {
				t.Errorf("%+v: bursts of %d reported %s, want at least 90%%", cond, l, b)
			}
		}
	}
}
