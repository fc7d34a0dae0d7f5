package main

import (
	"math"
	"testing"
)

// Six rounds in Thue-Morse order (AB, BA, BA, AB, BA, AB by refFirst)
// where the run second in its round always takes 0.9 times the first:
// the order effect is log 0.9 in every round, and the side effect (B over
// A) is log 0.9 in the three rounds A ran first and -log 0.9 in the three
// others, whose 21 Walsh averages (x_i+x_j)/2, i <= j, are 9 of 0, 6 of
// log 0.9 and 6 of -log 0.9: the Hodges-Lehmann centre is 0.
func TestAnalyse(t *testing.T) {
	ps := []pair{
		{first: 1, second: 0.9, refFirst: true},
		{first: 2, second: 1.8, refFirst: false},
		{first: 1, second: 0.9, refFirst: false},
		{first: 3, second: 2.7, refFirst: true},
		{first: 1, second: 0.9, refFirst: false},
		{first: 1, second: 0.9, refFirst: true},
	}
	e, err := analyse(ps)
	if err != nil {
		t.Fatal(err)
	}
	if e.n != 6 || e.imbalance != 0 {
		t.Errorf("n, imbalance = %d, %d, want 6, 0", e.n, e.imbalance)
	}
	if d := e.order.Estimate - math.Log(0.9); math.Abs(d) > 1e-12 {
		t.Errorf("order effect %v, want log 0.9 = %v", e.order.Estimate, math.Log(0.9))
	}
	if math.Abs(e.side.Estimate) > 1e-12 {
		t.Errorf("side effect %v, want 0", e.side.Estimate)
	}
	if d := e.orderRefFirst - math.Log(0.9); math.Abs(d) > 1e-12 {
		t.Errorf("order effect with A first %v, want log 0.9", e.orderRefFirst)
	}
}
