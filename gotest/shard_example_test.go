package gotest_test

import (
	"fmt"

	"github.com/rigorbench/rigor/gotest"
)

// Every machine computes the same split from the list alone; adding a
// benchmark moves no other.
func ExampleAssign() {
	keys := []string{"p.BenchmarkA", "p.BenchmarkB", "p.BenchmarkC", "p.BenchmarkD", "p.BenchmarkE"}
	before := gotest.Assign(keys, 2, nil)
	after := gotest.Assign(append(keys, "p.BenchmarkF"), 2, nil)
	for _, k := range keys {
		fmt.Println(k, before[k], after[k])
	}
	fmt.Println("p.BenchmarkF", after["p.BenchmarkF"])

	// Balanced by an earlier run's costs (seconds per round).
	costs := map[string]float64{"p.BenchmarkA": 8, "p.BenchmarkB": 7, "p.BenchmarkC": 6, "p.BenchmarkD": 5, "p.BenchmarkE": 4}
	by := gotest.Assign(keys, 2, costs)
	fmt.Println(by["p.BenchmarkA"], by["p.BenchmarkB"], by["p.BenchmarkC"], by["p.BenchmarkD"], by["p.BenchmarkE"])
	// Output:
	// p.BenchmarkA 1 1
	// p.BenchmarkB 1 1
	// p.BenchmarkC 1 1
	// p.BenchmarkD 0 0
	// p.BenchmarkE 0 0
	// p.BenchmarkF 0
	// 0 1 1 0 0
}

func ExampleParseShard() {
	i, n, err := gotest.ParseShard("2/4")
	fmt.Println(i, n, err)
	_, _, err = gotest.ParseShard("4/4")
	fmt.Println(err)
	// Output:
	// 2 4 <nil>
	// shard "4/4": want INDEX/COUNT with INDEX from 0 to COUNT-1 (0/4 to 3/4), COUNT at most 1000
}
