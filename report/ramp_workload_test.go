package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/analysis"
	"github.com/rigorbench/rigor/model"
)

// workloadRamp is a one-step ramp of a 70/20/10 mix whose endpoints'
// p99s are 1.11ms, 2.22ms and 3.33ms, with an SLO on checkout it missed.
func workloadRamp() *model.Ramp {
	ms := time.Millisecond
	lat := func(p99 time.Duration) model.Latency {
		return model.Latency{Count: 100, P50: p99 / 2, P90: p99 * 3 / 4, P99: p99, P999: p99 + 1, Max: p99 + 2}
	}
	return &model.Ramp{
		Target: "mix.yaml (3 requests)", Protocol: "HTTP/1.1", Mode: model.RampClosed, CPUs: 2,
		SLO: &model.RampSLO{Requests: []model.RequestSLO{{Name: "checkout", Percentile: 99, Latency: 3 * ms}}},
		Workload: &model.RampWorkload{Kind: model.WorkloadMix, Source: "mix.yaml", Format: "yaml", Seed: 1, Requests: []model.WorkloadRequest{
			{Name: "home", Method: "GET", URL: "http://h/a", Weight: 70, Share: 0.7},
			{Name: "search", Method: "GET", URL: "http://h/b", Weight: 20, Share: 0.2, ThinkMin: 10 * ms, ThinkMax: 20 * ms},
			{Name: "checkout", Method: "POST", URL: "http://h/c", Weight: 10, Share: 0.1},
		}},
		Steps: []model.RampStep{{Index: 0, Concurrency: 4, Throughput: 1000, Requests: 1000, Successes: 990, Sent: 1000, Valid: true,
			SLOMiss: "checkout: p99 3.33ms > 3ms", Latency: lat(2 * ms),
			ByRequest: []model.RampRequestStep{
				{Name: "home", Sent: 700, Share: 0.7, Requests: 700, Successes: 700, Throughput: 700, Latency: lat(1110 * time.Microsecond)},
				{Name: "search", Sent: 200, Share: 0.2, Requests: 200, Successes: 190, Throughput: 190, ErrorRate: 0.05,
					Errors: []model.ErrorCount{{Class: "status 503", Count: 10}}, Latency: lat(2220 * time.Microsecond)},
				{Name: "checkout", Sent: 100, Share: 0.1, Requests: 100, Successes: 100, Throughput: 100, Latency: lat(3330 * time.Microsecond),
					SLOMiss: "p99 3.33ms > 3ms"},
			}}},
	}
}

// replayRamp is a paced replay's two steps.
func replayRamp() *model.Ramp {
	us := time.Microsecond
	r := &model.Ramp{
		Target: "http://127.0.0.1:8080", Protocol: "HTTP/1.1", Mode: model.RampOpen, CPUs: 2,
		Workload: &model.RampWorkload{Kind: model.WorkloadReplay, Source: "access.log", Format: "access-log", Caveat: "it does not react to latency as real clients do",
			Requests: []model.WorkloadRequest{{Name: "GET /a", Share: 1}},
			Replay: &model.ReplaySource{Entries: 10000, Replayed: 9000, Host: "127.0.0.1:8080", Span: 3 * time.Second, Resolution: time.Second,
				OtherHosts: []model.HostCount{{Host: "other.example", Count: 1000}}, NoBody: 3}},
	}
	for i, pace := range []float64{1, 4} {
		r.Steps = append(r.Steps, model.RampStep{Index: i, Pace: pace, Rate: 3000 * pace, Sent: 9000, Requests: 9000, Successes: 9000, Valid: true,
			SendLag:   &model.Latency{Count: 9000, P50: 40 * us, P99: 870 * us, Max: 2100 * us, Mean: 60 * us},
			ByRequest: []model.RampRequestStep{{Name: "GET /a", Sent: 9000, Share: 1, Requests: 9000, Successes: 9000, Latency: model.Latency{P99: 444 * us}}}})
	}
	r.Notes = append(r.Notes, "a replay note")
	return r
}

