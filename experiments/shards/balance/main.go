// Command balance prints how rigor ab --shard would split the benchmarks
// of a results directory into N shards, by hashing and by that run's own
// costs (--shard-costs): per shard the top-level benchmarks, the rows
// and the cost of one round (seconds, as gotest.ShardCosts reads them),
// and the most loaded shard over the mean.
//
//	go run ./experiments/shards/balance -n 4 RESULTS_DIR
package main

import (
	"flag"
	"fmt"
	"log"
	"path/filepath"
	"strings"

	"github.com/rigorbench/rigor/gotest"
	"github.com/rigorbench/rigor/model"
)

func main() {
	n := flag.Int("n", 4, "shards")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: balance [-n N] RESULTS_DIR")
	}
	run, err := model.ReadFile(filepath.Join(flag.Arg(0), "run.json"), "")
	if err != nil {
		log.Fatal(err)
	}
	costs := gotest.ShardCosts([]*model.Run{run})
	rows := map[string]int{}
	for _, b := range run.Benchmarks {
		top, _, _ := strings.Cut(b.Name, "/")
		rows[b.Pkg+".Benchmark"+top]++
	}
	var keys []string
	for k := range costs {
		keys = append(keys, k)
	}
	for _, split := range []struct {
		name  string
		costs map[string]float64
	}{{"hash", nil}, {"costs", costs}} {
		a := gotest.Assign(keys, *n, split.costs)
		count, nrows, cost := make([]int, *n), make([]int, *n), make([]float64, *n)
		total := 0.0
		for _, k := range keys {
			count[a[k]]++
			nrows[a[k]] += rows[k]
			cost[a[k]] += costs[k]
			total += costs[k]
		}
		worst := 0.0
		for _, c := range cost {
			worst = max(worst, c)
		}
		fmt.Printf("%-5s benchmarks %v, rows %v, seconds per round %v: the most loaded shard %.2f times the mean\n",
			split.name, count, nrows, rounded(cost), worst/(total/float64(*n)))
	}
}

func rounded(v []float64) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = fmt.Sprintf("%.2f", x)
	}
	return out
}
