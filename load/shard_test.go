package load

import (
	"context"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The shards' workers sum to the step's, the first c%n shards taking one
// more, and no two shards differ by more than one.
func TestShareConcurrency(t *testing.T) {
	tests := []struct {
		c, n int
		want []int
	}{
		{4, 2, []int{2, 2}},
		{5, 2, []int{3, 2}},
		{7, 3, []int{3, 2, 2}},
		{8, 3, []int{3, 3, 2}},
		{3, 3, []int{1, 1, 1}},
		{1, 1, []int{1}},
		{64, 5, []int{13, 13, 13, 13, 12}},
	}
	for _, tt := range tests {
		for i, want := range tt.want {
			if got := ShareConcurrency(tt.c, i, tt.n); got != want {
				t.Errorf("ShareConcurrency(%d, %d, %d) = %d, want %d", tt.c, i, tt.n, got, want)
			}
		}
	}
	for c := 1; c <= 200; c++ {
		for n := 1; n <= c && n <= 17; n++ {
			sum := 0
			for i := 0; i < n; i++ {
				sum += ShareConcurrency(c, i, n)
			}
			if sum != c {
				t.Fatalf("the %d shards of %d workers sum to %d", n, c, sum)
			}
		}
	}
}

func TestShardedConfig(t *testing.T) {
	cfg := Config{Concurrency: []int{4, 5, 9}, Knee: 0.05, Shard: &Shard{Index: 1, Count: 2, Config: "x"}}
	got, plan := cfg.sharded()
	if want := []int{2, 2, 4}; !slicesEqual(got.Concurrency, want) {
		t.Errorf("shard 1/2 of %v runs %v, want %v", cfg.Concurrency, got.Concurrency, want)
	}
	if got.Knee != 0 || !got.KeepGoing {
		t.Errorf("a shard stops early (knee %v, keep going %v): only the merge can judge the knee", got.Knee, got.KeepGoing)
	}
	if plan.Index != 1 || plan.Count != 2 || !slicesEqual(plan.Concurrency, cfg.Concurrency) || plan.Config != "x" {
		t.Errorf("plan %+v does not record the whole ramp", plan)
	}
	open := Config{Rates: []float64{100, 5000}, Shard: &Shard{Index: 2, Count: 3}}
	got, _ = open.sharded()
	if want := []float64{100.0 / 3, 5000.0 / 3}; !slicesEqual(got.Rates, want) {
		t.Errorf("shard 2/3 of rates %v sends %v, want %v", open.Rates, got.Rates, want)
	}
}

func TestShardConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{Concurrency: []int{4}, Shard: &Shard{Index: 2, Count: 2}}, "index from 0"},
		{Config{Concurrency: []int{4}, Shard: &Shard{Index: -1, Count: 2}}, "index from 0"},
		{Config{Concurrency: []int{4}, Shard: &Shard{Index: 0, Count: 0}}, "index from 0"},
		{Config{Concurrency: []int{1, 2, 4}, Shard: &Shard{Index: 0, Count: 2}}, "concurrency 1 cannot be shared by 2 shards"},
	} {
		_, err := Ramp(context.Background(), Func(func(context.Context) error { return nil }), tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.cfg.Shard, err, tt.want)
		}
	}
}

// A histogram survives its encoding exactly, and one of another geometry
// is refused rather than merged with a loss of precision.
func TestHistEncoding(t *testing.T) {
	h := hdrhistogram.New(histMin, histMax, histDigits)
	for i := int64(1); i <= 100000; i++ {
		h.RecordValue(i*i%int64(time.Second) + 1)
	}
	got, err := decodeHist(encodeHist(h))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equals(h) {
		t.Error("the decoded histogram differs from the encoded one")
	}
	if got, err := decodeHist(""); err != nil || got.TotalCount() != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
	other := hdrhistogram.New(1, int64(time.Minute), 2)
	other.RecordValue(1000)
	enc, err := other.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeHist(string(enc)); err == nil || !strings.Contains(err.Error(), "not rigor's") {
		t.Errorf("a histogram of another geometry: %v, want it refused", err)
	}
	for _, bad := range []string{"x", "HISTFAAAA", strings.Repeat("A", maxEncodedHist+1)} {
		if _, err := decodeHist(bad); err == nil {
			t.Errorf("decodeHist(%.20q) decoded", bad)
		}
	}
}

func FuzzDecodeHist(f *testing.F) {
	h := hdrhistogram.New(histMin, histMax, histDigits)
	h.RecordValue(12345)
	h.RecordValue(int64(time.Second))
	f.Add(encodeHist(h))
	f.Add("")
	f.Add("HISTFAAAACl4nJNpmSzMwMDAzAABzFCaEUzOmNZg/wEi0NzIyMjsyiTAAQBqCwVx")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := decodeHist(s)
		if err != nil {
			return
		}
		// Whatever decodes has rigor's geometry and encodes back to the
		// same counts.
		again, err := decodeHist(encodeHist(got))
		if err != nil || !again.Equals(got) {
			t.Fatalf("re-encoding changed the histogram: %v", err)
		}
	})
}
