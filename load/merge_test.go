package load

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rigorbench/rigor/model"
)

// The environment of a shard process started by TestShardProcessesMerge.
const (
	envShardChild = "RIGOR_TEST_SHARD_CHILD" // the output directory
	envShardURL   = "RIGOR_TEST_SHARD_URL"
	envShardIndex = "RIGOR_TEST_SHARD_INDEX"
	envShardCount = "RIGOR_TEST_SHARD_COUNT"
	envShardStart = "RIGOR_TEST_SHARD_START" // RFC 3339, or "" for none
	envShardRates = "RIGOR_TEST_SHARD_RATES" // open loop when set
)

// shardOutput is what a shard process writes: its ramp, and every latency
// it recorded in each step's latency histogram.
type shardOutput struct {
	Ramp *model.Ramp
	Raw  map[int][]int64
}

// TestShardChild is a shard process of TestShardProcessesMerge: the test
// binary run again with envShardChild set. Otherwise it does nothing.
func TestShardChild(t *testing.T) {
	dir := os.Getenv(envShardChild)
	if dir == "" {
		t.Skip("run by TestShardProcessesMerge as a shard process")
	}
	index, _ := strconv.Atoi(os.Getenv(envShardIndex))
	count, _ := strconv.Atoi(os.Getenv(envShardCount))
	cfg := Config{
		Concurrency: []int{3, 4},
		Warmup:      testWarmup,
		Duration:    300 * time.Millisecond,
		Shard:       &Shard{Index: index, Count: count, Config: "test"},
	}
	if rates := os.Getenv(envShardRates); rates != "" {
		var err error
		cfg.Concurrency = nil
		if cfg.Rates, err = ParseRates(rates); err != nil {
			t.Fatal(err)
		}
	}
	if s := os.Getenv(envShardStart); s != "" {
		var err error
		if cfg.Start, err = time.Parse(time.RFC3339Nano, s); err != nil {
			t.Fatal(err)
		}
	}
	out := shardOutput{Raw: map[int][]int64{}}
	var mu sync.Mutex
	testHookRecord = func(step int, lat int64) {
		mu.Lock()
		out.Raw[step] = append(out.Raw[step], lat)
		mu.Unlock()
	}
	defer func() { testHookRecord = nil }()
	target, err := NewHTTP(HTTP{URL: os.Getenv(envShardURL), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if out.Ramp, err = Ramp(context.Background(), target, cfg); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("shard-%d.json", index)), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runShards runs n shard processes at once against url and returns their
// outputs by index.
func runShards(t *testing.T, url string, n int, start time.Time, rates string) []shardOutput {
	t.Helper()
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestShardChild$", "-test.count=1")
		cmd.Env = append(os.Environ(),
			envShardChild+"="+dir,
			envShardURL+"="+url,
			envShardIndex+"="+strconv.Itoa(i),
			envShardCount+"="+strconv.Itoa(n),
			envShardRates+"="+rates,
		)
		if !start.IsZero() {
			cmd.Env = append(cmd.Env, envShardStart+"="+start.Format(time.RFC3339Nano))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("shard %d: %v\n%s", i, err, out)
			}
		}()
	}
	wg.Wait()
	out := make([]shardOutput, n)
	for i := range out {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("shard-%d.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// exactQuantile is the q-th percentile (0..100) of sorted values by
// HdrHistogram's definition: the value of rank q/100·n rounded to the
// nearest whole rank, at least 1.
func exactQuantile(sorted []int64, q float64) int64 {
	rank := int(q/100*float64(len(sorted)) + 0.5)
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// Shards run as separate processes and merged: every merged step's
// latency is the latency of one histogram of both shards' raw latencies,
// and its counts are the shards' sums.
func TestShardProcessesMerge(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A spread of latencies, so that the percentiles differ.
		if served.Add(1)%10 == 0 {
			time.Sleep(time.Millisecond)
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()

	for _, tt := range []struct {
		name  string
		n     int
		rates string
		start bool
	}{
		{"closed loop, 2 shards, one start", 2, "", true},
		{"open loop, 3 shards", 3, "300,600", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var start time.Time
			if tt.start {
				start = time.Now().Add(time.Second)
			}
			outs := runShards(t, srv.URL, tt.n, start, tt.rates)
			var in []ShardResult
			for i, o := range outs {
				in = append(in, ShardResult{Source: fmt.Sprintf("shard-%d.json", i), Ramp: o.Ramp})
			}
			// Merge them in an order other than their indexes'.
			slices.Reverse(in)
			m, err := MergeShards(in)
			if err != nil {
				t.Fatal(err)
			}
			if m.MergedShards != tt.n || len(m.Steps) != 2 {
				t.Fatalf("merged %d shards into %d steps, want %d and 2", m.MergedShards, len(m.Steps), tt.n)
			}
			for k, st := range m.Steps {
				var raw []int64
				var requests, successes int64
				var throughput float64
				workers := 0
				for _, o := range outs {
					raw = append(raw, o.Raw[k]...)
					p := o.Ramp.Steps[k]
					requests += p.Requests
					successes += p.Successes
					throughput += p.Throughput
					workers += p.Concurrency
				}
				if len(raw) == 0 {
					t.Fatalf("step %d: no latency recorded", k+1)
				}
				ref := hdrhistogram.New(histMin, histMax, histDigits)
				for _, v := range raw {
					ref.RecordValue(v)
				}
				if want := summarize(ref); st.Latency != want {
					t.Errorf("step %d: merged latency %+v, want that of one histogram of the shards' raw latencies %+v", k+1, st.Latency, want)
				}
				// And against the raw latencies themselves: HDR keeps
				// three significant digits.
				slices.Sort(raw)
				for _, q := range []struct {
					p   float64
					got time.Duration
				}{{50, st.Latency.P50}, {99, st.Latency.P99}, {100, st.Latency.Max}} {
					// A histogram reports the highest value of the
					// raw value's bucket: at most 1/1024 above it.
					want := exactQuantile(raw, q.p)
					if d := int64(q.got) - want; d < 0 || d > want/1024 {
						t.Errorf("step %d: merged p%g %v, the raw latencies' %v", k+1, q.p, q.got, time.Duration(want))
					}
				}
				t.Logf("step %d: %d latencies from %d shards, merged p99 %v", k+1, len(raw), tt.n, st.Latency.P99)
				if st.Requests != requests || st.Successes != successes {
					t.Errorf("step %d: %d requests, %d successes; the shards' sums are %d and %d", k+1, st.Requests, st.Successes, requests, successes)
				}
				if math.Abs(st.Throughput-throughput) > 1e-9*throughput {
					t.Errorf("step %d: throughput %v, the shards' sum %v", k+1, st.Throughput, throughput)
				}
				if tt.rates == "" {
					if want := []int{3, 4}[k]; st.Concurrency != want || workers != want {
						t.Errorf("step %d: %d workers merged (%d in the shards), want %d", k+1, st.Concurrency, workers, want)
					}
				} else if want := []float64{300, 600}[k]; st.Rate != want || st.Offered != want || st.ServiceLatency == nil {
					t.Errorf("step %d: rate %v, offered %v, service latency %v; want %v and a service latency", k+1, st.Rate, st.Offered, st.ServiceLatency, want)
				}
				if len(st.Shards) != tt.n {
					t.Errorf("step %d: %d shard parts, want %d", k+1, len(st.Shards), tt.n)
				}
				if !st.Valid {
					t.Logf("step %d invalid on this machine: %s", k+1, st.Invalid)
				}
			}
			if tt.start {
				// Their steps began together: one --start-at, a fixed
				// timeline. Allow for a busy machine starting a
				// process late.
				for k, st := range m.Steps {
					lo, hi := st.Shards[0].WindowStart, st.Shards[0].WindowStart
					for _, p := range st.Shards {
						lo, hi = minTime(lo, p.WindowStart), maxTime(hi, p.WindowStart)
					}
					if lag := hi.Sub(lo); lag > 100*time.Millisecond {
						t.Errorf("step %d: the shards' windows began %v apart", k+1, lag)
					}
					if want := start.Add(time.Duration(k)*StepPeriod(testWarmup, 300*time.Millisecond) + testWarmup); hi.Sub(want).Abs() > 100*time.Millisecond {
						t.Errorf("step %d: windows began at %v, the timeline says %v", k+1, hi, want)
					}
				}
			}
		})
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// funcShards runs n shards of one ramp of a Func at once, in this process.
func funcShards(t *testing.T, n int, cfg Config) []ShardResult {
	t.Helper()
	f := Func(func(context.Context) error { time.Sleep(50 * time.Microsecond); return nil })
	out := make([]ShardResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range out {
		c := cfg
		c.Shard = &Shard{Index: i, Count: n, Config: "cfg"}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := Ramp(context.Background(), f, c)
			out[i], errs[i] = ShardResult{Source: fmt.Sprintf("s%d.json", i), Ramp: r}, err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// clone deep-copies a shard result through JSON, as a file would hold it.
func clone(t *testing.T, s ShardResult) ShardResult {
	t.Helper()
	b, err := json.Marshal(s.Ramp)
	if err != nil {
		t.Fatal(err)
	}
	var r model.Ramp
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return ShardResult{Source: s.Source, Ramp: &r}
}

func TestMergeShardsRefuses(t *testing.T) {
	cfg := Config{Concurrency: []int{2, 4}, Warmup: -1, Duration: 50 * time.Millisecond}
	shards := funcShards(t, 2, cfg)
	if _, err := MergeShards(shards); err != nil {
		t.Fatalf("the shards as run: %v", err)
	}
	edit := func(i int, f func(r *model.Ramp)) []ShardResult {
		out := []ShardResult{clone(t, shards[0]), clone(t, shards[1])}
		f(out[i].Ramp)
		return out
	}
	three := funcShards(t, 3, Config{Concurrency: []int{3, 4}, Warmup: -1, Duration: 50 * time.Millisecond})
	for _, tt := range []struct {
		name string
		in   []ShardResult
		want string
	}{
		{"none", nil, "no shard results"},
		{"missing", shards[:1], "shard 1/2 is missing: 1 of 2 shards given"},
		{"two missing", three[1:2], "shards 0/3, 2/3 are missing"},
		{"duplicate", []ShardResult{shards[0], clone(t, shards[0])}, "s0.json and s0.json are both shard 0/2"},
		{"other count", []ShardResult{shards[0], three[1]}, "not shards of one ramp"},
		{"not a shard", edit(1, func(r *model.Ramp) { r.Shard = nil }), "s1.json: not a shard's result"},
		{"merged", edit(0, func(r *model.Ramp) { r.MergedShards = 2 }), "already merged"},
		{"fingerprint", edit(1, func(r *model.Ramp) { r.Shard.Config = "other" }), "their request settings (configuration fingerprints) differ"},
		{"steps", edit(1, func(r *model.Ramp) { r.Shard.Concurrency = []int{2, 8} }), "their steps differ"},
		{"duration", edit(1, func(r *model.Ramp) { r.StepDuration *= 2 }), "their step durations differ"},
		{"target", edit(1, func(r *model.Ramp) { r.Target = "http://elsewhere/" }), "their targets differ"},
		{"slo", edit(1, func(r *model.Ramp) { r.SLO = &model.RampSLO{Percentile: 99, Latency: time.Second} }), "their SLOs differ"},
		{"start", edit(1, func(r *model.Ramp) { r.Shard.Start = time.Unix(1e9, 0) }), "start times"},
		{"index", edit(1, func(r *model.Ramp) { r.Shard.Index = 5 }), "shard index 5 is not between 0 and 1"},
		{"no histograms", edit(1, func(r *model.Ramp) { r.Steps[1].Histograms = nil }), "s1.json step 2: no histograms"},
		{"no window", edit(0, func(r *model.Ramp) { r.Steps[0].WindowStart = time.Time{} }), "s0.json step 1: no window_start"},
		{"histogram count", edit(0, func(r *model.Ramp) { r.Steps[0].Latency.Count++ }), "the latency histogram holds"},
		{"corrupt histogram", edit(0, func(r *model.Ramp) { r.Steps[0].Histograms.Latency = "HISTFAAAAxyz" }), "s0.json step 1: latency histogram"},
		{"workers", edit(0, func(r *model.Ramp) { r.Steps[0].Concurrency = 5 }), "workers sum to 6, not the planned 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := MergeShards(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("error of several lines: %q", err)
			}
		})
	}
}

// A step is client-bound when any shard's generator was saturated, an
// interrupted shard limits the merge to the steps every shard ran, and
// shards that did not run together make their steps invalid.
func TestMergeShardsJudges(t *testing.T) {
	cfg := Config{Concurrency: []int{2, 4, 6}, Warmup: -1, Duration: 50 * time.Millisecond}
	shards := funcShards(t, 2, cfg)

	// Goroutines started together on a busy machine can begin their
	// windows some milliseconds apart, a large part of these 50 ms ones:
	// line the windows up, as --start-at would on longer steps.
	// A busy machine can also make a live step invalid on its own (its
	// generator saturated): this test is about how MergeShards judges,
	// so every step starts valid.
	for _, s := range shards {
		for k := range s.Ramp.Steps {
			s.Ramp.Steps[k].WindowStart = shards[0].Ramp.Steps[k].WindowStart
			s.Ramp.Steps[k].Valid, s.Ramp.Steps[k].Invalid = true, ""
		}
	}
	sat := []ShardResult{clone(t, shards[0]), clone(t, shards[1])}
	last := &sat[1].Ramp.Steps[2]
	last.Valid, last.Invalid = false, "the generator used 97% of 2 CPUs: it was saturated, so this step may have measured the generator"
	m, err := MergeShards(sat)
	if err != nil {
		t.Fatal(err)
	}
	if st := m.Steps[2]; st.Valid || !strings.HasPrefix(st.Invalid, "shard 1/2: the generator used 97%") {
		t.Errorf("a saturated shard's step merged as valid %v, %q", st.Valid, st.Invalid)
	}
	if !m.Steps[0].Valid || !m.Steps[1].Valid {
		t.Errorf("steps run together are invalid: %q, %q", m.Steps[0].Invalid, m.Steps[1].Invalid)
	}

	cut := []ShardResult{clone(t, shards[0]), clone(t, shards[1])}
	cut[1].Ramp.Steps = cut[1].Ramp.Steps[:1]
	cut[1].Ramp.Stopped = "interrupted during step 2 of 3"
	if m, err = MergeShards(cut); err != nil {
		t.Fatal(err)
	}
	if len(m.Steps) != 1 || !strings.Contains(m.Stopped, "shard 1/2 ran 1 of 3 steps (interrupted during step 2 of 3)") {
		t.Errorf("%d steps, stopped %q", len(m.Steps), m.Stopped)
	}

	// One after the other: their windows never overlapped.
	a := funcShards(t, 2, cfg)
	b := funcShards(t, 2, cfg)
	for _, s := range []ShardResult{a[0], b[1]} {
		for k := range s.Ramp.Steps {
			s.Ramp.Steps[k].Valid, s.Ramp.Steps[k].Invalid = true, ""
		}
	}
	if m, err = MergeShards([]ShardResult{a[0], b[1]}); err != nil {
		t.Fatal(err)
	}
	for _, st := range m.Steps {
		if st.Valid || !strings.Contains(st.Invalid, "did not load the target together") {
			t.Errorf("step %d of shards run apart: valid %v, %q", st.Index+1, st.Valid, st.Invalid)
		}
	}
}
