package history

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkAnalyzerAfterRun times what rigor serve's index pays after a
// run is recorded: an Analyzer that analyzed 50 series of 1,000 results
// (issue 28's store) analyzes them again with one result more each. Every
// iteration appends a result, so nothing is analyzed twice.
func BenchmarkAnalyzerAfterRun(b *testing.B) {
	const benches, commits = 50, 1000
	rng := rand.New(rand.NewPCG(28, 1))
	next := func(bench, c int) Point {
		level := 1e-6 * float64(bench+1)
		if bench == 7 && c >= 600 {
			level *= 1.05
		}
		return Point{Commit: fmt.Sprintf("%040x", c+1), RunID: int64(c), Samples: []float64{level * math.Exp(0.01*rng.NormFloat64())}}
	}
	series := make([]*Series, benches)
	for i := range series {
		series[i] = &Series{Name: fmt.Sprintf("Bench%02d", i), Unit: "sec/op"}
		for c := range commits {
			series[i].Points = append(series[i].Points, next(i, c))
		}
	}
	var a Analyzer
	opts := Options{}
	a.AnalyzeSteps(series, opts)
	c := commits
	for b.Loop() {
		b.StopTimer()
		for i, s := range series {
			s.Points = append(s.Points, next(i, c))
		}
		c++
		b.StartTimer()
		a.AnalyzeSteps(series, opts)
	}
}
