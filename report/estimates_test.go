package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// fibRun is the seed's Criterion.rs fib(20) sample.json (seeds/000,
// section 2.2) as a one-sided harness run in linear sampling: iters
// 324·(1..10), each sample's total nanoseconds.
func fibRun() *model.Run {
	iters := []int64{324, 648, 972, 1296, 1620, 1944, 2268, 2592, 2916, 3240}
	times := []float64{3676333, 7248291, 10498750, 14043791, 17684417, 21164917, 24564541, 28226291, 31453875, 35292625}
	m := model.Metric{Unit: "sec/op", Better: model.LowerIsBetter}
	for i := range iters {
		m.Samples = append(m.Samples, model.Sample{Side: "fib20", Round: i + 1, Iters: iters[i], Value: times[i] * 1e-9 / float64(iters[i])})
	}
	return &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindHarness, Paired: true,
		Sides:      []model.Side{{Label: "fib20"}},
		Benchmarks: []model.Benchmark{{Name: "fib", Group: "fib", Procs: 2, Config: map[string]string{"sampling": "linear"}, Metrics: []model.Metric{m}}}}
}

func fibReport(t *testing.T) *analysis.Report {
	t.Helper()
	o := analysis.DefaultOptions()
	o.Estimates = true
	rep, err := analysis.Analyze(fibRun(), o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestEstimatesEveryFormat checks that the estimates of the seed's fib(20)
// samples reach every format: JSON in Criterion.rs's estimates.json shape
// (slope point estimate 10862.83 ns, Criterion's own figure) with Tukey's
// fences (worked by hand in stats' TestFibTukey: 10597.7582, 10715.0088,
// 11027.6771, 11144.9277 ns), the text table's headline, which is the
// slope and says so, the -v text's estimates line, and the HTML's
// estimates table.
func TestEstimatesEveryFormat(t *testing.T) {
	rep := fibReport(t)
	var js bytes.Buffer
	if err := Render(&js, rep, Options{Format: "json"}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Benchmarks []struct {
			Metrics []struct {
				Sides []struct {
					Outliers struct {
						HighSevere int                `json:"high_severe"`
						Fences     map[string]float64 `json:"fences"`
					} `json:"outliers"`
					Estimates struct {
						Slope struct {
							PointEstimate float64 `json:"point_estimate"`
							StandardError float64 `json:"standard_error"`
							Approximate   string  `json:"approximate"`
							CI            struct {
								Level float64 `json:"confidence_level"`
								Lo    float64 `json:"lower_bound"`
								Hi    float64 `json:"upper_bound"`
							} `json:"confidence_interval"`
						} `json:"slope"`
						Mean     map[string]any `json:"mean"`
						StdDev   map[string]any `json:"std_dev"`
						MAD      map[string]any `json:"median_abs_dev"`
						Headline string         `json:"headline"`
						FitR2    float64        `json:"fit_r2"`
					} `json:"estimates"`
				} `json:"sides"`
			} `json:"metrics"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Benchmarks[0].Metrics[0].Sides[0]
	e := s.Estimates
	if math.Abs(e.Slope.PointEstimate*1e9-10862.83) > 0.005 || e.Slope.CI.Level != 0.95 || !(e.Slope.CI.Lo < e.Slope.PointEstimate && e.Slope.PointEstimate < e.Slope.CI.Hi) || !(e.Slope.StandardError > 0) {
		t.Errorf("slope %+v, want point estimate 10862.83 ns inside its 95%% interval, with a standard error", e.Slope)
	}
	// Bonett's interval fell short of 94% in simulation on some shapes
	// (stats.Estimate.Approximate); the slope's and the mean's did not.
	if sd, _ := e.StdDev["approximate"].(string); !strings.Contains(sd, "Bonett") || e.Slope.Approximate != "" || e.Mean["approximate"] != nil {
		t.Errorf("approximate: std dev %v, slope %q, mean %v; want the std dev's only", e.StdDev["approximate"], e.Slope.Approximate, e.Mean["approximate"])
	}
	if e.Headline != "slope" || !(e.FitR2 > 0.999) || e.Mean["standard_error"] == nil || e.MAD["confidence_interval"] == nil {
		t.Errorf("estimates %+v: want the slope as headline (the points lie on a line), and mean and MAD with their standard error and interval", e)
	}
	want := map[string]float64{"low_severe": 10597.7582, "low_mild": 10715.0088, "high_mild": 11027.6771, "high_severe": 11144.9277}
	for k, v := range want {
		if math.Abs(s.Outliers.Fences[k]*1e9-v) > 5e-4 {
			t.Errorf("fence %s = %v ns, want %v", k, s.Outliers.Fences[k]*1e9, v)
		}
	}
	if s.Outliers.HighSevere != 2 {
		t.Errorf("high severe outliers %d, want 2 (Criterion.rs's report)", s.Outliers.HighSevere)
	}

	var txt bytes.Buffer
	if err := Render(&txt, rep, Options{Format: "text"}); err != nil {
		t.Fatal(err)
	}
	// ± 4%: the slope's interval [10692.31, 11262.10] ns (stats'
	// TestSlopeEstimate) reaches 3.7% above the estimate.
	if !strings.Contains(txt.String(), "10.86µ ± 4% slope") || strings.Contains(txt.String(), "std dev") {
		t.Errorf("text: want the slope as the headline (10.86µ ± 4%% slope) and no estimates line without -v:\n%s", txt.String())
	}
	txt.Reset()
	if err := Render(&txt, rep, Options{Format: "text", Verbose: true}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"fib-2 fib20: mean 10.94µs", "median 10.89µs", "std dev 182.3ns [76.13–543.17]ns", "(interval approximate); MAD 81.46ns", "slope 10.86µs", "(R² 0.9999); headline: slope"} {
		if !strings.Contains(txt.String(), w) {
			t.Errorf("-v text lacks %q:\n%s", w, txt.String())
		}
	}
	page := renderHTMLString(t, rep)
	for _, w := range []string{"<th>std dev</th><th>MAD</th><th>slope</th><th>headline</th>", "10.86µs [", "bootstrap standard errors"} {
		if !strings.Contains(page, w) {
			t.Errorf("html lacks %q", w)
		}
	}
}

// TestSlopeColumnOnlyWithSlope: a run without linear sampling (go test,
// ab) has no slope column, rather than an empty one.
func TestSlopeColumnOnlyWithSlope(t *testing.T) {
	if page := renderHTMLString(t, fxSeed003(t)); strings.Contains(page, "<th>slope</th>") {
		t.Error("a go test report without linear sampling has a slope column")
	}
	if page := renderHTMLString(t, fxGroup(t)); !strings.Contains(page, "<th>slope</th>") {
		t.Error("linear group report lacks its slope column")
	}
}
