package stats

import (
	"math"
	"slices"
)

// Outliers classifies a sample by Tukey's fences, as Criterion.rs does: with
// Q1 and Q3 the type-7 quartiles and IQR = Q3-Q1, a value below Q1-3 IQR is
// a low severe outlier, below Q1-1.5 IQR a low mild one, above Q3+1.5 IQR a
// high mild one, and above Q3+3 IQR a high severe one. Outliers are counted,
// never removed.
type Outliers struct {
	LowSevere, LowMild, HighMild, HighSevere                     int
	LowSevereFence, LowMildFence, HighMildFence, HighSevereFence float64
}

// Tukey computes the fences of x and counts the values beyond them. For an
// empty sample or one containing NaN the fences are NaN and nothing is
// counted.
func Tukey(x []float64) Outliers {
	nan := math.NaN()
	if len(x) == 0 || hasNaN(x) {
		return Outliers{LowSevereFence: nan, LowMildFence: nan, HighMildFence: nan, HighSevereFence: nan}
	}
	s := slices.Clone(x)
	slices.Sort(s)
	q1, q3 := quantileSorted(s, 0.25), quantileSorted(s, 0.75)
	iqr := q3 - q1
	o := Outliers{
		LowSevereFence:  q1 - 3*iqr,
		LowMildFence:    q1 - 1.5*iqr,
		HighMildFence:   q3 + 1.5*iqr,
		HighSevereFence: q3 + 3*iqr,
	}
	for _, v := range x {
		switch {
		case v < o.LowSevereFence:
			o.LowSevere++
		case v > o.HighSevereFence:
			o.HighSevere++
		case v < o.LowMildFence:
			o.LowMild++
		case v > o.HighMildFence:
			o.HighMild++
		}
	}
	return o
}

// Total returns the number of outliers of every kind.
func (o Outliers) Total() int { return o.LowSevere + o.LowMild + o.HighMild + o.HighSevere }
