package stats

import (
	"errors"
	"math"
	"testing"
)

// ShiftByCluster against values derived by hand. Clusters {0.01, 0.03},
// {0.05}, {-0.01, 0, 0.04}: their Hodges-Lehmann centers are 0.02 (Walsh
// averages 0.01, 0.02, 0.03), 0.05 and 0.0075 (Walsh averages -0.01,
// -0.005, 0, 0.015, 0.02, 0.04: the mean of the middle two); their mean
// 0.0258333, standard deviation 0.0218422 and standard error 0.0126106.
// With 2 degrees of freedom t(0.975) = 4.30265 (tables), so the interval
// is [-0.0284258, 0.0800925]; Student's t with 2 degrees of freedom has
// the closed form p = 1 - |t|/sqrt(t^2 + 2), t = 2.04854, p = 0.177056.
// Kruskal-Wallis: the ranks of the six differences give the clusters
// rank sums 7 (of 2), 6 (of 1) and 8 (of 3); H = 12/42 (49/2 + 36 + 64/3)
// - 21 = 2.380952, and with 2 degrees of freedom the chi-square's
// survival is exp(-H/2) = 0.304076.
func TestShiftByCluster(t *testing.T) {
	d := []float64{0.01, 0.05, -0.01, 0.03, 0, 0.04}
	cl := []int{1, 2, 3, 1, 3, 3}
	got, err := ShiftByCluster(d, cl, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"estimate", got.Estimate, 0.025833333333333337},
		{"lo", got.Lo, -0.028425792228862583},
		{"hi", got.Hi, 0.08009245889552925},
		{"p", got.P, 0.17705559653705671},
		{"between p", got.BetweenP, math.Exp(-(12.0/42*(49.0/2+36+64.0/3) - 21) / 2)},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %.12g, want %.12g", c.name, c.got, c.want)
		}
	}
	if got.Clusters != 3 || len(got.Centers) != 3 || got.Centers[0] != 0.02 || got.Centers[1] != 0.05 || math.Abs(got.Centers[2]-0.0075) > 1e-15 {
		t.Errorf("clusters %d, centers %v; want 3: 0.02, 0.05, 0.0075", got.Clusters, got.Centers)
	}
}

// Four clusters whose centers are 1, 2, 3, 4 (one difference each): mean
// 2.5, standard deviation sqrt(5/3), t(0.975; 3) = 3.18245 (tables):
// 2.5 ± 3.182446 × 0.645497 = [0.445740, 4.554260]. No cluster has two
// differences: no Kruskal-Wallis test.
func TestShiftByClusterSingletons(t *testing.T) {
	got, err := ShiftByCluster([]float64{1, 2, 3, 4}, []int{7, 8, 9, 10}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.Lo-0.445740) > 1e-6 || math.Abs(got.Hi-4.554260) > 1e-6 || got.Estimate != 2.5 {
		t.Errorf("%+v, want 2.5 in [0.445740, 4.554260]", got.Interval)
	}
	if !math.IsNaN(got.BetweenP) {
		t.Errorf("between p %v, want NaN", got.BetweenP)
	}
}

func TestShiftByClusterTooFew(t *testing.T) {
	for _, tc := range []struct {
		d  []float64
		cl []int
	}{
		{[]float64{1, 2, 3}, []int{1, 1, 1}},
		{[]float64{1, 2}, []int{1}},
		{nil, nil},
	} {
		if got, err := ShiftByCluster(tc.d, tc.cl, 0.95); !errors.Is(err, ErrTooFew) || !math.IsNaN(got.Lo) {
			t.Errorf("%v in %v: %+v, %v; want ErrTooFew and NaN bounds", tc.d, tc.cl, got, err)
		}
	}
	if _, err := ShiftByCluster([]float64{1, math.NaN()}, []int{1, 2}, 0.95); !errors.Is(err, ErrNaN) {
		t.Errorf("NaN: %v, want ErrNaN", err)
	}
}
