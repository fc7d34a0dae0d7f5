package gotest

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rigorbench/rigor/model"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in           string
		index, count int
		ok           bool
	}{
		{"0/1", 0, 1, true},
		{"0/4", 0, 4, true},
		{"3/4", 3, 4, true},
		{"999/1000", 999, 1000, true},
		{"4/4", 0, 0, false},
		{"-1/4", 0, 0, false},
		{"1/0", 0, 0, false},
		{"0/1001", 0, 0, false},
		{"1", 0, 0, false},
		{"1/", 0, 0, false},
		{"/4", 0, 0, false},
		{"a/b", 0, 0, false},
		{"1/4/5", 0, 0, false},
		{"+1/4", 0, 0, false},
		{" 1/4", 0, 0, false},
		{"", 0, 0, false},
	} {
		i, n, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || i != tc.index || n != tc.count {
			t.Errorf("ParseShard(%q) = %d, %d, %v; want %d, %d, ok %v", tc.in, i, n, err, tc.index, tc.count, tc.ok)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseShard(%q): error on several lines: %q", tc.in, err)
		}
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/4", "3/4", "4/4", "-1/2", "1/", "x", "0/1000", "00/01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, n, err := ParseShard(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error on several lines: %q", err)
			}
			return
		}
		if n < 1 || n > MaxShards || i < 0 || i >= n {
			t.Fatalf("ParseShard(%q) = %d, %d: out of range", s, i, n)
		}
		back := Shard{Index: i, Count: n}.String()
		if i2, n2, err := ParseShard(back); err != nil || i2 != i || n2 != n {
			t.Fatalf("%q -> %q does not parse back: %d, %d, %v", s, back, i2, n2, err)
		}
	})
}

// suite returns n benchmark keys in two packages.
func suite(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("example.com/m/p%d.BenchmarkB%03d", i%2, i)
	}
	return keys
}

func TestAssignCompleteDisjointDeterministic(t *testing.T) {
	keys := suite(200)
	for _, count := range []int{1, 2, 4, 7} {
		a := Assign(keys, count, nil)
		// The same inputs in another order give the same split.
		rev := make([]string, len(keys))
		for i, k := range keys {
			rev[len(keys)-1-i] = k
		}
		b := Assign(rev, count, nil)
		per := make([]int, count)
		for _, k := range keys {
			i, ok := a[k]
			if !ok || i < 0 || i >= count {
				t.Fatalf("count %d: %s assigned %d, %v", count, k, i, ok)
			}
			if b[k] != i {
				t.Errorf("count %d: %s is in shard %d, and %d when listed in reverse", count, k, i, b[k])
			}
			per[i]++ // each key is in exactly one shard: a map has one value
		}
		if len(a) != len(keys) {
			t.Errorf("count %d: %d keys assigned, want %d", count, len(a), len(keys))
		}
		// Binomial(200, 1/count): every shard within 4 standard
		// deviations of its share (a chance of about 6e-5 per shard for
		// a fair hash; these keys are fixed, so the test is too).
		mean := 200 / float64(count)
		sd := math.Sqrt(200 * (1 / float64(count)) * (1 - 1/float64(count)))
		for i, n := range per {
			if math.Abs(float64(n)-mean) > 4*sd+0.5 {
				t.Errorf("count %d: shard %d holds %d benchmarks, expected about %.0f ± %.1f", count, i, n, mean, sd)
			}
		}
	}
}

func TestAssignStableWhenAdding(t *testing.T) {
	keys := suite(200)
	for _, costs := range []map[string]float64{nil, costsOf(keys)} {
		before := Assign(keys, 4, costs)
		added := append(keys[:len(keys):len(keys)], "example.com/m/p0.BenchmarkNew", "example.com/m/p9.BenchmarkOther")
		after := Assign(added, 4, costs)
		for _, k := range keys {
			if before[k] != after[k] {
				t.Errorf("costs %v: adding two benchmarks moved %s from shard %d to %d", costs != nil, k, before[k], after[k])
			}
		}
		// Removing a benchmark without a cost moves no other either.
		removed := Assign(keys[1:], 4, nil)
		for _, k := range keys[1:] {
			if costs == nil && removed[k] != before[k] {
				t.Errorf("removing %s moved %s", keys[0], k)
			}
		}
	}
}

// costsOf gives keys costs 1, 2, ... in order.
func costsOf(keys []string) map[string]float64 {
	c := map[string]float64{}
	for i, k := range keys {
		c[k] = float64(i + 1)
	}
	return c
}

