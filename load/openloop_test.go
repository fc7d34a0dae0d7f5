package load

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

// openRamp is an open-loop ramp of hand-made steps: offered rates,
// successful throughputs and p99s.
func openRamp(rates, thr []float64, p99 []time.Duration, slo *model.RampSLO) *model.Ramp {
	r := &model.Ramp{Mode: model.RampOpen, Protocol: "HTTP/1.1", CPUs: 2, SLO: slo}
	for i := range rates {
		s := step(i, 8, thr[i], p99[i], nil)
		s.Rate, s.Offered, s.Achieved = rates[i], rates[i], rates[i]
		checkSLO(&s, slo)
		r.Steps = append(r.Steps, s)
	}
	return r
}

// The open loop's headline is the highest throughput the target kept up
// with (at least 95% of the offered rate), never a step past that knee,
// even one whose throughput is higher or whose latency meets the SLO.
func TestOpenHeadline(t *testing.T) {
	ms := time.Millisecond
	rates := []float64{100, 200, 400, 800, 1600}
	thr := []float64{100, 199, 391, 700, 720} // 400: 97.75% kept up; 800: 87.5% did not
	p99 := []time.Duration{ms, ms, 2 * ms, 40 * ms, 900 * ms}
	slo, _ := ParseSLO("p99=50ms", nil)
	for _, tt := range []struct {
		name  string
		slo   *model.RampSLO
		basis string
		rate  float64
		says  string
	}{
		// The old rule, the first step within 10% of the best throughput
		// (720), chose 800/s, where requests were queueing.
		{"no SLO", nil, "knee", 400, "the highest offered rate the target kept up with"},
		// 800/s met p99 ≤ 50ms in its window, but its queue was growing.
		{"SLO", slo, "slo", 400, "met the SLO (p99 ≤ 50ms) and completed at least 95% of the offered rate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := headline(openRamp(rates, thr, p99, tt.slo), tt.slo)
			if h.Basis != tt.basis || h.Rate != tt.rate || h.Throughput != 391 || h.PeakThroughput != 720 || !strings.Contains(h.Reason, tt.says) {
				t.Errorf("headline %+v, want %s at %v/s (391/s, peak 720) saying %q", h, tt.basis, tt.rate, tt.says)
			}
		})
	}

	// A target that kept up with no rate has no headline, and says why.
	h := headline(openRamp([]float64{1000, 2000}, []float64{500, 520}, []time.Duration{ms, ms}, nil), nil)
	if h.Basis != "none" || !strings.Contains(h.Reason, "kept up with no offered rate") {
		t.Errorf("all behind: %+v", h)
	}
	// Nor one whose kept-up steps all broke the SLO.
	tight, _ := ParseSLO("p99=500us", nil)
	if h := headline(openRamp(rates, thr, p99, tight), tight); h.Basis != "none" || !strings.Contains(h.Reason, "no step the target kept up with met the SLO") {
		t.Errorf("SLO broken where kept up: %+v", h)
	}
	// The closed loop's headline is unchanged: the first step within 10%
	// of the best.
	cl := openRamp(rates, thr, p99, nil)
	cl.Mode = model.RampClosed
	for i := range cl.Steps {
		cl.Steps[i].Rate = 0
	}
	if h := headline(cl, nil); h.Basis != "knee" || h.Throughput != 700 {
		t.Errorf("closed loop: %+v", h)
	}
}

// An open-loop ramp stops after two consecutive steps the target did not
// keep up with, as the closed loop stops after two that gained little.
func TestStopperOpenLoop(t *testing.T) {
	for _, tt := range []struct {
		name   string
		knee   float64
		rates  []float64
		thr    []float64
		stopAt int
	}{
		{"two behind", 0.05, []float64{100, 200, 400, 800, 1600}, []float64{100, 200, 300, 330, 340}, 3},
		{"one behind, then kept up", 0.05, []float64{100, 200, 400, 800, 1600, 3200}, []float64{100, 150, 400, 700, 800, 900}, 4},
		{"no knee rule: never stops", 0, []float64{100, 200, 400, 800}, []float64{100, 100, 100, 100}, -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var s stopper
			cfg := Config{Knee: tt.knee}
			stoppedAt, why := -1, ""
			for i := range tt.rates {
				st := model.RampStep{Index: i, Rate: tt.rates[i], Throughput: tt.thr[i], Successes: 1, Valid: true}
				if why = s.after(&cfg, &st, len(tt.rates)); why != "" {
					stoppedAt = i
					break
				}
			}
			if stoppedAt != tt.stopAt || (tt.stopAt >= 0 && !strings.Contains(why, "completed less than 95% of the offered rate")) {
				t.Errorf("stopped after step %d (%q), want %d", stoppedAt, why, tt.stopAt)
			}
		})
	}
}

// A target serialized behind one 1 ms call cannot complete 4000/s: the
// ramp stops two steps past the knee, notes them, and they never make the
// headline. Rates far above its capacity keep this true on a busy machine;
// 64 workers at most keep the wait for those in flight short.
func TestRampOpenLoopKnee(t *testing.T) {
	sem := make(chan struct{}, 1)
	f := Func(func(ctx context.Context) error {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-sem }()
		time.Sleep(time.Millisecond)
		return nil
	})
	r, err := Ramp(context.Background(), f, Config{Rates: []float64{100, 200, 4000, 8000, 16000}, Warmup: testWarmup, Duration: 300 * time.Millisecond, Knee: 0.05, MaxWorkers: 64})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Stopped, "two consecutive steps completed less than 95% of the offered rate") || len(r.Steps) > 4 {
		t.Fatalf("%d steps, stopped %q: want a stop two steps past the knee, at 8000/s at the latest", len(r.Steps), r.Stopped)
	}
	last := r.Steps[len(r.Steps)-1]
	if keptUp(last) || !strings.Contains(strings.Join(last.Notes, "\n"), "past the knee: the target completed") {
		t.Errorf("last step %v/s: throughput %v, notes %q", last.Rate, last.Throughput, last.Notes)
	}
	if h := r.Headline; h.Basis != "none" && (h.Rate > 200 || !keptUp(r.Steps[h.Step])) {
		t.Errorf("headline %+v: a step past the knee", h)
	}
}
