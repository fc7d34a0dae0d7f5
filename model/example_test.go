package model_test

import (
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/rigorbench/rigor/model"
)

func ExampleRead() {
	const out = `goos: linux
pkg: example.com/sort
BenchmarkSort/n=1000-8   	   20000	     61234 ns/op	    8192 B/op	       1 allocs/op
BenchmarkSort/n=1000-8   	   20000	     60876 ns/op	    8192 B/op	       1 allocs/op
`
	run, err := model.Read(strings.NewReader(out), "old.txt", "old")
	if err != nil {
		log.Fatal(err)
	}
	b := run.Benchmarks[0]
	fmt.Println(b.Key(), b.Name, b.Procs, b.Config["goos"])
	for _, m := range b.Metrics {
		fmt.Printf("%s %d %.5g\n", m.Unit, m.Better, m.Values("old"))
	}
	// Output:
	// example.com/sort.Sort/n=1000-8 Sort/n=1000 8 linux
	// sec/op -1 [6.1234e-05 6.0876e-05]
	// B/op -1 [8192 8192]
	// allocs/op -1 [1 1]
}

func ExampleMerge() {
	old, err := model.Read(strings.NewReader("BenchmarkA 100 50 ns/op\nBenchmarkOld 1 1 ns/op\n"), "old.txt", "")
	if err != nil {
		log.Fatal(err)
	}
	new, err := model.Read(strings.NewReader("BenchmarkA 200 25 ns/op\n"), "new.txt", "")
	if err != nil {
		log.Fatal(err)
	}
	run, err := model.Merge(old, new)
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range run.Benchmarks {
		m := b.Metric("sec/op")
		fmt.Printf("%s %.3g %.3g\n", b.Name, m.Values("old.txt"), m.Values("new.txt"))
	}
	// Output:
	// A [5e-08] [2.5e-08]
	// Old [1e-09] []
}

func ExampleWriteBenchfmt() {
	run := &model.Run{
		Kind:  model.KindHarness,
		Sides: []model.Side{{Label: "builder"}},
		Benchmarks: []model.Benchmark{{
			Name: "Build", Pkg: "example.com/benchlab",
			Metrics: []model.Metric{
				{Unit: "sec/op", Better: model.LowerIsBetter, Samples: []model.Sample{
					{Side: "builder", Round: 0, Iters: 149546, Value: 799.2e-9},
					{Side: "builder", Round: 1, Iters: 153391, Value: 798.8e-9},
				}},
				{Unit: "items/s", Better: model.HigherIsBetter, Samples: []model.Sample{
					{Side: "builder", Round: 0, Iters: 149546, Value: 1.25e6},
					{Side: "builder", Round: 1, Iters: 153391, Value: 1.26e6},
				}},
			},
		}},
	}
	if err := model.WriteBenchfmt(os.Stdout, run, "builder"); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Unit items/s better=higher
	// pkg: example.com/benchlab
	//
	// BenchmarkBuild 149546 7.992e-07 sec/op 1.25e+06 items/s
	// BenchmarkBuild 153391 7.988e-07 sec/op 1.26e+06 items/s
}

func ExampleReadJSON() {
	_, err := model.ReadJSON(strings.NewReader(`{"schema_version": 3, "benchmarks": []}`))
	fmt.Println(err)
	// Output:
	// schema_version 3 is newer than this rigor reads (2); upgrade rigor
}
