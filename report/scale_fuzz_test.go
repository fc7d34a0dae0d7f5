package report

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// scaleSeeds are ranges that once hung or broke the chart scales: a log
// axis widened past 1.8e308 (logTicks ran to +Inf), a step lost in the
// precision of its start, subnormal and zero ends.
var scaleSeeds = [][2]float64{
	{1 / 1.2, math.MaxFloat64},
	{1, 1.7e308},
	{1e30, 1e30 * (1 + 1e-15)},
	{5e-324, 1e-320},
	{0, 5e-324},
	{-1.7e308, 1.7e308},
	{0, 1},
	{1e-150, 1e150},
}

// FuzzScale: the tick and range functions of the SVG charts end on any
// input with a bounded number of ticks, in order, within the range, and
// map them to finite pixels.
func FuzzScale(f *testing.F) {
	for _, s := range scaleSeeds {
		f.Add(s[0], s[1], 5)
	}
	f.Fuzz(func(t *testing.T, lo, hi float64, n int) {
		n = n % 100
		check := func(what string, ticks []float64, log bool) {
			if len(ticks) > maxTicks+1 {
				t.Fatalf("%s(%v, %v): %d ticks", what, lo, hi, len(ticks))
			}
			a := axis{lo: lo, hi: hi, plo: 0, phi: 600, log: log}
			for i, v := range ticks {
				if math.IsNaN(v) || math.IsInf(v, 0) || (i > 0 && v <= ticks[i-1]) {
					t.Fatalf("%s(%v, %v): ticks %v", what, lo, hi, ticks)
				}
				if px := a.px(v); math.IsNaN(px) || math.IsInf(px, 0) {
					t.Fatalf("%s(%v, %v): tick %v at pixel %v", what, lo, hi, v, px)
				}
			}
		}
		finite := !math.IsNaN(lo) && !math.IsNaN(hi) && !math.IsInf(lo, 0) && !math.IsInf(hi, 0)
		if finite && hi > lo {
			check("niceTicks", niceTicks(lo, hi, n), false)
			if lo > 0 {
				check("logTicks", logTicks(lo, hi), true)
			}
		} else {
			niceTicks(lo, hi, n)
			logTicks(lo, hi)
		}
		plo, phi := padRange(lo, hi, 0.1)
		if math.IsNaN(plo) || math.IsNaN(phi) || math.IsInf(plo, 0) || math.IsInf(phi, 0) || phi < plo {
			t.Fatalf("padRange(%v, %v) = %v, %v", lo, hi, plo, phi)
		}
		if finite && lo <= hi && (plo > lo || phi < hi) {
			t.Fatalf("padRange(%v, %v) = %v, %v narrows the range", lo, hi, plo, phi)
		}
		if finite && lo > 0 && hi >= lo {
			llo, lhi := logRange(lo, hi, 1.2)
			check("logTicks of logRange", logTicks(llo, lhi), true)
		}
	})
}

// extremeSeeds are values that once hung a chart (1 against 1.7e308
// B/op looped in logTicks, growing by 260 MB/s) or gave verdicts from
// numbers that cannot be measurements.
var extremeSeeds = [][4]float64{
	{1, 1, 1.7e308, 1.7e308},
	{1, 2, 1.7e308, 1.6e308},
	{0.5, 0.6, 1.7e308, 1.5e308},
	{5e-324, 5e-324, 1e-320, 1e-320},
	{-5, -6, -5.5, -5},
	{1e-150, 2e-150, 1e150, 0},
	{1e30, 1e30 * (1 + 1e-15), 1e30, 1e30 * (1 + 2e-15)},
	{-1.7e308, 1.7e308, 0, 1},
}

// FuzzRenderExtremes renders, in every format, a comparison whose values
// are anything finite (as rigor JSON may hold them): every renderer ends,
// and its output stays small.
func FuzzRenderExtremes(f *testing.F) {
	for _, s := range extremeSeeds {
		f.Add(s[0], s[1], s[2], s[3], false)
		f.Add(s[0], s[1], s[2], s[3], true)
	}
	f.Fuzz(func(t *testing.T, a, b, c, d float64, paired bool) {
		for _, v := range []float64{a, b, c, d} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return // rigor JSON and Go benchmark format reject these
			}
		}
		run := &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindFiles, Paired: paired,
			Sides: []model.Side{{Label: "old"}, {Label: "new"}}}
		m := model.Metric{Unit: "B/op", Better: model.LowerIsBetter}
		for r := range 6 {
			old, new := a, c
			if r%2 == 1 {
				old, new = b, d
			}
			m.Samples = append(m.Samples,
				model.Sample{Side: "old", Round: r, Iters: int64(1 + r*r*100), Value: old},
				model.Sample{Side: "new", Round: r, Iters: int64(1 + r*r*100), Value: new})
		}
		tm := m
		tm.Unit = "sec/op"
		run.Benchmarks = []model.Benchmark{{Name: "X", Metrics: []model.Metric{tm, m}}}
		o := analysis.DefaultOptions()
		o.Resamples = 100
		rep, err := analysis.Analyze(run, o)
		if err != nil {
			t.Skip(err)
		}
		for _, c := range rep.Benchmarks[0].Metrics[1].Changes {
			if c != nil && c.Verdict.Significant() && (math.IsInf(c.Lo, 0) || math.IsInf(c.Hi, 0) || math.IsInf(c.Estimate, 0)) {
				t.Errorf("verdict %s from a non-finite change %v [%v, %v]", c.Verdict, c.Estimate, c.Lo, c.Hi)
			}
		}
		for _, format := range Formats() {
			done := make(chan error, 1)
			var out bytes.Buffer
			go func() { done <- Render(&out, rep, Options{Format: format, Width: 100}) }()
			select {
			case <-done:
			case <-time.After(time.Minute):
				// A hang detector, not a speed limit: one benchmark
				// renders in milliseconds.
				t.Fatalf("%s of %v %v %v %v: still rendering after a minute", format, a, b, c, d)
			}
			if out.Len() > 1<<20 {
				t.Errorf("%s of %v %v %v %v: %d bytes for one benchmark", format, a, b, c, d, out.Len())
			}
		}
	})
}
