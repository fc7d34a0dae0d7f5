package main

import (
	"testing"

	"github.com/rigorbench/rigor/history"
)

// TestSeed1: the experiment on its first history, as docs/history.md
// reports it: the default method finds the three steps at their commits
// with no false change point, Otava's points as they are flag the
// noisy-neighbour runs, and a fixed 5% alert fires hundreds of times.
func TestSeed1(t *testing.T) {
	ss := series(generate(1, sharedRunner))
	def := changePoints(ss, history.Options{})
	raw := changePoints(ss, history.Options{OtavaMerge: true})
	fixed := fixedAlert(ss, 0.05, 1)
	for i, found := range def.exact {
		if !found {
			t.Errorf("default: step %d not found at its commit", i)
		}
	}
	if def.false_ != 0 {
		t.Errorf("default: %d false change points, want 0", def.false_)
	}
	if raw.false_ < 50 || fixed.false_ < 500 {
		t.Errorf("Otava's points as they are: %d false, fixed 5%% alert: %d; want at least 50 and 500", raw.false_, fixed.false_)
	}
}
