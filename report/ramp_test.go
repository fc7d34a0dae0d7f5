package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

func sampleRamp() *model.Ramp {
	ms := time.Millisecond
	rate := 0.01
	tgt := &model.TargetStats{CPU: 0.12, CtxPerRequest: 2.5}
	tgt.UserSec, tgt.SystemSec = 0.3, 0.1
	return &model.Ramp{
		Target: "http://127.0.0.1:8080/", Protocol: "HTTP/1.1", Mode: model.RampClosed,
		Warmup: time.Second, StepDuration: 5 * time.Second, CPUs: 2,
		SLO: &model.RampSLO{Percentile: 99, Latency: 50 * ms, MaxErrorRate: &rate},
		Steps: []model.RampStep{
			{Index: 0, Concurrency: 1, Throughput: 1000, Requests: 5000, Successes: 5000, Latency: model.Latency{P50: ms, P90: 2 * ms, P99: 3 * ms, P999: 4 * ms, Max: 5 * ms},
				Valid: true, SLOMet: true, Target: tgt, Generator: model.GeneratorStats{CPU: 0.05}},
			{Index: 1, Concurrency: 4, Throughput: 3000, Gain: 2, Requests: 15010, Successes: 15000, ErrorRate: 10.0 / 15010,
				Errors:  []model.ErrorCount{{Class: "status 500", Count: 10}},
				Latency: model.Latency{P50: 5 * ms, P90: 10 * ms, P99: 20 * ms, P999: 30 * ms, Max: 40 * ms}, Valid: true, SLOMet: true},
			{Index: 2, Concurrency: 8, Throughput: 3200, Gain: 0.0667, Requests: 16000, Successes: 16000,
				Latency: model.Latency{P50: 40 * ms, P90: 60 * ms, P99: 80 * ms, P999: 90 * ms, Max: 99 * ms},
				Valid:   false, Invalid: "the generator used 95% of 2 CPUs", SLOMiss: "p99 80ms > 50ms, the step is invalid"},
		},
		USL:        &model.ScalingFit{Model: "usl", Alpha: 0.02773, Beta: 0.0001043, Lambda: 89.99, NStar: 96.5, Peak: 1883, R2: 0.99, Points: []model.FitPoint{{N: 1, X: 65, Fitted: 87.6, Residual: -22.6}}, Warnings: []string{"only 3 points"}},
		Amdahl:     &model.ScalingFit{Model: "amdahl", Alpha: 0.1, Lambda: 100, Peak: 1000, R2: 0.95},
		Headline:   &model.RampHeadline{Basis: "slo", Step: 1, Concurrency: 4, Throughput: 3000, P99: 20 * ms, PeakThroughput: 3200, Reason: "the highest throughput whose step met the SLO"},
		Bottleneck: &model.RampBottleneck{Kind: model.BottleneckLock, Summary: "lock-bound: requests wait for each other", Evidence: []string{"Amdahl alpha = 0.1"}},
		Stopped:    "step 3 broke the SLO",
	}
}

func TestRenderRampText(t *testing.T) {
	var b bytes.Buffer
	if err := RenderRamp(&b, sampleRamp(), "text"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"http://127.0.0.1:8080/ (HTTP/1.1, closed loop",
		"SLO  p99 ≤ 50.0ms, errors ≤ 1.00%",
		"headline    3000 req/s at concurrency 4, p99 20.0ms — the highest throughput whose step met the SLO (peak 3200 req/s)",
		"bottleneck  lock-bound: requests wait for each other",
		"- Amdahl alpha = 0.1",
		"stopped     step 3 broke the SLO",
		"USL     alpha 0.02773  beta 0.0001043  lambda 89.99  N* 96.5  peak 1883/s  R² 0.990",
		"Amdahl  alpha 0.1  lambda 100  ceiling 1000/s  R² 0.950",
		"residuals: N=1 -22.6",
		"warning: only 3 points",
		"step 2 (4): errors 0.07% of 15010 completed: status 500 ×10",
		"step 3 (8): INVALID: the generator used 95% of 2 CPUs",
		"INVALID",
		"target CPU",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

func TestRenderRampMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := RenderRamp(&b, sampleRamp(), "md"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "**Headline:** 3000 req/s at concurrency 4") {
		t.Errorf("no headline:\n%s", out)
	}
	// Every row of the step table has as many cells as its header.
	var cells []int
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| ") && strings.Contains(line, "ok/s") || strings.HasPrefix(line, "| 1 |") || strings.HasPrefix(line, "| 4 |") || strings.HasPrefix(line, "| 8 |") {
			cells = append(cells, strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"))
		}
	}
	if len(cells) != 4 {
		t.Fatalf("found %d table lines, want header + 3 steps:\n%s", len(cells), out)
	}
	for _, c := range cells[1:] {
		if c != cells[0] {
			t.Errorf("row with %d separators, header has %d:\n%s", c, cells[0], out)
		}
	}
}

func TestRenderRampCSV(t *testing.T) {
	var b bytes.Buffer
	r := sampleRamp()
	r.Steps[2].InFlight, r.Steps[2].Unfinished, r.Steps[2].NotSent = 8, 3, 0
	if err := RenderRamp(&b, r, "csv"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want header + 3", len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	checks := []struct {
		row       int
		col, want string
	}{
		{2, "throughput", "3000"},
		{2, "p99_ns", "20000000"},
		{2, "errors", "status 500=10"},
		{3, "valid", "false"},
		{3, "invalid", "the generator used 95% of 2 CPUs"},
		{1, "target_voluntary_ctx", "0"},
		{1, "slo_met", "true"},
		{3, "in_flight", "8"},
		{3, "unfinished", "3"},
		{3, "not_sent", "0"},
		{1, "in_flight", "0"},
	}
	for _, c := range checks {
		i, ok := col[c.col]
		if !ok {
			t.Errorf("no column %q", c.col)
			continue
		}
		if got := rows[c.row][i]; got != c.want {
			t.Errorf("row %d %s = %q, want %q", c.row, c.col, got, c.want)
		}
	}
}

func TestRenderRampOpenLoop(t *testing.T) {
	r := sampleRamp()
	r.Mode = model.RampOpen
	r.USL, r.Amdahl = nil, nil
	for i := range r.Steps {
		r.Steps[i].Rate = float64(1000 * (i + 1))
		r.Steps[i].ServiceLatency = &model.Latency{P50: time.Millisecond, P99: 2 * time.Millisecond}
	}
	r.Headline.Rate = 2000
	var b bytes.Buffer
	if err := RenderRamp(&b, r, "text"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"open loop", "p99 (send)", "sent/s", "at 2000/s offered"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("open-loop text lacks %q:\n%s", want, b.String())
		}
	}
	if err := RenderRamp(&b, r, "html"); err == nil {
		t.Error("unknown format accepted")
	}
}

// The HTML view of a ramp lists what the text lists under its table: a
// step's errors by class and its notes (requests in flight at the window's
// end, requests not sent, redirects); it listed only the ramp's notes.
func TestRampHTMLShowsStepDetails(t *testing.T) {
	rep := fxRampReport(t)
	s := &rep.Run.Ramp.Steps[4]
	s.Errors = []model.ErrorCount{{Class: "status 302", Count: 7}}
	s.Notes = []string{"2 requests were still in flight when the window ended"}
	page := renderHTMLString(t, rep)
	for _, want := range []string{"step 5 (108): errors", "status 302 ×7", "step 5 (108): 2 requests were still in flight when the window ended"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