func renderRamp(t *testing.T, r *model.Ramp, format string) string {
	t.Helper()
	var b bytes.Buffer
	if format == "html" {
		run := &model.Run{SchemaVersion: model.SchemaVersion, Kind: model.KindRamp, Sides: []model.Side{}, Ramp: r}
		if err := Render(&b, &analysis.Report{Kind: run.Kind, Run: run, Options: fxOptions()}, Options{Format: "html"}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if err := RenderRamp(&b, r, format); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Each endpoint's p99 is in every format a ramp renders in.
func TestRampWorkloadFormats(t *testing.T) {
	r := workloadRamp()
	for _, format := range []string{"text", "md", "html"} {
		out := renderRamp(t, r, format)
		for _, want := range []string{
			"home", "search", "checkout", "1.11ms", "2.22ms", "3.33ms", "70.0%", "20.0%", "10.0%",
			"checkout: p99 ≤ 3.00ms", "status 503 ×10", "think 10.0ms..20.0ms", "SLO missed: p99 3.33ms &gt; 3ms",
		} {
			if format != "html" {
				want = strings.ReplaceAll(want, "&gt;", ">")
			} else if strings.HasPrefix(want, "checkout: p99 ≤") {
				continue // the HTML page shows the SLO in each step's cell and notes
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", format, want, out)
			}
		}
		for _, bad := range []string{"\nSLO  \n", "\nSLO: \n"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s has an empty SLO line", format)
			}
		}
	}
	rows, err := csv.NewReader(strings.NewReader(renderRamp(t, r, "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	if len(rows) != 5 {
		t.Fatalf("%d CSV rows, want a header, the step and its 3 requests", len(rows))
	}
	for i, want := range []struct{ name, p99, share, sloMet string }{
		{"", "2000000", "", ""}, {"home", "1110000", "0.7", ""}, {"search", "2220000", "0.2", ""}, {"checkout", "3330000", "0.1", "false"},
	} {
		row := rows[i+1]
		if row[col["request"]] != want.name || row[col["p99_ns"]] != want.p99 || row[col["share"]] != want.share || row[col["slo_met"]] != want.sloMet && want.name != "" {
			t.Errorf("CSV row %d: request %q p99 %q share %q slo_met %q, want %+v", i+1, row[col["request"]], row[col["p99_ns"]], row[col["share"]], row[col["slo_met"]], want)
		}
		if len(row) != len(rows[0]) {
			t.Errorf("CSV row %d has %d cells, the header %d", i+1, len(row), len(rows[0]))
		}
	}
}

// A replay says what it read, what it skipped, how late the schedule
// ran, and that it does not react to latency as clients do.
func TestRampReplayFormats(t *testing.T) {
	r := replayRamp()
	for _, format := range []string{"text", "md", "html"} {
		out := renderRamp(t, r, format)
		for _, want := range []string{
			"does not react to latency as real clients do",
			"10000 requests recorded over 3.00s; 9000 requests for 127.0.0.1:8080 replayed",
			"skipped 1000 requests for other hosts, never sent: other.example ×1000",
			"spread evenly", "sent without one",
			"step 2 (4x, 12000/s): sent 9000; schedule error (actual − intended send time): p50 40.0µs, p99 870µs, max 2.10ms",
			"444µs",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", format, want, out)
			}
		}
	}
	rows, err := csv.NewReader(strings.NewReader(renderRamp(t, r, "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	if row := rows[len(rows)-2]; row[col["pace"]] != "4" || row[col["sent"]] != "9000" || row[col["send_lag_p99_ns"]] != "870000" {
		t.Errorf("CSV step row: pace %q sent %q send_lag_p99 %q", row[col["pace"]], row[col["sent"]], row[col["send_lag_p99_ns"]])
	}
}
