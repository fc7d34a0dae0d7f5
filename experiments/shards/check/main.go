// Command check compares rigor merge's JSON report with the shards' own
// (rigor report DIR/run.json --format json, or the shards' stdout): the
// merged change, interval and raw p of every benchmark must equal its
// shard's, and the merged p_adjusted must be Holm's adjustment of every
// shard's raw p-values together, computed here. It prints the benchmarks
// called changed and exits 1 on any difference.
//
//	go run ./experiments/shards/check merged.json shard-0.json shard-1.json ...
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"math"
	"os"
	"sort"
)

type report struct {
	Options struct {
		Correction string `json:"correction"`
	} `json:"options"`
	Comparisons int `json:"comparisons"`
	Benchmarks  []struct {
		FullName      string `json:"full_name"`
		Pkg           string `json:"pkg"`
		Verdict       string `json:"verdict"`
		VerdictMetric string `json:"verdict_metric"`
		Metrics       []struct {
			Unit        string `json:"unit"`
			Context     string `json:"context"`
			DerivedFrom string `json:"derived_from"`
			Changes     []*struct {
				Estimate  float64  `json:"estimate"`
				Lo        float64  `json:"lo"`
				Hi        float64  `json:"hi"`
				P         *float64 `json:"p"`
				PAdjusted *float64 `json:"p_adjusted"`
				Test      string   `json:"test"`
				Verdict   string   `json:"verdict"`
				N         int      `json:"n"`
			} `json:"changes"`
		} `json:"metrics"`
	} `json:"benchmarks"`
}

// A change is one comparison of one benchmark's metric.
type change struct {
	est, lo, hi, p, adj float64
	test, verdict       string
	n                   int
	// family is true when the correction counts it: a metric that
	// decides (no context), not derived, not exact, with a p-value.
	family bool
}

// read returns a report's changes by "pkg.Name unit".
func read(path string) (report, map[string]change) {
	var r report
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	out := map[string]change{}
	for _, bm := range r.Benchmarks {
		for _, m := range bm.Metrics {
			if len(m.Changes) != 1 || m.Changes[0] == nil {
				continue
			}
			c := m.Changes[0]
			ch := change{est: c.Estimate, lo: c.Lo, hi: c.Hi, p: math.NaN(), adj: math.NaN(), test: c.Test, verdict: c.Verdict, n: c.N}
			if c.P != nil {
				ch.p = *c.P
			}
			if c.PAdjusted != nil {
				ch.adj = *c.PAdjusted
			}
			ch.family = m.Context == "" && m.DerivedFrom == "" && c.Test != "exact" && c.P != nil
			out[bm.Pkg+"."+bm.FullName+" "+m.Unit] = ch
		}
	}
	return r, out
}

// same compares floats that may be NaN.
func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// holm is Holm's step-down adjustment from its definition.
func holm(p []float64) []float64 {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	adj := make([]float64, len(p))
	run := 0.0
	for rank, i := range idx {
		run = math.Max(run, math.Min(1, float64(len(p)-rank)*p[i]))
		adj[i] = run
	}
	return adj
}

func main() {
	if len(os.Args) < 3 {
		log.Fatal("usage: check merged.json shard.json...")
	}
	mrep, merged := read(os.Args[1])
	var keys []string
	var raw []float64
	bad, rows := 0, 0
	for _, path := range os.Args[2:] {
		_, shard := read(path)
		for k, c := range shard {
			rows++
			g, ok := merged[k]
			switch {
			case !ok:
				fmt.Printf("%s: in %s, not merged\n", k, path)
				bad++
			case !same(g.est, c.est) || !same(g.lo, c.lo) || !same(g.hi, c.hi) || !same(g.p, c.p) || g.n != c.n:
				fmt.Printf("%s: merged %+v, shard %+v\n", k, g, c)
				bad++
			}
			if c.family {
				keys = append(keys, k)
				raw = append(raw, c.p)
			}
		}
	}
	if rows != len(merged) {
		fmt.Printf("the shards have %d comparisons, the merged report %d\n", rows, len(merged))
		bad++
	}
	// The correction over the whole suite: Holm over every raw p of
	// every shard's family, computed here.
	adj := holm(raw)
	if mrep.Options.Correction == "holm" {
		for i, k := range keys {
			if math.Abs(merged[k].adj-adj[i]) > 1e-12 {
				fmt.Printf("%s: merged p_adjusted %v, Holm over the shards' %d p-values %v\n", k, merged[k].adj, len(raw), adj[i])
				bad++
			}
		}
	}
	if len(raw) != mrep.Comparisons {
		fmt.Printf("the shards' families hold %d p-values, the merged correction %d\n", len(raw), mrep.Comparisons)
		bad++
	}
	var called []string
	for _, b := range mrep.Benchmarks {
		if b.Verdict != "improved" && b.Verdict != "regressed" {
			continue
		}
		k := b.Pkg + "." + b.FullName + " " + b.VerdictMetric
		c := merged[k]
		called = append(called, fmt.Sprintf("%s %s %+.1f%% [%+.1f%%, %+.1f%%] p=%.2g %s=%.2g (%s)", k, b.Verdict, 100*c.est, 100*c.lo, 100*c.hi, c.p, mrep.Options.Correction, c.adj, c.test))
	}
	sort.Strings(called)
	fmt.Printf("%d comparisons of %d shards against the merged report: %d differ; correction %s over %d p-values, checked by hand\n",
		rows, len(os.Args)-2, bad, mrep.Options.Correction, len(raw))
	for _, c := range called {
		fmt.Println("  called:", c)
	}
	if bad > 0 {
		os.Exit(1)
	}
}
