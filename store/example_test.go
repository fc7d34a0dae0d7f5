package store_test

import (
	"fmt"
	"os"

	"github.com/rigorbench/rigor/model"
	"github.com/rigorbench/rigor/store"
)

func Example() {
	root, _ := os.MkdirTemp("", "module")
	defer os.RemoveAll(root)
	s := store.Open(root)

	run := &model.Run{
		Kind:  model.KindRun,
		Sides: []model.Side{{Label: "current"}},
		Benchmarks: []model.Benchmark{{Name: "Build", Metrics: []model.Metric{{
			Unit:    "sec/op",
			Samples: []model.Sample{{Side: "current", Round: 1, Iters: 1000, Value: 8e-6}},
		}}}},
	}
	if err := s.Save("main", run); err != nil {
		fmt.Println(err)
		return
	}
	names, _ := s.Baselines()
	fmt.Println(names)

	base, _ := s.Load("main")
	cmp, _ := store.Against(base, "main", run)
	fmt.Println(cmp.Sides[0].Label, cmp.Sides[1].Label, cmp.Paired)
	// Output:
	// [main]
	// main current false
}