func TestAssignByCosts(t *testing.T) {
	// Worked by hand: costs 8, 7, 6, 5, 4 over 2 shards by the
	// longest-processing-time rule: 8->0, 7->1, 6->1 (7<8), 5->0 (8<13),
	// 4->0 (13=13, the lowest index): loads 17 and 13.
	costs := map[string]float64{"p.BenchmarkA": 8, "p.BenchmarkB": 7, "p.BenchmarkC": 6, "p.BenchmarkD": 5, "p.BenchmarkE": 4}
	keys := []string{"p.BenchmarkE", "p.BenchmarkD", "p.BenchmarkC", "p.BenchmarkB", "p.BenchmarkA", "p.BenchmarkNew"}
	got := Assign(keys, 2, costs)
	want := map[string]int{"p.BenchmarkA": 0, "p.BenchmarkB": 1, "p.BenchmarkC": 1, "p.BenchmarkD": 0, "p.BenchmarkE": 0,
		"p.BenchmarkNew": rendezvous("p.BenchmarkNew", 2)}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: shard %d, want %d", k, got[k], w)
		}
	}
	// 200 benchmarks costing 1..200 over 4 shards: LPT's loads are
	// within 4/3 of the best; here the total 20100 splits to within
	// the largest cost of even.
	keys = suite(200)
	a := Assign(keys, 4, costsOf(keys))
	load := make([]float64, 4)
	for i, k := range keys {
		load[a[k]] += float64(i + 1)
	}
	for i, l := range load {
		if math.Abs(l-20100.0/4) > 200 {
			t.Errorf("shard %d costs %v, want about %v", i, l, 20100.0/4)
		}
	}
}

func TestShardCosts(t *testing.T) {
	// Two rows of one top-level benchmark, two sides: the median batch
	// time of each side's samples, summed.
	run := &model.Run{Benchmarks: []model.Benchmark{
		{Pkg: "p", Name: "A/x", Metrics: []model.Metric{{Unit: "sec/op", Samples: []model.Sample{
			{Side: "old", Iters: 10, Value: 0.01}, {Side: "old", Iters: 10, Value: 0.02}, {Side: "old", Iters: 10, Value: 0.03},
			{Side: "new", Iters: 5, Value: 0.02},
		}}}},
		{Pkg: "p", Name: "A/y", Procs: 2, Metrics: []model.Metric{{Unit: "sec/op", Samples: []model.Sample{{Side: "old", Iters: 1, Value: 0.5}}}}},
		{Pkg: "p", Name: "B", Metrics: []model.Metric{{Unit: "B/op", Samples: []model.Sample{{Side: "old", Iters: 1, Value: 8}}}}},
	}}
	got := ShardCosts([]*model.Run{run})
	// A: old median 0.2 s, new 0.1 s, y 0.5 s.
	if len(got) != 1 || math.Abs(got["p.BenchmarkA"]-0.8) > 1e-12 {
		t.Errorf("ShardCosts = %v, want p.BenchmarkA: 0.8", got)
	}
}

func TestKeysDigest(t *testing.T) {
	a := KeysDigest([]string{"b", "a", "a"})
	if a != KeysDigest([]string{"a", "b"}) {
		t.Error("digest depends on order or repeats")
	}
	// sha256sum of printf 'a\nb\n'
	if want := "911169ddaaf146aff539f58c26c489af3b892dff0fe283c1c264c65ae5aa59a2"; a != want {
		t.Errorf("digest %s, want %s", a, want)
	}
}

func TestShardsFor(t *testing.T) {
	for _, tc := range []struct {
		budget, calibration, round time.Duration
		need, want                 int
	}{
		// (10 s + 20 × 5 s) / 60 s = 1.83: two shards.
		{60 * time.Second, 10 * time.Second, 5 * time.Second, 20, 2},
		// 20 × 1 s fits in 60 s: one.
		{60 * time.Second, 0, time.Second, 20, 1},
		// (30 s + 20 × 12 s) / 60 s = 4.5: five.
		{60 * time.Second, 30 * time.Second, 12 * time.Second, 20, 5},
		// Exactly four.
		{60 * time.Second, 0, 12 * time.Second, 20, 4},
		{0, 0, time.Second, 20, 0},
	} {
		if got := shardsFor(tc.budget, tc.calibration, tc.round, tc.need); got != tc.want {
			t.Errorf("shardsFor(%v, %v, %v, %d) = %d, want %d", tc.budget, tc.calibration, tc.round, tc.need, got, tc.want)
		}
	}
}
