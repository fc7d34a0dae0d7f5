package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// largeRun is n benchmarks x 10 samples per side x 3 units, as
// testdata/genlarge writes them: new is 3% faster with 3% lognormal noise;
// B/op and allocs/op are constant. Every 500th benchmark regresses: 20%
// slower (inconclusive after Holm's correction over 10,000 comparisons of
// 10 samples) and 64 more B/op (regressed: exact values need no test).
func largeRun(n int) *model.Run {
	rng := rand.New(rand.NewPCG(7, 7))
	run := &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindFiles,
		Sides: []model.Side{{Label: "old"}, {Label: "new"}}}
	for b := range n {
		bench := model.Benchmark{Name: fmt.Sprintf("F%d/size=%d", b, b%7), Procs: 2, Pkg: "example.com/large"}
		for u, unit := range []string{"sec/op", "B/op", "allocs/op"} {
			m := model.Metric{Unit: unit, Better: model.LowerIsBetter}
			for r := range 10 {
				for s, side := range []string{"old", "new"} {
					v := float64(8*b + 8)
					switch {
					case u == 0:
						f := 1 - 0.03*float64(s)
						if b%500 == 0 && s == 1 {
							f = 1.2
						}
						v = float64(100+3*b) * 1e-9 * f * math.Exp(0.03*rng.NormFloat64())
					case u == 1 && b%500 == 0 && s == 1:
						v += 64
					case u == 2:
						v = float64(b % 5)
					}
					m.Samples = append(m.Samples, model.Sample{Side: side, Round: r, Iters: 1000000, Value: v})
				}
			}
			bench.Metrics = append(bench.Metrics, m)
		}
		run.Benchmarks = append(run.Benchmarks, bench)
	}
	return run
}

var (
	largeOnce sync.Once
	largeRep  *analysis.Report
)

// largeReport is the analysis of largeRun(10000), computed once.
func largeReport(tb testing.TB) *analysis.Report {
	largeOnce.Do(func() {
		o := analysis.DefaultOptions()
		o.Resamples = 1000 // rendering does not depend on it
		rep, err := analysis.Analyze(largeRun(10000), o)
		if err != nil {
			tb.Fatal(err)
		}
		largeRep = rep
	})
	return largeRep
}

// countingWriter counts what is written to it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkRenderLarge renders the 10,000-benchmark report of issue 11,
// item 14 in text, JSON and HTML; it reports the bytes written per
// render as out-B.
//
//	go test -run XXX -bench RenderLarge -benchmem ./report
func BenchmarkRenderLarge(b *testing.B) {
	rep := largeReport(b)
	for _, format := range []string{"text", "json", "html"} {
		b.Run(format, func(b *testing.B) {
			var w countingWriter
			for b.Loop() {
				w.n = 0
				if err := Render(&w, rep, Options{Format: format, Width: 100}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(w.n), "out-B")
		})
	}
}

// TestHTMLLarge: past htmlFullLimit benchmarks, the HTML report draws the
// most notable in full (regressions first) and lists every benchmark in
// its results table, at a size a browser opens: at 10,000 benchmarks it was
// 146 MB with every benchmark in full.
func TestHTMLLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("analyses 10,000 benchmarks (several seconds)")
	}
	rep := largeReport(t)
	var b strings.Builder
	if err := Render(&b, rep, Options{Format: "html"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := len(page); n > 8<<20 {
		t.Errorf("page is %d bytes, want at most 8 MiB", n)
	}
	if n := strings.Count(page, `<details class="bench"`); n != htmlNotable {
		t.Errorf("%d benchmarks in full, want %d", n, htmlNotable)
	}
	// Every benchmark is listed once in the results table, which
	// leads the page (issue 24).
	_, results, _ := strings.Cut(page, `<section id="results">`)
	results, _, _ = strings.Cut(results, "</section>")
	if n := strings.Count(results, "<tr><td>") - strings.Count(results, "<tr><td>geomean<"); n != len(rep.Benchmarks) {
		t.Errorf("results table has %d rows, want %d", n, len(rep.Benchmarks))
	}
	// The 20 regressions come first, the worst at the top.
	_, notable, _ := strings.Cut(page, `id="notable"`)
	first, _, _ := strings.Cut(notable, "</details>")
	if !strings.Contains(first, "verdict-regressed") {
		t.Errorf("the first benchmark drawn in full is not a regression:\n%.600s", first)
	}
	if n := strings.Count(notable[:strings.Index(notable, `<section id="run">`)], `<span class="badge verdict-regressed">`); n < 20 {
		t.Errorf("%d regressed badges among the notable, want the 20 regressions", n)
	}
	if bad := unexpectedTags(page); len(bad) > 0 {
		t.Errorf("unexpected tags %q", bad)
	}
}
